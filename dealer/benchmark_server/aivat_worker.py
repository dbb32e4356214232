"""The web page's AIVAT worker: a thread of the page process that takes finished runs one at a time, answers
each from its cache beside the log (``run_aivat``) or else asks a niced process of its own
(``python -m acpc_arena.dealer.benchmark_server.run_aivat``, started at the first run to compute) and waits for it, so
that neither the pages nor the database's reading wait for AIVAT. That process ends with the page's."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from dataclasses import asdict

from acpc_arena.dealer.benchmark_server.aivat_cache import RunAivat, Task, load_cache
from acpc_arena.dealer.observers.page_process import make_nicer

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The AIVAT process computes on one core."""


class AivatWorker:
    """Runs' AIVAT by match id (``result``), computed in the order they were ``add``-ed."""

    def __init__(self) -> None:
        self.tasks: queue.Queue[tuple[int, Task] | None] = queue.Queue()
        self.results: dict[int, RunAivat] = {}
        self.lock = threading.Lock()
        self.process: subprocess.Popen[str] | None = None
        self.thread = threading.Thread(target=self._run, name="acpc-bm-aivat", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.tasks.put(None)

    def add(self, match_id: int, task: Task) -> None:
        self.tasks.put((match_id, task))

    def result(self, match_id: int) -> RunAivat | None:
        """The run's AIVAT, or None while it is not computed yet."""
        with self.lock:
            return self.results.get(match_id)

    def _run(self) -> None:
        while (item := self.tasks.get()) is not None:
            match_id, task = item
            result = load_cache(task) or self._ask(task)
            with self.lock:
                self.results[match_id] = result
        self._close()

    def _ask(self, task: Task) -> RunAivat:
        """The AIVAT process's answer for ``task`` (the process started first if it is not running)."""
        try:
            process = self.process or self._start()
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(asdict(task)) + "\n")
            process.stdin.flush()
            answer = process.stdout.readline()
            if not answer:
                raise OSError("it ended")
            return RunAivat.from_json(json.loads(answer))
        except (OSError, ValueError, KeyError) as exc:
            self._close()
            return RunAivat(reason=f"the AIVAT process failed: {exc}")

    def _start(self) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "acpc_arena.dealer.benchmark_server.run_aivat"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **ONE_THREAD},
        )
        make_nicer(process.pid)
        self.process = process
        return process

    def _close(self) -> None:
        """End the AIVAT process (its standard input closed, which ends it)."""
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
