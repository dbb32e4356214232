"""``acpc-match``: a duplicate run between two agents (or more), with a report, a table and plots.

    acpc-match --a AGENT --b AGENT [--c AGENT] [--seeds 1,234,6666] [--hands 3000] [--game GAME]
               [--out DIR] [--concurrency N] [--metrics-port PORT]
               [--a-args ARGS] [--b-args ARGS] [--a-cmd CMD] [--b-cmd CMD]
               [--a-external] [--b-external] [--c-args ARGS] [--c-cmd CMD] [--c-external]

For every seed, A plays B once in each seat with the same cards (in a three-player
game, A, B and C play the seed's three rotations of the seats); each match starts
its agents afresh and plays over TCP with this process's dealer. The output
folder gets every match's ACPC log, ``report.json``, PNG plots, and the agents'
standard error under ``agents/``; the table is printed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import sys
import time
from importlib import metadata
from pathlib import Path

import trio
from tqdm import tqdm

from acpc_arena.agents.registry import AGENTS
from acpc_arena.dealer.arena.plots import plot_run
from acpc_arena.dealer.arena.report import (
    LoggedMatch,
    MultiReport,
    Report,
    build_multi_report,
    build_report,
    format_multi_table,
    format_table,
    read_log,
)
from acpc_arena.dealer.arena.runner import (
    Contestant,
    MatchOutcome,
    MatchSpec,
    RunObserver,
    RunSpec,
    check_agent,
    run_matches,
)
from acpc_arena.dealer.match import (
    DEFAULT_T_HAND_MS,
    DEFAULT_T_PER_HAND_MS,
    DEFAULT_T_RESPONSE_MS,
    MatchConfig,
    MatchObserver,
    MatchResult,
)
from acpc_arena.dealer.metrics import MetricsObserver, RunMetrics
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.state import Action, State


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be whole numbers separated by commas: {text!r}") from None
    if not seeds or any(not 0 <= s < 2**32 for s in seeds) or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must be distinct numbers from 0 to 2**32-1: {text!r}")
    return seeds


SIDES = ("a", "b", "c")
"""The contestants' options: --a, --b, and --c for three-player games."""


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="acpc-match", description=__doc__.split("\n\n")[0])
    for side in SIDES:
        group = p.add_argument_group(f"agent {side.upper()}" + (" (three-player games)" if side == "c" else ""))
        group.add_argument(f"--{side}", help=f"shipped agent ({', '.join(sorted(AGENTS))}) or a label for --{side}-cmd")
        group.add_argument(f"--{side}-args", default="", help="options for the shipped agent, e.g. '--threshold 0.7'")
        group.add_argument(f"--{side}-cmd", help="command line of any ACPC bot; {host} {port} {game} {seed} filled in")
        group.add_argument(
            f"--{side}-external", action="store_true", help="wait for the bot to connect to a printed port"
        )
    p.add_argument("--seeds", type=_seeds, default=(1, 234, 6666), help="comma-separated deal seeds")
    p.add_argument("--hands", type=_positive, default=3000, help="hands per match")
    p.add_argument("--game", default="holdem.limit.2p.reverse_blinds", help="game file or shipped game")
    p.add_argument("--out", type=Path, default=None, help="output folder (default matches/<time>-<a>-vs-<b>)")
    p.add_argument("--concurrency", type=_positive, default=max(1, os.cpu_count() or 1), help="matches at once")
    p.add_argument("--metrics-port", type=int, default=None, help="serve Prometheus metrics on this port")
    p.add_argument("--host", default="127.0.0.1", help="address the dealer listens on")
    p.add_argument(
        "--t-response", type=_positive, default=DEFAULT_T_RESPONSE_MS, help="ms per response (ACPC --t_response)"
    )
    p.add_argument("--t-hand", type=_positive, default=DEFAULT_T_HAND_MS, help="ms per hand (ACPC --t_hand)")
    p.add_argument(
        "--t-per-hand", type=_positive, default=DEFAULT_T_PER_HAND_MS, help="average ms per hand (ACPC --t_per_hand)"
    )
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _sides(args: argparse.Namespace, game: Game) -> tuple[str, ...]:
    """The sides the game seats: a and b, and c in a three-player game."""
    if not 2 <= game.num_players <= len(SIDES):
        raise ValueError(f"acpc-match plays games of 2 or 3 players; {args.game} has {game.num_players}")
    sides = SIDES[: game.num_players]
    for side in SIDES:
        given = getattr(args, side) or getattr(args, f"{side}_cmd") or getattr(args, f"{side}_external")
        if side in sides and not given:
            raise ValueError(f"{args.game} has {game.num_players} players: give --{side} (or --{side}-cmd)")
        if side not in sides and given:
            raise ValueError(f"--{side} is for games of {SIDES.index(side) + 1} players; {args.game} has 2")
    return sides


