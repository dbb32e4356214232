"""Matches as jobs: each played from start to end by a worker process, its log sent back.

A ``MatchJob`` is one match of a run (the run's spec, the seed and seating, and
the game file's text). ``play_jobs`` plays a group of one run's matches at once
where it runs, in a scratch folder, with the agents inside the worker
(``RunSpec.in_process``, so the network agents' decisions are batched across the
group's matches; commands still connect over TCP there) and returns each match's
log text, error and agents' standard error: nothing in it depends on a file
system shared with the one who asked. The log is the one the runner would write
itself for the same seed and seating.

``run_jobs`` plays many at once and hands each result back as it comes, either on
a local pool of worker processes or as Ray tasks (``ray_address``: ``"local"``
starts a Ray on this machine with ``workers`` CPUs, anything else is the address
of a running cluster, e.g. ``auto`` on one of its machines; ``pip install
'acpc-arena[ray]'``, which has no Ray Client: a ``ray://`` address needs ``ray[client]``
besides). Every node of a cluster needs this package (the same version) and the agents'
checkpoints installed; each task asks Ray for one CPU. An agent travels as its spec (``Contestant.agent``) and
the worker imports it: a plugin's file (its path made absolute when the command line was read) or
distribution must be found on the worker's machine too.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import logging
import multiprocessing
import signal
import tempfile
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from acpc_arena.protocol.files import write_atomic

if TYPE_CHECKING:  # imported where used: a command's --help (add_ray_option) starts without trio and the runner
    from acpc_arena.dealer.arena.runner import ChangedActions, MatchSpec, RunSpec

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class MatchJob:
    spec: RunSpec
    """The run the match belongs to; its ``out_dir`` is where the asker keeps the log."""
    match: MatchSpec
    game_text: str
    """The game file's content (a worker on another machine may not have the file)."""

    @property
    def log(self) -> Path:
        """Where the asker keeps this match's log."""
        return self.spec.out_dir / f"{self.match.name}.log"


@dataclass
class JobResult:
    log_text: str | None
    """The match's log, or None if it wrote none."""
    error: str | None = None
    """Why the match ended early, as the runner says it."""
    notes: list[str] = field(default_factory=list)
    """The failed agents' last words (exit status, standard error)."""
    agent_output: dict[str, str] = field(default_factory=dict)
    """The agents' standard error files (``agents/<name>``) and their text."""
    changed_actions: dict[str, ChangedActions] = field(default_factory=dict)
    """The actions the dealer changed, by player name (``runner.changed_actions``)."""


