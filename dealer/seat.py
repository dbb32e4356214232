"""One player's connection: ACPC lines with deadlines, over a socket or any trio stream.

Lines end with ``\\n`` (the dealer sends ``\\r\\n``); a line longer than
``MAX_LINE_BYTES`` (the ACPC ``READBUF_LEN``, newline included) is an error
for that seat, as is end of file, a broken connection or a missed deadline.

``SocketChannel`` drives a non-blocking socket directly (sending without a trip
through the scheduler when the socket can take the bytes at once, which is
nearly always); ``StreamChannel`` wraps any ``trio.abc.Stream`` (memory streams
in tests, TLS, ...). Both buffer what they read and split it into lines.
"""

from __future__ import annotations

import contextlib
import errno
import math
import select
import socket
import time
from collections.abc import Callable
from enum import StrEnum

import trio

MAX_LINE_BYTES = 4096
_RECEIVE_BYTES = 65536

_CONNECTION_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What a broken or closed connection raises (a socket's ``OSError``, a trio stream's errors)."""

_IGNORABLE_ACCEPT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "EPERM", "ECONNABORTED", "EPROTO", "ENETDOWN", "ENOPROTOOPT",
        "EHOSTDOWN", "ENONET", "EHOSTUNREACH", "EOPNOTSUPP", "ENETUNREACH",
    )
    if hasattr(errno, name)
)  # fmt: skip
"""``accept`` errors that concern one connection that failed before it began, not the
listener (the list trio's ``SocketListener`` ignores): skip it, wait for the next."""


class SeatFailure(StrEnum):
    """Why a seat ended the match."""

    DISCONNECT = "disconnect"
    TIMEOUT = "timeout"
    LINE_TOO_LONG = "line_too_long"
    INVALID_ACTIONS = "invalid_actions"
    VERSION = "version"


class SeatError(Exception):
    """A seat failed: disconnected, too slow, too long a line, or out of invalid actions."""

    def __init__(self, seat: int, cause: str, kind: SeatFailure) -> None:
        super().__init__(f"seat {seat + 1}: {cause}")
        self.seat = seat
        self.cause = cause
        self.kind = kind


class SeatChannel:
    """Line-oriented I/O with one player; subclasses supply ``_receive`` and ``send``."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._buffer = bytearray()
        self._eof = False
        self._pending = b""
        self.send_timeout = 600.0
        """Seconds a send may wait for a player that does not read (the match sets ``t_response``)."""

    def queue(self, data: bytes) -> None:
        """Hold bytes to go out with the next ``send`` (saves a system call per message)."""
        self._pending += data

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

    def _too_long(self) -> SeatError:
        return SeatError(self.seat, f"sent a line longer than {MAX_LINE_BYTES} bytes", SeatFailure.LINE_TOO_LONG)

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

    def timed_out(self) -> SeatError:
        return SeatError(self.seat, "timed out waiting for a response", SeatFailure.TIMEOUT)

    def _buffered_line(self) -> bytes | None:
        """A whole line already received, if there is one."""
        end = self._buffer.find(b"\n")
        if end < 0 or end + 1 > MAX_LINE_BYTES:
            return None
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def _take_line(self) -> bytes | None:
        """The next whole line from what was received (the last one cut off by the end of the connection
        too), or None while more bytes are needed; raises SeatError for an over-long line or the end."""
        buffer = self._buffer
        end = buffer.find(b"\n")
        if end >= 0:
            if end + 1 > MAX_LINE_BYTES:
                raise self._too_long()
            line = bytes(buffer[: end + 1])
            del buffer[: end + 1]
            return line
        if len(buffer) > MAX_LINE_BYTES:
            raise self._too_long()
        if self._eof:
            if buffer:
                line = bytes(buffer)
                buffer.clear()
                return line
            raise SeatError(self.seat, "disconnected", SeatFailure.DISCONNECT)
        return None

    def _received(self, data: bytes | bytearray) -> None:
        """Add bytes read from the connection (``b""``: its end)."""
        if data:
            self._buffer += data
        else:
            self._eof = True

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

    def _broken(self, exc: BaseException, doing: str) -> SeatError:
        return SeatError(
            self.seat, f"disconnected (could not {doing}: {str(exc) or 'connection closed'})", SeatFailure.DISCONNECT
        )

    def _stalled(self) -> SeatError:
        return SeatError(self.seat, f"did not read its messages for {self.send_timeout:g} s", SeatFailure.TIMEOUT)


class SocketChannel(SeatChannel):
    """A connected TCP socket, driven non-blocking with trio's ``wait_readable``/``wait_writable``."""

    def __init__(self, seat: int, sock: socket.socket) -> None:
        super().__init__(seat)
        sock.setblocking(False)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock

    async def _send(self, data: bytes) -> None:
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent == len(data):  # the usual case: all of it at once
            return
        view = memoryview(data)[sent:]  # the rest, waiting for room
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

    For a process that plays a single match (``acpc-dealer``): a response costs one
    ``poll`` and one ``read``, as in the C dealer, instead of the event loop's
    registration round trip. The match runner, which plays many matches in one
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
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent == len(data):  # the usual case: all of it at once
            return
        view = memoryview(data)[sent:]
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

    # The same without an event loop (``dealer.sync_match``): deadlines on ``time.monotonic()``.

    def send_sync(self, data: bytes = b"") -> None:
        """Send what is queued, then ``data``."""
        if self._pending:
            data, self._pending = self._pending + data, b""
        try:
            self._send_polling(data, time.monotonic)
        except OSError as exc:
            raise self._broken(exc, "send to the player") from None

    def receive_line_sync(self, deadline: float = math.inf) -> bytes:
        """The next line, newline included, read by ``deadline`` (``time.monotonic()``); the same
        errors, in the same cases, as ``receive_line``."""
        line = self._take_line()
        while line is None:
            left = deadline - time.monotonic()
            if left > 0:
                self._poll_in.poll(None if left == math.inf else max(1, math.ceil(left * 1000)))
            try:
                data = self.sock.recv(_RECEIVE_BYTES)
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


def open_listener(host: str, port: int = 0) -> socket.socket:
    """A non-blocking listening TCP socket on ``host:port`` (port 0: any free port)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[
        0
    ]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(8)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


async def accept(listener: socket.socket, deadline: float = math.inf) -> socket.socket | None:
    """The next connection to ``listener``, or None if ``deadline`` (trio clock) passes first.

    A connection that failed before it was accepted is skipped; any other error
    (too many open files, a closed listener) is raised as ``OSError``.
    """
    while True:
        try:
            connection, _ = listener.accept()
            return connection
        except BlockingIOError:
            pass
        except OSError as exc:
            if exc.errno not in _IGNORABLE_ACCEPT_ERRNOS:
                raise
            continue
        with trio.move_on_at(deadline) as scope:
            await trio.lowlevel.wait_readable(listener)
        if scope.cancelled_caught:
            return None


def accept_sync(listener: socket.socket, deadline: float = math.inf) -> socket.socket | None:
    """``accept`` without an event loop: ``deadline`` on ``time.monotonic()``, waiting with ``poll(2)``."""
    waiting = select.poll()
    waiting.register(listener, select.POLLIN)
    while True:
        try:
            connection, _ = listener.accept()
            return connection
        except BlockingIOError:
            pass
        except OSError as exc:
            if exc.errno not in _IGNORABLE_ACCEPT_ERRNOS:
                raise
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        waiting.poll(None if left == math.inf else max(1, math.ceil(left * 1000)))
