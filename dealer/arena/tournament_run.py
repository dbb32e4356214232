"""``acpc-tournament``'s run as one library call (``run_tournament``): the entrants checked, the folder
locked and checked (``tournament_folder``), the matches not yet played played as jobs (``fanout``), each
pair's report and the crosstable written and printed."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry
from tqdm import tqdm

from acpc_arena.agents.registry import absolute_spec, check_spec
from acpc_arena.dealer.arena.aivat.reporting import add_to_run
from acpc_arena.dealer.arena.allin import AllinValues
from acpc_arena.dealer.arena.fanout import JobResult, MatchJob, run_jobs
from acpc_arena.dealer.arena.reports import build_report
from acpc_arena.dealer.arena.tournament import Cell, Crosstable, Entrant, Tournament
from acpc_arena.dealer.arena.tournament_folder import pair_logs, pending_jobs, run_locked
from acpc_arena.dealer.observers.metrics import RunMetrics
from acpc_arena.protocol.commands import FAILED, USAGE, Interrupted, shows_progress
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import write_atomic
from acpc_arena.protocol.game import load_game, resolve_game_path


@dataclass(frozen=True)
class TournamentRequest:
    """What ``acpc-tournament``'s command line asks for (its options, checked as they were parsed)."""

    agents: str
    """Agents' specs separated by commas (``--agents``)."""
    agent: list[str]
    """``--agent '[NAME=]AGENT OPTIONS'``, each an entrant (AGENT a spec)."""
    cmd: list[str]
    """``--cmd 'NAME=COMMAND'``, each an entrant."""
    game: str
    seeds: tuple[int, ...]
    hands: int
    out: Path | None
    concurrency: int
    ray: str | None
    metrics_port: int | None
    metrics_linger: float
    t_response_ms: int
    t_hand_ms: int
    t_per_hand_ms: int
    aivat: bool | None
    plots: bool
    quiet: bool


def run_tournament(request: TournamentRequest) -> int:
    """Play what the tournament ``request`` asks for still misses and write its crosstable; returns the exit
    status (``protocol.commands``)."""
    try:
        tournament = _tournament(request)
    except (ProtocolError, ValueError) as exc:
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return USAGE
    return run_locked("acpc-tournament", tournament, request.game, lambda: _run_locked(request, tournament))


def _entrants(request: TournamentRequest) -> tuple[Entrant, ...]:
    """The entrants the command line names, each agent's spec checked and a file's path made absolute (the
    worker processes load the same file, and ``tournament.json`` keeps it)."""
    entrants = [Entrant.parse(name) for name in request.agents.split(",") if name.strip()]
    entrants += [Entrant.parse(text) for text in request.agent]
    entrants += [Entrant.parse_command(text) for text in request.cmd]
    for index, entrant in enumerate(entrants):
        if entrant.agent == "human":
            raise ValueError("a person cannot play a tournament's many matches: play one with acpc-match --a-external")
        if entrant.agent is not None:
            check_spec(entrant.agent)  # one line naming the spec as given
            entrants[index] = dataclasses.replace(entrant, agent=absolute_spec(entrant.agent))
    return tuple(entrants)


def _tournament(request: TournamentRequest) -> Tournament:
    game = load_game(request.game)
    return Tournament(
        entrants=_entrants(request), game_file=request.game, game=game,
        game_path=resolve_game_path(request.game).resolve(), seeds=request.seeds, hands=request.hands,
        out_dir=request.out or Path("tournaments") / time.strftime("%Y%m%d-%H%M%S"), concurrency=request.concurrency,
        t_response_ms=request.t_response_ms, t_hand_ms=request.t_hand_ms, t_per_hand_ms=request.t_per_hand_ms,
        in_process=True,
    )  # fmt: skip


class _Progress:
    """The progress bar (hands, with matches in its text), the failures, and the metrics, as matches end."""

    def __init__(self, tournament: Tournament, pending: int, metrics: RunMetrics | None, quiet: bool) -> None:
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


