"""acpc-eval: the ``--quick`` report card of a limit hold'em bot, its wall time against the goal."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.timing import Row

QUICK_GOAL_S = 180.0
"""The ``--quick`` card of ``equity`` takes at most 3 minutes on 2 cores (issue 56)."""


def bench_eval() -> Iterator[Row]:
    """``acpc-eval equity --quick`` on 2 cores from an empty folder: the matches, AIVAT, LBR, the plots."""
    program = str(Path(sys.executable).parent / "acpc-eval")
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        command = [program, "equity", "--quick", "--concurrency", "2", "--out", out, "--quiet"]
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - start
        card = json.loads((Path(out) / "report.json").read_text())["card"]
    references = len(card["references"])
    hands = references * 2 * len(card["seeds"]) * card["hands"]
    verdict = "within" if seconds <= QUICK_GOAL_S else "OVER"
    yield (
        f"acpc-eval equity --quick, {references} references, {hands} hands, LBR {card['lbr']['hands']} hands",
        f"{seconds:.0f} s",
        f"{verdict} the goal of {QUICK_GOAL_S:.0f} s on 2 cores",
    )
