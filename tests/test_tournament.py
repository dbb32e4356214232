"""acpc-tournament: real round robins of shipped agents in worker processes (and on a local Ray).

The crosstable's figures are recomputed here from the logs' text alone (the STATE
lines' values, the duplicate pairs by hand number, mean ± 1.96 standard errors, the normal quantile to full precision);
``call`` against ``raise`` is exactly 0 in duplicate by a hand argument: neither
looks at its cards, so every hand's pot is the same in both seatings and each
seating's winner holds the other's cards.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.fanout import MatchJob, job_groups
from acpc_arena.dealer.arena.runner import RunSpec
from acpc_arena.dealer.arena.tournament import Entrant, Tournament, match_finished
from acpc_arena.protocol.game import load_game, resolve_game_path
from tests.helpers.processes import program, spawn

GAME = "holdem.limit.2p.reverse_blinds"
BIG_BLIND = 10  # "blind = 10 5" in the game file
SEEDS = (1, 2)
HANDS = 40
LONG = 2000  # hands a match where a run must still be playing when it is interrupted
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def tournament(out: Path, *args: str, timeout: float = 300, plots: bool = False) -> subprocess.CompletedProcess[str]:
    """``acpc-tournament`` on ``GAME``, without its heatmap unless ``plots`` (``played``'s is checked)."""
    command = [program("acpc-tournament"), "--out", str(out), "--game", GAME, "--quiet", *args]
    command += [] if plots else ["--no-plots"]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def standard(
    out: Path, *more: str, agents: str = "random,call,raise", plots: bool = False
) -> subprocess.CompletedProcess[str]:
    seeds = ",".join(map(str, SEEDS))
    args = ("--agents", agents, "--seeds", seeds, "--hands", str(HANDS), "--workers", "2", *more)
    return tournament(out, *args, plots=plots)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tournament") / "t"
    done = standard(out, plots=True)
    assert done.returncode == 0, done.stderr
    return out


def values_of(log: Path, player: str) -> list[float]:
    """``player``'s result in each hand, read from the STATE lines' text."""
    values = []
    for line in log.read_text().splitlines():
        if line.startswith("STATE:"):
            fields = line.split(":")
            names, results = fields[-1].split("|"), fields[-2].split("|")
            values.append(float(results[names.index(player)]))
    return values


def duplicate_from_logs(folder: Path, first: str) -> tuple[float, float, float]:
    """(mbb/h, low, high) of ``first`` (side A) over the folder's seeds, from the logs' text."""
    samples = []
    for seed in SEEDS:
        one, two = (values_of(folder / f"seed{seed}-a{seat}.log", f"a-{first}") for seat in (1, 2))
        samples += [(x + y) / 2 for x, y in zip(one, two, strict=True)]
    data = np.array(samples) * 1000 / BIG_BLIND
    half = Z95 * data.std(ddof=1) / math.sqrt(len(data))
    return float(data.mean()), float(data.mean() - half), float(data.mean() + half)


def test_the_crosstable_is_each_pairs_duplicate_result_read_from_its_logs(played: Path) -> None:
    table = json.loads((played / "crosstable.json").read_text())
    assert table["game"] == GAME and table["seeds"] == list(SEEDS) and table["hands"] == HANDS
    for first, second in [("call", "random"), ("raise", "random"), ("call", "raise")]:  # A: the name first in order
        mean, low, high = duplicate_from_logs(played / f"{first}-vs-{second}", first)
        cell, mirror = table["crosstable"][first][second], table["crosstable"][second][first]
        assert cell["mbb_per_hand"] == pytest.approx(mean, abs=1e-9)
        assert cell["ci95"] == pytest.approx([low, high], abs=1e-9)
        assert cell["pairs"] == len(SEEDS) * HANDS
        assert mirror["mbb_per_hand"] == pytest.approx(-mean, abs=1e-9)
        assert mirror["ci95"] == pytest.approx([-high, -low], abs=1e-9)
    assert table["crosstable"]["call"]["raise"]["mbb_per_hand"] == 0
    assert table["crosstable"]["call"]["raise"]["ci95"] == [0, 0]
    for name, row in table["crosstable"].items():
        cells = [c for c in row.values() if c is not None]
        assert table["average"][name]["mbb_per_hand"] == pytest.approx(np.mean([c["mbb_per_hand"] for c in cells]))
        halves = [(c["ci95"][1] - c["ci95"][0]) / 2 for c in cells]
        expected = math.sqrt(sum(h * h for h in halves)) / len(cells)
        low, high = table["average"][name]["ci95"]
        assert (high - low) / 2 == pytest.approx(expected)
    averages = [table["average"][name]["mbb_per_hand"] for name in table["entrants"]]
    assert averages == sorted(averages, reverse=True)


def test_the_table_is_printed_in_markdown_and_drawn(played: Path) -> None:
    lines = (played / "crosstable.md").read_text().splitlines()
    table = json.loads((played / "crosstable.json").read_text())
    assert lines[0] == "| agent | " + " | ".join(f"`{n}`" for n in table["entrants"]) + " | average |"
    assert len(lines) == 2 + 3
    row = next(line for line in lines if line.startswith("| `call` |"))
    assert "+0 ±0" in row  # against raise: never "-0"
    assert (played / "crosstable.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cells_do_not_depend_on_the_order_of_the_entrants(played: Path, tmp_path: Path) -> None:
    """The same tournament with its entrants given the other way round: the same crosstable, cell for cell, and
    the same pairs' folders (each pair's A is the name first in order, whatever the listing, and the agents'
    seeds follow A and B)."""
    done = standard(tmp_path / "t", agents="raise,call,random")
    assert done.returncode == 0, done.stderr
    mine, before = (json.loads((out / "crosstable.json").read_text()) for out in (tmp_path / "t", played))
    assert mine["crosstable"] == before["crosstable"] and mine["average"] == before["average"]
    assert sorted(p.name for p in (tmp_path / "t").glob("*-vs-*")) == [
        "call-vs-raise",
        "call-vs-random",
        "raise-vs-random",
    ]


def test_its_logs_are_those_of_acpc_match(played: Path, tmp_path: Path) -> None:
    seeds = ",".join(map(str, SEEDS))
    command = [program("acpc-match"), "--a", "raise", "--b", "random", "--seeds", seeds, "--hands", str(HANDS)]
    done = subprocess.run([*command, "--out", str(tmp_path), "--quiet", "--no-plots"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for log in sorted(tmp_path.glob("*.log")):
        assert log.read_bytes() == (played / "raise-vs-random" / log.name).read_bytes()


def test_a_second_run_plays_only_what_is_missing_and_new_entrants(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "t"
    shutil.copytree(played, out)
    removed, cut = out / "call-vs-random" / "seed1-a2.log", out / "call-vs-raise" / "seed2-a1.log"
    removed_text, cut_text = removed.read_bytes(), cut.read_bytes()
    removed.unlink()
    cut.write_bytes(cut_text[: cut_text.rfind(b"SCORE:")])  # every hand, but the match never ended
    assert not match_finished(cut, HANDS)
    done = standard(out)
    assert done.returncode == 0, done.stderr
    assert "12 matches (10 already played" in done.stderr and "playing 2 " in done.stderr
    assert removed.read_bytes() == removed_text and cut.read_bytes() == cut_text
    assert (out / "crosstable.json").read_text() == (played / "crosstable.json").read_text()

    done = standard(out, agents="random,call,raise,rule")
    assert done.returncode == 0, done.stderr
    assert "24 matches (12 already played" in done.stderr
    table = json.loads((out / "crosstable.json").read_text())
    assert table["crosstable"]["rule"]["random"] is not None
    assert (
        table["crosstable"]["random"]["call"]
        == json.loads((played / "crosstable.json").read_text())["crosstable"]["random"]["call"]
    )


def test_other_settings_in_an_existing_folder_are_refused(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "t"
    shutil.copytree(played, out)
    done = tournament(out, "--agents", "random,call,raise", "--seeds", "1,2", "--hands", "41")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"acpc-tournament: {out} holds a tournament with other settings (hands differ): "
        "run it with its own settings to resume it, or give another --out"
    ]
    done = tournament(out, "--agent", "call=raise", "--agents", "random", "--seeds", "1,2", "--hands", str(HANDS))
    assert done.returncode == 2 and "entrant call differ" in done.stderr


def test_ctrl_c_keeps_the_finished_matches_and_the_same_command_finishes_the_rest(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "t"
    seeds = ",".join(map(str, SEEDS))
    command = [
        program("acpc-tournament"),
        "--out",
        str(out),
        "--game",
        GAME,
        "--quiet",
        "--agents",
        "random,call,raise",
    ]
    command += ["--seeds", seeds, "--hands", str(LONG), "--workers", "1", "--no-plots"]
    process = spawn(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a process started with SIGINT ignored (as this suite may be) keeps ignoring it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not any(match_finished(log, LONG) for log in out.glob("*/*.log")) and time.monotonic() < deadline:
        time.sleep(0.1)
    waited = time.monotonic() - (deadline - 120)
    assert process.poll() is None, f"the run ended before a first finished match was seen ({waited:.1f} s)"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    lines = err.strip().splitlines()
    assert lines[-1].startswith("acpc-tournament: interrupted by SIGINT: ")
    assert "run the same command again" in lines[-1]
    assert "Traceback" not in err
    finished = [log for log in out.glob("*/*.log") if match_finished(log, LONG)]
    assert 1 <= len(finished) < 12
    kept = {log: log.read_bytes() for log in finished}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"({len(finished)} already played" in done.stderr
    assert all(log.read_bytes() == text for log, text in kept.items())
    assert sum(match_finished(log, LONG) for log in out.glob("*/*.log")) == 12


def test_a_failing_bot_fails_its_matches_and_the_rest_is_played(tmp_path: Path) -> None:
    done = tournament(
        tmp_path / "t",
        "--agents",
        "random,call",
        "--cmd",
        "broken=false {host} {port}",
        "--seeds",
        "1",
        "--hands",
        "20",
    )
    assert done.returncode == 1
    failures = [line for line in done.stderr.splitlines() if "failed" in line]
    assert len(failures) == 4 and all("broken" in line and "exited with status 1" in line for line in failures)
    table = json.loads((tmp_path / "t" / "crosstable.json").read_text())
    assert table["crosstable"]["random"]["call"] is not None
    assert table["crosstable"]["random"]["broken"] is None and table["average"]["broken"] is None


def test_entrants_are_named_uniquely_and_a_game_of_two() -> None:
    assert Entrant.parse("cfr-argmax=cfr --argmax") == Entrant("cfr-argmax", agent="cfr", args=("--argmax",))
    assert Entrant.parse("rule --threshold 0.7") == Entrant("rule", agent="rule", args=("--threshold", "0.7"))
    assert Entrant.parse_command("mine=./bot {host} {port}") == Entrant("mine", command="./bot {host} {port}")
    with pytest.raises(ValueError, match="NAME=COMMAND"):
        Entrant.parse_command("./bot {host} {port}")
    with pytest.raises(ValueError, match="letters, digits"):
        Entrant("a b", agent="call")
    with pytest.raises(ValueError, match="without '-vs-'"):
        Entrant("x-vs-y", agent="call")  # pair folders are <first>-vs-<second>
    game = load_game(GAME)
    common = {"game_file": GAME, "game": game, "game_path": resolve_game_path(GAME), "seeds": (1,), "hands": 10}
    with pytest.raises(ValueError, match="names must differ: call"):
        Tournament(entrants=(Entrant("call", agent="call"),) * 2, out_dir=Path("x"), **common)  # type: ignore[arg-type]
    three = "kuhn.limit.3p"
    with pytest.raises(ValueError, match="two-player games"):
        Tournament(
            entrants=(Entrant("call", agent="call"), Entrant("raise", agent="raise")), game_file=three,
            game=load_game(three), game_path=resolve_game_path(three), seeds=(1,), hands=10, out_dir=Path("x"),
        )  # fmt: skip


@pytest.mark.slow  # make test-slow: a local Ray starts in ~15 s; make test plays acpc-match on Ray (below)
def test_on_a_local_ray_the_logs_and_the_table_are_those_of_the_local_run(played: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = tmp_path / "t"
    done = standard(out, "--ray")
    assert done.returncode == 0, done.stderr
    assert "on Ray (local)" in done.stderr
    logs = sorted(p.relative_to(played) for p in played.glob("*/*.log"))
    assert logs == sorted(p.relative_to(out) for p in out.glob("*/*.log")) and len(logs) == 12
    assert all((out / log).read_bytes() == (played / log).read_bytes() for log in logs)
    assert (out / "crosstable.json").read_text() == (played / "crosstable.json").read_text()


def test_its_metrics_count_each_pairs_hands_and_give_the_duplicate_result(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [program("acpc-tournament"), "--out", str(tmp_path / "t"), "--game", GAME, "--quiet", "--no-plots"]
    command += ["--agents", "random,call,raise", "--seeds", "1,2", "--hands", str(HANDS), "--workers", "2"]
    process = spawn(
        [*command, "--metrics-port", str(port), "--metrics-linger", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wanted = 'acpc_match_duplicate_mbb_per_hand{a="a-call",b="b-raise"} 0.0'
    scraped = ""
    deadline = time.monotonic() + 120
    try:
        while wanted not in scraped and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
            with contextlib.suppress(OSError):
                scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    finally:
        process.kill()
        process.communicate()
    assert wanted in scraped
    matches = 2 * len(SEEDS)
    for pair in ('a="a-call",b="b-random"', 'a="a-raise",b="b-random"', 'a="a-call",b="b-raise"'):
        assert f"acpc_match_hands_total{{{pair}}} {float(matches * HANDS)}" in scraped
        assert f"acpc_match_hands_planned{{{pair}}} {float(matches * HANDS)}" in scraped
        assert f'acpc_match_matches_total{{{pair},status="finished"}} {float(matches)}' in scraped
        assert f"acpc_match_duplicate_pairs{{{pair}}} {float(len(SEEDS) * HANDS)}" in scraped
    assert 'game="holdem.limit.2p.reverse_blinds"' in scraped and 'seeds="1,2"' in scraped


@pytest.mark.parametrize("jobs", [("--workers", "2"), ("--ray", "--concurrency", "2")], ids=["workers", "ray"])
def test_acpc_match_as_jobs_writes_the_logs_and_report_of_the_run_here(
    played: Path, tmp_path: Path, jobs: tuple[str, ...]
) -> None:
    if "--ray" in jobs:
        pytest.importorskip("ray")
    seeds = ",".join(map(str, SEEDS))
    command = [program("acpc-match"), "--a", "raise", "--b", "random", "--seeds", seeds, "--hands", str(HANDS)]
    done = subprocess.run(
        [*command, "--out", str(tmp_path), "--quiet", "--no-plots", *jobs],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    logs = sorted(tmp_path.glob("*.log"))
    assert len(logs) == 2 * len(SEEDS)
    assert all(log.read_bytes() == (played / "raise-vs-random" / log.name).read_bytes() for log in logs)
    mine = json.loads((tmp_path / "report.json").read_text())
    cell = json.loads((played / "crosstable.json").read_text())["crosstable"]["raise"]["random"]
    assert mine["mbb_per_hand"] == cell["mbb_per_hand"] and mine["ci95"] == cell["ci95"]


def test_job_groups_hold_one_runs_matches_in_even_shares_in_order(tmp_path: Path) -> None:
    """Two runs' jobs interleaved: 6 and 2 matches over 2 workers make groups of ceil(8 / 2) = 4 at most, each
    of one run; 40 matches over 2 workers are capped at 8 a group."""
    game = load_game(GAME)

    def run(a: str, seeds: tuple[int, ...]) -> RunSpec:
        return RunSpec(
            a=Contestant("a", agent=a), b=Contestant("b", agent="call"), game_file=GAME, game=game,
            game_path=resolve_game_path(GAME), seeds=seeds, hands=HANDS, out_dir=tmp_path,
        )  # fmt: skip

    first, second = run("random", (1, 2, 3)), run("raise", (1,))
    jobs = [MatchJob(first, match, "") for match in first.matches()]
    jobs[1:1] = [MatchJob(second, match, "") for match in second.matches()]
    groups = job_groups(jobs, 2)
    assert [[(job.spec.a.agent, job.match.name) for job in group] for group in groups] == [
        [("random", "seed1-a1"), ("random", "seed1-a2"), ("random", "seed2-a1"), ("random", "seed2-a2")],
        [("random", "seed3-a1"), ("random", "seed3-a2")],
        [("raise", "seed1-a1"), ("raise", "seed1-a2")],
    ]
    many = run("random", tuple(range(20)))
    assert [len(group) for group in job_groups([MatchJob(many, m, "") for m in many.matches()], 2)] == [8] * 5
