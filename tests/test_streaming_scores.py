"""Scoring in constant memory: a log is read once, line by line, keeping each seat's result in a compact
array; the figures equal numpy's over the values read back from the logs here by a parser of a few lines;
the hands are read again from the file where they are wanted; and ``acpc-match``'s peak memory does not
grow with the hands but by those arrays (``make test-slow``)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from acpc_arena.dealer.arena import estimates
from acpc_arena.dealer.commands import report as report_cli
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.match_log import read_log
from tests.helpers.processes import program

BIG_BLIND = 10  # holdem.limit.2p.reverse_blinds
Z = NormalDist().inv_cdf(0.975)


def values_by_hand(log: Path, name: str) -> list[float]:
    """``name``'s result in every hand, off the log's ``STATE:id:betting:cards:values:names`` lines."""
    values = []
    for line in log.read_text().splitlines():
        if line.startswith("STATE:"):
            fields = line.split(":")
            values.append(float(fields[4].split("|")[fields[5].split("|").index(name)]))
    return values


def figures(samples: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% interval in mbb/h: numpy's mean ± Z sample standard errors."""
    mean = float(np.mean(samples))
    half = Z * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
    scale = 1000 / BIG_BLIND
    return mean * scale, (mean - half) * scale, (mean + half) * scale


def reported(entry: dict[str, Any]) -> tuple[float, float, float]:
    return entry["mbb_per_hand"], entry["ci95"][0], entry["ci95"][1]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random against call, seeds 1 and 2, 3,000 hands a match, in process."""
    out = tmp_path_factory.mktemp("streaming") / "run"
    done = subprocess.run(
        [program("acpc-match"), "--a", "random", "--b", "call", "--seeds", "1,2", "--hands", "3000",
         "--game", "holdem.limit.2p.reverse_blinds", "--out", str(out), "--in-process", "--no-plots", "--quiet"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def report_of(run: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    """``acpc-report`` (in this process) on the run's logs: its JSON and its table."""
    report_cli.main([*map(str, sorted(run.glob("seed*.log"))), "--a", "a-random", "--json", str(out)])
    return json.loads(out.read_text()), capsys.readouterr().out


@pytest.mark.parametrize("chunked", [False, True], ids=["joined", "chunked"])
def test_a_runs_figures_equal_numpy_on_the_logs_values(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, chunked: bool
) -> None:
    """Duplicate, per hand and per seed, whether the estimates join their parts (runs up to 1M samples) or go
    a chunk at a time (longer runs: here forced by lowering the limits); the printed table is the same."""
    _, table = report_of(run, tmp_path / "joined.json", capsys)
    if chunked:
        monkeypatch.setattr(estimates, "JOINED", 1000)
        monkeypatch.setattr(estimates, "CHUNK", 257)
    report, printed = report_of(run, tmp_path / "report.json", capsys)
    assert printed == table
    seats = {
        seed: [np.array(values_by_hand(run / f"seed{seed}-a{s}.log", "a-random")) for s in (1, 2)] for seed in (1, 2)
    }
    pairs = {seed: (one + two) / 2 for seed, (one, two) in seats.items()}
    assert reported(report["duplicate"]) == pytest.approx(figures(np.concatenate(list(pairs.values()))), rel=1e-12)
    every_hand = np.concatenate([v for both in seats.values() for v in both])
    assert reported(report["per_hand"]) == pytest.approx(figures(every_hand), rel=1e-12)
    assert report["duplicate"]["samples"] == 6000 and report["per_hand"]["samples"] == 12000
    for entry in report["per_seed"]:
        assert reported(entry["duplicate"]) == pytest.approx(figures(pairs[entry["seed"]]), rel=1e-12)
    assert report["allin_adjusted_duplicate"] == report["duplicate"]  # limit hold'em: no hand ends all in early


def test_the_hands_are_read_again_from_the_log(run: Path, tmp_path: Path) -> None:
    """What ``hands`` gives is the log's hands in order; a log changed since it was read is refused, naming it."""
    log = tmp_path / "seed1-a1.log"
    log.write_bytes((run / "seed1-a1.log").read_bytes())
    match = read_log(log)
    lines = [line.split(":") for line in log.read_text().splitlines() if line.startswith("STATE:")]
    assert len(match.hands) == len(lines) == 3000
    assert [(h.state.hand_id, h.names) for h in match.hands] == [(int(f[1]), tuple(f[5].split("|"))) for f in lines]
    assert [h.state.hand_id for h in match.hands.at([2, 17, 2999])] == [2, 17, 2999]
    assert match.values_of("a-random").tolist() == values_by_hand(log, "a-random")
    with log.open("a") as file:
        file.write("# a comment added later\n")
    with pytest.raises(ProtocolError, match=r"seed1-a1\.log changed since it was read"):
        next(iter(match.hands))


GROWTH_MIB = 30
"""The most ``acpc-match random call`` may grow (peak RSS) from 20,000 to 200,000 hands a match.

What scoring keeps grows by about 72 bytes a hand a match: each seat's result in the
two matches (2 x 2 x 8), the duplicate pairs (8), numpy's joined samples and the
deviations of the standard deviation (2 x 2 x 8): 13 MiB over the 180,000 hands; 30
allows twice that for the arrays' spare room and the allocator. Every hand held as
objects (the ~2.4 KB a hand of a whole parsed log) would add over 400 MiB."""

MEASURE = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_rss_mib(hands: int, out: Path) -> float:
    command = [program("acpc-match"), "--a", "random", "--b", "call", "--seeds", "1", "--hands", str(hands),
               "--out", str(out), "--in-process", "--quiet"]  # fmt: skip
    done = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    return int(done.stdout) / 1024


@pytest.mark.slow
def test_acpc_match_memory_does_not_grow_with_the_hands(tmp_path: Path) -> None:
    small = peak_rss_mib(20_000, tmp_path / "small")
    large = peak_rss_mib(200_000, tmp_path / "large")
    assert large - small < GROWTH_MIB, f"{small:.0f} MiB at 20,000 hands a match, {large:.0f} MiB at 200,000"
