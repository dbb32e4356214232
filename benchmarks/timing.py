"""What the benchmarks share: a table row, the best of repeated timings, the environment of the engine's sources."""

import os
import time
from collections.abc import Callable

Row = tuple[str, str, str]
"""A line of the table: what is measured, the figure, a note (the ratio to a reference, say)."""

PURE = {**os.environ, "ACPC_ARENA_PURE": "1"}
"""The environment that imports the engine's sources rather than its compiled modules (protocol/native.py)."""


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """Fastest wall-clock seconds of ``repeats`` runs of ``work``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best
