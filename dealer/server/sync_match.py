"""One match over plain sockets, without an event loop: ``acpc-dealer``'s default.

A loop over ``engine.MatchEngine`` (which holds every rule) on blocking sockets: each reply is
one ``recv`` bounded by the time the seat has left (``time.monotonic()``, ``blocking_seat``),
each message one ``send``. ``acpc-dealer`` plays this way unless it serves pages or metrics
(``--web``, ``--metrics-port``), which need trio (``trio_match``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence

from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.lines import SeatError
from acpc_arena.dealer.server.match import MatchResult


def play_match_sync(engine: MatchEngine, seat_channels: Sequence[BlockingChannel]) -> MatchResult:
    """Play ``engine``'s match with the players on ``seat_channels`` (one per seat, in seat order)."""
    engine.check_seats(len(seat_channels))
    channels = list(seat_channels)  # a list: read natively in the compiled loop
    monotonic, wall = time.monotonic, time.time
    stamped = engine.stamped  # else nobody reads the wall clock between the start and the end
    for channel in channels:
        channel.send_timeout = engine.send_timeout
    try:
        for channel in channels:
            deadline = monotonic() + engine.version_wait
            while not engine.version_received(channel.seat, channel.receive_line(deadline)):
                pass
        engine.start(wall())
        while not engine.over:
            for seat, data, held, noted in engine.messages():
                if held:
                    channels[seat].queue(data)
                else:
                    channels[seat].send(data)
                if noted:
                    engine.sent(seat, monotonic(), wall() if stamped else 0.0)
            asked = engine.next_reply()
            if asked is None:
                engine.next_hand()
                continue
            seat, deadline = asked
            channel = channels[seat]
            while not engine.receive(channel.receive_line(deadline), monotonic(), wall() if stamped else 0.0):
                pass
        for channel in channels:
            channel.send()  # the final states still held (batch_messages)
    except SeatError as error:
        engine.fail(error)
        for channel in channels:  # deliver what the other seats are still owed
            if channel.seat != error.seat:
                with contextlib.suppress(SeatError):
                    channel.send()
    return engine.finish(wall())
