"""Files the project writes and reads from outside: written whole or not at all, read within limits.

Writing: ``write_atomic`` writes a file through a temporary beside it and renames it
into place (``atomic_writer`` is the same for a file written piece by piece), so a
full disk or a crash leaves the old file (or none), never a half-written or empty one.

Reading: every file that comes from outside (a log, a game definition, a JSON report
or checkpoint sidecar) is opened here. A FIFO, device, socket or folder is refused
before it is opened (reading one could block for ever); the bytes read, after
decompression for ``.gz`` and ``.bz2`` logs, the length of a line and the digits of a
JSON number are bounded; ``InputError`` (a ``ProtocolError``, so every command's
one-line handling of bad input catches it) names the file, the line where it has one,
and the limit with the environment variable that raises it:

- ``ACPC_ARENA_MAX_LOG_BYTES``: bytes read from one log, after decompression
  (default 256 MiB, about 2.5 million hands);
- ``ACPC_ARENA_MAX_LINE_BYTES``: bytes in one line of a log (default 64 KiB; an ACPC
  line is under 4 KiB);
- ``ACPC_ARENA_MAX_GAME_BYTES``: bytes of a game definition (default 1 MiB; the
  shipped ones are under 1 KiB);
- ``ACPC_ARENA_MAX_JSON_BYTES``: bytes of a JSON file (default 2 MiB; the largest the
  project writes is under 100 KiB);
- ``ACPC_ARENA_MAX_CHECKPOINT_BYTES``: bytes of a checkpoint's weights, as a file and, for a
  CFR strategy, decompressed (default 1 GiB; the shipped ones are under 10 MiB);
- ``JSON_NUMBER_DIGITS``: characters in a JSON number (100, fixed).

Each limit is read from the environment when a file is opened, so it can be raised
for one command (``ACPC_ARENA_MAX_LOG_BYTES=2000000000 acpc-report ...``).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from acpc_arena.protocol.errors import ProtocolError

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class Limit:
    """A bound on what a reader takes in: ``default`` unless the environment variable ``variable`` says more."""

    variable: str
    default: int
    what: str

    def value(self) -> int:
        """The limit in force: the environment variable's whole number of bytes, else the default."""
        text = os.environ.get(self.variable, "").strip()
        if not text:
            return self.default
        if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) > 0):
            raise InputError(self.variable, 0, f"must be a positive whole number of bytes: {text[:40]!r}")
        return int(text)

    def exceeded(self, limit: int) -> str:
        """What to say when a file goes past ``limit``."""
        return f"more than {limit:,} {self.what}; raise the limit with {self.variable}=BYTES"


LOG_BYTES = Limit("ACPC_ARENA_MAX_LOG_BYTES", 256 * MIB, "bytes, decompressed")
LINE_BYTES = Limit("ACPC_ARENA_MAX_LINE_BYTES", 64 * KIB, "bytes in one line")
GAME_BYTES = Limit("ACPC_ARENA_MAX_GAME_BYTES", 1 * MIB, "bytes in a game definition")
JSON_BYTES = Limit("ACPC_ARENA_MAX_JSON_BYTES", 2 * MIB, "bytes of JSON")
CHECKPOINT_BYTES = Limit("ACPC_ARENA_MAX_CHECKPOINT_BYTES", 1024 * MIB, "bytes of weights")
JSON_NUMBER_DIGITS = 100
"""Characters in one JSON number, at most (Python's ``int`` refuses more than 4300 digits with a traceback)."""
CHUNK_BYTES = 1 * MIB
"""How much of a file is read at a time."""
_SPACE = b" \t\r\f\v"
_BLANK_LINE = rb"[ \t\r\f\v]*\n"
_BLANK_RUN = re.compile(rb"[ \t\n\r\f\v]*\n")
"""Blank lines, as many as follow each other (a run of white space up to its last newline)."""


