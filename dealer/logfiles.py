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
from pathlib import Path
from typing import NamedTuple, TextIO

from acpc_arena.protocol.errors import ProtocolError

NAME_SEPARATORS = "|:"
"""What separates the fields of a log's ``STATE`` and ``SCORE`` lines, names included."""


def check_player_name(name: str) -> None:
    """Refuse a player name the log cannot hold: ValueError, one line naming its first bad character.

    A name is printable ASCII without ``|`` and ``:``: those separate the fields of a
    ``STATE`` or ``SCORE`` line, a control character (a newline) could plant a fake
    line, and a non-ASCII one would not read back as the same name. Such a name goes to
    the log byte for byte, as the C dealer writes it.
    """
    bad = next((c for c in name if c in NAME_SEPARATORS or not (c.isascii() and c.isprintable())), None)
    if bad is None:
        return
    if bad in NAME_SEPARATORS:
        what = repr(bad)
    elif bad.isascii():
        what = f"the control character {bad!r}"
    else:
        what = f"the non-ASCII character {bad!r}"
    raise ValueError(
        f"player name {name!r} contains {what}: it cannot go in an ACPC log (use printable ASCII without '|' and ':')"
    )


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
    line end (``str.splitlines`` would also split inside a name holding the byte 0x85, a latin-1 NEL)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    return data[: data.rfind(b"\n") + 1].decode("latin-1").split("\n")[:-1]


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

    Text is written as latin-1, one byte per character: the dealer's command line
    carries names as their bytes that way (``cli._command_line_text``).
    """

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.path = Path(path)
        if append:
            _cut_unfinished_line(self.path)
        self._file: TextIO = open(self.path, "a" if append else "w", encoding="latin-1", newline="\n", buffering=1)  # noqa: SIM115

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
