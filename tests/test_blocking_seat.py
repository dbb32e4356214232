"""``BlockingChannel``: each read bounded by the socket's receive limit, set only when the time left is shorter."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.lines import SeatError, SeatFailure


@pytest.fixture
def pair() -> Iterator[tuple[BlockingChannel, socket.socket]]:
    ours, theirs = socket.socketpair()
    channel = BlockingChannel(0, ours)
    yield channel, theirs
    channel.close()
    theirs.close()


def send_later(sock: socket.socket, data: bytes, seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, sock.sendall, (data,))
    timer.start()
    return timer


def timed_out_after(channel: BlockingChannel, seconds: float) -> float:
    """Seconds a read with ``seconds`` left took to time out."""
    start = time.monotonic()
    with pytest.raises(SeatError) as raised:
        channel.receive_line(start + seconds)
    assert raised.value.kind == SeatFailure.TIMEOUT
    return time.monotonic() - start


def test_a_silent_player_times_out_at_its_deadline(pair: tuple[BlockingChannel, socket.socket]) -> None:
    channel, _ = pair
    assert 0.3 <= timed_out_after(channel, 0.3) < 1.0


def test_a_short_deadline_after_a_long_one_is_kept(pair: tuple[BlockingChannel, socket.socket]) -> None:
    channel, theirs = pair
    theirs.sendall(b"first\r\n")
    assert channel.receive_line(time.monotonic() + 600) == b"first\r\n"  # the limit set to about 300 s
    assert 0.3 <= timed_out_after(channel, 0.3) < 1.0  # not 300 s


def test_a_reply_after_the_limit_passed_within_the_deadline_is_read(
    pair: tuple[BlockingChannel, socket.socket],
) -> None:
    channel, theirs = pair
    timed_out_after(channel, 0.1)  # the limit set to 0.1 s
    start = time.monotonic()
    timer = send_later(theirs, b"late but in time\n", 0.5)
    assert channel.receive_line(start + 5) == b"late but in time\n"  # woken at 0.1 s, waits on
    # The timer's own wait may end a clock tick early: well past the 0.1 s limit is what counts.
    assert 0.45 <= time.monotonic() - start < 4
    timer.join()


def test_a_line_after_the_deadline_is_a_timeout(pair: tuple[BlockingChannel, socket.socket]) -> None:
    channel, theirs = pair
    theirs.sendall(b"too late\n")
    with pytest.raises(SeatError) as raised:
        channel.receive_line(time.monotonic() - 0.001)
    assert raised.value.kind == SeatFailure.TIMEOUT


def test_a_line_in_pieces_and_two_lines_at_once(pair: tuple[BlockingChannel, socket.socket]) -> None:
    channel, theirs = pair
    theirs.sendall(b"MATCHSTATE:0:0::")
    timer = send_later(theirs, b"|Ks3c:c\r\nsecond\n", 0.1)
    deadline = time.monotonic() + 5
    assert channel.receive_line(deadline) == b"MATCHSTATE:0:0::|Ks3c:c\r\n"
    assert channel.receive_line(deadline) == b"second\n"
    timer.join()


def test_a_closed_connection_ends_the_seat(pair: tuple[BlockingChannel, socket.socket]) -> None:
    channel, theirs = pair
    theirs.sendall(b"no newline")
    theirs.close()
    deadline = time.monotonic() + 5
    assert channel.receive_line(deadline) == b"no newline"  # the last line, cut off by the end
    with pytest.raises(SeatError) as raised:
        channel.receive_line(deadline)
    assert raised.value.kind == SeatFailure.DISCONNECT
