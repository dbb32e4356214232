"""``acpc-match``'s run as one library call (``run_match``): the contestants its command line names checked,
the output folder made, the metrics and the pages served, the run played and scored by the pipeline
``play`` uses too (``pipeline.play_run``), its report and plots written, its table printed, and the
pages and metrics kept up as long as asked."""

from __future__ import annotations

import contextlib
import json
import math
import platform
import shlex
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from acpc_arena.agents.registry import absolute_spec, check_spec, refuse_taken_name
from acpc_arena.dealer.arena.aivat.reporting import wanted
from acpc_arena.dealer.arena.contestants import AgentCannotPlay, Contestant, check_agent
from acpc_arena.dealer.arena.options import SIDES
from acpc_arena.dealer.arena.pipeline import Jobs, JobsUnavailable, RunResult, play_run
from acpc_arena.dealer.arena.reports import MultiReport, Report
from acpc_arena.dealer.arena.run_progress import RunProgress
from acpc_arena.dealer.arena.runner import RunSpec
from acpc_arena.dealer.arena.scoring import changed_lines
from acpc_arena.dealer.arena.tables import format_multi_table, format_table
from acpc_arena.dealer.arena.warm_agents import is_warm_spec, plays_warm
from acpc_arena.dealer.observers.page_process import SideServer, start_pages
from acpc_arena.protocol.commands import FAILED, USAGE, Interrupted, shows_progress
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import write_atomic
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

if TYPE_CHECKING:  # the name alone: a run without metrics starts without prometheus_client
    from acpc_arena.dealer.observers.metrics import RunMetrics


@dataclass(frozen=True)
class Side:
    """One contestant as the command line gives it: ``--a``, ``--a-args``, ``--a-cmd``, ``--a-external``."""

    label: str
    agent: str | None
    args: str = ""
    command: str | None = None
    external: bool = False

    @property
    def given(self) -> bool:
        return bool(self.agent or self.command or self.external)


@dataclass(frozen=True)
class MatchRequest:
    """What ``acpc-match``'s command line asks for (its options, checked as they were parsed)."""

    sides: tuple[Side, ...]
    """A, B and C (``options.SIDES``), given or not."""
    game: str
    seeds: tuple[int, ...]
    hands: int
    out: Path | None
    concurrency: int
    host: str
    t_response_ms: int
    t_hand_ms: int
    t_per_hand_ms: int
    external_timeout: float
    in_process: bool
    workers: int | None
    ray: str | None
    web: int | None
    web_linger: float
    metrics_port: int | None
    metrics_linger: float
    metrics_push: str | None
    aivat: bool | None
    plots: bool
    quiet: bool
    command: str
    """The command line, as ``report.json`` keeps it."""

    @property
    def jobs(self) -> Jobs | None:
        return Jobs(self.ray, self.workers) if self.ray or self.workers else None


def run_match(request: MatchRequest) -> int:
    """Play, score and report the run ``request`` asks for; returns the exit status (``protocol.commands``)."""
    try:
        spec = run_spec(request)
    except (ProtocolError, ValueError) as exc:
        print(f"acpc-match: {exc}", file=sys.stderr)
        return USAGE
    with contextlib.ExitStack() as servers:
        try:
            metrics = _serve_metrics(request, servers)
            web = _serve_pages(request, spec.out_dir, servers)
        except ValueError as exc:
            print(f"acpc-match: {exc}", file=sys.stderr)
            return USAGE
        quiet = not shows_progress(request.quiet)
        observer = RunProgress(spec, metrics, quiet, web.feed if web is not None else None)
        status = _play_and_report(spec, observer, request, quiet)
        try:
            if web is not None and request.web_linger > 0 and status < 128:  # not after a Ctrl-C or SIGTERM
                web.feed.flush()
                until = "until Ctrl-C" if math.isinf(request.web_linger) else f"for {request.web_linger:g} s"
                print(f"acpc-match: the pages stay up at {web.url} {until}", file=sys.stderr, flush=True)
                _sleep(request.web_linger)
            if metrics is not None:
                _last_metrics(metrics, request)
        except* KeyboardInterrupt:
            raise Interrupted(
                f"the run had ended (status {status}); its logs and report are in {spec.out_dir}"
            ) from None
    return status


