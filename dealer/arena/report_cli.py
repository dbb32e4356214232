"""``acpc-report LOG...``: the figures of ``acpc-match`` recomputed from ACPC logs.

Any ACPC dealer's logs can be scored (ours or the C dealer's): chips, mbb/h and the
share of hands won per match, and, for matches of the same seed with the seats exchanged,
the duplicate estimate with its 95% interval, plus the all-in-adjusted figures.
Logs of three or more players give every player's figures, duplicate over the
matches of a seed that put every player in every seat equally often (the
rotations ``acpc-match`` plays).

``--player NAME`` scores one player by name over any ACPC logs, the competitions'
published ones included (``.log``, ``.log.gz``, ``.log.bz2``), whatever their seat
in each hand; ``--phh OUT_DIR`` exports the logs' hands to PHH files. Both read
the logs line by line, and a bad line is reported with its file and line number,
skipped, and counted; it never stops the run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from acpc_arena.dealer.arena.phh import export_log
from acpc_arena.dealer.arena.report import (
    MultiReport,
    Report,
    build_multi_report,
    build_player_report,
    build_report,
    format_multi_table,
    format_player_table,
    format_table,
    read_log,
    read_player_log,
)
from acpc_arena.protocol.acpc_log import Problem
from acpc_arena.protocol.commands import FAILED, USAGE, run_command
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game

SHOWN_PROBLEMS = 20
"""Bad lines named one by one per log; the rest are counted."""


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-report", lambda: score_logs(sys.argv[1:] if argv is None else argv))


def score_logs(argv: list[str]) -> int:
    """Score the logs ``argv`` names and print the tables; returns the exit status (``protocol.commands``)."""
    p = argparse.ArgumentParser(prog="acpc-report", description=__doc__.split("\n\n")[0])
    p.add_argument("logs", nargs="+", type=Path, help="ACPC .log files (with --player or --phh also .log.gz, .log.bz2)")
    p.add_argument("--a", default=None, help="the player to score (default: seat 1 of the first log)")
    p.add_argument(
        "--player", default=None, help="score this player by name over any ACPC logs, competition logs included"
    )
    p.add_argument("--phh", type=Path, default=None, metavar="OUT_DIR", help="export the logs to PHH files in OUT_DIR")
    p.add_argument(
        "--game",
        default=None,
        help="game file, if the logs' headers name none found here (inferred otherwise, with --player or --phh)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the report as JSON to this file")
    p.add_argument("--plots", type=Path, default=None, help="write PNG plots to this folder")
    args = p.parse_args(argv)
    missing = [str(log) for log in args.logs if not log.is_file()]
    if missing:
        p.error(f"no such file: {', '.join(missing)}")
    if args.player is not None or args.phh is not None:
        return _main_any_logs(args)
    try:
        game = load_game(args.game) if args.game else None
        matches = [read_log(path, game) for path in args.logs]
        report: Report | MultiReport
        if matches[0].game.num_players > 2:
            if args.a is not None:
                raise ProtocolError("--a picks the player of two-player logs; these give every player's figures")
            report = build_multi_report(matches)
        else:
            report = build_report(matches, a=args.a)
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        return USAGE
    problems = []
    if args.plots:
        try:
            from acpc_arena.dealer.arena.plots import plot_run  # matplotlib: the [plots] extra

            report.extra["plots"] = [str(path) for path in plot_run(report, args.plots)]
        except ModuleNotFoundError as exc:
            problems.append(f"cannot write the plots: {exc.name} is not installed (pip install 'acpc-arena[plots]')")
        except OSError as exc:
            problems.append(f"cannot write the plots into {args.plots}: {exc.strerror or exc}")
    if args.json:
        problems += _write_json(args.json, report.to_json())
    print(format_table(report) if isinstance(report, Report) else format_multi_table(report))
    for match in matches:
        if match.dropped_lines:
            print(f"acpc-report: {match.path}: incomplete last line left out (cut while written)", file=sys.stderr)
    for problem in problems:
        print(f"acpc-report: {problem}", file=sys.stderr)
    return FAILED if problems else 0


class _ProblemPrinter:
    """Prints each log's first bad lines to standard error and counts them all."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def __call__(self, problem: Problem) -> None:
        count = self.counts[problem.path] = self.counts.get(problem.path, 0) + 1
        if count <= SHOWN_PROBLEMS:
            print(f"acpc-report: {problem}", file=sys.stderr)

    def summary(self) -> list[str]:
        lines = [
            f"{path}: {count} problems in all, {count - SHOWN_PROBLEMS} not shown"
            for path, count in self.counts.items()
            if count > SHOWN_PROBLEMS
        ]
        total = sum(self.counts.values())
        if total:
            lines.append(f"{total} problems (bad lines skipped) in {len(self.counts)} of the logs, each named above")
        return lines


def _main_any_logs(args: argparse.Namespace) -> int:
    """``--player`` and ``--phh``: any ACPC logs, read line by line, bad lines reported and skipped;
    returns the exit status."""
    if args.a is not None or args.plots is not None:
        print("acpc-report: --a and --plots score this dealer's matches; with --player or --phh, not", file=sys.stderr)
        return USAGE
    try:
        game: Game | None = load_game(args.game) if args.game else None
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        return USAGE
    printer = _ProblemPrinter()
    failures = []
    if args.phh is not None:
        for log in args.logs:
            try:
                export = export_log(log, args.phh, game, printer)
            except OSError as exc:
                failures.append(f"cannot write the PHH of {log} into {args.phh}: {exc.strerror or exc}")
                continue
            print(f"{log}: {export.hands} hands written to {export.phh}" if export.phh else f"{log}: no hands written")
    if args.player is not None:
        player_logs = []
        for log in args.logs:
            found = read_player_log(log, args.player, game, None if args.phh else printer)
            if found is None:
                print(f"acpc-report: {log}: no hands of {args.player!r} (left out)", file=sys.stderr)
            else:
                player_logs.append(found)
        try:
            report = build_player_report(player_logs, args.player)
        except ProtocolError as exc:
            print(f"acpc-report: {exc}", file=sys.stderr)
            return USAGE
        if args.json:
            failures += _write_json(args.json, report.to_json())
        print(format_player_table(report))
    for line in printer.summary() + failures:
        print(f"acpc-report: {line}", file=sys.stderr)
    return FAILED if failures else 0


def _write_json(path: Path, document: object) -> list[str]:
    """Write ``document`` as JSON to ``path``; the problem (one line) in a list, empty when it was written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        return [f"cannot write {path}: {exc.strerror or exc}"]
    return []


if __name__ == "__main__":
    main()
