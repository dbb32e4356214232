"""AIVAT's cost: an in-process limit hold'em run with ``--aivat`` beside the same run without it."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from benchmarks.timing import Row


def bench_aivat() -> Iterator[Row]:
    """acpc-match cfr vs equity in process, 2 matches of 200 hands, with and without --aivat (both policies
    known): median wall seconds of 3 interleaved pairs, and what AIVAT adds (the issue's goal: at most 50%)."""
    import statistics
    import subprocess
    import tempfile
    import time
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    command = [program, "--a", "cfr", "--b", "equity", "--seeds", "1", "--hands", "200", "--in-process",
               "--concurrency", "1", "--quiet", "--no-plots"]  # fmt: skip
    seconds: dict[str, list[float]] = {"": [], "--aivat": []}
    for _ in range(3):  # alternating, so a busy moment slows both alike
        for flag in seconds:
            with tempfile.TemporaryDirectory() as out:
                start = time.perf_counter()
                subprocess.run([*command, "--out", out, *flag.split()], check=True, capture_output=True)
                seconds[flag].append(time.perf_counter() - start)
    plain, aivat = statistics.median(seconds[""]), statistics.median(seconds["--aivat"])
    yield ("acpc-match cfr vs equity, 2 x 200 hands, in process", f"{plain:.1f} s", "median of 3, start-up included")
    yield (
        "  the same with --aivat (both policies known)",
        f"{aivat:.1f} s",
        f"+{(aivat - plain) / plain:.0%} over the run without it (goal: at most +50%)",
    )
