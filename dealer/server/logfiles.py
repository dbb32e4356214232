"""The ACPC dealer's files: ``<match>.log`` and the transaction file ``<match>.tlog``.

The log holds the header, one ``STATE`` line per finished hand and the final
``SCORE`` line, each flushed as it is written. The transaction file holds every
action with its hand number and send and receive times (``r250 3
1700000000.123456 1700000000.123789``), enough to replay an interrupted match.

A run can stop anywhere (killed, a full disk): a last line without its newline
was never completely written, so it is not read, and appending starts where the
last whole line ends.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

from acpc_arena.protocol.errors import ProtocolError

NAME_SEPARATORS = b"|:"
"""What separates the fields of a log's ``STATE`` and ``SCORE`` lines, names included."""
NAME_BYTES = 255
"""The longest player name, in bytes: ten of them (``MAX_PLAYERS``) fill at most 2.5 KiB of the
C dealer's 4 KiB log line (``MAX_LINE_LEN``), leaving the rest to the hand."""
NAME_RULE = "a name is 1 to 255 bytes, without '|', ':', control characters or ' #'"
"""``check_player_name``'s rule, as its errors end."""


def check_player_name(name: str) -> None:
    """Refuse a player name a log cannot hold: ValueError, one line saying why.

    A name is the bytes it has on the command line (``os.fsencode``), as the C dealer
    takes them: non-ASCII ones (UTF-8 or not) included, it goes to the log byte for
    byte and is read back as the same ``str`` (``os.fsdecode``). Refused is only what
    would make a log unreadable or ambiguous: ``|`` and ``:``, which separate the fields
    of a ``STATE`` or ``SCORE`` line; a control character (bytes 0 to 31 and 127: a
    newline would plant a fake line, a carriage return or a NUL would be cut off by
    readers); `` #``, which log readers take for the start of a comment (DeepStack's
    logs end their lines with `` # <time>``); no byte at all (a name missing); more than
    ``NAME_BYTES`` bytes.
    """
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError as exc:  # a lone surrogate that no command-line byte decodes to
        raise ValueError(f"player name {name!r} is not text in this system's encoding ({exc.encoding})") from None
    bad = next((byte for byte in raw if byte in NAME_SEPARATORS or byte < 32 or byte == 127), None)
    if bad is not None:
        what = f"contains {chr(bad)!r}" if bad in NAME_SEPARATORS else f"contains the control character {chr(bad)!r}"
    elif b" #" in raw:
        what = "contains ' #'"
    elif not raw:
        what = "is empty"
    elif len(raw) > NAME_BYTES:
        name, what = f"{name[:20]}...", f"is {len(raw)} bytes long"
    else:
        return
    raise ValueError(f"player name {name!r} {what}: it cannot go in an ACPC log ({NAME_RULE})")


def check_player_names(names: Sequence[str]) -> None:
    """``check_player_name`` for each of a match's names, which must differ (a log could not tell
    two seats of one name apart)."""
    for name in names:
        check_player_name(name)
    for seat, name in enumerate(names):
        if name in names[:seat]:
            raise ValueError(
                f"player name {name!r} is given to seats {names.index(name) + 1} and {seat + 1}: "
                "a log could not tell them apart"
            )


def unicode_text(text: str) -> str:
    """``text`` (a name as read from a log or a command line) as valid Unicode, for outputs that must be:
    each byte that is not UTF-8 (``os.fsdecode`` makes it a lone surrogate) written ``\\xff``."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate of no byte: as Python escapes it
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def format_stamp(stamp: float) -> str:
    """Seconds since the epoch as ``sec.usec``, as the C dealer prints ``timeval``s."""
    micros = round(stamp * 1_000_000)
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def parse_stamp(text: str) -> float:
    seconds, _, micros = text.partition(".")
    if not seconds.isdigit() or (micros and not micros.isdigit()):
        raise ValueError(text)
    return int(seconds) + int(micros.ljust(6, "0")[:6]) / 1_000_000


class MatchFileError(OSError):
    """A log or transaction file could not be written (a full disk, a file-size limit, ...);
    ``strerror`` says which file and why, ``errno`` is the system's."""


def _whole_lines(path: Path) -> list[str]:
    """The complete lines of ``path`` (none if it does not exist), split at line feeds alone, the files'
    line end (``str.splitlines`` would also split inside a name holding U+0085 or U+2028), each
    decoded as ``_LineFile`` wrote it."""
    if not path.exists():
        return []
    data = path.read_bytes()
    return [os.fsdecode(line) for line in data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]]


def _cut_unfinished_line(path: Path) -> None:
    """Cut off a last line without its newline, so that what is appended starts a line of its own."""
    if path.exists():
        data = path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(path, "r+b") as file:
                file.truncate(end)


class _LineFile:
    """A text file written line by line, each line flushed as written.

    Text is written as ``os.fsencode`` writes it: the names (players, match, game file) as
    the bytes they had on the command line, as the C dealer writes them, whatever their
    encoding (a byte that is not UTF-8 is the lone surrogate ``os.fsdecode`` made of it).
    """

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.path = Path(path)
        if append:
            _cut_unfinished_line(self.path)
        self._file: TextIO = open(  # noqa: SIM115 (closed by close)
            self.path,
            "a" if append else "w",
            encoding=sys.getfilesystemencoding(),
            errors=sys.getfilesystemencodeerrors(),
            newline="\n",
            buffering=1,
        )

    def write_text(self, text: str) -> None:
        """Write ``text`` (whole lines) and flush it; raises MatchFileError if it cannot be written."""
        try:
            self._file.write(text)
            self._file.flush()
        except OSError as exc:
            raise MatchFileError(exc.errno, f"could not write to {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):  # what could not be written before cannot be now
            self._file.close()


class MatchLog(_LineFile):
    """``<match>.log``: the header, a ``STATE`` line per hand, the ``SCORE`` line."""

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.next_hand = 0
        """One more than the last hand the log holds (appending to an interrupted match's log)."""
        self.last_record = ""
        """The last line that is not a comment (appending: a ``SCORE`` line if the match was over)."""
        if append:
            for line in _whole_lines(Path(path)):
                if line.startswith("#"):
                    continue
                self.last_record = line
                hand = line.split(":", 2)[1] if line.startswith("STATE:") else ""
                if hand.isdigit():
                    self.next_hand = max(self.next_hand, int(hand) + 1)
        super().__init__(path, append)

    def write_line(self, line: str) -> None:
        self.write_text(line + "\n")


class TransactionRecord(NamedTuple):
    action: str
    hand_id: int
    sent: float
    received: float
    text: str
    """The line as it stands in the file (for error messages)."""


class TransactionLog(_LineFile):
    """``<match>.tlog``: one line per action."""

    def record(self, action: str, hand_id: int, sent: float, received: float) -> None:
        self.write_text(f"{action} {hand_id} {format_stamp(sent)} {format_stamp(received)}\n")


def read_transactions(path: str | Path) -> list[TransactionRecord]:
    """The records of an existing transaction file (none if it does not exist), but for an
    unfinished last line."""
    path = Path(path)
    records = []
    for line in _whole_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        try:
            if len(parts) < 4:
                raise ValueError(line)
            records.append(
                TransactionRecord(parts[0], int(parts[1]), parse_stamp(parts[2]), parse_stamp(parts[3]), line)
            )
        except ValueError:
            raise ProtocolError(f"{path}: could not parse transaction line {line!r}") from None
    return records
