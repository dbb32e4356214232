"""One match over trio channels: ``play_match``, the match of ``dealer.match`` driven by trio.

Used where a match shares its process with other work: the match runner's many
matches, in-process agents, ``acpc-dealer --web`` and ``--metrics-port``. The rules,
budgets, fixes, logs and observer calls are ``dealer.match``'s, shared with the
blocking loop of ``dealer.sync_match``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import trio

from acpc_arena.dealer.server.logfiles import MatchLog, TransactionLog, TransactionRecord
from acpc_arena.dealer.server.match import (
    Budget,
    Hand,
    MatchConfig,
    MatchObserver,
    MatchResult,
    SeatTables,
    end_hand,
    hand_over,
    replay_transactions,
    response_action,
    stamp,
    start_match,
    version_line,
    write_score,
)
from acpc_arena.dealer.server.seat import SeatChannel, SeatError
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState, format_action


async def check_version(channel: SeatChannel, deadline: float, observer: MatchObserver) -> None:
    """Read the ``VERSION:2.0.0`` line a player sends first (comment lines skipped; not echoed
    to the message log, as by the C dealer)."""
    while not version_line(channel.seat, await channel.receive_line(deadline), observer):
        pass


async def play_match(
    config: MatchConfig,
    channels: Sequence[SeatChannel],
    observer: MatchObserver | None = None,
    log: MatchLog | None = None,
    transactions: TransactionLog | None = None,
    replay: Sequence[TransactionRecord] = (),
    version_timeout: float | None = None,
    batch_messages: bool = False,
) -> MatchResult:
    """Play ``config.hands`` hands with the players on ``channels`` (one per seat).

    ``replay`` holds the transactions of an interrupted run of the same match: they
    are applied first, without the players, and play continues where they stop.
    Replayed hands that ``log`` does not hold yet (the run stopped between a hand's
    last transaction and its log line) are logged then.
    ``version_timeout`` bounds the wait for each ``VERSION`` line (seconds;
    default ``t_response``).

    Each message goes out when the C dealer sends it: every seat gets every state
    as it happens. ``batch_messages`` holds the messages to a seat that is not to
    act until it must act (or the match ends): the same bytes in the same order,
    with fewer system calls, but a bot sees an opponent's action or a hand's end
    only when it is asked to act.
    """
    observer = observer or MatchObserver()
    budget, result = start_match(config, channels)
    try:
        wait = budget.max_response if version_timeout is None else version_timeout
        for channel in channels:
            await check_version(channel, trio.current_time() + wait, observer)
        observer.match_started(config, stamp())
        rng = MT19937(config.seed)
        hand_id, state = replay_transactions(config, replay, rng, budget, result, log)
        over_before = hand_id >= config.hands  # every hand replayed: the run stopped at the very end
        tables = SeatTables(config)
        while hand_id < config.hands:
            hand = Hand(tables, state, observer, batch_messages)
            await _play_hand(config, hand, channels, budget, transactions)
            values = end_hand(config, state, result, log)
            await _send_views(hand, channels)
            hand_over(config, state, values, result, budget, observer)
            hand_id += 1
            state = deal_hand(config.game, hand_id, rng)
        for channel in channels:
            await channel.send()  # the final states still held (batch_messages)
        write_score(config, result, log, over_before)
    except SeatError as error:
        result.error = error
        for channel in channels:  # deliver what the other seats are still owed
            if channel.seat != error.seat:
                with contextlib.suppress(SeatError):
                    await channel.send()
    observer.match_finished(config, result, stamp())
    return result


async def _send_views(hand: Hand, channels: Sequence[SeatChannel]) -> tuple[float, float, str]:
    """Send every seat its view of the state.

    Returns the wall-clock stamp, the trio-clock time and the text of the acting
    player's message (zeros and ``""`` when the hand is over). With batching, a seat
    that is not to act gets its lines with the next line it must answer, or at the end
    of the match; its ``TO`` line then shows when it was queued.
    """
    printer, betting, batch, verbose = hand.printer, hand.betting, hand.batch, hand.verbose
    acting = hand.state.current_player
    sent_at, sent_clock, sent_text = 0.0, 0.0, ""
    for seat, viewer in hand.send_order():
        channel = channels[seat]
        text = printer.line(viewer, betting)
        line = text + "\r\n"
        if batch and viewer != acting:
            channel.queue(line.encode("ascii"))
        else:
            await channel.send(line.encode("ascii"))
        if viewer == acting:
            sent_clock = trio.current_time()
            sent_at, sent_text = stamp(), text
            if verbose:
                hand.observer.message_sent(seat, sent_at, line)
        elif verbose:
            hand.observer.message_sent(seat, stamp(), line)
    return sent_at, sent_clock, sent_text


async def _play_hand(
    config: MatchConfig,
    hand: Hand,
    channels: Sequence[SeatChannel],
    budget: Budget,
    transactions: TransactionLog | None,
) -> None:
    state = hand.state
    game = config.game
    observer = hand.observer
    while not state.finished:
        sent_at, sent_clock, sent_text = await _send_views(hand, channels)
        player = state.current_player
        seat = config.seat_of_player(state.hand_id, player)
        deadline = sent_clock + budget.seconds_left(seat)
        action, received_at = await _read_response(
            channels[seat], MatchState(player, state), sent_text, deadline, budget, observer
        )
        seconds = trio.current_time() - sent_clock
        budget.charge(seat, seconds)
        if transactions is not None:
            transactions.record(format_action(action, game), state.hand_id, sent_at, received_at)
        observer.action_taken(seat, action, seconds)
        hand.record(action, state.round)


async def _read_response(
    channel: SeatChannel,
    expected: MatchState,
    sent_text: str,
    deadline: float,
    budget: Budget,
    observer: MatchObserver,
) -> tuple[Action, float]:
    """The acting player's action, fixed as the C dealer's ``readPlayerResponse`` fixes it, and
    the wall-clock stamp of its arrival. Lines are read until ``deadline`` (trio clock), whatever
    they hold; a line that is ignored gives the other tasks a turn."""
    while True:
        raw = await channel.receive_line(deadline)
        received_at = stamp()
        action = response_action(channel.seat, raw, received_at, expected, sent_text, budget, observer)
        if action is not None:
            return action, received_at
        await trio.lowlevel.checkpoint()