def _contestant(args: argparse.Namespace, side: str) -> Contestant:
    agent = getattr(args, side)
    command = getattr(args, f"{side}_cmd")
    external = getattr(args, f"{side}_external")
    extra = tuple(shlex.split(getattr(args, f"{side}_args")))
    if command and external:
        raise SystemExit(f"acpc-match: --{side}-cmd and --{side}-external exclude each other")
    if command or external:
        return Contestant(side, command=command, external=external, title=agent)
    if agent == "human":
        raise SystemExit(
            f"acpc-match: a person plays through --{side}-external: run acpc-match with --{side}-external "
            f"and connect 'acpc-agent human HOST PORT --game GAME' to the port it prints"
        )
    if agent not in AGENTS:
        known = ", ".join(sorted(AGENTS))
        raise SystemExit(f"acpc-match: --{side} must name a shipped agent ({known}), or use --{side}-cmd: {agent!r}")
    return Contestant(side, agent=agent, args=extra)


class _Progress(MatchObserver):
    """Feeds one match's hands into the run's progress bar and metrics."""

    def __init__(self, run: CliObserver, match: MatchSpec) -> None:
        self.run = run
        self.a_seat = match.a_seat
        self.seat_names = [c.name for c in match.seating(run.spec.contestants)]

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        self.run.hand(values[config.player_of_seat(state.hand_id, self.a_seat)])

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        if self.run.metrics is not None:
            self.run.metrics.action.labels(self.seat_names[seat]).observe(seconds)


class CliObserver(RunObserver):
    def __init__(self, spec: RunSpec, metrics: RunMetrics | None, quiet: bool) -> None:
        self.spec = spec
        self.names = (spec.a.name, "+".join(c.name for c in spec.contestants[1:]))
        """A and its opponents (the metrics' labels)."""
        self.metrics = metrics
        total = len(spec.matches()) * spec.hands
        self.bar = tqdm(
            total=total, unit="hand", disable=quiet, file=sys.stderr, dynamic_ncols=True, smoothing=0.1, mininterval=0.5
        )
        self.hands = 0
        self.chips = 0.0
        self.big_blind = spec.game.big_blind
        self.failures: list[str] = []

    def hand(self, value_a: float) -> None:
        self.hands += 1
        self.chips += value_a
        mbb = 1000 * self.chips / self.hands / self.big_blind
        self.bar.update(1)
        if self.hands % 50 == 0:
            self.bar.set_postfix_str(f"{self.names[0]} {mbb:+.0f} mbb/h", refresh=False)
        if self.metrics is not None:
            self.metrics.hands.labels(*self.names).inc()
            self.metrics.mbb.labels(*self.names).set(mbb)

    def match_started(self, match: MatchSpec, config: MatchConfig) -> list[MatchObserver]:
        observers: list[MatchObserver] = [_Progress(self, match)]
        if self.metrics is not None:
            self.metrics.running.labels(*self.names).inc()
            observers.append(MetricsObserver(self.metrics.dealer))
        return observers

    def external_waiting(self, match: MatchSpec, contestant: Contestant, host: str, port: int) -> None:
        tqdm.write(
            f"{contestant.name}: connect an ACPC bot to {host} {port} "
            f"(match {match.name}, {contestant.label.upper()} in seat {match.seat_of(contestant.label) + 1})",
            file=sys.stdout,
        )
        sys.stdout.flush()

    def match_finished(self, outcome: MatchOutcome) -> None:
        result: MatchResult | None = outcome.result
        if self.metrics is not None:
            if result is not None:
                self.metrics.running.labels(*self.names).dec()
            status = "finished" if outcome.error is None else "failed"
            self.metrics.matches.labels(*self.names, status).inc()
            if result is not None and result.error is not None:
                agent = outcome.spec.seating(self.spec.contestants)[result.error.seat].name
                self.metrics.errors.labels(*self.names, agent, result.error.kind).inc()
                if result.error.kind == "timeout":
                    self.metrics.timeouts.labels(agent).inc()
        if outcome.error is not None:
            notes = "; ".join(outcome.agent_notes)
            text = f"match {outcome.spec.name} failed: {outcome.error}" + (f" [{notes}]" if notes else "")
            self.failures.append(text)
            self.bar.write(text)


