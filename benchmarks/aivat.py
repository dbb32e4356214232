"""AIVAT's cost against what it saves: in-process hold'em runs with ``--aivat``, their CPU seconds (the match's,
AIVAT's) and half-widths (duplicate, AIVAT) from ``report.json``, and the CPU it takes AIVAT to reach
duplicate's half-width as a share of what duplicate alone takes."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.timing import Row

PAIRS = {
    "limit cfr vs equity": ("cfr", "equity", "holdem.limit.2p.reverse_blinds"),
    "no-limit cfr vs o_random": ("cfr", "o_random", "holdem.nolimit.2p.reverse_blinds"),
}
HANDS = 1000
"""Hands a seat of each seed."""
ROUNDS = (("1", "2"), ("3", "4"))
"""The seeds of each round; a round runs every pair once, the pairs in turn (a busy moment slows both alike)."""
GOAL = 0.4
"""The issue's goal for ``equal_width_ratio``."""


def processor() -> str:
    """The CPU's model name (``/proc/cpuinfo``), or the platform's word for it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def half_width(figures: dict[str, Any]) -> float:
    """Half the width of a figure's 95% interval (mbb/h)."""
    low, high = figures["ci95"]
    return float(high - low) / 2


def equal_width_ratio(duplicate: float, aivat: float, match_cpu: float, aivat_cpu: float) -> float:
    """The CPU AIVAT takes to reach a half-width, over what duplicate alone takes: hands needed scale with the
    square of the half-width at a fixed count, and each costs the match's CPU and AIVAT's."""
    return (aivat / duplicate) ** 2 * (match_cpu + aivat_cpu) / match_cpu


def _run(a: str, b: str, game: str, seeds: tuple[str, ...]) -> dict[str, Any]:
    """``report.json`` of an in-process acpc-match run with ``--aivat``."""
    program = str(Path(sys.executable).parent / "acpc-match")
    with tempfile.TemporaryDirectory() as out:
        command = [program, "--a", a, "--b", b, "--game", game, "--seeds", ",".join(seeds), "--hands", str(HANDS),
                   "--in-process", "--concurrency", "1", "--aivat", "--quiet", "--no-plots", "--out", out]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True)
        report: dict[str, Any] = json.loads((Path(out) / "report.json").read_text())
    return report


def bench_aivat() -> Iterator[Row]:
    """For each pair, over every round: the match's CPU seconds and AIVAT's, duplicate's and AIVAT's half-widths
    (the rounds' variances pooled), and ``equal_width_ratio`` (the issue's goal: at most 0.4)."""
    reports: dict[str, list[dict[str, Any]]] = {name: [] for name in PAIRS}
    for seeds in ROUNDS:
        for name, (a, b, game) in PAIRS.items():
            reports[name].append(_run(a, b, game, seeds))
    hands = f"{len(ROUNDS) * len(ROUNDS[0])} seeds x {HANDS} hands a seat, in process, {processor()}"
    for name, runs in reports.items():
        match_cpu = sum(run["cpu_seconds"] for run in runs)
        aivat_cpu = sum(run["aivat"]["cpu_seconds"] for run in runs)
        duplicate = (sum(half_width(run["duplicate"]) ** 2 for run in runs) / len(runs) ** 2) ** 0.5
        aivat = (sum(half_width(run["aivat"]) ** 2 for run in runs) / len(runs) ** 2) ** 0.5
        ratio = equal_width_ratio(duplicate, aivat, match_cpu, aivat_cpu)
        yield (f"AIVAT, {name}: match CPU", f"{match_cpu:.1f} s", hands)
        yield ("  AIVAT's CPU", f"{aivat_cpu:.1f} s", f"{aivat_cpu / match_cpu:.2f}x the match's")
        yield ("  half-width, duplicate", f"{duplicate:.1f} mbb/h", "95% interval, the rounds pooled")
        yield ("  half-width, AIVAT", f"{aivat:.1f} mbb/h", f"{aivat / duplicate:.2f} of duplicate's")
        yield (
            "  CPU to reach a half-width, AIVAT / duplicate",
            f"{ratio:.2f}",
            f"(AIVAT/duplicate half-width)^2 x (match + AIVAT CPU) / match CPU (goal: at most {GOAL})",
        )
