"""One player's connection without an event loop: a plain socket, waited on with ``poll(2)``.

The channel ``acpc-dealer``'s blocking loop (``dealer.sync_match``) plays on: the
lines, limits and errors of ``dealer.lines``, deadlines on ``time.monotonic()``; a
reply costs one ``poll`` and one ``recv``, a message one ``send``.
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import time

from acpc_arena.dealer.lines import RECEIVE_BYTES, LineChannel, prepare_player_socket


class BlockingChannel(LineChannel):
    """A connected socket, non-blocking underneath, each wait a ``poll(2)`` bounded by a deadline."""

    def __init__(self, seat: int, sock: socket.socket) -> None:
        super().__init__(seat)
        self.sock = prepare_player_socket(sock)
        self._poll_in = select.poll()
        self._poll_in.register(sock, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(sock, select.POLLOUT)

    def send(self, data: bytes = b"") -> None:
        """Send what is queued, then ``data``; a player that reads nothing for ``send_timeout`` seconds
        is out of time."""
        if self._pending:
            data, self._pending = self._pending + data, b""
        sock = self.sock
        try:
            try:
                sent = sock.send(data)
            except BlockingIOError:
                sent = 0
            if sent == len(data):  # the usual case: all of it at once
                return
            view = memoryview(data)[sent:]
            give_up = time.monotonic() + self.send_timeout
            while view:
                try:
                    view = view[sock.send(view) :]
                except BlockingIOError:
                    left = give_up - time.monotonic()
                    if left <= 0:
                        raise self._stalled() from None
                    self._poll_out.poll(max(1, math.ceil(left * 1000)))
        except OSError as exc:
            raise self._broken(exc, "send to the player") from None

    def receive_line(self, deadline: float = math.inf) -> bytes:
        """The next line, newline included, read by ``deadline`` (``time.monotonic()``); a line read
        after it is a timeout too, however much the seat sends."""
        line = self._take_line()
        while line is None:
            left = deadline - time.monotonic()
            if left > 0:
                self._poll_in.poll(None if left == math.inf else max(1, math.ceil(left * 1000)))
            try:
                data = self.sock.recv(RECEIVE_BYTES)
            except BlockingIOError:
                if deadline - time.monotonic() <= 0:
                    raise self.timed_out() from None
                continue
            except OSError as exc:
                raise self._broken(exc, "read from the player") from None
            self._received(data)
            line = self._take_line()
        if time.monotonic() > deadline:
            raise self.timed_out()
        return line

    def close(self) -> None:
        """Shut the connection down and close the socket."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
