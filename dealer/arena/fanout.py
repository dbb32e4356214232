"""Matches as jobs: each played from start to end by a worker process, its log sent back.

A ``MatchJob`` is one match of a run (the run's spec, the seed and seating, and
the game file's text). ``play_job`` plays it where it runs, in a scratch folder,
with the shipped agents inside the worker (``RunSpec.in_process``; commands still
connect over TCP there) and returns the log's text, the match's error and the
agents' standard error: nothing in it depends on a file system shared with the
one who asked. The log is the one the runner would write itself for the same
seed and seating.

``run_jobs`` plays many at once and hands each result back as it comes, either on
a local pool of worker processes or as Ray tasks (``ray_address``: ``"local"``
starts a Ray on this machine with ``workers`` CPUs, anything else is the address
of a running cluster, e.g. ``ray://head:10001`` or ``auto``; ``pip install
'acpc-arena[ray]'``). Every node of a cluster needs this package (the same
version) and the agents' checkpoints installed; each task asks Ray for one CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import multiprocessing
import signal
import tempfile
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from acpc_arena.dealer.arena.runner import MatchSpec, RunSpec, run_matches


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


def add_ray_option(parser: argparse.ArgumentParser, cpus: str) -> None:
    """``--ray [ADDRESS]`` (``ray_address`` of ``run_jobs``; alone: ``local``, with ``cpus`` CPUs)."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help=f"play the matches as Ray tasks, the shipped agents inside them: on a Ray started here with {cpus} "
        "CPUs, or on the cluster at ADDRESS (the same logs; pip install 'acpc-arena[ray]')",
    )


def play_job(job: MatchJob) -> JobResult:
    """Play ``job``'s match here, in a scratch folder, and return what it wrote."""
    with tempfile.TemporaryDirectory(prefix="acpc-job-") as scratch:
        game_path = Path(scratch) / job.spec.game_path.name
        game_path.write_text(job.game_text, encoding="ascii")
        spec = dataclasses.replace(
            job.spec, out_dir=Path(scratch) / "run", game_path=game_path, concurrency=1, in_process=True
        )
        [outcome] = trio.run(run_matches, spec, None, [job.match])
        log_text = outcome.log.read_text(encoding="latin-1") if outcome.log.exists() else None
        agents = spec.out_dir / "agents"
        output = {p.name: p.read_text(errors="replace") for p in sorted(agents.glob("*")) if p.stat().st_size}
        return JobResult(log_text, outcome.error, outcome.agent_notes, output)


def save_result(job: MatchJob, result: JobResult) -> None:
    """Write the match's log (whole or not at all) and its agents' output where the asker keeps them."""
    (job.spec.out_dir / "agents").mkdir(parents=True, exist_ok=True)
    for name, text in result.agent_output.items():
        (job.spec.out_dir / "agents" / name).write_text(text)
    if result.log_text is not None:
        temporary = job.log.with_name(job.log.name + ".part")
        temporary.write_text(result.log_text, encoding="latin-1")
        temporary.replace(job.log)


def _numbered(job: tuple[int, MatchJob]) -> tuple[int, JobResult]:
    index, one = job
    try:
        return index, play_job(one)
    except Exception as exc:  # the worker lives on; the match is told as failed
        return index, JobResult(None, f"the worker could not play the match: {type(exc).__name__}: {exc}")


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the asker, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_pool(jobs: Sequence[MatchJob], workers: int) -> Generator[tuple[int, JobResult], None, None]:
    context = multiprocessing.get_context("spawn")  # no trio, torch or thread state carried into a fork
    pool = context.Pool(workers, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(_numbered, list(enumerate(jobs)))
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _on_ray(jobs: Sequence[MatchJob], workers: int, address: str) -> Generator[tuple[int, JobResult], None, None]:
    try:
        import ray
    except ModuleNotFoundError:
        raise ValueError("--ray needs Ray: pip install 'acpc-arena[ray]'") from None
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    if address == "local":
        options["num_cpus"] = workers
    else:
        options["address"] = address
    ray.init(**options)
    try:
        task = ray.remote(num_cpus=1, max_retries=1)(_numbered)
        waiting = {task.remote((index, job)): index for index, job in enumerate(jobs)}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1)
            for ref in ready:
                index = waiting.pop(ref)
                try:
                    yield ray.get(ref)
                except Exception as exc:  # a task lost with its node
                    yield index, JobResult(None, f"the Ray task failed: {type(exc).__name__}: {exc}")
    finally:
        for ref in list(waiting):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        ray.shutdown()


def run_jobs(
    jobs: Sequence[MatchJob],
    workers: int,
    on_result: Callable[[MatchJob, JobResult], None],
    ray_address: str | None = None,
) -> None:
    """Play ``jobs``, ``workers`` at once (on Ray: as many as the cluster gives), calling ``on_result`` as each
    ends (its log already saved). KeyboardInterrupt stops the workers; the results handed back stay."""
    if not jobs:
        return
    results = _on_ray(jobs, workers, ray_address) if ray_address else _on_pool(jobs, min(workers, len(jobs)))
    with contextlib.closing(results):
        for index, result in results:
            save_result(jobs[index], result)
            on_result(jobs[index], result)
