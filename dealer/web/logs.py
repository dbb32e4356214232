"""The replayer's logs, each read within a budget.

A log is read by the project's log reader (``AcpcLogReader``: this dealer's, the C
dealer's and the competitions' logs) into the answer to ``/api/log`` (each hand's
summary, the problems with their line numbers, as JSON bytes) and the line each hand
is on; the last ``KEPT_LOGS`` logs are kept so. A hand (``/api/hand``) is read again
from its line. Reading runs in a worker thread, so the server answers other requests
meanwhile; a log larger than ``MAX_LOG_BYTES`` is refused (413), and a request that
cannot have its log within ``LOG_SECONDS`` (its wait for the reader included) is
answered 503. The first ``MAX_LOG_HANDS`` hands of a log are read.
"""

from __future__ import annotations

import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import trio

from acpc_arena.dealer.web.http import HttpError, json_bytes, whole_number
from acpc_arena.dealer.web.tables import replay, summary
from acpc_arena.protocol.acpc_log import AcpcLogReader, hand_on_line, log_stamp
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import InputError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.wire import LogHand

MAX_LOG_HANDS = 20_000
MAX_LOG_BYTES = 256 * 1024 * 1024
LOG_SECONDS = 20.0
KEPT_LOGS = 8
T = TypeVar("T")


class _OverBudget(Exception):
    pass


@dataclass(frozen=True)
class _Log:
    stamp: tuple[int, int]
    """The file's size and modification time when it was read."""
    body: bytes
    game: Game | None
    lines: list[int]
    """The line number of each hand read."""


class LogShelf:
    """The logs read lately, by file id; one is read at a time."""

    def __init__(self) -> None:
        self._logs: OrderedDict[str, _Log] = OrderedDict()
        self._reading = trio.Lock()

    async def log(self, file_id: str, path: Path) -> bytes:
        """The ``/api/log`` answer for ``path``: read again when the file changed since."""
        return (await self._get(file_id, path, fresh=True)).body

    async def hand(self, file_id: str, path: Path, index_text: str) -> dict[str, Any]:
        """Hand ``index_text`` (its place in the log's list) step by step.

        A log that only grew since it was read keeps its hands' lines, so it is not read again."""
        log = await self._get(file_id, path, fresh=False)
        index = whole_number(index_text)
        if index is None or index >= len(log.lines) or log.game is None:
            raise HttpError(404, f"no hand {index_text[:20]!r} in {path.name}")
        deadline = time.monotonic() + LOG_SECONDS
        game = log.game
        hand = await _in_thread(lambda: _read_hand(path, game, log.lines[index], deadline), path)
        return {"index": index, "summary": summary(hand, index), "steps": replay(hand)}

    async def _get(self, file_id: str, path: Path, fresh: bool) -> _Log:
        kept = self._logs.get(file_id)
        if kept is not None and (not fresh or kept.stamp == _stamp(path)):
            self._logs.move_to_end(file_id)
            return kept
        size = _stamp(path)[0]
        if size > MAX_LOG_BYTES:
            raise HttpError(413, f"{path.name} is {size / 2**20:.0f} MiB: the replayer opens logs up to "
                            f"{MAX_LOG_BYTES // 2**20} MiB (acpc-report reads any)")  # fmt: skip
        deadline = time.monotonic() + LOG_SECONDS
        with trio.move_on_after(LOG_SECONDS):
            async with self._reading:
                log = await _in_thread(lambda: _read_log(file_id, path, deadline), path)
            self._logs[file_id] = log
            self._logs.move_to_end(file_id)
            while len(self._logs) > KEPT_LOGS:
                self._logs.popitem(last=False)
            return log
        raise _busy(path)


def _busy(path: Path) -> HttpError:
    return HttpError(503, f"{path.name} could not be read within {LOG_SECONDS:g} s (the server is busy): try again")


async def _in_thread(work: Callable[[], T], path: Path) -> T:
    """``work()`` in a worker thread; its budget running out is 503, a file that cannot be read 404."""
    try:
        return await trio.to_thread.run_sync(work, abandon_on_cancel=True)
    except _OverBudget:
        raise _busy(path) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise HttpError(404, f"{path.name} could not be read: {getattr(exc, 'strerror', None) or exc}") from None
    except ProtocolError as exc:  # a file past the readers' limits, or not a regular file
        raise HttpError(422, f"{path.name} could not be read: {exc}") from None


def _stamp(path: Path) -> tuple[int, int]:
    try:
        return log_stamp(path)
    except OSError as exc:
        raise HttpError(404, f"{path.name} could not be read: {exc.strerror or exc}") from None


def _read_log(file_id: str, path: Path, deadline: float) -> _Log:
    stamp = _stamp(path)
    reader = AcpcLogReader(path)
    summaries: list[dict[str, Any]] = []
    lines: list[int] = []
    truncated = False
    for hand in reader:
        if len(lines) == MAX_LOG_HANDS:
            truncated = True
            break
        if time.monotonic() > deadline:
            raise _OverBudget
        summaries.append(summary(hand, len(lines)))
        lines.append(hand.line)
    body = json_bytes(
        {
            "id": file_id,
            "name": path.name,
            "game": reader.game_name,
            "hands": summaries,
            "problem_count": reader.problem_count,
            "problems": [str(problem) for problem in reader.problems[:50]],
            "truncated": truncated,
            "max_hands": MAX_LOG_HANDS,
        }
    )
    return _Log(stamp, body, reader.game, lines)


def _read_hand(path: Path, game: Game, number: int, deadline: float) -> LogHand:
    """The hand on line ``number`` of ``path`` (numbered as the log reader numbers them)."""

    def check() -> None:
        if time.monotonic() > deadline:
            raise _OverBudget

    try:
        hand = hand_on_line(path, game, number, check)
    except InputError:
        raise
    except ProtocolError as exc:
        raise HttpError(422, f"{path.name}, line {number}: {exc} (the file changed?)") from None
    if hand is None:
        raise HttpError(404, f"{path.name} has no hand on line {number} now (the file changed?)")
    return hand
