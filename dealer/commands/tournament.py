"""``acpc-tournament``: a round robin of agents in duplicate, and its crosstable.

    acpc-tournament --agents random,call,raise,rule,cfr,lstm_dqn,dqn [--seeds 1,234,6666]
                    [--hands 2000] [--game GAME] [--out DIR] [--concurrency N] [--ray [ADDRESS]]
                    [--agent 'NAME=AGENT OPTIONS'] [--cmd 'NAME=COMMAND'] [--metrics-port PORT]

Every pair of entrants plays ``acpc-match``'s duplicate run (each seed in both
seatings). Each match is played from start to end by one worker process, the
shipped agents inside it: ``--concurrency`` of them on this machine, or Ray tasks
with ``--ray`` (a Ray started here, or a running cluster's address). The output
folder holds each pair's logs and report and the crosstable (``crosstable.md``,
``crosstable.json``, ``crosstable.png``); the table is printed at the end.
Running the same command again resumes an interrupted tournament: finished
matches are kept, the rest are played (see ``tournament.py``); a log that is not its
match's record is moved aside and played again, and what the tournament never writes
refuses the run (``tournament_folder.py``). One run at a time holds the folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
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
    from acpc_arena.dealer.arena.fanout import JobResult, MatchJob
    from acpc_arena.dealer.arena.logreading import LoggedMatch
    from acpc_arena.dealer.arena.runner import RunSpec
    from acpc_arena.dealer.arena.tournament import Crosstable, Entrant, Tournament
    from acpc_arena.dealer.observers.metrics import RunMetrics


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-tournament", description=plain(__doc__.split("\n\n")[0]))
    p.add_argument(
        "--agents", default="", help=f"comma-separated shipped agents ({', '.join(sorted(AGENTS))}), each an entrant"
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="'[NAME=]AGENT OPTIONS'",
        help="an entrant with options, e.g. 'cfr-argmax=cfr --argmax' (repeat for more)",
    )
    p.add_argument(
        "--cmd",
        type=options.named_command,
        action="append",
        default=[],
        metavar="'NAME=COMMAND'",
        help="any ACPC bot's command line as an entrant, {host} {port} {game} {seed} filled in (repeat for more)",
    )
    p.add_argument("--seeds", type=options.seed_list, default=(1, 234, 6666), help="comma-separated deal seeds")
    p.add_argument("--hands", type=options.hand_count, default=2000, help="hands per match")
    p.add_argument("--game", default="holdem.limit.2p.reverse_blinds", help="game file or shipped game")
    p.add_argument(
        "--out", type=Path, default=None, help="output folder (default tournaments/<time>); resumed if it exists"
    )
    options.add_concurrency(p, "matches played, each in a worker process,")
    add_ray_option(p, "--concurrency")
    p.add_argument(
        "--metrics-port", type=options.port_number, default=None, help="serve Prometheus metrics on this port"
    )
    p.add_argument(
        "--metrics-linger",
        type=options.seconds,
        default=0.0,
        metavar="SECONDS",
        help="serve the final metrics this long",
    )
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
        "--aivat",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add AIVAT's estimate to each cell, the shipped agents' policies known (default: on in two-player "
        "Kuhn and Leduc; in hold'em it costs several times the matches' time)",
    )
    p.add_argument("--no-plots", action="store_true", help="skip the heatmap")
    p.add_argument("--quiet", action="store_true", help="no progress bar (drawn only on a terminal)")
    return p


def _entrants(args: argparse.Namespace) -> tuple[Entrant, ...]:
    from acpc_arena.dealer.arena.tournament import Entrant

    entrants = [Entrant.parse(name) for name in args.agents.split(",") if name.strip()]
    entrants += [Entrant.parse(text) for text in args.agent]
    entrants += [Entrant.parse_command(text) for text in args.cmd]
    for entrant in entrants:
        if entrant.agent is not None and entrant.agent not in AGENTS:
            known = ", ".join(sorted(AGENTS))
            raise ValueError(f"{entrant.agent!r} is not a shipped agent ({known}); give a bot's command with --cmd")
        if entrant.agent == "human":
            raise ValueError("a person cannot play a tournament's many matches: play one with acpc-match --a-external")
    return tuple(entrants)


def _tournament(args: argparse.Namespace) -> Tournament:
    from acpc_arena.dealer.arena.tournament import Tournament
    from acpc_arena.protocol.game import load_game, resolve_game_path

    game = load_game(args.game)
    return Tournament(
        entrants=_entrants(args), game_file=args.game, game=game, game_path=resolve_game_path(args.game).resolve(),
        seeds=args.seeds, hands=args.hands, out_dir=args.out or Path("tournaments") / time.strftime("%Y%m%d-%H%M%S"),
        concurrency=args.concurrency, t_response_ms=args.t_response, t_hand_ms=args.t_hand,
        t_per_hand_ms=args.t_per_hand, in_process=True,
    )  # fmt: skip


class _Progress:
    """The progress bar (hands, with matches in its text), the failures, and the metrics, as matches end."""

    def __init__(self, tournament: Tournament, pending: int, metrics: RunMetrics | None, quiet: bool) -> None:
        from tqdm import tqdm

        self.tournament = tournament
        self.pending = pending
        self.done = 0
        self.failures: list[str] = []
        self.failed: set[Path] = set()
        """The logs of the matches that failed."""
        self.metrics = metrics
        self.bar = tqdm(
            total=pending * tournament.hands, unit="hand", disable=quiet, file=sys.stderr, dynamic_ncols=True
        )
        self.bar.set_description(f"0/{pending} matches")
        if metrics is not None:
            for first, second in tournament.pairs():
                spec = tournament.run_spec(first, second)
                metrics.start(
                    spec.a.name,
                    spec.b.name,
                    tournament.game_file,
                    tournament.seeds,
                    tournament.hands,
                    2 * len(tournament.seeds),
                )
            entrants = ",".join(e.name for e in tournament.entrants)
            metrics.info.info(
                {"a": entrants, "b": "round robin", "game": tournament.game_file,
                 "seeds": ",".join(map(str, tournament.seeds)), "hands": str(tournament.hands)}
            )  # fmt: skip

    def match_done(self, job: MatchJob, result: JobResult) -> None:
        self.done += 1
        hands = result.log_text.count("\nSTATE:") if result.log_text else 0
        self.bar.update(hands)
        self.bar.set_description(f"{self.done}/{self.pending} matches")
        pair = f"{job.spec.a.name.removeprefix('a-')}-vs-{job.spec.b.name.removeprefix('b-')}"
        if result.error is not None:
            self.failed.add(job.log)
            notes = f" [{'; '.join(result.notes)}]" if result.notes else ""
            text = f"match {pair}/{job.match.name} failed: {result.error}{notes}"
            self.failures.append(text)
            if not self.bar.disable:
                self.bar.write(text)
        if self.metrics is not None:
            names = (job.spec.a.name, job.spec.b.name)
            self.metrics.hands.labels(*names).inc(hands)
            self.metrics.matches.labels(*names, "finished" if result.error is None else "failed").inc()


def _pair_logs(spec: RunSpec, failed: set[Path], failures: list[str]) -> list[LoggedMatch]:
    """The pair's logs with a hand or more that are its matches' records (``tournament_folder.log_problem``);
    any other is left out and told in ``failures``, but a log of a match that failed this run (told already)."""
    from acpc_arena.dealer.arena.logreading import read_log
    from acpc_arena.dealer.arena.tournament_folder import log_problem
    from acpc_arena.protocol.errors import ProtocolError

    logged = []
    for match in spec.matches():
        path = spec.out_dir / f"{match.name}.log"
        if not path.exists():
            continue
        try:
            log = read_log(path, spec.game)
        except ProtocolError as exc:
            if path not in failed:
                failures.append(f"acpc-tournament: not scored: {exc}")
            continue
        problem = log_problem(log, spec, match)
        if problem is not None:
            failures.append(f"acpc-tournament: not scored: {problem}")
        elif log.hands:
            logged.append(log)
    return logged


def _score(
    tournament: Tournament,
    metrics: RunMetrics | None,
    failed: set[Path],
    failures: list[str],
    aivat: bool | None = None,
) -> tuple[Crosstable, list[str]]:
    """Each pair's report (``report.json`` in its folder, with AIVAT's figures as ``aivat`` says: see
    ``add_to_run``) and the crosstable of all of them; and what could not be written."""
    from acpc_arena.dealer.arena.aivat.reporting import add_to_run
    from acpc_arena.dealer.arena.allin import AllinValues
    from acpc_arena.dealer.arena.reports import build_report
    from acpc_arena.dealer.arena.tournament import Cell, Crosstable
    from acpc_arena.protocol.files import write_atomic

    results: dict[tuple[str, str], Cell] = {}
    problems = []
    allin = AllinValues()  # pairs of a seed deal the same cards: an all-in hand is often met again
    for first, second in tournament.pairs():
        spec = tournament.run_spec(first, second)
        logged = _pair_logs(spec, failed, failures)
        if not logged:
            continue
        report = build_report(logged, a=spec.a.name, errors={}, allin=allin)
        reason = add_to_run(report, (spec.a, spec.b), aivat)
        if reason:
            pair = f"{spec.a.name} against {spec.b.name}"
            print(f"acpc-tournament: AIVAT unavailable for {pair}: {reason}", file=sys.stderr)
        try:
            write_atomic(spec.out_dir / "report.json", json.dumps(report.to_json(), indent=2) + "\n")
        except OSError as exc:
            problems.append(f"acpc-tournament: could not write {spec.out_dir / 'report.json'}: {exc.strerror or exc}")
        results[(first.name, second.name)] = Cell.of_report(report)
        if metrics is not None:
            main = report.duplicate
            names = (spec.a.name, spec.b.name)
            metrics.duplicate_pairs.labels(*names).set(main.samples)
            if main.samples:
                metrics.duplicate.labels(*names).set(main.mbb_per_hand)
                metrics.duplicate_low.labels(*names).set(main.ci95[0])
                metrics.duplicate_high.labels(*names).set(main.ci95[1])
    return Crosstable.of_pairs(tournament, results), problems


def _write(table: Crosstable, out_dir: Path, plots: bool) -> list[str]:
    """``crosstable.json``, ``crosstable.md`` and the heatmap, each whole or not at all; returns what could
    not be written."""
    from acpc_arena.protocol.files import write_atomic

    problems = []
    texts = {"crosstable.json": json.dumps(table.to_json(), indent=2) + "\n", "crosstable.md": table.markdown() + "\n"}
    for name, text in texts.items():
        try:
            write_atomic(out_dir / name, text)
        except OSError as exc:
            problems.append(f"acpc-tournament: could not write {out_dir / name}: {exc.strerror or exc}")
    if plots:
        try:
            from acpc_arena.dealer.arena.plots import plot_crosstable  # matplotlib: the [plots] extra

            plot_crosstable(table, out_dir / "crosstable.png")
        except ModuleNotFoundError as exc:
            problems.append(
                f"acpc-tournament: no heatmap: {exc.name} is not installed (pip install 'acpc-arena[plots]')"
            )
        except OSError as exc:
            problems.append(f"acpc-tournament: could not write {out_dir / 'crosstable.png'}: {exc.strerror or exc}")
    return problems


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    refuse_input_as_output("acpc-tournament", {"--out": args.out}, [args.game])
    from acpc_arena.dealer.arena.runner import check_agent
    from acpc_arena.dealer.arena.tournament_folder import FolderInUse, close_lock, lock_folder
    from acpc_arena.protocol.errors import ProtocolError

    try:
        tournament = _tournament(args)
        for entrant in tournament.entrants:
            check_agent(entrant.contestant("a"), tournament.game, args.game)
    except (ProtocolError, ValueError) as exc:
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return 2
    try:
        lock = lock_folder(tournament.out_dir)
    except FolderInUse as exc:
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"acpc-tournament: cannot use the output folder {tournament.out_dir}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    try:
        return _run_locked(args, tournament)
    finally:
        close_lock(lock)


def _run_locked(args: argparse.Namespace, tournament: Tournament) -> int:
    """Check the folder, play what is missing and write the crosstable; the folder's lock is held."""
    from acpc_arena.dealer.arena.fanout import MatchJob, run_jobs
    from acpc_arena.dealer.arena.tournament_folder import refusal, resume
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.files import GAME_BYTES, read_bounded

    try:
        refused = refusal(tournament)
        if refused is not None:
            raise ValueError(f"{refused}: move it away, or give another --out")
        tournament.claim_folder()
        game_text = read_bounded(tournament.game_path, GAME_BYTES).decode("ascii")
        pending, set_aside = resume(tournament)
    except (ProtocolError, ValueError, UnicodeDecodeError) as exc:
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        folder = tournament.out_dir
        print(f"acpc-tournament: cannot use the output folder {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for line in set_aside:
        print(line, file=sys.stderr)
    total = len(tournament.pairs()) * 2 * len(tournament.seeds)
    where = f"Ray ({args.ray})" if args.ray else f"{args.concurrency} worker processes"
    print(
        f"acpc-tournament: {len(tournament.entrants)} entrants, {len(tournament.pairs())} pairs, {total} matches "
        f"({total - len(pending)} already played in {tournament.out_dir}); playing {len(pending)} on {where}",
        file=sys.stderr,
    )
    metrics = None
    if args.metrics_port is not None:
        from prometheus_client import CollectorRegistry

        from acpc_arena.dealer.observers.metrics import RunMetrics

        metrics = RunMetrics(CollectorRegistry())
        try:
            metrics.serve(args.metrics_port)
        except OSError as exc:
            print(f"acpc-tournament: could not serve metrics on port {args.metrics_port}: {exc}", file=sys.stderr)
            return 2
    progress = _Progress(tournament, len(pending), metrics, not shows_progress(args.quiet))
    jobs = [MatchJob(tournament.run_spec(first, second), match, game_text) for first, second, match in pending]
    try:
        run_jobs(jobs, args.concurrency, progress.match_done, args.ray)
    except KeyboardInterrupt:
        progress.bar.close()
        raise Interrupted(
            f"{progress.done} of {len(pending)} matches played this time, kept in {tournament.out_dir}; "
            "run the same command again to play the rest"
        ) from None
    except ValueError as exc:
        progress.bar.close()
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return 2
    progress.bar.close()
    table, problems = _score(tournament, metrics, progress.failed, progress.failures, args.aivat)
    problems += _write(table, tournament.out_dir, plots=not args.no_plots)
    print(table.markdown())
    print(f"\nrow's duplicate mbb/hand against the column, ± the 95% half-width; crosstable in {tournament.out_dir}")
    for text in [*progress.failures, *problems]:
        print(text, file=sys.stderr)
    if metrics is not None and args.metrics_linger > 0:
        time.sleep(args.metrics_linger)
    return 1 if progress.failures or problems else 0


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-tournament", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
