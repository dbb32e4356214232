"""``acpc-report LOG...``: the figures of ``acpc-match`` recomputed from ACPC logs.

Any ACPC dealer's logs can be scored (ours or the C dealer's): chips, mbb/h and the
share of hands won per match, and, for matches of the same seed with the seats exchanged,
the duplicate estimate with its 95% interval, plus the all-in-adjusted figures.
Logs of three or more players give every player's figures, duplicate over the
matches of a seed that put every player in every seat equally often (the
rotations ``acpc-match`` plays).

``--player NAME`` scores one player by name over any ACPC logs, the competitions'
published ones included (``.log``, ``.log.gz``, ``.log.bz2``), whatever their seat
in each hand; ``--phh OUT_DIR`` exports the logs' hands to PHH files (one file per
log, never two logs into one). Both read the logs line by line, and a bad line is
reported with its file and line number, skipped, and counted; it never stops the run.

A log named twice (or by two paths, or through a link) is read once, and said so.
Logs are read within the limits of ``protocol/files.py`` (docs/reference/limits.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acpc_arena.protocol.commands import FAILED, USAGE, CommandParser, plain, refuse_input_as_output, run_command
from acpc_arena.protocol.files import InputError, check_regular, write_atomic

if TYPE_CHECKING:  # imported where used: --help and a bad command line start without numpy, pokerkit and
    # AIVAT (make bench SECTIONS=startup)
    from acpc_arena.dealer.arena.reports import MultiReport, Report
    from acpc_arena.protocol.acpc_log import Problem
    from acpc_arena.protocol.game import Game

SHOWN_PROBLEMS = 20
"""Bad lines named one by one per log; the rest are counted."""


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-report", lambda: score_logs(sys.argv[1:] if argv is None else argv))


def score_logs(argv: list[str]) -> int:
    """Score the logs ``argv`` names and print the tables; returns the exit status (``protocol.commands``)."""
    p = CommandParser(prog="acpc-report", description=plain(__doc__.split("\n\n")[0]))
    p.add_argument(
        "logs",
        nargs="+",
        type=Path,
        help="ACPC logs (.log, .log.gz or .log.bz2), or a folder of them such as the run acpc-match wrote",
    )
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
    p.add_argument(
        "--aivat",
        action="append",
        default=[],
        metavar="PLAYER",
        help="add AIVAT's estimate, with this player's policy known: its name in the logs (acpc-match's "
        "<label>-<agent>, such as a-cfr), then its agent's options if any ('a-cfr --argmax'); repeat for both",
    )
    p.add_argument(
        "--aivat-decoys",
        type=int,
        default=None,
        metavar="N",
        help="with --aivat: a known player's range holds its dealt holding and N others (default: every holding "
        "in Kuhn and Leduc, 40 others in hold'em)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the report as JSON to this file")
    p.add_argument("--plots", type=Path, default=None, help="write PNG plots to this folder")
    args = p.parse_args(argv)
    args.logs = _distinct_logs(p, _logs_in_folders(p, args.logs))
    refuse_input_as_output("acpc-report", _outputs(args), [*args.logs, args.game])
    if args.player is not None or args.phh is not None:
        return _main_any_logs(args)
    from acpc_arena.dealer.arena.logreading import read_log
    from acpc_arena.dealer.arena.reports import Report, build_multi_report, build_report
    from acpc_arena.dealer.arena.tables import format_multi_table, format_table
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.game import load_game

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
    if args.aivat:
        reason = _add_aivat(report, args.aivat, args.aivat_decoys)
        if reason:
            problems.append(f"AIVAT unavailable: {reason}")
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


def _add_aivat(report: Report | MultiReport, specs: list[str], decoys: int | None) -> str | None:
    """Add AIVAT's figures to ``report``; None, or why it is unavailable (one line)."""
    from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable
    from acpc_arena.dealer.arena.aivat.reporting import add_to_report, default_settings, known_players
    from acpc_arena.dealer.arena.reports import Report

    if not isinstance(report, Report):
        return "AIVAT is for two-player logs"
    try:
        known = known_players(specs)
    except AivatUnavailable as exc:
        return str(exc)
    return add_to_report(report, known, default_settings(report.game, decoys), progress=sys.stderr.isatty())


def _outputs(args: argparse.Namespace) -> dict[str, Path | None]:
    """What the command would write: ``--json``, ``--plots`` and ``--phh`` and the files inside them."""
    outputs: dict[str, Path | None] = {"--json": args.json, "--plots": args.plots, "--phh": args.phh}
    if args.plots is not None and args.plots.is_dir():
        outputs |= {f"--plots ({path.name})": path for path in args.plots.glob("cumulative*.png")}
    if args.phh is not None:
        from acpc_arena.dealer.arena.phh import phh_paths

        outputs |= {
            f"--phh (the PHH of {log})": path
            for log, path in zip(args.logs, phh_paths(args.logs, args.phh), strict=True)
        }
    return outputs


LOG_SUFFIXES = (".log", ".log.gz", ".log.bz2")
"""The names of ACPC logs ``acpc-report`` reads in a folder it is given."""


def _logs_in_folders(parser: argparse.ArgumentParser, paths: list[Path]) -> list[Path]:
    """``paths`` with each folder replaced by the ACPC logs in it (not in its subfolders), by name: the
    folder of an ``acpc-match`` run gives its matches' logs. A folder without one is a usage error."""
    logs: list[Path] = []
    for path in paths:
        if not path.is_dir():
            logs.append(path)
            continue
        found = sorted(p for p in path.iterdir() if p.name.endswith(LOG_SUFFIXES) and p.is_file())
        if not found:
            parser.error(f"no ACPC logs ({', '.join(LOG_SUFFIXES)}) in the folder {path}")
        logs += found
    return logs


def _distinct_logs(parser: argparse.ArgumentParser, logs: list[Path]) -> list[Path]:
    """The logs named, each file once (two names of one file, or a link to it, count once, said on
    standard error); a usage error for one that is missing or not a regular file (a FIFO, a folder)."""
    missing: list[str] = []
    first_name: dict[tuple[int, int], Path] = {}
    for log in logs:
        try:
            status = check_regular(log)
        except FileNotFoundError:
            missing.append(str(log))
            continue
        except InputError as exc:
            parser.error(str(exc))
        except OSError as exc:
            parser.error(f"cannot read {log}: {exc.strerror or exc}")
        key = (status.st_dev, status.st_ino)
        if key in first_name:
            print(f"acpc-report: {log} is the same file as {first_name[key]}: counted once", file=sys.stderr)
        else:
            first_name[key] = log
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    return list(first_name.values())


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
    from acpc_arena.dealer.arena.phh import export_log, phh_paths
    from acpc_arena.dealer.arena.player_report import build_player_report, read_player_log
    from acpc_arena.dealer.arena.tables import format_player_table
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.game import load_game

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
        for log, target in zip(args.logs, phh_paths(args.logs, args.phh), strict=True):
            existed = target.exists()
            try:
                export = export_log(log, args.phh, game, printer, target)
            except OSError as exc:
                failures.append(f"cannot write the PHH of {log} into {args.phh}: {exc.strerror or exc}")
                continue
            if export.phh is None:
                print(f"{log}: no hands written")
            else:
                replaced = " (it replaces the file there before)" if existed else ""
                print(f"{log}: {export.hands} hands written to {export.phh}{replaced}")
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
        write_atomic(path, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        return [f"cannot write {path}: {exc.strerror or exc}"]
    return []


if __name__ == "__main__":
    main()
