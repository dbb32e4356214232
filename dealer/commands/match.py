"""``acpc-match``: a duplicate run between two agents (or more), with a report, a table and plots.

    acpc-match --a AGENT --b AGENT [--c AGENT] [--seeds 1,234,6666] [--hands 3000] [--game GAME]
               [--out DIR] [--concurrency N] [--metrics-port PORT] [--metrics-linger S]
               [--metrics-push GATEWAY] [--a-args ARGS] [--b-args ARGS] [--a-cmd CMD]
               [--b-cmd CMD] [--a-external] [--b-external] [--c-args ARGS] [--c-cmd CMD]
               [--c-external] [--external-timeout S] [--in-process] [--workers] [--ray [ADDRESS]]

For every seed, A plays B once in each seat with the same cards (in a three-player
game, A, B and C play the seed's three rotations of the seats); each match starts
its agents afresh and plays over TCP with this process's dealer. The output
folder gets every match's ACPC log, ``report.json``, PNG plots, and the agents'
standard error under ``agents/``; the table is printed at the end. With
``--in-process`` the shipped agents play inside this process instead (the same
logs, several times the hands per second); with ``--workers`` each match is
played by one of ``--concurrency`` worker processes with the agents inside it, and with ``--ray``
by a Ray task on a cluster's node (``fanout``). Ctrl-C or
SIGTERM ends the run: the finished matches are reported (``report.json`` marked
partial) and every agent is stopped.
"""

from __future__ import annotations

import argparse
import math
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acpc_arena.agents.registry import AGENTS
from acpc_arena.dealer.arena import options
from acpc_arena.dealer.arena.fanout import add_ray_option
from acpc_arena.dealer.server.match_config import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS
from acpc_arena.protocol.commands import (
    CommandParser,
    Interrupted,
    plain,
    refuse_input_as_output,
    run_command,
    shows_progress,
)

