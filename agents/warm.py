"""A warm agent process: the agents' modules imported once (torch with them), then a forked child a match.

``acpc-agent --warm SPEC ...`` (``serve_warm``) imports the class each agent spec names
(``agents.registry``), then reads one JSON line a request on standard input:

- ``{"id": N, "argv": [...], "err": PATH}``: fork child N, which runs ``acpc-agent ARGV`` as a
  process of its own would, its standard output and error written to PATH (made afresh), its
  standard input empty;
- ``{"kill": N}``: end child N at once (SIGKILL) if it still runs.

It writes ``{"id": N, "status": S}`` on standard output when child N ends, S its exit status as
``subprocess`` gives one (``-SIGNAL`` for a signal); at the end of standard input it waits for its
children and exits.

The parent imports and nothing more: it builds no agent, loads no checkpoint and runs no network
pass, so no torch thread pool and no CUDA context exists when it forks, and every child starts as a
fresh ``acpc-agent`` does once its imports are done: it builds its agent from its own command line
and seed (the interpreter's ``random`` and numpy's global generator are reseeded, as a new process
seeds them). Its answers are that process's (``tests/test_agent_startup.py`` compares the logs). The
arena's runner keeps one such process a run for its neural agents (``dealer.arena.warm_agents``).
A child ends as ``multiprocessing``'s forked children do: its standard output and error flushed, then
``os._exit`` (no ``atexit`` handlers, no interpreter teardown: the agents played so keep no file open).
Linux only (``os.fork`` after torch's import). A child keeps the warm process's name in ``ps``.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.commands import FAILED

Play = Callable[[list[str]], object]
"""``acpc-agent ARGV`` in this process (``agents.cli.main``): what a child runs."""


def serve_warm(specs: Sequence[str], play: Play) -> None:
    """Import the agents ``specs`` name, then serve the requests of standard input (``serve``)."""
    for spec in specs:
        agent_class(spec)  # the imports every child shares: torch's for the neural agents
    serve(sys.stdin.fileno(), sys.stdout.fileno(), play)


def serve(requests: int, replies: int, play: Play) -> None:
    """Fork a child running ``play`` for each request read on file descriptor ``requests`` until its end,
    and write each child's end on ``replies``; returns when the requests have ended and every child with
    them."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    previous = signal.set_wakeup_fd(wake_write)  # a byte on wake_read for each SIGCHLD
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: dict[int, int] = {}
    """The request's id of each child still running, by process id."""
    pending = b""
    reading = True
    try:
        while reading or children:
            ready, _, _ = select.select([requests, wake_read] if reading else [wake_read], [], [])
            if wake_read in ready:
                os.read(wake_read, 4096)
            _report_ended(children, replies)
            if requests in ready:
                chunk = os.read(requests, 65536)
                reading = bool(chunk)
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    if line.strip():
                        _handle(json.loads(line), children, replies, play, (wake_read, wake_write))
    finally:
        signal.set_wakeup_fd(previous)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.close(wake_read)
        os.close(wake_write)


def _handle(
    request: dict[str, Any], children: dict[int, int], replies: int, play: Play, inherited: tuple[int, ...]
) -> None:
    """Fork the child a request asks for, or end the one it names."""
    if "kill" in request:
        for pid, ident in children.items():
            if ident == request["kill"]:  # not reaped yet, so the process id is still this child's
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        return
    try:
        children[_fork(play, request["argv"], request["err"], inherited)] = request["id"]
    except OSError as exc:  # no process could be made: told as a child that failed at once
        print(f"agents.warm: could not fork: {exc}", file=sys.stderr, flush=True)
        _reply(replies, {"id": request["id"], "status": FAILED})


def _report_ended(children: dict[int, int], replies: int) -> None:
    """Reap every child that has ended and write its status."""
    while children:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid in children:
            _reply(replies, {"id": children.pop(pid), "status": os.waitstatus_to_exitcode(wait_status)})


def _reply(replies: int, message: dict[str, Any]) -> None:
    os.write(replies, (json.dumps(message) + "\n").encode())


def _fork(play: Play, argv: list[str], err: str, inherited: tuple[int, ...]) -> int:
    """A child that runs ``play(argv)`` with its output to ``err``; its process id (in the parent)."""
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():
        # Python 3.12+ warns of a fork in a process with threads: here only OpenBLAS's idle pool, which
        # numpy starts at import and which reinitialises itself in the child (pthread_atfork).
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid:
        return pid
    status = FAILED
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in inherited:
            os.close(fd)
        _redirect(err)
        if "numpy.random" in sys.modules:  # as a new process seeds it (``random`` reseeds itself after a fork)
            sys.modules["numpy.random"].seed()
        status = _run(play, argv)
    except BaseException:  # the child must never return into the parent's loop
        traceback.print_exc()
    finally:
        os._exit(status)


def _redirect(err: str) -> None:
    """Standard output and error to the file ``err`` (made afresh, then appended to: a line the runner adds
    stays), standard input from /dev/null."""
    out = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(nothing)
    os.close(out)


def _run(play: Play, argv: list[str]) -> int:
    """``play(argv)``; its exit status, as the interpreter would make it of the end."""
    try:
        play(argv)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return FAILED
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
    return 0
