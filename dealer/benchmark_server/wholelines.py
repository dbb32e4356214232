"""Sending a long text (a run's log) so that ``bm_run_matches`` loses none of it.

The C client reads with a zero timeout (``getLine(..., 0)`` in ``net.c``): when its buffer runs out in the
middle of a line and the rest has not arrived yet, it drops the part it read. So the text goes in pieces of
whole lines, each no larger than one TCP segment, and a piece is sent only once the peer has acknowledged
everything before it: whatever the client has received then ends at a line's end.

A peer that takes longer than the deadline given to acknowledge a piece or take it (one that does not
read) gets ``trio.TooSlowError``: no reader holds the server's connection for longer. A log is read from
its file a block at a time, never whole.
"""

from __future__ import annotations

import fcntl
import socket
import struct
import termios
from collections.abc import Iterator
from typing import Protocol

import trio

TIOCOUTQ = getattr(termios, "TIOCOUTQ", None)
"""The ioctl that tells a TCP socket's bytes not yet acknowledged (Linux's ``SIOCOUTQ``); None elsewhere."""
MAX_PIECE = 65536
ACK_POLL_S = 0.001
BLOCK = 1 << 20
"""Bytes of a log read from its file at a time."""


class Reader(Protocol):
    """An async file open for reading bytes (``trio.open_file(path, "rb")``)."""

    async def read(self, size: int = -1, /) -> bytes: ...


def pieces(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in consecutive pieces of whole lines of at most ``size`` bytes (a longer line alone)."""
    start = 0
    while start < len(data):
        if len(data) - start <= size:
            end = len(data)
        else:
            cut = data.rfind(b"\n", start, start + size)
            if cut < 0:
                cut = data.find(b"\n", start + size)
            end = len(data) if cut < 0 else cut + 1
        yield data[start:end]
        start = end


def unacknowledged(sock: trio.socket.SocketType) -> int:
    """Bytes sent on ``sock`` that its peer has not acknowledged (0 where the system cannot tell)."""
    if TIOCOUTQ is None:
        return 0
    try:
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), TIOCOUTQ, b"\0\0\0\0"))[0])
    except OSError:
        return 0


def segment_size(sock: trio.socket.SocketType) -> int:
    """The connection's TCP segment size (at most ``MAX_PIECE``; 1400 where the system cannot tell)."""
    try:
        mss = int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG))
    except OSError:
        mss = 0
    return min(mss, MAX_PIECE) if mss > 0 else 1400


async def send_whole_lines(stream: trio.SocketStream, data: bytes, timeout: float) -> None:
    """Send ``data`` on ``stream`` in acknowledged pieces of whole lines (the module's docstring says why);
    ``trio.TooSlowError`` if a piece is not acknowledged and taken within ``timeout`` seconds."""
    for piece in pieces(data, segment_size(stream.socket)):
        with trio.fail_after(timeout):
            while unacknowledged(stream.socket):
                await trio.sleep(ACK_POLL_S)
            await stream.send_all(piece)


async def send_file_lines(stream: trio.SocketStream, file: Reader, timeout: float) -> None:
    """``send_whole_lines`` of an open file's bytes (``trio.open_file(path, "rb")``), read ``BLOCK`` bytes at a
    time, each block sent up to its last line's end (the rest with the next)."""
    rest = b""
    while block := await file.read(BLOCK):
        data = rest + block
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) < 4 * BLOCK:  # no line's end yet: read on (a longer line goes as it is)
            rest = data
            continue
        cut = cut or len(data)
        rest = data[cut:]
        await send_whole_lines(stream, data[:cut], timeout)
    if rest:
        await send_whole_lines(stream, rest, timeout)