def _versions() -> dict[str, str]:
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
        if item in [f"--{side}-{kind}" for side in SIDES for kind in ("args", "cmd")]:
            joined.append(f"{item}={next(items, '')}")
        else:
            joined.append(item)
    return joined


def run(argv: list[str]) -> int:
    args = parser().parse_args(_join_option_values(argv))
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
    a, b, *more = contestants
    concurrency = 1 if any(c.external for c in contestants) else args.concurrency
    vs = "-vs-".join(c.name for c in contestants)
    out_dir = args.out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-{vs}"
    try:
        spec = RunSpec(
            a=a, b=b, more=tuple(more), game_file=args.game, game=game, game_path=game_path, seeds=args.seeds,
            hands=args.hands, out_dir=out_dir, concurrency=concurrency, host=args.host,
            t_response_ms=args.t_response, t_hand_ms=args.t_hand, t_per_hand_ms=args.t_per_hand,
        )  # fmt: skip
        (out_dir / "agents").mkdir(parents=True, exist_ok=True)
    except ValueError as exc:
        print(f"acpc-match: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"acpc-match: cannot make the output folder {out_dir}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    metrics = None
    if args.metrics_port is not None:
        metrics = RunMetrics()
        try:
            metrics.serve(args.metrics_port, args.host)
        except OSError as exc:
            print(f"acpc-match: could not serve metrics on port {args.metrics_port}: {exc}", file=sys.stderr)
            return 2
    observer = CliObserver(spec, metrics, args.quiet)
    started = time.time()
    outcomes = trio.run(run_matches, spec, observer)
    observer.bar.close()
    elapsed = time.time() - started
    logged = _logged_matches(outcomes, game, observer.failures)
    if not logged:
        print("acpc-match: no match played a hand", file=sys.stderr)
        for failure in observer.failures:
            print(failure, file=sys.stderr)
        return 1
    scoring_started = time.time()
    errors = {o.log: o.error for o in outcomes if o.error}
    report: Report | MultiReport
    if more:
        report = build_multi_report(logged, errors)
    else:
        report = build_report(logged, a=a.name, errors=errors, progress=not args.quiet)
    scoring = time.time() - scoring_started  # the all-in valuation's share is counted in the run's time
    hands = sum(len(match.hands) for match in logged)
    elapsed += scoring
    report.extra = {
        "command": " ".join(shlex.quote(part) for part in [Path(sys.argv[0]).name, *argv]),
        "versions": _versions(),
        "elapsed_seconds": round(elapsed, 3),
        "scoring_seconds": round(scoring, 3),
        "hands_per_second": round(hands / max(elapsed, 1e-9), 1),
        "concurrency": concurrency,
        "failed": observer.failures,
    }
    problems = _save(report, out_dir, plots=not args.no_plots)
    print(format_table(report) if isinstance(report, Report) else format_multi_table(report))
    saved = "logs" if problems else "report, logs and plots" if not args.no_plots else "report and logs"
    print(f"\n{len(logged)} matches, {report.extra['hands_per_second']} hands/s; {saved} in {out_dir}")
    for failure in observer.failures:
        print(failure)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if observer.failures or problems else 0


def _logged_matches(outcomes: list[MatchOutcome], game: Game, failures: list[str]) -> list[LoggedMatch]:
    """The logs on disk with at least one hand, whatever became of their matches (a full disk, a crash)."""
    logged = []
    for outcome in outcomes:
        if not outcome.log.exists():
            continue
        try:
            match = read_log(outcome.log, game)
        except ProtocolError as exc:
            if outcome.error is None:  # else the failure is already told
                failures.append(f"match {outcome.spec.name}: cannot score its log: {exc}")
            continue
        if match.hands:
            logged.append(match)
    return logged


def _save(report: Report | MultiReport, out_dir: Path, plots: bool) -> list[str]:
    """Write the plots and ``report.json``; returns what could not be written."""
    problems = []
    if plots:
        try:
            report.extra["plots"] = [str(p) for p in plot_run(report, out_dir)]
        except OSError as exc:
            problems.append(f"acpc-match: could not write the plots: {exc.strerror or exc}")
    try:
        (out_dir / "report.json").write_text(json.dumps(report.to_json(), indent=2) + "\n")
    except OSError as exc:
        problems.append(f"acpc-match: could not write {out_dir / 'report.json'}: {exc.strerror or exc}")
    return problems


def main(argv: list[str] | None = None) -> None:
    sys.exit(run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