def add_ray_option(
    parser: argparse.ArgumentParser,
    cpus: str,
    work: str = "play the matches as Ray tasks, the agents inside them",
    same: str = "the same logs",
) -> None:
    """``--ray [ADDRESS]`` (``ray_address`` of ``fan_out``; alone: ``local``, with ``cpus`` CPUs)."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help=f"{work}: on a Ray started here with {cpus} CPUs, or on the cluster at ADDRESS ({same}; "
        "pip install 'acpc-arena[ray]')",
    )


GROUP_MATCHES = 8
"""The most matches a worker plays at once (``run_jobs``' groups)."""


def play_jobs(jobs: Sequence[MatchJob]) -> list[JobResult]:
    """Play ``jobs``' matches (of one run) here at once, in a scratch folder, and return what each wrote."""
    import trio  # a worker's own: the commands read add_ray_option here for --help, without trio

    from acpc_arena.dealer.arena.runner import run_matches  # likewise: the runner imports the agents

    first = jobs[0]
    with tempfile.TemporaryDirectory(prefix="acpc-job-") as scratch:
        game_path = Path(scratch) / first.spec.game_path.name
        game_path.write_text(first.game_text, encoding="ascii")
        spec = dataclasses.replace(
            first.spec, out_dir=Path(scratch) / "run", game_path=game_path, concurrency=len(jobs), in_process=True
        )
        outcomes = trio.run(run_matches, spec, None, [job.match for job in jobs])
        results = []
        for outcome in outcomes:
            log_text = outcome.log.read_text(encoding="latin-1") if outcome.log.exists() else None
            written = sorted((spec.out_dir / "agents").glob(f"{outcome.spec.name}-*"))
            output = {p.name: p.read_text(errors="replace") for p in written if p.stat().st_size}
            results.append(JobResult(log_text, outcome.error, outcome.agent_notes, output, outcome.changed_actions))
        return results


def job_groups(jobs: Sequence[MatchJob], workers: int) -> list[list[MatchJob]]:
    """``jobs`` in groups of one run's matches, of an even share of the work a worker (at most
    ``GROUP_MATCHES``), in the order given."""
    size = max(1, min(GROUP_MATCHES, -(-len(jobs) // max(1, workers))))
    runs: list[list[MatchJob]] = []
    for job in jobs:
        run = next((run for run in runs if run[0].spec == job.spec), None)
        if run is None:
            runs.append([job])
        else:
            run.append(job)
    return [run[start : start + size] for run in runs for start in range(0, len(run), size)]


def save_result(job: MatchJob, result: JobResult) -> JobResult:
    """Write the match's log and its agents' output where the asker keeps them, each file whole or not
    at all; returns ``result``, or, where a file could not be written, ``result`` failed saying which."""
    try:
        (job.spec.out_dir / "agents").mkdir(parents=True, exist_ok=True)
        for name, text in result.agent_output.items():
            write_atomic(job.spec.out_dir / "agents" / name, text)
        if result.log_text is not None:
            write_atomic(job.log, result.log_text, encoding="latin-1")
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else job.spec.out_dir
        problem = f"could not save what it wrote to {where}: {exc.strerror or exc}"
        return dataclasses.replace(result, error=f"{result.error}; {problem}" if result.error else problem)
    return result


def _play_group(jobs: list[MatchJob]) -> list[JobResult]:
    try:
        return play_jobs(jobs)
    except Exception as exc:  # the worker lives on; the matches are told as failed
        return [JobResult(None, f"the worker could not play the match: {type(exc).__name__}: {exc}")] * len(jobs)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the asker, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _indexed(function: Callable[[T], R], item: tuple[int, T]) -> tuple[int, R]:
    return item[0], function(item[1])


def _on_pool(function: Callable[[T], R], items: Sequence[T], workers: int) -> Generator[tuple[int, R], None, None]:
    context = multiprocessing.get_context("spawn")  # no trio, torch or thread state carried into a fork
    pool = context.Pool(workers, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(functools.partial(_indexed, function), list(enumerate(items)))
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _on_ray(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    address: str,
    lost: Callable[[int, Exception], R] | None,
) -> Generator[tuple[int, R], None, None]:
    try:
        import ray  # an optional extra (acpc-arena[ray]), asked for by --ray alone
    except ModuleNotFoundError:
        raise ValueError("--ray needs Ray: pip install 'acpc-arena[ray]'") from None
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    if address == "local":
        options["num_cpus"] = workers
    else:
        options["address"] = address
    ray.init(**options)
    try:
        task: Any = ray.remote(num_cpus=1, max_retries=1)(_indexed)
        waiting = {task.remote(function, (index, item)): index for index, item in enumerate(items)}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1)
            for ref in ready:
                index = waiting.pop(ref)
                try:
                    yield ray.get(ref)
                except Exception as exc:  # a task lost with its node
                    if lost is None:
                        raise
                    yield index, lost(index, exc)
    finally:
        for ref in list(waiting):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        ray.shutdown()


def fan_out(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    ray_address: str | None = None,
    lost: Callable[[int, Exception], R] | None = None,
) -> Generator[tuple[int, R], None, None]:
    """``(index, function(items[index]))`` for every item as each ends, computed ``workers`` at a time in
    worker processes here, or as Ray tasks (``ray_address`` as in ``run_jobs``). ``function`` must be a
    module-level function. A Ray task lost with its node gives ``lost(index, exception)``, or raises without it;
    an exception raised by ``function`` itself is raised here."""
    if ray_address:
        return _on_ray(function, items, workers, ray_address, lost)
    return _on_pool(function, items, max(1, min(workers, len(items))))


def run_jobs(
    jobs: Sequence[MatchJob],
    workers: int,
    on_result: Callable[[MatchJob, JobResult], None],
    ray_address: str | None = None,
) -> None:
    """Play ``jobs``, ``workers`` groups at once (``job_groups``; on Ray: as many as the cluster gives), calling
    ``on_result`` for each match as its group ends (its log already saved, or its error saying why not).
    KeyboardInterrupt stops the workers; the results handed back stay."""
    if not jobs:
        return
    groups = job_groups(jobs, workers)

    def lost(index: int, exc: Exception) -> list[JobResult]:
        return [JobResult(None, f"the Ray task failed: {type(exc).__name__}: {exc}")] * len(groups[index])

    results = fan_out(_play_group, groups, workers, ray_address, lost)
    with contextlib.closing(results):
        for index, group_results in results:
            for job, result in zip(groups[index], group_results, strict=True):
                on_result(job, save_result(job, result))
