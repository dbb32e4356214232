"""One player's connection under trio: ACPC lines with deadlines, over a socket or any trio stream.

The lines, their limits and the errors that end a seat are ``dealer.lines``'s.

``SocketChannel`` drives a non-blocking socket directly (sending without a trip
through the scheduler when the socket can take the bytes at once, which is
nearly always); ``StreamChannel`` wraps any ``trio.abc.Stream`` (memory streams
in tests, TLS, ...). Both buffer what they read and split it into lines.
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
from collections.abc import Callable

import trio

from acpc_arena.dealer.server.lines import MAX_LINE_BYTES as MAX_LINE_BYTES
from acpc_arena.dealer.server.lines import RECEIVE_BYTES as _RECEIVE_BYTES
from acpc_arena.dealer.server.lines import LineChannel, accept_waiting, prepare_player_socket
from acpc_arena.dealer.server.lines import SeatError as SeatError
from acpc_arena.dealer.server.lines import SeatFailure as SeatFailure
from acpc_arena.dealer.server.lines import open_listener as open_listener

_CONNECTION_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What a broken or closed connection raises (a socket's ``OSError``, a trio stream's errors)."""


class SeatChannel(LineChannel):
    """Line-oriented I/O with one player over trio; subclasses supply ``_receive`` and ``_send``."""

    async def send(self, data: bytes = b"") -> None:
        """Send what is queued, then ``data`` (one or more whole lines)."""
        if self._pending:
            data, self._pending = self._pending + data, b""
        try:
            await self._send(data)
        except _CONNECTION_ERRORS as exc:
            raise self._broken(exc, "send to the player") from None

    async def _send(self, data: bytes) -> None:
        """Send all of ``data``; connection errors propagate (``send`` translates them)."""
        raise NotImplementedError

    async def _receive(self) -> bytes | bytearray:
        """Some bytes (``b""`` at end of file); connection errors propagate (translated by the caller)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        raise NotImplementedError

    async def receive_line(self, deadline: float = math.inf) -> bytes:
        """The next line, newline included; waits until ``deadline`` (trio clock).

        A line read after the deadline is a timeout too, however much the seat sends:
        a seat that floods lines is never short of input to wait for.
        """
        line = self._buffered_line()
        if line is None:
            with trio.move_on_at(deadline):
                line = await self._receive_line()
        if line is None or trio.current_time() > deadline:
            raise self.timed_out()
        return line

    def _buffered_line(self) -> bytes | None:
        """A whole line already received, if there is one."""
        end = self._buffer.find(b"\n")
        if end < 0 or end + 1 > MAX_LINE_BYTES:
            return None
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    async def _receive_line(self) -> bytes:
        while True:
            line = self._take_line()
            if line is not None:
                return line
            try:
                data = await self._receive()
            except _CONNECTION_ERRORS as exc:
                raise self._broken(exc, "read from the player") from None
            self._received(data)


class SocketChannel(SeatChannel):
    """A connected TCP socket, driven non-blocking with trio's ``wait_readable``/``wait_writable``."""

    def __init__(self, seat: int, sock: socket.socket) -> None:
        super().__init__(seat)
        self.sock = prepare_player_socket(sock)

    def _send_some(self, data: bytes) -> memoryview | None:
        """Send what the socket takes of ``data`` now: None when it took all (the usual case), else the rest."""
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        return None if sent == len(data) else memoryview(data)[sent:]

    async def _send(self, data: bytes) -> None:
        view = self._send_some(data)
        if view is None:
            return
        with trio.move_on_after(self.send_timeout):
            while view:
                try:
                    sent = self.sock.send(view)
                except BlockingIOError:
                    await trio.lowlevel.wait_writable(self.sock)
                    continue
                view = view[sent:]
            return
        raise self._stalled()

    async def _receive(self) -> bytes:
        while True:
            try:
                return self.sock.recv(_RECEIVE_BYTES)
            except BlockingIOError:
                pass
            await self._wait_readable()

    async def _wait_readable(self) -> None:
        await trio.lowlevel.wait_readable(self.sock)

    async def aclose(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        await trio.lowlevel.checkpoint()


class PollingSocketChannel(SocketChannel):
    """A connected TCP socket that waits with ``poll(2)`` itself, blocking the event loop.

    For a process that plays a single match on trio (``acpc-dealer --web`` or
    ``--metrics-port``): a response costs one ``poll`` and one ``read``, as in the C
    dealer, instead of the event loop's registration round trip. The match runner, which plays many matches in one
    process, uses ``SocketChannel``.
    """

    def __init__(self, seat: int, sock: socket.socket) -> None:
        super().__init__(seat, sock)
        self._poll_in = select.poll()
        self._poll_in.register(sock, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(sock, select.POLLOUT)
        self._deadline = math.inf

    def _send_polling(self, data: bytes, clock: Callable[[], float]) -> None:
        """Send all of ``data``, waiting with ``poll(2)`` while the socket has no room (``clock``: the deadline's)."""
        view = self._send_some(data)
        if view is None:
            return
        give_up = clock() + self.send_timeout
        while view:
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                left = give_up - clock()
                if left <= 0:
                    raise self._stalled() from None
                self._poll_out.poll(max(1, math.ceil(left * 1000)))

    async def _send(self, data: bytes) -> None:
        self._send_polling(data, trio.current_time)

    async def receive_line(self, deadline: float = math.inf) -> bytes:
        self._deadline = deadline
        line = await self._receive_line()
        if trio.current_time() > deadline:
            raise self.timed_out()
        return line

    async def _wait_readable(self) -> None:
        left = self._deadline - trio.current_time()
        if left <= 0:
            raise self.timed_out()
        self._poll_in.poll(None if left == math.inf else max(1, math.ceil(left * 1000)))


class StreamChannel(SeatChannel):
    """Any trio ``Stream`` (a memory stream in tests, a TLS stream, ...)."""

    def __init__(self, seat: int, stream: trio.abc.Stream) -> None:
        super().__init__(seat)
        self.stream = stream

    async def _send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _receive(self) -> bytes | bytearray:
        return await self.stream.receive_some(_RECEIVE_BYTES)

    async def aclose(self) -> None:
        with trio.move_on_after(1):
            await self.stream.aclose()


async def accept(
    listener: socket.socket, deadline: float = math.inf, allowed_from: tuple[str, ...] | None = None
) -> socket.socket | None:
    """The next connection to ``listener`` (``accept_waiting``'s), or None if ``deadline`` (trio clock) passes first."""
    while (connection := accept_waiting(listener, allowed_from)) is None:
        with trio.move_on_at(deadline) as scope:
            await trio.lowlevel.wait_readable(listener)
        if scope.cancelled_caught:
            return None
    return connection
