"""``acpc-report LOG...``: the figures of ``acpc-match`` recomputed from ACPC logs.

Any ACPC dealer's logs can be scored (ours or the C dealer's): chips, mbb/h and
win rate per match, and, for matches of the same seed with the seats exchanged,
the duplicate estimate with its 95% interval, plus the all-in-adjusted figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from acpc_arena.dealer.arena.plots import plot_run
from acpc_arena.dealer.arena.report import build_report, format_table, read_log
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="acpc-report", description=__doc__.split("\n\n")[0])
    p.add_argument("logs", nargs="+", type=Path, help="ACPC .log files")
    p.add_argument("--a", default=None, help="the player to score (default: seat 1 of the first log)")
    p.add_argument("--game", default=None, help="game file, if the logs' headers name one not found here")
    p.add_argument("--json", type=Path, default=None, help="write the report as JSON to this file")
    p.add_argument("--plots", type=Path, default=None, help="write PNG plots to this folder")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        game = load_game(args.game) if args.game else None
        report = build_report([read_log(path, game) for path in args.logs], a=args.a)
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        sys.exit(2)
    if args.plots:
        report.extra["plots"] = [str(path) for path in plot_run(report, args.plots)]
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n")
    print(format_table(report))


if __name__ == "__main__":
    main()