if TYPE_CHECKING:  # imported where used: --help and a bad command line start without numpy, trio and the
    # metrics (make bench SECTIONS=startup)
    from types import FrameType

    from acpc_arena.dealer.arena.fanout import JobResult, MatchJob
    from acpc_arena.dealer.arena.reports import MultiReport, Report
    from acpc_arena.dealer.arena.run_progress import RunProgress
    from acpc_arena.dealer.arena.runner import Contestant, MatchOutcome, RunSpec
    from acpc_arena.dealer.observers.metrics import RunMetrics
    from acpc_arena.dealer.observers.page_process import SideServer
    from acpc_arena.protocol.game import Game


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-match", description=plain(__doc__.split("\n\n")[0]))
    for side in options.SIDES:
        group = p.add_argument_group(f"agent {side.upper()}" + (" (three-player games)" if side == "c" else ""))
        group.add_argument(f"--{side}", help=f"shipped agent ({', '.join(sorted(AGENTS))}) or a label for --{side}-cmd")
        group.add_argument(f"--{side}-args", default="", help="options for the shipped agent, e.g. '--argmax'")
        group.add_argument(
            f"--{side}-cmd",
            type=options.command_template,
            help="command line of any ACPC bot; {host} {port} {game} {seed} filled in ({host} and {port} needed)",
        )
        group.add_argument(
            f"--{side}-external", action="store_true", help="wait for the bot to connect to a printed port"
        )
    p.add_argument("--seeds", type=options.seed_list, default=(1, 234, 6666), help="comma-separated deal seeds")
    p.add_argument("--hands", type=options.hand_count, default=3000, help="hands per match")
    p.add_argument("--game", default="holdem.limit.2p.reverse_blinds", help="game file or shipped game")
    p.add_argument("--out", type=Path, default=None, help="output folder (default matches/<time>-<a>-vs-<b>)")
    options.add_concurrency(
        p,
        "matches (with --in-process, their network agents' decisions are batched together; with --workers, "
        "the worker processes)",
        old=False,
    )
    p.add_argument(
        "--metrics-port", type=options.port_number, default=None, help="serve Prometheus metrics on this port"
    )
    p.add_argument(
        "--metrics-linger",
        type=options.seconds,
        default=0.0,
        metavar="SECONDS",
        help="keep serving the final metrics this long after the run, for a last scrape",
    )
    p.add_argument(
        "--metrics-push",
        metavar="GATEWAY",
        default=None,
        help="push the final metrics to this Prometheus Pushgateway (host:port or URL) as job acpc-match",
    )
    p.add_argument(
        "--external-timeout",
        type=options.seconds,
        default=600.0,
        metavar="SECONDS",
        help="how long an --a-external/--b-external match waits for its bots to connect (default 600)",
    )
    p.add_argument(
        "--in-process",
        action="store_true",
        help="play the shipped agents inside this process, not over TCP (the same logs, faster; "
        "--X-cmd and --X-external bots still connect over TCP)",
    )
    add_ray_option(p, "--concurrency")
    p.add_argument(
        "--workers",
        type=options.positive_int,
        nargs="?",
        const=0,
        default=None,
        metavar="N",
        help="play the matches in --concurrency worker processes of this machine, the shipped agents inside them "
        "(the same logs; every core used, where --in-process plays in one thread; progress and metrics move a group "
        "of matches at a time; an N here is the former spelling of --concurrency N)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address the dealer listens on")
    p.add_argument(
        "--t-response",
        type=options.milliseconds,
        default=DEFAULT_T_RESPONSE_MS,
        help="ms per response (ACPC --t_response)",
    )
    p.add_argument("--t-hand", type=options.milliseconds, default=DEFAULT_T_HAND_MS, help="ms per hand (ACPC --t_hand)")
    p.add_argument(
        "--t-per-hand",
        type=options.milliseconds,
        default=DEFAULT_T_PER_HAND_MS,
        help="average ms per hand (ACPC --t_per_hand)",
    )
    p.add_argument(
        "--web",
        type=options.port_or_any,
        default=None,
        metavar="PORT",
        help="serve the arena's pages on this port (0: any free): the tables live, then the logs and the report",
    )
    p.add_argument(
        "--web-linger",
        type=options.seconds,
        default=math.inf,
        metavar="SECONDS",
        help="with --web: keep the pages up this long after the run (default: until Ctrl-C)",
    )
    p.add_argument(
        "--aivat",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add AIVAT's estimate with the shipped agents' policies known (default: on in two-player Kuhn and "
        "Leduc with both agents shipped; in hold'em it costs several times the match's time)",
    )
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar (drawn only on a terminal)")
    return p


def _sides(args: argparse.Namespace, game: Game) -> tuple[str, ...]:
    """The sides the game seats: a and b, and c in a three-player game."""
    if not 2 <= game.num_players <= len(options.SIDES):
        raise ValueError(f"acpc-match plays games of 2 or 3 players; {args.game} has {game.num_players}")
    sides = options.SIDES[: game.num_players]
    for side in options.SIDES:
        given = getattr(args, side) or getattr(args, f"{side}_cmd") or getattr(args, f"{side}_external")
        if side in sides and not given:
            raise ValueError(f"{args.game} has {game.num_players} players: give --{side} (or --{side}-cmd)")
        if side not in sides and given:
            raise ValueError(f"--{side} is for games of {options.SIDES.index(side) + 1} players; {args.game} has 2")
    return sides


def _contestant(args: argparse.Namespace, side: str) -> Contestant:
    from acpc_arena.dealer.arena.runner import Contestant

    agent = getattr(args, side)
    command = getattr(args, f"{side}_cmd")
    external = getattr(args, f"{side}_external")
    extra = tuple(shlex.split(getattr(args, f"{side}_args")))
    if command and external:
        raise ValueError(f"--{side}-cmd and --{side}-external exclude each other")
    if command or external:
        return Contestant(side, command=command, external=external, title=agent)
    if agent == "human":
        raise ValueError(
            f"a person plays through --{side}-external: run acpc-match with --{side}-external "
            f"and connect 'acpc-agent human HOST PORT --game GAME' to the port it prints"
        )
    if agent not in AGENTS:
        known = ", ".join(sorted(AGENTS))
        raise ValueError(f"--{side} must name a shipped agent ({known}), or use --{side}-cmd: {agent!r}")
    return Contestant(side, agent=agent, args=extra)


def _versions() -> dict[str, str]:
    import contextlib
    import platform
    from importlib import metadata

    versions = {"python": platform.python_version()}
    for package in ("acpc-arena", "numpy", "trio", "torch", "pokerkit"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    return versions


def _join_option_values(argv: list[str]) -> list[str]:
    """``--a-args --argmax`` means ``--a-args=--argmax`` (argparse would take the value for an option)."""
    joined: list[str] = []
    items = iter(argv)
    for item in items:
        if item in [f"--{side}-{kind}" for side in options.SIDES for kind in ("args", "cmd")]:
            joined.append(f"{item}={next(items, '')}")
        else:
            joined.append(item)
    return joined


def run(argv: list[str]) -> int:
    args = parser().parse_args(_join_option_values(argv))
    if args.workers == 0:  # --workers alone: --concurrency of them
        args.workers = args.concurrency
    refuse_input_as_output("acpc-match", {"--out": args.out}, [args.game])
    from acpc_arena.dealer.arena.run_progress import RunProgress
    from acpc_arena.dealer.arena.runner import RunSpec, check_agent
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.game import load_game, resolve_game_path

    try:
        game = load_game(args.game)
        game_path = resolve_game_path(args.game).resolve()
        sides = _sides(args, game)
        contestants = [_contestant(args, side) for side in sides]
        for contestant in contestants:
            check_agent(contestant, game, args.game)
    except (ProtocolError, ValueError) as exc:
        print(f"acpc-match: {exc}", file=sys.stderr)
        return 2
    if (args.ray or args.workers) and any(c.external for c in contestants):
        print(
            "acpc-match: --ray and --workers play each match in a worker: an --X-external bot cannot join",
            file=sys.stderr,
        )
        return 2
    if args.web is not None and (args.ray or args.workers):
        print("acpc-match: --web shows the matches this process plays: not with --ray or --workers", file=sys.stderr)
        return 2
    if args.ray and args.workers:
        print("acpc-match: --workers plays on this machine, --ray on Ray: give one of them", file=sys.stderr)
        return 2
    a, b, *more = contestants
    concurrency = 1 if any(c.external for c in contestants) else args.concurrency
    vs = "-vs-".join(c.name for c in contestants)
    out_dir = args.out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-{vs}"
    try:
        spec = RunSpec(
            a=a, b=b, more=tuple(more), game_file=args.game, game=game, game_path=game_path, seeds=args.seeds,
            hands=args.hands, out_dir=out_dir, concurrency=concurrency, host=args.host,
            t_response_ms=args.t_response, t_hand_ms=args.t_hand, t_per_hand_ms=args.t_per_hand,
            external_timeout=args.external_timeout, in_process=args.in_process,
            record_policies=_records_policies(args, game, contestants),
        )  # fmt: skip
        (out_dir / "agents").mkdir(parents=True, exist_ok=True)
    except ValueError as exc:
        print(f"acpc-match: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"acpc-match: cannot make the output folder {out_dir}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    metrics = None
    if args.metrics_port is not None or args.metrics_push:
        from prometheus_client import CollectorRegistry

        from acpc_arena.dealer.observers.metrics import RunMetrics

        metrics = RunMetrics(CollectorRegistry())
    if metrics is not None and args.metrics_port is not None:
        try:
            metrics.serve(args.metrics_port, args.host)
        except OSError as exc:
            print(f"acpc-match: could not serve metrics on port {args.metrics_port}: {exc}", file=sys.stderr)
            return 2
    web: SideServer | None = None
    if args.web is not None:
        from acpc_arena.dealer.observers.page_process import start_pages

        try:
            web = start_pages(out_dir, args.host, args.web)
        except OSError as exc:
            print(f"acpc-match: could not serve the pages on port {args.web}: {exc}", file=sys.stderr)
            return 2
        print(f"acpc-match: the tables live at {web.url}", file=sys.stderr, flush=True)
    try:
        quiet = not shows_progress(args.quiet)
        observer = RunProgress(spec, metrics, quiet, web.feed if web is not None else None)
        jobs = _JobSettings(args.ray, args.workers) if args.ray or args.workers else None
        status = _play_and_report(spec, observer, argv, args.no_plots, quiet, jobs, aivat=args.aivat)
        try:
            if web is not None and args.web_linger > 0 and status < 128:  # not after a Ctrl-C or SIGTERM
                web.feed.flush()
                until = "until Ctrl-C" if math.isinf(args.web_linger) else f"for {args.web_linger:g} s"
                print(f"acpc-match: the pages stay up at {web.url} {until}", file=sys.stderr, flush=True)
                _sleep(args.web_linger)
            if metrics is not None:
                _last_metrics(metrics, args)
        except* KeyboardInterrupt:
            raise Interrupted(
                f"the run had ended (status {status}); its logs and report are in {spec.out_dir}"
            ) from None
    finally:
        for server in (web, metrics.server if metrics is not None else None):
            if server is not None:
                server.close()
    return status


def _sleep(seconds: float) -> None:
    """``time.sleep`` that takes ``math.inf`` (until Ctrl-C)."""
    while seconds > 0:
        step = min(seconds, 3600.0)
        time.sleep(step)
        seconds -= step


@dataclass(frozen=True)
class _JobSettings:
    """Where the matches are played as jobs (``fanout``): on Ray at ``ray``, or in ``workers`` local processes."""

    ray: str | None
    workers: int | None


def _play_as_jobs(spec: RunSpec, observer: RunProgress, settings: _JobSettings) -> int | None:
    """Play the run's matches as jobs (``fanout``), Ray tasks or local worker processes; returns the
    signal that interrupted the run, or None.

    Each finished match's log is written as it comes back; the progress bar and the
    metrics move a group of matches at a time (``fanout.job_groups``).
    """
    from acpc_arena.dealer.arena.fanout import MatchJob, run_jobs
    from acpc_arena.dealer.arena.runner import MatchOutcome
    from acpc_arena.protocol.files import GAME_BYTES, read_bounded

    jobs = [MatchJob(spec, match, read_bounded(spec.game_path, GAME_BYTES).decode("ascii")) for match in spec.matches()]
    received: list[int] = []

    def finished(job: MatchJob, result: JobResult) -> None:
        hands = result.log_text.count("\nSTATE:") if result.log_text else 0
        observer.bar.update(hands)
        if observer.metrics is not None:
            observer.metrics.hands.labels(*observer.names).inc(hands)
        observer.match_finished(
            MatchOutcome(
                job.match, job.log, error=result.error, agent_notes=result.notes, changed_actions=result.changed_actions
            )
        )

    def interrupt(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        run_jobs(jobs, settings.workers or spec.concurrency, finished, settings.ray)
    except KeyboardInterrupt:
        return received[0] if received else signal.SIGINT
    finally:
        signal.signal(signal.SIGTERM, previous)
    return None


async def _play_run(spec: RunSpec, observer: RunProgress) -> int | None:
    """Play the run; returns the signal (SIGINT, SIGTERM) that interrupted it, or None.

    On a signal the matches being played are cancelled: their agents are stopped and
    their logs keep the hands played; the finished matches are in ``observer.finished``.
    """
    import trio

    from acpc_arena.dealer.arena.runner import run_matches

    interrupted: int | None = None
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                nonlocal interrupted
                async for signum in signals:
                    interrupted = signum
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch)
            await run_matches(spec, observer)
            nursery.cancel_scope.cancel()
    return interrupted


def _play_and_report(
    spec: RunSpec,
    observer: RunProgress,
    argv: list[str],
    no_plots: bool,
    quiet: bool,
    jobs: _JobSettings | None = None,
    aivat: bool | None = None,
) -> int:
    """Play the run (here, or as jobs), then write and print its report (with AIVAT's estimate as ``aivat``
    says: ``_add_aivat``); returns the exit status."""
    import trio

    from acpc_arena.dealer.arena.reports import Report
    from acpc_arena.dealer.arena.scoring import changed_lines, run_changed_actions, score_run
    from acpc_arena.dealer.arena.tables import format_multi_table, format_table

    started = time.time()
    try:
        interrupted = _play_as_jobs(spec, observer, jobs) if jobs else trio.run(_play_run, spec, observer)
    except ValueError as exc:  # no Ray installed, a cluster that cannot be reached
        observer.bar.close()
        print(f"acpc-match: {exc}", file=sys.stderr)
        return 2
    observer.bar.close()
    elapsed = time.time() - started
    order = {match: index for index, match in enumerate(spec.matches())}
    outcomes = sorted(observer.finished, key=lambda outcome: order[outcome.spec])
    unfinished = [match.name for match in spec.matches() if match not in {o.spec for o in outcomes}]
    stopped = ""
    if interrupted is not None:
        name = signal.Signals(interrupted).name
        stopped = f"acpc-match: interrupted by {name}: {len(outcomes)} of {len(order)} matches finished"
    scoring_started = time.time()
    report = score_run(spec, outcomes, observer.failures, progress=not quiet)
    if report is None:
        print(stopped or "acpc-match: no match played a hand", file=sys.stderr)
        for failure in observer.failures:
            print(failure, file=sys.stderr)
        return 128 + interrupted if interrupted is not None else 1
    scoring = time.time() - scoring_started  # the all-in valuation's share is counted in the run's time
    scored = report.to_json()
    hands, matches = scored["hands_played"], len(scored["matches"])
    elapsed += scoring
    report.extra = {
        "command": " ".join(shlex.quote(part) for part in [Path(sys.argv[0]).name, *argv]),
        "versions": _versions(),
        "elapsed_seconds": round(elapsed, 3),
        "scoring_seconds": round(scoring, 3),
        "hands_per_second": round(hands / max(elapsed, 1e-9), 1),
        "concurrency": spec.concurrency,
        "failed": observer.failures,
        "partial": interrupted is not None,
        "changed_actions": run_changed_actions(spec, outcomes),
    }
    if interrupted is not None:
        report.extra["interrupted_by"] = signal.Signals(interrupted).name
        report.extra["unfinished_matches"] = unfinished
    if observer.metrics is not None and isinstance(report, Report):
        observer.set_duplicate(report.duplicate)
    if isinstance(report, Report):
        _add_aivat(spec, report, aivat, quiet, outcomes)
    problems = _save(report, spec.out_dir, plots=not no_plots)
    print(format_table(report) if isinstance(report, Report) else format_multi_table(report))
    saved = "logs" if problems else "report, logs and plots" if "plots" in report.extra else "report and logs"
    print(f"\n{matches} matches, {report.extra['hands_per_second']} hands/s; {saved} in {spec.out_dir}")
    for failure in observer.failures:
        print(failure)
    for line in changed_lines(report.extra["changed_actions"]):
        print(line)
    for problem in problems:
        print(problem, file=sys.stderr)
    if interrupted is not None:
        print(f"{stopped}; the report covers those (marked partial)", file=sys.stderr)
        return 128 + interrupted
    return 1 if observer.failures or problems else 0


def _last_metrics(metrics: RunMetrics, args: argparse.Namespace) -> None:
    """The final values outlive the run: pushed to a Pushgateway, and served ``--metrics-linger`` seconds more."""
    metrics.publish()
    if args.metrics_push:
        try:
            metrics.push(args.metrics_push)
        except (OSError, ValueError) as exc:
            print(f"acpc-match: could not push the metrics to {args.metrics_push}: {exc}", file=sys.stderr)
    if args.metrics_linger > 0:
        print(
            f"acpc-match: serving the final metrics on http://{args.host}:{args.metrics_port}/metrics "
            f"for {args.metrics_linger:g} s",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(args.metrics_linger)


def _records_policies(args: argparse.Namespace, game: Game, contestants: list[Contestant]) -> bool:
    """Whether the agents played in this process record their policies for AIVAT (it then does not ask them
    again for the cards they were dealt)."""
    if not args.in_process or args.workers or args.ray or game.num_players != 2:
        return False
    from acpc_arena.dealer.arena.aivat.reporting import wanted  # numpy and the agents: not for --help

    return wanted(game, contestants, args.aivat)


def _add_aivat(
    spec: RunSpec, report: Report, asked: bool | None, quiet: bool, outcomes: Sequence[MatchOutcome]
) -> None:
    """``add_to_run`` for a two-player run (with the policies the agents recorded as they played); where
    AIVAT is unavailable, says why in one line (standard error); the run's own figures stand."""
    from acpc_arena.dealer.arena.aivat.reporting import add_to_run  # numpy and the agents: not for --help

    records = {outcome.log: outcome.policies for outcome in outcomes if outcome.policies}
    reason = add_to_run(report, (spec.a, spec.b), asked, progress=not quiet, records=records)
    if reason:
        print(f"acpc-match: AIVAT unavailable: {reason}", file=sys.stderr)


def _save(report: Report | MultiReport, out_dir: Path, plots: bool) -> list[str]:
    """Write the plots and ``report.json``; returns what could not be written."""
    import json

    from acpc_arena.protocol.files import write_atomic

    problems = []
    if plots:
        try:
            from acpc_arena.dealer.arena.plots import plot_run  # matplotlib: the [plots] extra
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


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-match", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