def run_spec(request: MatchRequest) -> RunSpec:
    """The run ``request`` asks for, its output folder made (with ``agents/``); ValueError or ProtocolError,
    one line, for a command line that cannot be played."""
    game = load_game(request.game)
    game_path = resolve_game_path(request.game).resolve()
    warm = not request.in_process and not request.jobs  # a run's neural agents over TCP: see RunSpec.unchecked
    contestants = [_contestant(side, warm) for side in _sides(request, game)]
    unchecked = tuple(c.label for c in contestants if warm and plays_warm(c))
    for contestant in contestants:
        if contestant.label not in unchecked:
            check_agent(contestant, game, request.game)
    if request.jobs and any(c.external for c in contestants):
        raise ValueError("--ray and --workers play each match in a worker: an --X-external bot cannot join")
    if request.web is not None and request.jobs:
        raise ValueError("--web shows the matches this process plays: not with --ray or --workers")
    if request.ray and request.workers:
        raise ValueError("--workers plays on this machine, --ray on Ray: give one of them")
    a, b, *more = contestants
    vs = "-vs-".join(c.name for c in contestants)
    out_dir = request.out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-{vs}"
    records = request.in_process and not request.jobs and game.num_players == 2
    spec = RunSpec(
        a=a, b=b, more=tuple(more), game_file=request.game, game=game, game_path=game_path, seeds=request.seeds,
        hands=request.hands, out_dir=out_dir,
        concurrency=1 if any(c.external for c in contestants) else request.concurrency, host=request.host,
        t_response_ms=request.t_response_ms, t_hand_ms=request.t_hand_ms, t_per_hand_ms=request.t_per_hand_ms,
        external_timeout=request.external_timeout, in_process=request.in_process,
        record_policies=records and wanted(game, contestants, request.aivat), unchecked=unchecked,
    )  # fmt: skip
    try:
        (out_dir / "agents").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot make the output folder {out_dir}: {exc.strerror or exc}") from None
    return spec


def _sides(request: MatchRequest, game: Game) -> list[Side]:
    """The sides the game seats: A and B, and C in a three-player game."""
    if not 2 <= game.num_players <= len(SIDES):
        raise ValueError(f"acpc-match plays games of 2 or 3 players; {request.game} has {game.num_players}")
    for index, side in enumerate(request.sides):
        seated = index < game.num_players
        if seated and not side.given:
            raise ValueError(
                f"{request.game} has {game.num_players} players: give --{side.label} (or --{side.label}-cmd)"
            )
        if not seated and side.given:
            raise ValueError(f"--{side.label} is for games of {index + 1} players; {request.game} has 2")
    return list(request.sides[: game.num_players])


def _contestant(side: Side, warm: bool) -> Contestant:
    """The contestant ``side`` names: an agent (its spec checked, a file's path made absolute), a bot's command
    line, or an external bot. With ``warm``, an agent that a warm process plays has only its name checked here
    (its module, torch's import with it, is left to that process: ``RunSpec.unchecked``)."""
    label = side.label
    if side.command and side.external:
        raise ValueError(f"--{label}-cmd and --{label}-external exclude each other")
    if side.command or side.external:
        return Contestant(label, command=side.command, external=side.external, title=side.agent)
    if side.agent == "human":
        raise ValueError(
            f"a person plays through --{label}-external: run acpc-match with --{label}-external "
            f"and connect 'acpc-agent human HOST PORT --game GAME' to the port it prints"
        )
    if side.agent is None:
        raise ValueError(f"give --{label} an agent, or --{label}-cmd a bot's command line")
    try:
        if warm and is_warm_spec(side.agent):
            refuse_taken_name(side.agent)
        else:
            check_spec(side.agent)
    except ValueError as exc:  # AgentSpecError, or a shipped agent's dependency not installed
        raise ValueError(f"--{label}: {exc}") from None
    return Contestant(label, agent=absolute_spec(side.agent), args=tuple(shlex.split(side.args)))


def _serve_metrics(request: MatchRequest, servers: contextlib.ExitStack) -> RunMetrics | None:
    """The run's metrics where asked for, served on ``--metrics-port`` (closed with ``servers``)."""
    if request.metrics_port is None and not request.metrics_push:
        return None
    from acpc_arena.dealer.observers.metrics import RunMetrics  # prometheus_client: only for the run's metrics

    metrics = RunMetrics.fresh()
    if request.metrics_port is not None:
        try:
            metrics.serve(request.metrics_port, request.host)
        except OSError as exc:
            raise ValueError(f"could not serve metrics on port {request.metrics_port}: {exc}") from None
        servers.callback(lambda: metrics.server.close() if metrics.server is not None else None)
    return metrics


def _serve_pages(request: MatchRequest, out_dir: Path, servers: contextlib.ExitStack) -> SideServer | None:
    """The pages of ``--web`` (closed with ``servers``), their address told; None where not asked for."""
    if request.web is None:
        return None
    try:
        web = start_pages(out_dir, request.host, request.web)
    except OSError as exc:
        raise ValueError(f"could not serve the pages on port {request.web}: {exc}") from None
    servers.callback(web.close)
    print(f"acpc-match: the tables live at {web.url}", file=sys.stderr, flush=True)
    return web


