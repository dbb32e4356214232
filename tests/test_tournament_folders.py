"""acpc-tournament resuming from a folder someone else changed: real runs of a tiny round robin.

What the tournament never writes (a folder, FIFO or symbolic link where a log goes, a
file where a pair's folder goes) is refused before anything is touched, in one line.
A regular file in a log's place that is not that match's record (another pair's log,
forged values, the names swapped, cards its seed does not deal) is moved aside and the
match is played again: its agents are seeded, so the replayed log and the crosstable
are byte for byte those of the untouched run. Two runs on one folder: the second stops
at once, naming the first's process; the lock goes with that process, even killed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.processes import program, spawn, wait_until

GAME = "holdem.limit.2p.reverse_blinds"
RUN = [
    "--game",
    GAME,
    "--agents",
    "call,raise",
    "--agent",
    "any=random",
    "--seeds",
    "1",
    "--hands",
    "3",
    "--concurrency",
    "1",
]
"""The pairs' A is the name first in order: any (the random agent, its seed that of A) against call, then raise."""
LOG = Path("any-vs-call") / "seed1-a1.log"


def tournament(out: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [program("acpc-tournament"), "--out", str(out), "--quiet", "--no-plots", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("folders") / "t"
    done = tournament(out, *RUN)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def copy(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "t"
    shutil.copytree(played, out, symlinks=True)
    return out


def snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every path under ``folder`` (but the lock file), its kind, and a regular file's bytes."""
    seen: dict[str, tuple[str, bytes]] = {}
    for path in sorted(folder.rglob("*")):
        if path.name == "tournament.lock":
            continue
        if path.is_symlink():
            seen[str(path)] = ("link", os.readlink(path).encode())
        elif path.is_file():
            seen[str(path)] = ("file", path.read_bytes())
        else:
            seen[str(path)] = ("folder" if path.is_dir() else "other", b"")
    return seen


def log_as_folder(out: Path, outside: Path) -> Path:
    (out / LOG).unlink()
    (out / LOG).mkdir()
    return out / LOG


def log_as_fifo(out: Path, outside: Path) -> Path:
    (out / LOG).unlink()
    os.mkfifo(out / LOG)
    return out / LOG


def log_as_link_out_of_the_folder(out: Path, outside: Path) -> Path:
    target = outside / "elsewhere.log"
    target.write_bytes((out / LOG).read_bytes())  # the very log, kept elsewhere
    (out / LOG).unlink()
    (out / LOG).symlink_to(target)
    return out / LOG


def pair_folder_as_file(out: Path, outside: Path) -> Path:
    shutil.rmtree(out / LOG.parent)
    (out / LOG.parent).write_text("not a folder\n")
    return out / LOG.parent


REFUSED: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "log is a folder": (log_as_folder, "a folder, where the tournament keeps a file of its own"),
    "log is a FIFO": (log_as_fifo, "a FIFO, where the tournament keeps a file of its own"),
    "log links out": (log_as_link_out_of_the_folder, "a symbolic link, where the tournament keeps a file of its own"),
    "pair folder is a file": (pair_folder_as_file, "a regular file, where the tournament keeps a folder of its own"),
}


@pytest.mark.parametrize(("change", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_what_the_tournament_never_writes_is_refused_and_nothing_is_touched(
    copy: Path, tmp_path: Path, change: Callable[[Path, Path], Path], words: str
) -> None:
    path = change(copy, tmp_path)
    before = snapshot(copy)
    done = tournament(copy, *RUN)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"acpc-tournament: {path} is {words}: move it away, or give another --out"]
    assert done.stdout == ""
    assert snapshot(copy) == before


def changed_log(out: Path, change: Callable[[str], str]) -> bytes:
    """Rewrite the log at ``LOG`` with ``change`` (which must change it); returns the bytes written."""
    text = (out / LOG).read_text()
    changed = change(text)
    assert changed != text
    (out / LOG).write_text(changed)
    return changed.encode()


def another_pairs_log(out: Path) -> bytes:
    """any-vs-raise's log of the same match (seed and seating), a finished and valid log of another pair."""
    return changed_log(out, lambda _: (out / "any-vs-raise" / LOG.name).read_text())


def forged_values(out: Path) -> bytes:
    """Hand 0's values moved 10 chips towards b-call, and the SCORE line's totals with them (so they still sum)."""

    def forge(text: str) -> str:
        lines = text.split("\n")
        index = next(i for i, line in enumerate(lines) if line.startswith("STATE:0:"))
        fields = lines[index].split(":")
        names = fields[5].split("|")
        values = [float(v) for v in fields[4].split("|")]
        for position, name in enumerate(names):
            values[position] += 10 if name == "b-call" else -10
        fields[4] = "|".join(f"{v:g}" for v in values)
        lines[index] = ":".join(fields)
        score = next(i for i, line in enumerate(lines) if line.startswith("SCORE:"))
        _, totals, seat_names = lines[score].split(":")
        pairs = zip(totals.split("|"), seat_names.split("|"), strict=True)
        moved = [float(total) + (10 if name == "b-call" else -10) for total, name in pairs]
        lines[score] = "SCORE:" + "|".join(f"{t:g}" for t in moved) + ":" + seat_names
        return "\n".join(lines)

    return changed_log(out, forge)


def names_swapped(out: Path) -> bytes:
    """a-any and b-call exchanged everywhere: the log reads well, but the players sit in each other's seats."""
    return changed_log(out, lambda text: text.replace("a-any", "@").replace("b-call", "a-any").replace("@", "b-call"))


def folded_hands_card_changed(out: Path) -> bytes:
    """In a hand that ended in a fold (its values do not depend on the cards), a hole card replaced by one
    not in the hand: it still reads well, but seed 1 did not deal it."""

    def change(text: str) -> str:
        lines = text.split("\n")
        index = next(
            i for i, line in enumerate(lines) if line.startswith("STATE:") and line.split(":")[2].endswith("f")
        )
        fields = lines[index].split(":")
        cards = fields[3]
        spare = next(c for c in ("2c", "2d", "2h", "2s", "3c") if c not in cards)
        fields[3] = spare + cards[2:]
        lines[index] = ":".join(fields)
        return "\n".join(lines)

    return changed_log(out, change)


REPLAYED: dict[str, tuple[Callable[[Path], bytes], str]] = {
    "another pair's log": (
        another_pairs_log,
        ": its players by seat are a-any|b-raise; seed1-a1 seats a-any|b-call",
    ),
    "forged values": (forged_values, ", line 5: values -60|60 do not follow from the hand (-50|50)"),
    "names swapped": (names_swapped, ": its players by seat are b-call|a-any; seed1-a1 seats a-any|b-call"),
    "a card not dealt": (folded_hands_card_changed, ": hand 1's cards are not those seed 1 deals"),
}


@pytest.mark.parametrize(("change", "words"), REPLAYED.values(), ids=REPLAYED.keys())
def test_a_log_that_is_not_its_matchs_record_is_set_aside_and_the_match_played_again(
    played: Path, copy: Path, change: Callable[[Path], bytes], words: str
) -> None:
    changed = change(copy)
    done = tournament(copy, *RUN)
    assert done.returncode == 0, done.stderr
    told, summary = done.stderr.splitlines()
    assert told == (
        f"acpc-tournament: {copy / LOG}{words}; moved aside to seed1-a1.log.rejected-1, the match is played again"
    )
    assert "6 matches (5 already played" in summary and "playing 1 " in summary
    assert (copy / f"{LOG}.rejected-1").read_bytes() == changed
    assert (copy / LOG).read_bytes() == (played / LOG).read_bytes()
    assert (copy / "crosstable.json").read_bytes() == (played / "crosstable.json").read_bytes()
    reports = [(out / LOG.parent / "report.json").read_text().replace(str(out), "OUT") for out in (copy, played)]
    assert reports[0] == reports[1]  # but for the logs' paths


def test_the_forged_values_are_those_of_the_played_hand(played: Path) -> None:
    """The values the forged case expects (-50|50) by hand: hand 0 of seed 1 gives a-any (position 0, the
    big blind of 10 in this reverse-blinds game) 8s2h and b-call Kd5c, the board 7h Ad Td 4s Kc; crc/rc/cc/rc
    puts 20, then 10 (flop), 0 (turn) and 20 (river) in from each: 50 each, and b-call's pair of kings beats
    a-any's ace high."""
    hand = next(line for line in (played / LOG).read_text().split("\n") if line.startswith("STATE:0:"))
    assert hand.split(":")[2:] == ["crc/rc/cc/rc", "8s2h|Kd5c/7hAdTd/4s/Kc", "-50|50", "a-any|b-call"]


def test_a_log_past_the_bound_on_a_logs_bytes_is_set_aside_and_the_match_played_again(played: Path, copy: Path) -> None:
    """A finished log grown past ``ACPC_ARENA_MAX_LOG_BYTES`` (here 1000) by a long comment line is not read."""
    text = (copy / LOG).read_text()
    first_line = text.index("\n") + 1
    (copy / LOG).write_text(text[:first_line] + "# " + "x" * 1000 + "\n" + text[first_line:])
    assert all(len(log.read_bytes()) < 1000 for log in played.glob("*/*.log"))
    done = tournament(copy, *RUN, env={**os.environ, "ACPC_ARENA_MAX_LOG_BYTES": "1000"})
    assert done.returncode == 0, done.stderr
    told, summary = done.stderr.splitlines()
    assert "6 matches (5 already played" in summary
    assert told.startswith(f"acpc-tournament: {copy / LOG}") and "ACPC_ARENA_MAX_LOG_BYTES" in told
    assert told.endswith("; moved aside to seed1-a1.log.rejected-1, the match is played again")
    assert (copy / LOG).read_bytes() == (played / LOG).read_bytes()
    assert (copy / "crosstable.json").read_bytes() == (played / "crosstable.json").read_bytes()


def test_a_second_rejection_takes_the_next_number(played: Path, copy: Path) -> None:
    (copy / f"{LOG}.rejected-1").write_text("an earlier one\n")
    names_swapped(copy)
    done = tournament(copy, *RUN)
    assert done.returncode == 0, done.stderr
    assert "moved aside to seed1-a1.log.rejected-2" in done.stderr
    assert (copy / f"{LOG}.rejected-1").read_text() == "an earlier one\n"
    assert (copy / "crosstable.json").read_bytes() == (played / "crosstable.json").read_bytes()


def test_two_runs_at_once_the_second_stops_and_the_lock_dies_with_the_first(tmp_path: Path) -> None:
    """A slow bot (``call`` after 5 s) keeps the first run busy; call against call is exactly 0 in duplicate:
    both play the same actions whatever their cards, and each seating's winner holds the other's cards."""
    out = tmp_path / "t"
    agent = shlex.quote(program("acpc-agent"))
    slow = f"slow=sh -c 'sleep 5; exec {agent} call {{host}} {{port}} --game {{game}}'"
    command = [program("acpc-tournament"), "--out", str(out), "--quiet", "--no-plots", "--game", GAME]
    command += ["--agents", "call", "--cmd", slow, "--seeds", "1", "--hands", "3", "--workers", "1"]
    first = spawn(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        lock = out / "tournament.lock"
        settings = out / "tournament.json"  # written (whole) just after the lock is taken

        def first_is_under_way() -> bool:
            assert first.poll() is None, first.communicate()
            return lock.exists() and lock.read_text().strip() == str(first.pid) and settings.exists()

        wait_until(first_is_under_way, 60, "the first run to take the lock")
        before = snapshot(out)
        second = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert first.poll() is None, "the first run ended before the second was refused: make the bot slower"
        assert second.returncode == 1
        assert second.stderr.splitlines() == [
            f"acpc-tournament: {out} is in use by process {first.pid} (another run of this tournament): "
            "wait for it to end, or give another --out"
        ]
        assert snapshot(out) == before
        assert lock.read_text() == f"{first.pid}\n"
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate()
    third = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert third.returncode == 0, third.stderr
    assert "2 matches (0 already played" in third.stderr
    table = json.loads((out / "crosstable.json").read_text())
    assert table["crosstable"]["call"]["slow"] == {"mbb_per_hand": 0.0, "ci95": [0.0, 0.0], "pairs": 3}
    for log in sorted((out / "call-vs-slow").glob("*.log")):
        text = log.read_text()
        assert text.count("# name/game/hands/seed") == 1 and len(re.findall(r"^STATE:", text, re.M)) == 3
