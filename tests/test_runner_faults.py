"""``acpc-match`` when things go wrong around the matches: bad output folders, names an ACPC log
cannot hold, a full disk (a write error injected in the log writer, and a real tiny filesystem).

Each refusal must come before any match is played, in one clear line; a full disk must fail
every match with a clear message and still report every hand that reached the disk, as the
log files themselves show (read here line by line).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from acpc_arena.dealer.arena import runner
from acpc_arena.dealer.commands import match as match_cli
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.protocol.game import resolve_game_path
from tests.helpers.processes import program, small_tmpfs

FAST = ["--a", "call", "--b", "raise", "--quiet", "--no-plots", "--game", "kuhn"]


def acpc_match(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([program("acpc-match"), *args], capture_output=True, text=True, timeout=300)


def one_clear_line(stderr: str, *words: str) -> bool:
    lines = stderr.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("acpc-match: ") and all(w in lines[0] for w in words)


def test_out_under_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("mine\n")
    for out in (tmp_path / "file" / "run", tmp_path / "file"):
        done = acpc_match(*FAST, "--seeds", "1", "--hands", "5", "--out", str(out))
        assert done.returncode == 2, done.stderr
        assert one_clear_line(done.stderr, "output folder", str(out)), done.stderr
    assert (tmp_path / "file").read_text() == "mine\n"


@pytest.mark.parametrize("label", ["my|bot", "my:bot", "tab\tbot", "my #bot"])
def test_labels_a_log_cannot_hold_are_refused_before_playing(tmp_path: Path, label: str) -> None:
    out = tmp_path / "run"
    agent = program("acpc-agent")
    done = acpc_match(
        "--a", "call", "--b", label, "--b-cmd", f"{agent} call {{host}} {{port}} --game {{game}}",
        "--seeds", "1", "--hands", "5", "--quiet", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert one_clear_line(done.stderr, "cannot go in an ACPC log"), done.stderr
    assert not out.exists()  # refused before anything was played or written


def test_a_game_path_the_log_header_cannot_hold(tmp_path: Path) -> None:
    kuhn = resolve_game_path("kuhn").read_text()
    for folder in ("with space", "\u00e9t\u00e9"):
        game = tmp_path / folder / "kuhn.game"
        game.parent.mkdir()
        game.write_text(kuhn)
        done = acpc_match("--a", "call", "--b", "raise", "--seeds", "1", "--hands", "5", "--quiet",
                          "--out", str(tmp_path / "run"), "--game", str(game))  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert one_clear_line(done.stderr, "headers"), done.stderr
        assert not (tmp_path / "run").exists()


class FullDisk:
    """A disk with ``room`` bytes left for the match logs: the write that does not fit writes
    what fits and fails with ENOSPC, as a full disk does."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.failed_writes = 0

    def log_class(self) -> type[MatchLog]:
        disk = self

        class FullDiskLog(MatchLog):
            def write_line(self, line: str) -> None:
                self.write_text(line + "\n")

            def write_text(self, text: str) -> None:
                fits = text[: max(disk.room, 0)]
                disk.room -= len(text)
                super().write_text(fits)
                if len(fits) < len(text):
                    disk.failed_writes += 1
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return FullDiskLog


def logged_on_disk(log: Path) -> tuple[list[str], bool]:
    """The whole STATE lines of a log file, and whether it ends inside a line."""
    data = log.read_text()
    lines = data.split("\n")
    cut = lines.pop()
    return [line for line in lines if line.startswith("STATE")], cut != ""


def value_of(line: str, name: str) -> float:
    values, names = line.split(":")[4:6]
    return float(values.split("|")[names.split("|").index(name)])


def test_disk_full_mid_run_reports_what_was_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    disk = FullDisk(room=3000)  # about 60 kuhn hands: the first match fills the disk in its middle
    monkeypatch.setattr(runner, "MatchLog", disk.log_class())
    out = tmp_path / "run"
    code = match_cli.run([*FAST, "--seeds", "1,2", "--hands", "40", "--concurrency", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err and "no match played a hand" not in captured.err
    report = json.loads((out / "report.json").read_text())
    failures = report["failed"]
    assert len(failures) >= 3 and disk.failed_writes == len(failures)  # every match after the disk filled
    assert all(os.strerror(errno.ENOSPC) in failure for failure in failures)
    total = 0
    for match in report["matches"]:
        hands, cut = logged_on_disk(Path(match["log"]))
        assert match["hands"] == len(hands) > 0
        assert match["chips_a"] == pytest.approx(sum(value_of(line, "a-call") for line in hands))
        assert match["dropped_lines"] == (1 if cut else 0)
        total += len(hands)
    assert report["hands_played"] == total and 40 < total < 160
    assert any(match["dropped_lines"] for match in report["matches"])  # a line was cut by the full disk
    assert "incomplete last line left out" in captured.out


def test_disk_full_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner, "MatchLog", FullDisk(room=0).log_class())
    code = match_cli.run([*FAST, "--seeds", "1", "--hands", "10", "--out", str(tmp_path / "run")])
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert lines[0] == "acpc-match: no match played a hand"
    assert len(lines) == 3 and all(os.strerror(errno.ENOSPC) in line for line in lines[1:])


def test_report_that_cannot_be_written_still_prints_the_table(tmp_path: Path) -> None:
    out = tmp_path / "run"
    (out / "report.json").mkdir(parents=True)  # a folder where the report should go
    done = acpc_match(*FAST, "--seeds", "3", "--hands", "20", "--out", str(out))
    assert done.returncode == 1
    assert one_clear_line(done.stderr, "could not write", "report.json"), done.stderr
    assert "duplicate, 95% CI" in done.stdout
    assert len(logged_on_disk(out / "seed3-a1.log")[0]) == 20


@pytest.fixture
def tiny_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs."""
    with small_tmpfs(tmp_path / "tiny", "64k") as disk:
        yield disk


def test_a_real_full_disk(tiny_filesystem: Path) -> None:
    out = tiny_filesystem / "run"
    done = acpc_match(*FAST, "--seeds", "1", "--hands", "3000", "--out", str(out))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"match seed1-a1 failed: could not run the match: [Errno {errno.ENOSPC}]" in done.stdout
    hands = [logged_on_disk(out / f"seed1-a{seat}.log")[0] for seat in (1, 2)]
    assert 0 < len(hands[0]) + len(hands[1]) < 6000
    # The table counts every whole hand on the disk, seat by seat (columns: seed, A seat, hands).
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] == ["1"]]
    assert [(row[1], int(row[2])) for row in rows if row[1] in ("1", "2")] == [
        (str(seat), len(hands[seat - 1])) for seat in (1, 2) if hands[seat - 1]
    ]