def _score(
    tournament: Tournament,
    metrics: RunMetrics | None,
    failed: set[Path],
    failures: list[str],
    aivat: bool | None = None,
) -> tuple[Crosstable, list[str]]:
    """Each pair's report (``report.json`` in its folder, with AIVAT's figures as ``aivat`` says: see
    ``add_to_run``) and the crosstable of all of them; and what could not be written."""
    results: dict[tuple[str, str], Cell] = {}
    problems = []
    allin = AllinValues()  # pairs of a seed deal the same cards: an all-in hand is often met again
    for first, second in tournament.pairs():
        spec = tournament.run_spec(first, second)
        pair_failures: list[str] = []
        logged = pair_logs(spec, failed, pair_failures)
        failures.extend(f"acpc-tournament: {failure}" for failure in pair_failures)
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
    problems = []
    texts = {"crosstable.json": json.dumps(table.to_json(), indent=2) + "\n", "crosstable.md": table.markdown() + "\n"}
    for name, text in texts.items():
        try:
            write_atomic(out_dir / name, text)
        except OSError as exc:
            problems.append(f"acpc-tournament: could not write {out_dir / name}: {exc.strerror or exc}")
    if plots:
        try:
            from acpc_arena.dealer.arena.plots import plot_crosstable  # matplotlib: the [plots] extra, maybe missing

            plot_crosstable(table, out_dir / "crosstable.png")
        except ModuleNotFoundError as exc:
            problems.append(
                f"acpc-tournament: no heatmap: {exc.name} is not installed (pip install 'acpc-arena[plots]')"
            )
        except OSError as exc:
            problems.append(f"acpc-tournament: could not write {out_dir / 'crosstable.png'}: {exc.strerror or exc}")
    return problems


def _run_locked(request: TournamentRequest, tournament: Tournament) -> int:
    """Check the folder, play what is missing and write the crosstable; the folder's lock is held."""
    try:
        jobs, set_aside = pending_jobs(tournament)
    except (ProtocolError, ValueError, UnicodeDecodeError) as exc:
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return USAGE
    except OSError as exc:
        folder = tournament.out_dir
        print(f"acpc-tournament: cannot use the output folder {folder}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    for line in set_aside:
        print(line, file=sys.stderr)
    total = len(tournament.pairs()) * 2 * len(tournament.seeds)
    where = f"Ray ({request.ray})" if request.ray else f"{request.concurrency} worker processes"
    print(
        f"acpc-tournament: {len(tournament.entrants)} entrants, {len(tournament.pairs())} pairs, {total} matches "
        f"({total - len(jobs)} already played in {tournament.out_dir}); playing {len(jobs)} on {where}",
        file=sys.stderr,
    )
    metrics = None
    if request.metrics_port is not None:
        metrics = RunMetrics(CollectorRegistry())
        try:
            metrics.serve(request.metrics_port)
        except OSError as exc:
            print(f"acpc-tournament: could not serve metrics on port {request.metrics_port}: {exc}", file=sys.stderr)
            return USAGE
    progress = _Progress(tournament, len(jobs), metrics, not shows_progress(request.quiet))
    try:
        run_jobs(jobs, request.concurrency, progress.match_done, request.ray)
    except KeyboardInterrupt:
        progress.bar.close()
        raise Interrupted(
            f"{progress.done} of {len(jobs)} matches played this time, kept in {tournament.out_dir}; "
            "run the same command again to play the rest"
        ) from None
    except ValueError as exc:
        progress.bar.close()
        print(f"acpc-tournament: {exc}", file=sys.stderr)
        return USAGE
    progress.bar.close()
    return _report(request, tournament, progress)


def _report(request: TournamentRequest, tournament: Tournament, progress: _Progress) -> int:
    """Score the pairs, write and print the crosstable; returns the exit status."""
    table, problems = _score(tournament, progress.metrics, progress.failed, progress.failures, request.aivat)
    problems += _write(table, tournament.out_dir, plots=request.plots)
    print(table.markdown())
    print(f"\nrow's duplicate mbb/hand against the column, ± the 95% half-width; crosstable in {tournament.out_dir}")
    for text in [*progress.failures, *problems]:
        print(text, file=sys.stderr)
    if progress.metrics is not None and request.metrics_linger > 0:
        time.sleep(request.metrics_linger)
    return FAILED if progress.failures or problems else 0
