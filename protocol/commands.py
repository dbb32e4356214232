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
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn, TypeVar

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


def plain(text: str) -> str:
    """``text`` (a command module's docstring paragraph) for a terminal: without the command line it starts
    with (``acpc-report LOG...``: the usage says it) and without reStructuredText's literal marks."""
    text = re.sub(r"^``acpc-[^`]*``: *", "", text.strip())
    return re.sub(r"``(.*?)``", r"\1", text[:1].upper() + text[1:], flags=re.DOTALL)


def _shown_default(default: object) -> str | None:
    """How ``--help`` shows an option's default; None where there is none to show (None, False, an empty
    text or list: the option's absence)."""
    if default is None or default is False or default == "" or default == [] or default is argparse.SUPPRESS:
        return None
    if isinstance(default, tuple | list):
        return ",".join(str(item) for item in default)
    return str(default)


class HelpFormatter(argparse.HelpFormatter):
    """Each option's help ends with its default, ``(default: X)``, unless its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = None if not action.option_strings or "default" in text else _shown_default(action.default)
        if shown is None:
            return action.help
        return f"{text} (default: {shown.replace('%', '%%')})".lstrip()


class CommandParser(argparse.ArgumentParser):
    """The ``argparse`` parser of every ``acpc-*`` command: the defaults shown in ``--help``
    (``HelpFormatter``), and a usage error told in one line with a hint to the help, status 2:
    ``acpc-match: error: ... (see acpc-match --help)``. Its subcommands' parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def shows_progress(quiet: bool) -> bool:
    """Whether a command draws its progress bars: not with ``--quiet``, and only on a terminal (standard
    error), so that a file or a pipe gets whole lines, a program's lines never after a bar's."""
    return not quiet and sys.stderr.isatty()


def usage_error(text: str) -> NoReturn:
    """Print ``text`` (one line) on standard error and exit with the usage status, 2."""
    print(text, file=sys.stderr)
    sys.exit(USAGE)


def _file_key(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(device, inode)`` of an existing file, or None (missing, or out of reach)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def written_input(
    outputs: Mapping[str, str | os.PathLike[str] | None], inputs: Sequence[str | os.PathLike[str] | None]
) -> str | None:
    """Why an output (``{option: path}``, None for one not given) may not be written, in a few words, if it
    is one of the ``inputs`` (the same device and inode: two spellings of one file, or a link to it); else None."""
    keys = {key: path for path in inputs if path is not None and (key := _file_key(path)) is not None}
    for option, output in outputs.items():
        key = None if output is None else _file_key(output)
        if key is not None and key in keys:
            return f"{option} {output} is the input {keys[key]}: refused, it would be written over"
    return None


def refuse_input_as_output(
    command: str, outputs: Mapping[str, str | os.PathLike[str] | None], inputs: Sequence[str | os.PathLike[str] | None]
) -> None:
    """A usage error (one line, exit 2) if an output is one of the inputs (``written_input``), before anything
    is written: ``acpc-report g.log --json g.log`` would write over its own log."""
    why = written_input(outputs, inputs)
    if why is not None:
        usage_error(f"{command}: {why}")


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
    trio = sys.modules.get("trio")  # not imported here: a command without trio runs none
    if trio is None:
        return False
    return bool(trio.lowlevel.in_trio_run() and trio.lowlevel.currently_ki_protected())


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
