"""One duplicate run from start to end, as ``play`` and ``acpc-match`` both make it (``play_run``): its
matches played (here under trio, or as jobs: ``fanout``), scored from their logs (``scoring``), AIVAT's
estimate added as asked, and the run's own figures (time, speed, failures) in a typed ``RunResult``."""

from __future__ import annotations

import resource
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import FrameType

import trio

from acpc_arena.dealer.arena.aivat.reporting import add_to_run
from acpc_arena.dealer.arena.contestants import AgentCannotPlay
from acpc_arena.dealer.arena.fanout import JobResult, MatchJob, run_jobs
from acpc_arena.dealer.arena.reports import MultiReport, Report
from acpc_arena.dealer.arena.run_progress import RunProgress
from acpc_arena.dealer.arena.runner import ChangedActions, MatchOutcome, RunSpec, run_matches
from acpc_arena.dealer.arena.scoring import run_changed_actions, score_run
from acpc_arena.protocol.files import GAME_BYTES, read_bounded


class JobsUnavailable(ValueError):
    """The run's jobs cannot be played (no Ray installed, a cluster out of reach): one line."""


@dataclass(frozen=True)
class Jobs:
    """Where the matches are played as jobs (``fanout``): on Ray at ``ray``, or in ``workers`` local
    processes (None: ``RunSpec.concurrency`` of them)."""

    ray: str | None = None
    workers: int | None = None


@dataclass
class RunResult:
    """A played and scored run: its report (None when no match played a hand) and the run's own figures,
    which ``report.json`` and ``play``'s report carry after the report's own (``fields``)."""

    report: Report | MultiReport | None
    outcomes: list[MatchOutcome]
    """The finished matches, in the order of ``RunSpec.matches()``."""
    matches: int
    """The matches the run was to play."""
    failed: list[str]
    """A line for each match that failed, or whose log could not be scored."""
    elapsed_seconds: float
    """The whole run's time, the scoring included."""
    scoring_seconds: float
    cpu_seconds: float
    """The CPU time of this process and of its finished children (agents, dealers) over the run, the scoring
    included, AIVAT not (``cpu_time``)."""
    hands: int
    """The hands played (the report's ``hands_played``)."""
    concurrency: int
    changed_actions: dict[str, ChangedActions]
    interrupted: signal.Signals | None = None
    """The signal (SIGINT, SIGTERM) that ended the run early, or None."""
    unfinished_matches: list[str] = field(default_factory=list)
    aivat_unavailable: str | None = None
    """Why AIVAT's estimate, asked for, could not be made (one line), or None."""

    @property
    def hands_per_second(self) -> float:
        return round(self.hands / max(self.elapsed_seconds, 1e-9), 1)

    @property
    def partial(self) -> bool:
        """Whether a signal ended the run before its last match."""
        return self.interrupted is not None

    def fields(self) -> dict[str, object]:
        """The run's figures as ``report.json`` has them, in its order."""
        fields: dict[str, object] = {
            "elapsed_seconds": round(self.elapsed_seconds, 3),
            "scoring_seconds": round(self.scoring_seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "hands_per_second": self.hands_per_second,
            "concurrency": self.concurrency,
            "failed": self.failed,
            "partial": self.partial,
            "changed_actions": self.changed_actions,
        }
        if self.interrupted is not None:
            fields |= {"interrupted_by": self.interrupted.name, "unfinished_matches": self.unfinished_matches}
        return fields


def play_run(
    spec: RunSpec,
    observer: RunProgress,
    *,
    jobs: Jobs | None = None,
    interruptible: bool = False,
    aivat: bool | None = None,
    progress: bool = False,
    fields: Mapping[str, object] | None = None,
) -> RunResult:
    """Play the run (here, or as ``jobs``), score it and add AIVAT's estimate to a two-player report as
    ``aivat`` says (``add_to_run``); the report's ``extra`` gets ``fields`` and then ``RunResult.fields``.

    ``interruptible``: SIGINT and SIGTERM end the run early, the finished matches scored (else a
    KeyboardInterrupt is raised). ``progress``: the scoring's progress bars. Raises ``JobsUnavailable``
    where the jobs cannot be played.
    """
    started, cpu = time.time(), cpu_time()
    try:
        interrupted = _play_as_jobs(spec, observer, jobs) if jobs else _play_here(spec, observer, interruptible)
    finally:
        observer.bar.close()
    order = {match: index for index, match in enumerate(spec.matches())}
    outcomes = sorted(observer.finished, key=lambda outcome: order[outcome.spec])
    played = {outcome.spec for outcome in outcomes}
    scoring_started = time.time()
    report = score_run(spec, outcomes, observer.failures, progress=progress)
    scoring = time.time() - scoring_started
    result = RunResult(
        report, outcomes, len(order), observer.failures, time.time() - started, scoring, cpu_time() - cpu,
        hands=report.to_json()["hands_played"] if report is not None else 0, concurrency=spec.concurrency,
        changed_actions=run_changed_actions(spec, outcomes),
        interrupted=signal.Signals(interrupted) if interrupted is not None else None,
        unfinished_matches=[match.name for match in spec.matches() if match not in played],
    )  # fmt: skip
    if report is None:
        return result
    report.extra = {**(fields or {}), **result.fields()}
    if isinstance(report, Report):
        if observer.metrics is not None:
            observer.set_duplicate(report.duplicate)
        records = {outcome.log: outcome.policies for outcome in outcomes if outcome.policies}
        result.aivat_unavailable = add_to_run(report, (spec.a, spec.b), aivat, progress=progress, records=records)
    return result


def cpu_time() -> float:
    """CPU seconds so far of this process and of its children that have ended (a match's agent processes, jobs'
    workers; Ray's remote workers are not counted)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _play_here(spec: RunSpec, observer: RunProgress, interruptible: bool) -> int | None:
    """Play the run in this process's trio run; returns the signal that interrupted it, or None. Raises
    ``AgentCannotPlay`` (not in a group) where an agent checked at the run's start cannot play."""
    try:
        if interruptible:
            return trio.run(_play_until_signal, spec, observer)
        trio.run(run_matches, spec, observer)
    except* AgentCannotPlay as group:
        cause: BaseException = group
        while isinstance(cause, BaseExceptionGroup):
            cause = cause.exceptions[0]
        raise cause from None
    return None


async def _play_until_signal(spec: RunSpec, observer: RunProgress) -> int | None:
    """Play the run; returns the signal (SIGINT, SIGTERM) that interrupted it, or None.

    On a signal the matches being played are cancelled: their agents are stopped and
    their logs keep the hands played; the finished matches are in ``observer.finished``.
    """
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


def _play_as_jobs(spec: RunSpec, observer: RunProgress, settings: Jobs) -> int | None:
    """Play the run's matches as jobs (``fanout``), Ray tasks or local worker processes; returns the
    signal that interrupted the run, or None.

    Each finished match's log is written as it comes back; the progress bar and the
    metrics move a group of matches at a time (``fanout.job_groups``).
    """
    game_text = read_bounded(spec.game_path, GAME_BYTES).decode("ascii")
    jobs = [MatchJob(spec, match, game_text) for match in spec.matches()]
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
    except ValueError as exc:
        raise JobsUnavailable(str(exc)) from None
    except KeyboardInterrupt:
        return received[0] if received else signal.SIGINT
    finally:
        signal.signal(signal.SIGTERM, previous)
    return None
