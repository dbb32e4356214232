"""``acpc-match`` runs for the tests, and the figures read back from their logs apart from the project's reader."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from acpc_arena.dealer.arena.runner import RunSpec, run_matches
from tests.helpers.processes import program


def run_match(
    tmp_path: Path, *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "run"
    done = subprocess.run(
        [program("acpc-match"), "--out", str(out), "--quiet", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report_path = out / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return done, report


def card_sections(log: Path) -> list[str]:
    return [line.split(":")[3] for line in log.read_text().splitlines() if line.startswith("STATE")]


def values_of(log: Path, name: str) -> list[float]:
    """``name``'s result in every hand, read off the log's STATE lines (``...:values:names``)."""
    values = []
    for line in log.read_text().splitlines():
        if line.startswith("STATE"):
            fields = line.split(":")
            names, amounts = fields[5].split("|"), [float(v) for v in fields[4].split("|")]
            values.append(amounts[names.index(name)])
    return values


def mean_and_ci95_mbb(samples: list[float], big_blind: int) -> tuple[float, list[float]]:
    """Mean ± 1.96 sample standard errors, in mbb per hand."""
    mean = statistics.fmean(samples)
    half = 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))
    return 1000 * mean / big_blind, [1000 * (mean - half) / big_blind, 1000 * (mean + half) / big_blind]


def run_all(specs: Sequence[RunSpec]) -> None:
    """Play every run at once in one trio loop (the agents' processes start side by side)."""

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for spec in specs:
                nursery.start_soon(run_matches, spec)

    trio.run(main)
