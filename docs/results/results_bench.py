"""The benchmarks page: the speed and memory figures of ``python -m benchmarks``, one run a section,
each table read from the ``bench.json`` its run wrote (``--json``)."""

from __future__ import annotations

import json
from pathlib import Path

from results_render import table_header, table_row
from results_sections import Commands, Page

BENCH_SECTIONS = ("dealer", "startup", "memory", "inprocess", "batched", "evaluator")
"""The sections of ``python -m benchmarks`` with a goal of their own (the dealer's rate beside the C
dealer's, start-up, constant memory, in-process against TCP, the evaluator against eval7)."""


def bench_table(folders: dict[str, Path]) -> list[str]:
    """Every row of every run, under its section's name."""
    lines = table_header(["measure", "figure", "note"])
    for name, folder in folders.items():
        rows = json.loads((folder / "bench.json").read_text())["sections"].get(name, [])
        lines.append(table_row([f"**{name}**", "", ""]))
        lines += [table_row(cell.replace("|", "\\|") for cell in row) for row in rows]
    return lines


BENCH_PAGE = Page(
    "benchmarks",
    "Speed and memory: the dealer, the match runner and the evaluator",
    "The sections of `make bench` that carry a goal: `acpc-dealer` beside the ACPC C `dealer` with two C "
    "`example_player`s (`ACPC_SERVER_DIR` names a build of the ACPC server; it is not part of this "
    "project), the commands' start-up, `acpc-match`'s peak memory at up to a million hands, in-process "
    "matches against the same over TCP, and the hand evaluator against eval7. Each ratio is measured in one "
    "run, the two sides interleaved, and is the median of the pairs; the note of each row says how many and "
    "the goal.",
    (
        Commands(
            "sections",
            "The benchmark sections",
            "One run of `python -m benchmarks SECTION` a section, on the machine named above. Rates and ratios "
            "move with what else runs there; peak memory does not.",
            tuple(
                (name, ("python", "-m", "benchmarks", "--json", "{out}/bench.json", name)) for name in BENCH_SECTIONS
            ),
            bench_table,
        ),
    ),
)
