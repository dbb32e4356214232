"""``acpc-report``'s work as one library call (``report_logs``): a run's logs scored (``reports``), with
AIVAT's estimate and plots as asked, and the table printed; or, ``--player`` and ``--phh``, any ACPC logs
read line by line, bad lines told and skipped (``player_report``, ``phh``)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable
from acpc_arena.dealer.arena.aivat.reporting import add_to_report, default_settings, known_players
from acpc_arena.dealer.arena.phh import export_log, phh_paths
from acpc_arena.dealer.arena.player_report import build_player_report, read_player_log
from acpc_arena.dealer.arena.reports import MultiReport, Report, build_multi_report, build_report
from acpc_arena.dealer.arena.tables import format_multi_table, format_player_table, format_table
from acpc_arena.protocol.acpc_log import Problem
from acpc_arena.protocol.commands import FAILED, USAGE, refuse_input_as_output
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import write_atomic
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.match_log import LoggedMatch, read_log

SHOWN_PROBLEMS = 20
"""Bad lines named one by one per log; the rest are counted."""


@dataclass(frozen=True)
class ReportRequest:
    """What ``acpc-report``'s command line asks for: its logs (each file once) and options."""

    logs: list[Path]
    a: str | None
    player: str | None
    phh: Path | None
    game: str | None
    aivat: list[str]
    aivat_decoys: int | None
    json: Path | None
    plots: Path | None


def report_logs(request: ReportRequest) -> int:
    """Score the logs and print the tables, as ``request`` asks; returns the exit status (``protocol.commands``).
    An output that is one of the inputs is a usage error, before anything is written."""
    refuse_input_as_output("acpc-report", _outputs(request), [*request.logs, request.game])
    if request.player is not None or request.phh is not None:
        return _any_logs(request)
    try:
        game = load_game(request.game) if request.game else None
        matches = [read_log(path, game) for path in request.logs]
        report = _report(matches, request.a)
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        return USAGE
    problems = []
    if request.aivat:
        reason = _add_aivat(report, request.aivat, request.aivat_decoys)
        if reason:
            problems.append(f"AIVAT unavailable: {reason}")
    if request.plots:
        problems += _plot(report, request.plots)
    if request.json:
        problems += _write_json(request.json, report.to_json())
    print(format_table(report) if isinstance(report, Report) else format_multi_table(report))
    for match in matches:
        if match.dropped_lines:
            print(f"acpc-report: {match.path}: incomplete last line left out (cut while written)", file=sys.stderr)
    for problem in problems:
        print(f"acpc-report: {problem}", file=sys.stderr)
    return FAILED if problems else 0


def _report(matches: list[LoggedMatch], a: str | None) -> Report | MultiReport:
    """The report of a run's logs: A's against B, or every player's in logs of three or more."""
    if matches[0].game.num_players > 2:
        if a is not None:
            raise ProtocolError("--a picks the player of two-player logs; these give every player's figures")
        return build_multi_report(matches)
    return build_report(matches, a=a)


def _plot(report: Report | MultiReport, folder: Path) -> list[str]:
    """The report's plots in ``folder``; what could not be done, in a list."""
    try:
        from acpc_arena.dealer.arena.plots import plot_run  # matplotlib: the [plots] extra, maybe missing

        report.extra["plots"] = [str(path) for path in plot_run(report, folder)]
    except ModuleNotFoundError as exc:
        return [f"cannot write the plots: {exc.name} is not installed (pip install 'acpc-arena[plots]')"]
    except OSError as exc:
        return [f"cannot write the plots into {folder}: {exc.strerror or exc}"]
    return []


def _add_aivat(report: Report | MultiReport, specs: list[str], decoys: int | None) -> str | None:
    """Add AIVAT's figures to ``report``; None, or why it is unavailable (one line)."""
    if not isinstance(report, Report):
        return "AIVAT is for two-player logs"
    try:
        known = known_players(specs)
    except AivatUnavailable as exc:
        return str(exc)
    return add_to_report(report, known, default_settings(report.game, decoys), progress=sys.stderr.isatty())


def _outputs(request: ReportRequest) -> dict[str, Path | None]:
    """What the command would write: ``--json``, ``--plots`` and ``--phh`` and the files inside them."""
    outputs: dict[str, Path | None] = {"--json": request.json, "--plots": request.plots, "--phh": request.phh}
    if request.plots is not None and request.plots.is_dir():
        outputs |= {f"--plots ({path.name})": path for path in request.plots.glob("cumulative*.png")}
    if request.phh is not None:
        outputs |= {
            f"--phh (the PHH of {log})": path
            for log, path in zip(request.logs, phh_paths(request.logs, request.phh), strict=True)
        }
    return outputs


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


def _any_logs(request: ReportRequest) -> int:
    """``--player`` and ``--phh``: any ACPC logs, read line by line, bad lines reported and skipped;
    returns the exit status."""
    if request.a is not None or request.plots is not None:
        print("acpc-report: --a and --plots score this dealer's matches; with --player or --phh, not", file=sys.stderr)
        return USAGE
    try:
        game = load_game(request.game) if request.game else None
    except ProtocolError as exc:
        print(f"acpc-report: {exc}", file=sys.stderr)
        return USAGE
    printer = _ProblemPrinter()
    failures = _export_phh(request, request.phh, game, printer) if request.phh is not None else []
    if request.player is not None:
        player_logs = []
        for log in request.logs:
            found = read_player_log(log, request.player, game, None if request.phh else printer)
            if found is None:
                print(f"acpc-report: {log}: no hands of {request.player!r} (left out)", file=sys.stderr)
            else:
                player_logs.append(found)
        try:
            report = build_player_report(player_logs, request.player)
        except ProtocolError as exc:
            print(f"acpc-report: {exc}", file=sys.stderr)
            return USAGE
        if request.json:
            failures += _write_json(request.json, report.to_json())
        print(format_player_table(report))
    for line in printer.summary() + failures:
        print(f"acpc-report: {line}", file=sys.stderr)
    return FAILED if failures else 0


def _export_phh(request: ReportRequest, folder: Path, game: Game | None, printer: _ProblemPrinter) -> list[str]:
    """Each log's hands into a PHH file in ``folder``, each told; returns what could not be written."""
    failures = []
    for log, target in zip(request.logs, phh_paths(request.logs, folder), strict=True):
        existed = target.exists()
        try:
            export = export_log(log, folder, game, printer, target)
        except OSError as exc:
            failures.append(f"cannot write the PHH of {log} into {folder}: {exc.strerror or exc}")
            continue
        if export.phh is None:
            print(f"{log}: no hands written")
        else:
            replaced = " (it replaces the file there before)" if existed else ""
            print(f"{log}: {export.hands} hands written to {export.phh}{replaced}")
    return failures


def _write_json(path: Path, document: object) -> list[str]:
    """Write ``document`` as JSON to ``path``; the problem (one line) in a list, empty when it was written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        return [f"cannot write {path}: {exc.strerror or exc}"]
    return []
