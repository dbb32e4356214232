"""One player's connection without an event loop: a blocking socket, each read bounded by ``SO_RCVTIMEO``.

The channel ``acpc-dealer``'s blocking loop (``dealer.sync_match``) plays on: the
lines, limits and errors of ``dealer.lines``, deadlines on ``time.monotonic()``. A
reply costs one ``recv``, which returns when data comes or when the receive time
limit set on the socket passes (the limit is set again only when the time the seat
has left is shorter); a message costs one ``send``, which never blocks
(``MSG_DONTWAIT``; a player that does not read is waited on with ``poll(2)``).
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import struct
import time
from collections.abc import Callable
from typing import Final

from acpc_arena.dealer.server.lines import MAX_LINE_BYTES, RECEIVE_BYTES, LineChannel, prepare_player_socket
from acpc_arena.dealer.server.signal_point import run_signal_handlers

_SHORT_WAIT = 1.0
"""Seconds left under which the receive limit is set to the whole time left; above it, to half of it
(so that the limit, once set, holds for every later reply with about as much time)."""
_LONGEST_WAIT = 86_400.0
"""The longest receive limit set (a longer wait wakes up once a day to look at the time)."""
_DONTWAIT: Final = socket.MSG_DONTWAIT
_NEWLINE: Final = ord("\n")
"""The newline byte as an int (``in`` on bytes is quickest with an int)."""
_monotonic: Final = time.monotonic
"""``time.monotonic`` (compiled: a constant, not a lookup in the module at every call)."""


class BlockingChannel(LineChannel):
    """A connected blocking socket; each read waits at most until a deadline."""

    def __init__(self, seat: int, sock: socket.socket) -> None:
        super().__init__(seat)
        self.sock = prepare_player_socket(sock, blocking=True)
        self._recv: Callable[[int, int], bytes] = sock.recv
        self._send: Callable[[bytes | memoryview, int], int] = sock.send
        """The socket's ``recv`` and ``send``, bound once (not looked up at every call)."""
        self._receive_limit = math.inf
        """The socket's ``SO_RCVTIMEO`` in seconds (inf: none)."""
        self._poll_out = select.poll()
        self._poll_out.register(sock, select.POLLOUT)

    def send(self, data: bytes = b"") -> None:
        """Send what is queued, then ``data``; a player that reads nothing for ``send_timeout`` seconds
        is out of time."""
        if self._pending:
            data, self._pending = self._pending + data, b""
        send = self._send
        try:
            try:
                sent = send(data, _DONTWAIT)
            except BlockingIOError:
                sent = 0
            if sent == len(data):  # the usual case: all of it at once
                return
            view = memoryview(data)[sent:]
            give_up = _monotonic() + self.send_timeout
            while view:
                try:
                    view = view[send(view, _DONTWAIT) :]
                except BlockingIOError:
                    left = give_up - _monotonic()
                    if left <= 0:
                        raise self._stalled() from None
                    self._poll_out.poll(max(1, math.ceil(left * 1000)))
        except OSError as exc:
            raise self._broken(exc, "send to the player") from None

    def receive_line(self, deadline: float = math.inf) -> bytes:
        """The next line, newline included, read by ``deadline`` (``time.monotonic()``); a line read
        after it is a timeout too, however much the seat sends."""
        line = self._take_line() if self._buffer or self._eof else None
        while line is None:
            left = deadline - _monotonic()
            if left > 0:
                if left < self._receive_limit:
                    self._limit_receive(left)
                flags = 0
            else:
                flags = _DONTWAIT  # past the deadline: only what is there already
            run_signal_handlers()  # compiled, this loop runs no handler of its own (signal_point)
            try:
                data = self._recv(RECEIVE_BYTES, flags)
            except BlockingIOError:  # the receive limit passed
                if deadline - _monotonic() <= 0:
                    raise self.timed_out() from None
                continue
            except OSError as exc:
                raise self._broken(exc, "read from the player") from None
            if not self._buffer and len(data) <= MAX_LINE_BYTES and data.endswith(b"\n") and _NEWLINE not in data[:-1]:
                return self._in_time(data, deadline)  # the usual reply: one whole line
            self._received(data)
            line = self._take_line()
        return self._in_time(line, deadline)

    def _in_time(self, line: bytes, deadline: float) -> bytes:
        if _monotonic() > deadline:
            raise self.timed_out()
        return line

    def _limit_receive(self, left: float) -> None:
        """Set ``SO_RCVTIMEO`` to at most ``left`` seconds (never 0, which means no limit)."""
        limit = left if left < _SHORT_WAIT else min(left / 2, _LONGEST_WAIT)
        microseconds = max(1, int(limit * 1_000_000))
        timeval = struct.pack("@ll", microseconds // 1_000_000, microseconds % 1_000_000)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        self._receive_limit = limit

    def close(self) -> None:
        """Shut the connection down and close the socket."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
