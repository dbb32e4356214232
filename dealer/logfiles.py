"""The ACPC dealer's files: ``<match>.log`` and the transaction file ``<match>.tlog``.

The log holds the header, one ``STATE`` line per finished hand and the final
``SCORE`` line, each flushed as it is written. The transaction file holds every
action with its hand number and send and receive times (``r250 3
1700000000.123456 1700000000.123789``), enough to replay an interrupted match.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, TextIO

from acpc_arena.protocol.errors import ProtocolError


def format_stamp(stamp: float) -> str:
    """Seconds since the epoch as ``sec.usec``, as the C dealer prints ``timeval``s."""
    micros = round(stamp * 1_000_000)
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def parse_stamp(text: str) -> float:
    seconds, _, micros = text.partition(".")
    if not seconds.isdigit() or (micros and not micros.isdigit()):
        raise ValueError(text)
    return int(seconds) + int(micros.ljust(6, "0")[:6]) / 1_000_000


class MatchLog:
    """``<match>.log``: written line by line, flushed after each.

    Text is written as latin-1, one byte per character: the dealer's command line
    carries names as their bytes that way (``cli._command_line_text``).
    """

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.path = Path(path)
        self._file: TextIO = open(self.path, "a" if append else "w", encoding="latin-1", newline="\n", buffering=1)  # noqa: SIM115

    def write_line(self, line: str) -> None:
        self._file.write(line + "\n")

    def write_text(self, text: str) -> None:
        self._file.write(text)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class TransactionRecord(NamedTuple):
    action: str
    hand_id: int
    sent: float
    received: float
    text: str
    """The line as it stands in the file (for error messages)."""


class TransactionLog:
    """``<match>.tlog``: one line per action, flushed as written."""

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.path = Path(path)
        self._file: TextIO = open(self.path, "a" if append else "w", encoding="ascii", newline="\n", buffering=1)  # noqa: SIM115

    def record(self, action: str, hand_id: int, sent: float, received: float) -> None:
        self._file.write(f"{action} {hand_id} {format_stamp(sent)} {format_stamp(received)}\n")

    def close(self) -> None:
        self._file.close()


def read_transactions(path: str | Path) -> list[TransactionRecord]:
    """The records of an existing transaction file (none if it does not exist)."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="ascii", errors="replace").splitlines():
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
