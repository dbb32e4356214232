"""A seat's channel over a real pipe: what its errors say."""

from __future__ import annotations

import os

import pytest
import trio

from acpc_arena.dealer.server.seat import SeatError, StreamChannel


async def test_a_player_gone_from_a_pipe_reads_as_connection_closed() -> None:
    # trio's pipe stream raises BrokenResourceError with no message of its own (the
    # BrokenPipeError is only its __cause__): the seat's error must still say why.
    read_end, write_end = os.pipe()
    os.close(read_end)
    channel = StreamChannel(0, trio.lowlevel.FdStream(write_end))
    with pytest.raises(SeatError) as failure:
        await channel.send(b"MATCHSTATE:0:0::Kc|\n")
    await channel.aclose()
    assert str(failure.value) == "seat 1: disconnected (could not send to the player: connection closed)"
    assert failure.value.kind == "disconnect"
