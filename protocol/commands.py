"""How every ``acpc-*`` command ends: its exit status, and one line on Ctrl-C or SIGTERM.

The statuses:

- 0: done;
- 1: a failure at run time (a match failed, an agent crashed or lost its
  connection, an output could not be written);
- 2: a usage error, as argparse gives (an unknown agent, an unknown or unreadable
  game, a bad option value, a file named on the command line that is missing or
  cannot be used);
- 130: interrupted by SIGINT (Ctrl-C); 143: by SIGTERM (128 + the signal's number).

``acpc-dealer`` keeps the C ``dealer``'s status 1 for its usage errors.

``run_command`` runs a command's body: SIGTERM is taken as Ctrl-C, and either
ends the command with one line on standard error (``acpc-lbr: interrupted by
SIGINT``, followed by what an ``Interrupted`` says was kept), however deep the
``KeyboardInterrupt`` was raised (trio's exception groups included). Where SIGINT
is ignored (a script's background job) it stays ignored, and a SIGTERM that comes
while trio waits ends the process by its default action, without a line.
``deferred_interrupts`` holds both back while a command finishes a step whose
result it then keeps.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn, TypeVar

FAILED = 1
USAGE = 2
N = TypeVar("N", int, float)

_received: list[signal.Signals] = []
"""The signals that interrupted this command, the first first."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM caught by a command that kept something: ``kept`` says what, for its one line."""

    def __init__(self, kept: str) -> None:
        super().__init__(kept)
        self.kept = kept


def number(parse: Callable[[str], N], fits: Callable[[N], bool], what: str) -> Callable[[str], N]:
    """An argparse type: ``parse`` the text and check it ``fits``, else one line saying it must be ``what``."""

    def convert(text: str) -> N:
        try:
            value = parse(text)
        except ValueError:
            value = None
        if value is None or not fits(value):
            raise argparse.ArgumentTypeError(f"must be {what}: {text!r}")
        return value

    return convert


def usage_error(text: str) -> NoReturn:
    """Print ``text`` (one line) on standard error and exit with the usage status, 2."""
    print(text, file=sys.stderr)
    sys.exit(USAGE)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as Ctrl-C: the SIGINT handler in place is called (trio's, inside ``trio.run``), else
    KeyboardInterrupt is raised, unless trio's own code is running (SIGINT ignored inside
    ``trio.run``): then SIGTERM's default action ends the process, as without this handler."""
    _received.append(signal.SIGTERM)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    elif _in_trio_internals():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
    else:
        raise KeyboardInterrupt


def _in_trio_internals() -> bool:
    """Whether a trio run is going on here, in code where trio lets no KeyboardInterrupt be raised."""
    if "trio" not in sys.modules:
        return False
    import trio

    return trio.lowlevel.in_trio_run() and trio.lowlevel.currently_ki_protected()


def run_command(name: str, body: Callable[[], int | None]) -> None:
    """Run ``body``; a status other than 0 (or None) that it returns ends the process with that status.

    A KeyboardInterrupt (Ctrl-C, or SIGTERM while ``body`` runs) ends it with one
    line on standard error, ``NAME: interrupted by SIGINT`` and, after a colon, what
    an ``Interrupted`` among the exceptions says was kept; the status is 128 + the
    signal's number. Standard output writes a lone surrogate as the byte ``os.fsdecode`` made it of
    (a player name or a file name that is not UTF-8: the bytes it has on the command line).
    """
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="surrogateescape")
    del _received[:]
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    status: int | None
    try:
        status = body()
    except* KeyboardInterrupt as group:
        received = _received[0] if _received else signal.SIGINT
        kept = next((leaf.kept for leaf in _leaves(group) if isinstance(leaf, Interrupted)), "")
        print(f"{name}: interrupted by {received.name}" + (f": {kept}" if kept else ""), file=sys.stderr)
        status = 128 + received
    finally:
        signal.signal(signal.SIGTERM, previous)
    if status:
        sys.exit(status)


def _leaves(error: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``error``, exception groups opened."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


@contextmanager
def deferred_interrupts() -> Iterator[Callable[[], bool]]:
    """Within the block, Ctrl-C and SIGTERM are only noted (a second one interrupts at once); the function
    given says whether one came. SIGINT stays ignored where it was; outside the main thread, where no
    signal handler can be set, nothing is held back."""
    came: list[signal.Signals] = []

    def note(signum: int, frame: FrameType | None) -> None:
        if came:
            raise KeyboardInterrupt
        came.append(signal.Signals(signum))
        _received.append(signal.Signals(signum))

    previous: dict[signal.Signals, Callable[[int, FrameType | None], object] | int | None] = {}
    if threading.current_thread() is threading.main_thread():  # where signal handlers can be set
        previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, note)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, note)
    try:
        yield lambda: bool(came)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
