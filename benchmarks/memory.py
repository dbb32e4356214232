"""acpc-match's peak memory (resident set) against the number of hands: constant but for each seat's result
in a compact array (8 bytes a hand)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from benchmarks.timing import Row

MEASURE = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)
"""A fresh interpreter that runs a command and prints the peak RSS (KiB) of the largest process it waited for."""


def peak_rss_mib(command: list[str]) -> float:
    """Peak resident memory of ``command``'s process (the largest of those it starts and waits for), in MiB."""
    import subprocess

    kib = subprocess.run([sys.executable, "-c", MEASURE, *command], check=True, capture_output=True, text=True)
    return int(kib.stdout) / 1024


GOAL_MIB = 250
"""acpc-match's peak RSS at 1,000,000 hands a match of random vs call (issue 40)."""


def bench_memory() -> Iterator[Row]:
    """Peak RSS of ``acpc-match random call`` (one seed: two matches of N hands) with its default outputs
    (logs, report, plots): in process at N = 10,000, 100,000 and 1,000,000, over TCP at 10,000 and 100,000."""
    import json
    import tempfile
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    runs = [(10_000, True), (100_000, True), (1_000_000, True), (10_000, False), (100_000, False)]
    for hands, in_process in runs:
        with tempfile.TemporaryDirectory() as out:
            rss = peak_rss_mib(
                [program, "--a", "random", "--b", "call", "--seeds", "1", "--hands", str(hands), "--out", out,
                 "--quiet", *(["--in-process"] if in_process else [])]
            )  # fmt: skip
            rate = json.loads((Path(out) / "report.json").read_text())["hands_per_second"]
        where = "in process" if in_process else "over TCP"
        goal = f"; goal <= {GOAL_MIB} MiB" if hands == 1_000_000 else ""
        yield (
            f"acpc-match random vs call, {hands:,} hands a match, {where}: peak RSS",
            f"{rss:,.0f} MiB",
            f"{2 * hands:,} hands at {rate:,.0f} hands/s{goal}",
        )