def _play_and_report(spec: RunSpec, observer: RunProgress, request: MatchRequest, quiet: bool) -> int:
    """Play the run, then write and print its report; returns the exit status."""
    fields = {"command": request.command, "versions": versions()}
    try:
        result = play_run(
            spec,
            observer,
            jobs=request.jobs,
            interruptible=True,
            aivat=request.aivat,
            progress=not quiet,
            fields=fields,
        )
    except (JobsUnavailable, AgentCannotPlay) as exc:  # no Ray installed, an agent its warm process cannot build
        print(f"acpc-match: {exc}", file=sys.stderr)
        return USAGE
    stopped = ""
    if result.interrupted is not None:
        done = f"{len(result.outcomes)} of {result.matches} matches finished"
        stopped = f"acpc-match: interrupted by {result.interrupted.name}: {done}"
    report = result.report
    if report is None:
        print(stopped or "acpc-match: no match played a hand", file=sys.stderr)
        for failure in result.failed:
            print(failure, file=sys.stderr)
        return 128 + result.interrupted if result.interrupted is not None else FAILED
    if result.aivat_unavailable:
        print(f"acpc-match: AIVAT unavailable: {result.aivat_unavailable}", file=sys.stderr)
    problems = save_run(report, spec.out_dir, plots=request.plots)
    _print_result(report, result, spec.out_dir, problems)
    if result.interrupted is not None:
        print(f"{stopped}; the report covers those (marked partial)", file=sys.stderr)
        return 128 + result.interrupted
    return FAILED if result.failed or problems else 0


def _print_result(report: Report | MultiReport, result: RunResult, out_dir: Path, problems: list[str]) -> None:
    """The table, the run's line, its failures, the actions the dealer changed and what was not written."""
    print(format_table(report) if isinstance(report, Report) else format_multi_table(report))
    saved = "logs" if problems else "report, logs and plots" if "plots" in report.extra else "report and logs"
    print(f"\n{len(result.outcomes)} matches, {result.hands_per_second} hands/s; {saved} in {out_dir}")
    for failure in result.failed:
        print(failure)
    for line in changed_lines(result.changed_actions):
        print(line)
    for problem in problems:
        print(problem, file=sys.stderr)


def versions() -> dict[str, str]:
    """The versions of Python and of the packages that make a run's figures, for ``report.json``."""
    found = {"python": platform.python_version()}
    for package in ("acpc-arena", "numpy", "trio", "torch", "pokerkit"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found


def save_run(report: Report | MultiReport, out_dir: Path, plots: bool) -> list[str]:
    """Write the plots and ``report.json``; returns what could not be written."""
    problems = []
    if plots:
        try:
            from acpc_arena.dealer.arena.plots import plot_run  # matplotlib: the [plots] extra, maybe missing
        except ModuleNotFoundError as exc:
            print(
                f"acpc-match: no plots: {exc.name} is not installed (pip install 'acpc-arena[plots]')", file=sys.stderr
            )
            plots = False
    if plots:
        try:
            report.extra["plots"] = [str(p) for p in plot_run(report, out_dir)]
        except OSError as exc:
            problems.append(f"acpc-match: could not write the plot {exc.filename}: {exc.strerror or exc}")
    try:
        write_atomic(out_dir / "report.json", json.dumps(report.to_json(), indent=2) + "\n")
    except OSError as exc:
        problems.append(f"acpc-match: could not write {out_dir / 'report.json'}: {exc.strerror or exc}")
    return problems


def _last_metrics(metrics: RunMetrics, request: MatchRequest) -> None:
    """The final values outlive the run: pushed to a Pushgateway, and served ``--metrics-linger`` seconds more."""
    metrics.publish()
    if request.metrics_push:
        try:
            metrics.push(request.metrics_push)
        except (OSError, ValueError) as exc:
            print(f"acpc-match: could not push the metrics to {request.metrics_push}: {exc}", file=sys.stderr)
    if request.metrics_linger > 0:
        print(
            f"acpc-match: serving the final metrics on http://{request.host}:{request.metrics_port}/metrics "
            f"for {request.metrics_linger:g} s",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(request.metrics_linger)


def _sleep(seconds: float) -> None:
    """``time.sleep`` that takes ``math.inf`` (until Ctrl-C)."""
    while seconds > 0:
        step = min(seconds, 3600.0)
        time.sleep(step)
        seconds -= step
