"""acpc-match's peak memory (resident set) against the number of hands."""

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


def bench_memory() -> Iterator[Row]:
    """Peak RSS of ``acpc-match random call`` in process at 10,000, 100,000 and 1,000,000 hands."""
    import tempfile
    import time
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    for hands in (10_000, 100_000, 1_000_000):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            rss = peak_rss_mib(
                [program, "--a", "random", "--b", "call", "--seeds", "1", "--hands", str(hands), "--out", out,
                 "--in-process", "--quiet"]
            )  # fmt: skip
            seconds = time.perf_counter() - start
        yield (
            f"acpc-match random vs call, {hands:,} hands in process: peak RSS",
            f"{rss:,.0f} MiB",
            f"{2 * hands / seconds:,.0f} hands/s; goal <= 250 MiB at 1,000,000 hands",
        )