class InputError(ProtocolError):
    """An outside file refused: not a regular file, or past one of the limits; ``str`` names the file and line."""

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{path}, line {line}: {reason}" if line else f"{path}: {reason}")


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular(path: str | Path) -> os.stat_result:
    """``path``'s status if it is a regular file (a link to one counts); ``InputError`` if it is
    something else, ``OSError`` if it cannot be found."""
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise InputError(path, 0, f"{_kind(status.st_mode)}, not a regular file: refused")
    return status


def open_regular(path: str | Path) -> io.BufferedReader:
    """``path`` opened for reading bytes if it is a regular file; never blocks on a FIFO.

    The file is checked before it is opened, and again once open (without waiting
    for a writer), so a FIFO swapped in between is refused too.
    """
    check_regular(path)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise InputError(path, 0, f"{_kind(status.st_mode)}, not a regular file: refused")
        os.set_blocking(descriptor, True)
        return open(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bounded(path: str | Path, limit: Limit) -> bytes:
    """The whole of a small file, at most ``limit``'s bytes: ``InputError`` past them, before reading them."""
    most = limit.value()
    with open_regular(path) as file:
        if os.fstat(file.fileno()).st_size > most:
            raise InputError(path, 0, limit.exceeded(most))
        data = file.read(most + 1)
    if len(data) > most:  # it grew meanwhile
        raise InputError(path, 0, limit.exceeded(most))
    return data


class _Decompressed(Protocol):
    def read1(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class _LogBytes(io.RawIOBase):
    """A log's bytes, decompressed; ``InputError`` (line 0) at the read that would go past ``most`` in all."""

    def __init__(self, path: str | Path, raw: io.BufferedReader, stream: _Decompressed, most: int) -> None:
        super().__init__()
        self.path = path
        self.raw = raw
        self.stream = stream
        self.most = most
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """As many bytes as are there now, up to ``len(buffer)`` (a damaged file gives what came before the damage)."""
        data = self.stream.read1(min(len(buffer), self.most + 1 - self.given))
        self.given += len(data)
        if self.given > self.most:
            raise InputError(self.path, 0, LOG_BYTES.exceeded(self.most))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self.stream.close()
            finally:
                self.raw.close()
        super().close()


def open_log(path: str | Path) -> io.BufferedReader:
    """A log opened for reading bytes: a regular file, decompressed if it is gzip or bzip2 (by its
    first bytes), giving at most ``ACPC_ARENA_MAX_LOG_BYTES`` (``InputError`` at the read past them;
    a plain file past them is refused at once)."""
    most = LOG_BYTES.value()
    raw = open_regular(path)
    try:
        magic = raw.read(3)
        raw.seek(0)
        stream: _Decompressed
        if magic[:2] == b"\x1f\x8b":
            stream = gzip.GzipFile(fileobj=raw, mode="rb")
        elif magic == b"BZh":
            stream = bz2.BZ2File(raw, mode="rb")
        elif os.fstat(raw.fileno()).st_size > most:
            raise InputError(path, 0, LOG_BYTES.exceeded(most))
        else:
            stream = raw
    except BaseException:
        raw.close()
        raise
    return io.BufferedReader(_LogBytes(path, raw, stream, most), CHUNK_BYTES)


def read_lines(path: str | Path, skip: bytes = b"") -> Iterator[tuple[int, bytes]]:
    """``(number, line)`` for each line of the log at ``path`` but blank ones (numbered from 1; a line
    keeps its ``\\n``, the last one may have none), in constant memory.

    ``skip`` (a regular expression) passes over the lines whose start it matches as well, e.g.
    ``rb"#"`` for comments. Lines passed over may be of any length, and runs of them cost no
    Python step per line: a file of a billion blank or comment lines costs about what
    decompressing it costs.

    Raises ``InputError`` naming the file and line for a line past ``ACPC_ARENA_MAX_LINE_BYTES`` or
    a file past ``ACPC_ARENA_MAX_LOG_BYTES`` (or one that is not a regular file); ``OSError``,
    ``EOFError`` or ``zlib.error`` for a file that cannot be read or decompressed.
    """
    most = LINE_BYTES.value()
    passed = re.compile(_BLANK_LINE + b"|" + skip if skip else _BLANK_LINE)
    next_kept = re.compile(rb"\n(?!" + passed.pattern + rb")")
    number = 0
    with open_log(path) as stream:
        rest = b""
        passing = False  # within a line passed over that is longer than a line may be
        while True:
            try:
                chunk = stream.read1(CHUNK_BYTES)
            except InputError as exc:
                raise InputError(path, number + 1, exc.reason) from None
            if not chunk:
                break
            if passing:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                number, passing, chunk = number + 1, False, chunk[newline + 1 :]
            data = rest + chunk if rest else chunk
            pos = 0
            while True:
                blank = _BLANK_RUN.match(data, pos)
                if blank is not None:
                    number += data.count(b"\n", pos, blank.end())
                    pos = blank.end()
                newline = data.find(b"\n", pos)
                if newline < 0:
                    break
                if skip and passed.match(data, pos):
                    kept = next_kept.search(data, newline)
                    end = kept.start() if kept is not None else data.rfind(b"\n")
                    number += data.count(b"\n", pos, end + 1)
                    pos = end + 1
                    continue
                number += 1
                if newline - pos > most:
                    raise InputError(path, number, LINE_BYTES.exceeded(most))
                yield number, data[pos : newline + 1]
                pos = newline + 1
            rest = data[pos:]
            if len(rest) > most:
                if not (passed.match(rest) or not rest.strip(_SPACE)):
                    raise InputError(path, number + 1, LINE_BYTES.exceeded(most))
                rest, passing = b"", True
        if rest and not passing:
            yield number + 1, rest


class _LongNumber(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _number(convert: Callable[[str], int | float]) -> Callable[[str], int | float]:
    """``convert``, for a JSON number of at most ``JSON_NUMBER_DIGITS`` characters."""

    def parse(text: str) -> int | float:
        if len(text) > JSON_NUMBER_DIGITS:
            raise _LongNumber(text)
        return convert(text)

    return parse


def read_json(path: str | Path, limit: Limit = JSON_BYTES) -> Any:
    """The JSON document in ``path``: at most ``limit``'s bytes of UTF-8, numbers of at most
    ``JSON_NUMBER_DIGITS`` characters; ``InputError`` naming the file (and line) otherwise,
    ``OSError`` if it cannot be read."""
    data = read_bounded(path, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, data.count(b"\n", 0, exc.start) + 1, "not UTF-8 text") from None
    try:
        return json.loads(text, parse_int=_number(int), parse_float=_number(float))
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"not JSON: {exc.msg} (column {exc.colno})") from None
    except _LongNumber as exc:
        line = text.count("\n", 0, max(text.find(exc.text), 0)) + 1
        reason = f"a number of {len(exc.text)} characters, more than {JSON_NUMBER_DIGITS}"
        raise InputError(path, line, reason) from None
    except RecursionError:
        raise InputError(path, 0, "JSON nested too deeply") from None


@contextmanager
def atomic_writer(path: Path) -> Iterator[IO[bytes]]:
    """A file to write ``path`` through, piece by piece: renamed into place when the block ends
    without an exception, removed otherwise (``path`` keeps what it held before).

    A link or a path that is not a regular file (``/dev/stdout``, a FIFO) is written through
    directly: renaming over it would cut the link, or the file a shell sent the output to.
    """
    if path.is_symlink() or (path.exists() and not path.is_file()):
        with open(path, "wb") as direct:
            yield direct
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` whole or not at all; ``OSError`` (the temporary removed) when
    it cannot be written."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    with atomic_writer(path) as file:
        file.write(payload)
