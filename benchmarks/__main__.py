"""``python -m benchmarks [--json FILE] [section ...]`` (``make bench``): run the sections named (all by
default) and print their rows as one table; ``--json FILE`` also writes the rows, by section, for the
results page of the benchmarks (``docs/results``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from acpc_arena.protocol.files import write_atomic
from benchmarks.agents import bench_cfr, bench_dqn, bench_ensemble, bench_poker_cnn
from benchmarks.aivat import bench_aivat
from benchmarks.bm import bench_bm
from benchmarks.cfr import bench_cfr_table
from benchmarks.dealer import bench_dealer, bench_web
from benchmarks.engine import bench_engine, bench_evaluator
from benchmarks.eval import bench_eval
from benchmarks.memory import bench_memory
from benchmarks.reports import bench_lbr, bench_logs
from benchmarks.runner import bench_batched, bench_inprocess, bench_runner, bench_tournament
from benchmarks.startup import bench_startup
from benchmarks.timing import Row

SECTIONS: dict[str, Callable[[], Iterator[Row]]] = {
    "evaluator": bench_evaluator,
    "engine": bench_engine,
    "dealer": bench_dealer,
    "runner": bench_runner,
    "inprocess": bench_inprocess,
    "batched": bench_batched,
    "tournament": bench_tournament,
    "eval": bench_eval,
    "cfr": bench_cfr,
    "cfr_table": bench_cfr_table,
    "dqn": bench_dqn,
    "logs": bench_logs,
    "lbr": bench_lbr,
    "aivat": bench_aivat,
    "poker_cnn": bench_poker_cnn,
    "ensemble": bench_ensemble,
    "web": bench_web,
    "bm": bench_bm,
    "startup": bench_startup,
    "memory": bench_memory,
}


def main(argv: list[str]) -> None:
    out = None
    if argv[:1] == ["--json"]:
        if len(argv) < 2:
            sys.exit("bench: --json needs a file name")
        out, argv = Path(argv[1]), argv[2:]
    chosen = argv or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        sys.exit(f"bench: no section {', '.join(unknown)}; the sections: {' '.join(SECTIONS)}")
    rows: list[Row] = []
    by_section: dict[str, list[Row]] = {}
    for name in chosen:
        for row in SECTIONS[name]():
            rows.append(row)
            by_section.setdefault(name, []).append(row)
            print("  ".join(row), file=sys.stderr, flush=True)
        if out is not None:  # after each section, so a later failure keeps what was measured
            write_atomic(out, json.dumps({"sections": by_section}, indent=1) + "\n")
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    print()
    print(f"{'measure':<{widths[0]}}  {'figure':>{widths[1]}}  note")
    print(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}")
    for a, b, c in rows:
        print(f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c}")


if __name__ == "__main__":
    main(sys.argv[1:])
