"""One connection to the benchmark server: lines read within ``MAX_LINE`` bytes, lines sent within a deadline,
and a refusal that reaches the client as one line rather than a reset."""

from __future__ import annotations

import contextlib
import socket
import struct

import trio

from acpc_arena.dealer.benchmark_server.protocol import MAX_LINE

DRAIN_S = 1.0
"""How long a connection refused mid-line is read (and what it sends dropped) before it is closed, so that
its one line reaches it rather than a reset."""


class LineTooLong(Exception):
    pass


class Client:
    """One connection: line reads bounded by ``MAX_LINE``, writes one line at a time."""

    def __init__(self, stream: trio.SocketStream, send_timeout: float) -> None:
        self.stream = stream
        self.send_timeout = send_timeout
        self.address = str(stream.socket.getpeername()[0])
        self.user: str | None = None
        self.logging_on = True
        """Not logged in yet, nor answered at its logon."""
        self.closed = False
        self.buffer = b""
        self.lock = trio.Lock()
        self.scope = trio.CancelScope()
        """The connection's work (``handle``), cancelled when it is dropped."""

    async def line(self) -> bytes | None:
        """The next line without its end (``\\r\\n`` or ``\\n``), or None at the end of the stream."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise LineTooLong
            data = await self.stream.receive_some(MAX_LINE + 1)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        if len(line) > MAX_LINE:
            raise LineTooLong
        return line.rstrip(b"\r")

    async def send(self, *lines: str) -> bool:
        """Send ``lines``; False (and the connection marked closed) if it cannot take them in time."""
        if self.closed:
            return False
        data = "".join(line + "\n" for line in lines).encode("ascii", "replace")
        async with self.lock:
            with trio.move_on_after(self.send_timeout) as scope:
                try:
                    await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    self.closed = True
            if scope.cancelled_caught:
                self.drop()
        return not self.closed

    def drop(self) -> None:
        """End the connection (its task's work cancelled, ``handle`` closes it) with a reset: what is queued for
        it is thrown away, not held by the system while a peer that does not read is sent it ever more slowly."""
        self.closed = True
        self.scope.cancel()
        with contextlib.suppress(OSError):
            self.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    async def refuse(self, line: str) -> None:
        """Send ``line``, end the writing side, and read (dropping it) what comes for ``DRAIN_S`` seconds."""
        if not await self.send(line):
            return
        self.closed = True
        with trio.move_on_after(DRAIN_S):
            try:
                await self.stream.send_eof()
                while await self.stream.receive_some(65536):
                    pass
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
