"""The commands' start-up time beside the interpreter's own."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.timing import Row


def bench_startup() -> Iterator[Row]:
    """Start-up of the commands' help (and of acpc-dealer's answer to a bad command line), median wall seconds
    of interleaved runs beside ``python -c pass`` (goal: at most 0.1 s over it)."""
    import statistics
    import subprocess

    bin_dir = Path(sys.executable).parent
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "acpc-dealer --help": [str(bin_dir / "acpc-dealer"), "--help"],
        "acpc-dealer, a bad command line": [str(bin_dir / "acpc-dealer"), "m", "kuhn", "many", "1", "a", "b"],
        "acpc-match --help": [str(bin_dir / "acpc-match"), "--help"],
        "acpc-agent random --help": [str(bin_dir / "acpc-agent"), "random", "--help"],
    }
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(11):  # alternating, so a busy moment slows each command alike
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds[name].append(time.perf_counter() - start)
    base = statistics.median(seconds["python -c pass"])
    for name, runs in seconds.items():
        median = statistics.median(runs)
        over = f"+{median - base:.3f} s over python -c pass (goal <= +0.100)"
        note = "the interpreter alone" if name == "python -c pass" else over
        yield (f"start-up: {name}", f"{median:.3f} s", f"median of {len(runs)}; {note}")
