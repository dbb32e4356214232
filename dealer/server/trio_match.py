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
from functools import partial

import trio

from acpc_arena.dealer.server.engine import LogSink, MatchEngine, TransactionSink
from acpc_arena.dealer.server.logfiles import TransactionRecord
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult
from acpc_arena.dealer.server.seat import PollingSocketChannel, SeatChannel, SeatError


async def play_match(
    config: MatchConfig,
    channels: Sequence[SeatChannel],
    observer: MatchObserver | None = None,
    log: LogSink | None = None,
    transactions: TransactionSink | None = None,
    replay: Sequence[TransactionRecord] = (),
    version_timeout: float | None = None,
    batch_messages: bool = False,
) -> MatchResult:
    """Play ``config.hands`` hands with the players on ``channels`` (one per seat).

    ``replay`` holds the transactions of an interrupted run of the same match: they are applied
    first, without the players, and play continues where they stop. ``version_timeout`` bounds the
    wait for each ``VERSION`` line (seconds; default ``t_response``). ``batch_messages`` holds the
    messages to a seat that is not to act until it must act (or the match ends): the same bytes in
    the same order, with fewer system calls, but a bot sees an opponent's action or a hand's end
    only when it is asked to act.
    """
    engine = MatchEngine(config, len(channels), observer, log, transactions, replay, version_timeout, batch_messages)
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
            for message in engine.messages():
                channel = channels[message.seat]
                if message.held:
                    channel.queue(message.data)
                else:
                    await channel.send(message.data)
                if message.noted:
                    engine.sent(message, clock(), wall())
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


def play_polling(
    config: MatchConfig,
    connections: Sequence[socket.socket],
    observer: MatchObserver | None,
    log: LogSink | None,
    transactions: TransactionSink | None,
    replay: Sequence[TransactionRecord],
    batch_messages: bool,
) -> MatchResult:
    """``play_match`` run by ``trio.run`` on the players' sockets, read by polling (``acpc-dealer`` with
    pages or metrics, whose observers feed another process)."""
    channels = [PollingSocketChannel(seat, sock) for seat, sock in enumerate(connections)]
    play = partial(play_match, batch_messages=batch_messages)
    return trio.run(play, config, channels, observer, log, transactions, replay)
