"""One match over trio channels: ``play_match``, a loop over ``engine.MatchEngine`` driven by trio.

Used where a match shares its process with other work: the match runner's many matches,
in-process agents that read lines, ``acpc-dealer --web`` and ``--metrics-port``. The rules are
the engine's, as for the blocking loop of ``sync_match``; the deadlines are on trio's clock.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Sequence

import trio

from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchResult
from acpc_arena.dealer.server.seat import PollingSocketChannel, SeatChannel, SeatError


async def play_match(engine: MatchEngine, channels: Sequence[SeatChannel]) -> MatchResult:
    """Play ``engine``'s match with the players on ``channels`` (one per seat, in seat order)."""
    engine.check_seats(len(channels))
    clock, wall = trio.current_time, time.time
    for channel in channels:
        channel.send_timeout = engine.send_timeout
    try:
        for channel in channels:
            deadline = clock() + engine.version_wait
            while not engine.version_received(channel.seat, await channel.receive_line(deadline)):
                pass
        engine.start(wall())
        while not engine.over:
            for seat, data, held, noted in engine.messages():
                if held:
                    channels[seat].queue(data)
                else:
                    await channels[seat].send(data)
                if noted:
                    engine.sent(seat, clock(), wall())
            asked = engine.next_reply()
            if asked is None:
                engine.next_hand()
                continue
            seat, deadline = asked
            channel = channels[seat]
            while not engine.receive(await channel.receive_line(deadline), clock(), wall()):
                await trio.lowlevel.checkpoint()  # an ignored line gives the other tasks a turn
        for channel in channels:
            await channel.send()  # the final states still held (batch_messages)
    except SeatError as error:
        engine.fail(error)
        for channel in channels:  # deliver what the other seats are still owed
            if channel.seat != error.seat:
                with contextlib.suppress(SeatError):
                    await channel.send()
    return engine.finish(wall())


def play_polling(engine: MatchEngine, connections: Sequence[socket.socket]) -> MatchResult:
    """``play_match`` run by ``trio.run`` on the players' sockets, read by polling (``acpc-dealer`` with
    pages or metrics, whose observers feed another process)."""
    channels = [PollingSocketChannel(seat, sock) for seat, sock in enumerate(connections)]
    return trio.run(play_match, engine, channels)
