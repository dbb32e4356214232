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
        matches = [read_log(path, game) for path in args.logs]
        report = build_report(matches, a=args.a)
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        sys.exit(2)
    problems = []
    if args.plots:
        try:
            report.extra["plots"] = [str(path) for path in plot_run(report, args.plots)]
        except OSError as exc:
            problems.append(f"cannot write the plots into {args.plots}: {exc.strerror or exc}")
    if args.json:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n")
        except OSError as exc:
            problems.append(f"cannot write {args.json}: {exc.strerror or exc}")
    print(format_table(report))
    for match in matches:
        if match.dropped_lines:
            print(f"acpc-report: {match.path}: incomplete last line left out (cut while written)", file=sys.stderr)
    for problem in problems:
        print(f"acpc-report: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
