"""One finished run's AIVAT, its hosted bot's policy known: the user's AIVAT value in every hand, kept as
its count, sum and sum of squares in ``<log>.aivat.json`` beside the log (or the one line saying why the
run has none, ``aivat_cache``), so that it is computed once.

The hosted bot is built as the run built it (``runner.build_agent``: the config's agent and options, the
seed ``Contestant.agent_seed`` gives its label for the log's seed), and AIVAT takes the settings
``acpc-report --aivat`` takes for the game, so the figures are the report's on the same log.

Run as ``python -m acpc_arena.dealer.benchmark_server.run_aivat``, it is the page's AIVAT process: it reads one task a
line (JSON) from standard input, computes it, writes its cache and answers one line (JSON) on standard
output; it ends when its standard input does, even in the middle of a run. AIVAT is loaded by this process
alone: the page, which only reads the caches (``aivat_cache``), does not import this module.
"""

from __future__ import annotations

import json
import math
import os
import queue
import sys
import threading

import numpy as np

from acpc_arena.dealer.arena.aivat import AivatUnavailable, aivat_estimates
from acpc_arena.dealer.arena.aivat.logs import run_agent
from acpc_arena.dealer.arena.aivat.reporting import default_settings
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.benchmark_server.aivat_cache import RunAivat, Task, save_cache
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.match_log import read_log


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def estimate_run(task: Task) -> RunAivat:
    """The run's AIVAT, or the one line saying why it is unavailable."""
    label, _, title = task.known.partition("-")
    hosted = run_agent(Contestant(label, agent=task.agent, args=task.args, title=title))
    try:
        match = read_log(task.log)
        report = aivat_estimates([match], {task.known: hosted}, player=task.player,
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
    save_cache(task, result)
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
