"""The match side of the live pages and of ``/metrics``: what a match's observers note, sent to the page
process (``web.side``, started by ``pages``) by a thread of its own, never waiting for it.

A ``FeedTable`` observes one match. The match's thread only notes things: the last
``MATCHSTATE`` line sent to any seat (one assignment), and each finished hand (appended
under a lock). Every ``TICK_SECONDS`` the ``Feed``'s thread turns what changed into one
frame and writes it to the pipe without blocking: while the page process has not taken
the last frame, nothing new is written and the notes pile up into the next frame (the
board is a snapshot; only finished hands' values accumulate, a few bytes each).

No hole card of a hand in play leaves this process: a line is sent with its hole
cards cut out (``public_line``); a finished hand is sent as its log line, every card
as the log shows it. The metrics registry is rendered at most every
``METRICS_SECONDS`` (``Feed(metrics=...)``).

A frame is a kind (``b"L"``: live tables as JSON, ``b"M"``: a metrics page), the
payload's length (4 bytes, big-endian) and the payload.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from acpc_arena.dealer.server.match import MatchConfig, MatchObserver
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import format_log_line

TICK_SECONDS = 0.1
METRICS_SECONDS = 1.0
PIPE_BYTES = 1 << 20
"""The pipe's buffer asked for (Linux allows up to 1 MiB to anyone)."""
LIVE = b"L"
METRICS = b"M"
HEAD = struct.Struct("!cI")


def frame(kind: bytes, payload: bytes) -> bytes:
    return HEAD.pack(kind, len(payload)) + payload


def public_line(line: str, players: int) -> str:
    """A ``MATCHSTATE`` line with its hole cards cut out: the position, hand, betting and board."""
    head, _, cards = line.rstrip("\r\n").rpartition(":")
    _, slash, board = cards.partition("/")
    return f"{head}:{'|' * (players - 1)}{slash}{board}"


class FeedTable(MatchObserver):
    """One match as the page process is told it."""

    wants_messages = True

    def __init__(self, feed: Feed, name: str, config: MatchConfig) -> None:
        self.feed = feed
        self.name = name
        self.config = config
        self.line = ""
        """The last line sent to a seat (set by the match's thread)."""
        self.status = "playing"
        self.error = ""
        self._hands: list[tuple[int, list[float]]] = []
        """Finished hands not yet sent: hand number, values by position."""
        self._last: tuple[State, list[float]] | None = None
        self._sent: tuple[str, object, str, str] | None = None
        """The line, last hand, status and error last sent (None: nothing yet, the start is due)."""

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        self.line = line

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        with self.feed.lock:
            self._hands.append((state.hand_id, values))
            self._last = (state, values)

    def take(self) -> dict[str, Any] | None:
        """What changed since the last call, as one table's update; None if nothing did (the feed's thread)."""
        config = self.config
        players = config.game.num_players
        line, status, error = self.line, self.status, self.error
        with self.feed.lock:
            hands, self._hands = self._hands, []
            last = self._last
        item: dict[str, Any] = {"name": self.name}
        sent = self._sent or ("", None, "", "")
        if self._sent is None:
            item["start"] = {
                "game": config.game_file,
                "players": list(config.players),
                "hands": config.hands,
                "fixed_seats": config.fixed_seats,
            }
        if hands:
            item["values"] = [
                [values[config.player_of_seat(hand_id, seat)] for seat in range(players)] for hand_id, values in hands
            ]
        if line and line != sent[0]:
            item["line"] = public_line(line, players)
        if last is not None and last is not sent[1]:
            state, values = last
            names = [config.players[config.seat_of_player(state.hand_id, p)] for p in range(players)]
            item["last"] = format_log_line(state, values, names)
        if (status, error) != sent[2:]:
            item["status"], item["error"] = status, error
        self._sent = (line, last, status, error)
        return item if len(item) > 1 else None


class Feed:
    """The pipe to the page process and the thread that writes to it (``start``, ``close``)."""

    def __init__(self, fd: int, metrics: Callable[[], bytes] | None = None) -> None:
        self.lock = threading.Lock()
        """Held by a match's thread to note a hand, and by the feed's to take the notes."""
        self._fd = fd
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self._metrics = metrics
        self._metrics_due = 0.0
        self._tables: dict[str, FeedTable] = {}
        self._out = b""
        self._gone = False
        self._writing = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="acpc-web-feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def table(self, name: str, config: MatchConfig) -> FeedTable:
        """The observer of a match that starts (a name played again starts afresh)."""
        table = FeedTable(self, name, config)
        with self.lock:
            self._tables[name] = table
        return table

    def finished(self, name: str, error: str | None) -> None:
        table = self._tables.get(name)
        if table is not None:
            table.error = error or ""
            table.status = "failed" if error else "finished"

    def flush(self, seconds: float = 1.0) -> None:
        """Send what is noted now (and the metrics as they are), waiting up to ``seconds`` for the page
        process to take it: the last state of a run, before its end is told."""
        deadline = time.monotonic() + seconds
        while not self._tick(fresh_metrics=True) and time.monotonic() < deadline:
            time.sleep(0.01)
        while not self._sent_all() and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        """Stop the thread and close the pipe (the page process ends when it reads the end)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._gone = True

    def _run(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            self._tick()

    def _tick(self, fresh_metrics: bool = False) -> bool:
        """Write a frame of what changed if the last one is out; whether it was composed."""
        with self._writing:
            if self._gone or not self._send():
                return self._gone
            frames = []
            with self.lock:
                tables = list(self._tables.values())
            updates = [item for table in tables if (item := table.take()) is not None]
            if updates:
                frames.append(frame(LIVE, json.dumps({"tables": updates}, separators=(",", ":")).encode()))
            now = time.monotonic()
            if self._metrics is not None and (fresh_metrics or now >= self._metrics_due):
                frames.append(frame(METRICS, self._metrics()))
                self._metrics_due = now + METRICS_SECONDS
            self._out = b"".join(frames)
            self._send()
            return True

    def _sent_all(self) -> bool:
        with self._writing:
            return self._send()

    def _send(self) -> bool:
        """Write what is pending as far as the pipe takes it; whether all of it is out."""
        while self._out and not self._gone:
            try:
                written = os.write(self._fd, self._out)
            except BlockingIOError:
                return False
            except OSError:  # the page process is gone: the match goes on without it
                self._gone = True
                self._out = b""
                return True
            self._out = self._out[written:]
        return True
