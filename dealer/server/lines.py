"""A player's line framing and what ends a seat, without an event loop.

Lines end with ``\\n`` (the dealer sends ``\\r\\n``); a line longer than
``MAX_LINE_BYTES`` (the ACPC ``READBUF_LEN``, newline included) is an error
for that seat, as is end of file, a broken connection or a missed deadline.
``LineChannel`` holds what a seat sent and splits it into lines; the trio
channels (``dealer.seat``) and the blocking one (``dealer.sync_match``) build on it.
"""

from __future__ import annotations

import errno
import math
import select
import socket
import time
from enum import StrEnum
from typing import Final

from acpc_arena.protocol.native import mypyc_attr

MAX_LINE_BYTES: Final = 4096
RECEIVE_BYTES: Final = 65536
"""The most bytes read from a seat at once."""

IGNORABLE_ACCEPT_ERRNOS = frozenset(
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


def timed_out(seat: int) -> SeatError:
    """The error of a seat that did not answer in time."""
    return SeatError(seat, "timed out waiting for a response", SeatFailure.TIMEOUT)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, subclassed by the trio channels (dealer.seat)
class LineChannel:
    """One seat's bytes received and to send, and the errors that end it; subclasses do the I/O."""

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

    def _too_long(self) -> SeatError:
        return SeatError(self.seat, f"sent a line longer than {MAX_LINE_BYTES} bytes", SeatFailure.LINE_TOO_LONG)

    def timed_out(self) -> SeatError:
        return timed_out(self.seat)

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

    def _broken(self, exc: BaseException, doing: str) -> SeatError:
        return SeatError(
            self.seat, f"disconnected (could not {doing}: {str(exc) or 'connection closed'})", SeatFailure.DISCONNECT
        )

    def _stalled(self) -> SeatError:
        return SeatError(self.seat, f"did not read its messages for {self.send_timeout:g} s", SeatFailure.TIMEOUT)


def prepare_player_socket(sock: socket.socket, blocking: bool = False) -> socket.socket:
    """A player's connection made non-blocking (or blocking), its small messages sent at once
    (``TCP_NODELAY`` on TCP, as the C dealer sets it: without it, a message to a seat whose last one the
    player has not yet acknowledged waits for its delayed ACK, 40 ms, many times a hand)."""
    sock.setblocking(blocking)
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


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


def plain_address(address: str) -> str:
    """An IPv4 address as written, also when it comes IPv4-mapped on an IPv6 socket (``::ffff:10.0.0.1``)."""
    return address.removeprefix("::ffff:") if address.startswith("::ffff:") and "." in address else address


def accept_waiting(listener: socket.socket, allowed_from: tuple[str, ...] | None = None) -> socket.socket | None:
    """The next connection waiting on the non-blocking ``listener``, None when none waits.

    A connection that failed before it was accepted is skipped, and so is one from an address not in
    ``allowed_from`` (closed at once; None: any address); any other error (too many open files, a closed
    listener) is raised as ``OSError``.
    """
    while True:
        try:
            connection, peer = listener.accept()
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno not in IGNORABLE_ACCEPT_ERRNOS:
                raise
            continue
        if allowed_from is None or plain_address(str(peer[0])) in allowed_from:
            return connection
        connection.close()


def accept_sync(listener: socket.socket, deadline: float = math.inf) -> socket.socket | None:
    """``accept`` without an event loop: ``deadline`` on ``time.monotonic()``, waiting with ``poll(2)``."""
    waiting = select.poll()
    waiting.register(listener, select.POLLIN)
    while (connection := accept_waiting(listener)) is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        waiting.poll(None if left == math.inf else max(1, math.ceil(left * 1000)))
    return connection
