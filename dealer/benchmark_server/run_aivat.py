"""One finished run's AIVAT, its hosted bot's policy known: the user's AIVAT value in every hand, kept as
its count, sum and sum of squares in ``<log>.aivat.json`` beside the log (or the one line saying why the
run has none), so that it is computed once.

The hosted bot is built as the run built it (``runner.build_agent``: the config's agent and options, the
seed ``Contestant.agent_seed`` gives its label for the log's seed), and AIVAT takes the settings
``acpc-report --aivat`` takes for the game, so the figures are the report's on the same log.

Run as ``python -m acpc_arena.dealer.benchmark_server.run_aivat``, it is the page's AIVAT process: it reads one task a
line (JSON) from standard input, computes it, writes its cache and answers one line (JSON) on standard
output; it ends when its standard input does, even in the middle of a run. AIVAT is imported where it is
computed: the page, which only reads the caches, does not load it.
"""

from __future__ import annotations

import json
import math
import os
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acpc_arena.protocol.files import write_atomic

if TYPE_CHECKING:
    from acpc_arena.agents.base import Agent
    from acpc_arena.dealer.arena.logreading import LoggedMatch

CACHE_SUFFIX = ".aivat.json"
CACHE_VERSION = 1


@dataclass(frozen=True)
class Task:
    """A run's AIVAT to compute: its log, the user's player, the hosted bot's player and its agent."""

    log: str
    player: str
    """The user's name in the log (``a-USER``)."""
    known: str
    """The hosted bot's name in the log (``b-BOT``)."""
    agent: str
    args: tuple[str, ...] = ()

    @staticmethod
    def from_json(data: dict[str, Any]) -> Task:
        return Task(str(data["log"]), str(data["player"]), str(data["known"]), str(data["agent"]),
                    tuple(str(arg) for arg in data["args"]))  # fmt: skip


@dataclass(frozen=True)
class RunAivat:
    """A run's AIVAT: the user's values summed in chips (count, sum, sum of squares), or why it has none."""

    hands: int = 0
    total: float = 0.0
    squares: float = 0.0
    big_blind: int = 0
    seconds: float = 0.0
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> RunAivat:
        reason = data.get("reason")
        return RunAivat(int(data["hands"]), float(data["total"]), float(data["squares"]), int(data["big_blind"]),
                        float(data["seconds"]), None if reason is None else str(reason))  # fmt: skip


def cache_path(log: str | Path) -> Path:
    return Path(f"{log}{CACHE_SUFFIX}")


def _log_stamp(log: str | Path) -> list[int]:
    status = os.stat(log)
    return [status.st_size, status.st_mtime_ns]


def load_cache(task: Task) -> RunAivat | None:
    """The run's cached AIVAT, or None where there is none for the log as it is now (no file, a damaged
    one, or one written for another version of the log)."""
    try:
        data = json.loads(cache_path(task.log).read_bytes())
        if data.get("version") != CACHE_VERSION or data.get("log_stamp") != _log_stamp(task.log):
            return None
        return RunAivat.from_json(data["aivat"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _hosted_builder(task: Task) -> Callable[[LoggedMatch], Agent]:
    """What builds the hosted bot for a log as the run built it (``AivatUnavailable`` if it cannot be)."""
    from acpc_arena.dealer.arena.aivat import AivatUnavailable
    from acpc_arena.dealer.arena.runner import Contestant, build_agent

    label = task.known.partition("-")[0]
    contestant = Contestant(label, agent=task.agent, args=task.args, title=task.known.partition("-")[2])

    def build(match: LoggedMatch) -> Agent:
        try:
            return build_agent(contestant, match.game, contestant.agent_seed(match.seed))
        except Exception as exc:  # a missing checkpoint, a bad option: one line
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise AivatUnavailable(f"cannot load agent {task.agent!r} for {task.known}: {reason}") from None

    return build


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def estimate_run(task: Task) -> RunAivat:
    """The run's AIVAT, or the one line saying why it is unavailable."""
    import numpy as np

    from acpc_arena.dealer.arena.aivat import AivatUnavailable, aivat_estimates
    from acpc_arena.dealer.arena.aivat.reporting import default_settings
    from acpc_arena.dealer.arena.logreading import read_log
    from acpc_arena.protocol.errors import ProtocolError

    try:
        match = read_log(task.log)
        report = aivat_estimates([match], {task.known: _hosted_builder(task)}, player=task.player,
                                 settings=default_settings(match.game))  # fmt: skip
    except AivatUnavailable as exc:
        return RunAivat(reason=_one_line(exc))
    except ProtocolError as exc:
        return RunAivat(reason=f"cannot read the log: {_one_line(exc)}")
    except OSError as exc:
        return RunAivat(reason=f"cannot read the log {task.log}: {exc.strerror or exc}")
    values = report.matches[0].values
    return RunAivat(len(values), math.fsum(values), math.fsum(np.square(values)), match.game.big_blind,
                    report.seconds)  # fmt: skip


def compute(task: Task) -> RunAivat:
    """``estimate_run``, written to the log's cache (a cache that cannot be written: the figures still)."""
    result = estimate_run(task)
    try:
        data = {"version": CACHE_VERSION, "log_stamp": _log_stamp(task.log), "task": asdict(task),
                "aivat": result.to_json()}  # fmt: skip
        write_atomic(cache_path(task.log), json.dumps(data) + "\n")
    except OSError:
        pass
    return result


def main() -> None:
    """The page's AIVAT process: tasks in on standard input, results out on standard output, one a line."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # an agent's prints stay out of the answers
    tasks: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            tasks.put(line)
        os._exit(0)  # the page process ended: stop, even in the middle of a run

    threading.Thread(target=read, name="tasks", daemon=True).start()
    while True:
        line = tasks.get()
        try:
            result = compute(Task.from_json(json.loads(line)))
        except Exception as exc:  # a bad task, or an agent's own failure: one line, and the next task
            result = RunAivat(reason=f"AIVAT failed: {_one_line(exc)}")
        answers.write(json.dumps(result.to_json()) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
