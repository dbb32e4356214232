"""One match over plain sockets, without an event loop: ``acpc-dealer``'s default.

The same match as ``dealer.match.play_match`` (its rules, budgets, fixes, logs and
observer calls are the ones in ``dealer.match``), driven by a blocking loop: each
reply is one ``recv`` bounded by the time the seat has left (``time.monotonic()``,
``dealer.blocking_seat``), each message one ``send``. ``acpc-dealer`` plays this way unless it
serves pages or metrics (``--web``, ``--metrics-port``), which need trio.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence

from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.lines import SeatError
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
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.wire import MatchState, format_action


def play_match_sync(
    config: MatchConfig,
    channels: Sequence[BlockingChannel],
    observer: MatchObserver | None = None,
    log: MatchLog | None = None,
    transactions: TransactionLog | None = None,
    replay: Sequence[TransactionRecord] = (),
    version_timeout: float | None = None,
    batch_messages: bool = False,
) -> MatchResult:
    """Play ``config.hands`` hands with the players on ``channels`` (one per seat); the arguments and the
    result are ``play_match``'s."""
    observer = observer or MatchObserver()
    budget, result = start_match(config, channels)
    try:
        wait = budget.max_response if version_timeout is None else version_timeout
        for channel in channels:
            deadline = time.monotonic() + wait
            while not version_line(channel.seat, channel.receive_line(deadline), observer):
                pass
        observer.match_started(config, stamp())
        rng = MT19937(config.seed)
        hand_id, state = replay_transactions(config, replay, rng, budget, result, log)
        over_before = hand_id >= config.hands  # every hand replayed: the run stopped at the very end
        tables = SeatTables(config)
        while hand_id < config.hands:
            hand = Hand(tables, state, observer, batch_messages)
            _play_hand(config, hand, channels, budget, transactions)
            values = end_hand(config, state, result, log)
            _send_views(hand, channels, hand.verbose)
            hand_over(config, state, values, result, budget, observer)
            hand_id += 1
            state = deal_hand(config.game, hand_id, rng)
        for channel in channels:
            channel.send()  # the final states still held (batch_messages)
        write_score(config, result, log, over_before)
    except SeatError as error:
        result.error = error
        for channel in channels:  # deliver what the other seats are still owed
            if channel.seat != error.seat:
                with contextlib.suppress(SeatError):
                    channel.send()
    observer.match_finished(config, result, stamp())
    return result


def _send_views(hand: Hand, channels: Sequence[BlockingChannel], stamped: bool) -> tuple[float, float, str]:
    """Send every seat its view of the state (``trio_match._send_views``, on ``time.monotonic()``); returns
    when the acting seat's message went (``time.time()``, only when ``stamped``; ``time.monotonic()``) and
    its text."""
    printer, betting, batch, verbose = hand.printer, hand.betting, hand.batch, hand.verbose
    acting = hand.state.current_player
    sent_at, sent_clock, sent_text = 0.0, 0.0, ""
    for seat, viewer in hand.send_order():
        text = printer.line(viewer, betting)
        line = text + "\r\n"
        if viewer == acting:
            channels[seat].send(line.encode("ascii"))
            sent_clock = time.monotonic()
            sent_text = text
            if stamped:
                sent_at = stamp()
            if verbose:
                hand.observer.message_sent(seat, sent_at, line)
        else:
            if batch:
                channels[seat].queue(line.encode("ascii"))
            else:
                channels[seat].send(line.encode("ascii"))
            if verbose:
                hand.observer.message_sent(seat, stamp(), line)
    return sent_at, sent_clock, sent_text


def _send_plain(hand: Hand, channels: Sequence[BlockingChannel]) -> tuple[float, str]:
    """``_send_views`` where nobody reads the messages or their times and none is held: the acting
    seat's message, then the others'; returns when the acting seat's went (``time.monotonic()``) and its
    text."""
    printer, betting = hand.printer, hand.betting
    acting = hand.state.current_player
    text = printer.line(acting, betting)
    channels[hand.seat_of[acting]].send((text + "\r\n").encode("ascii"))
    sent_clock = time.monotonic()
    for seat, viewer in hand.others_after[acting]:
        channels[seat].send((printer.line(viewer, betting) + "\r\n").encode("ascii"))
    return sent_clock, text


def _send_next(hand: Hand, channels: Sequence[BlockingChannel], plain: bool, stamped: bool) -> tuple[float, float, str]:
    """The next state's messages, on the plain path where it applies: ``_send_views``' result (the wall
    time is 0.0 on the plain path, where nobody reads it)."""
    if plain:
        sent_clock, sent_text = _send_plain(hand, channels)
        return 0.0, sent_clock, sent_text
    return _send_views(hand, channels, stamped)


def _play_hand(
    config: MatchConfig,
    hand: Hand,
    channels: Sequence[BlockingChannel],
    budget: Budget,
    transactions: TransactionLog | None,
) -> None:
    """Play the hand to its end, its final states not yet sent.

    From a reply to the next message only what decides that message is done (the reply read,
    fixed, charged to the seat's time and applied); the transaction and the observer's
    ``action_taken`` follow the next message, while its player thinks.
    """
    state = hand.state
    game = config.game
    observer = hand.observer
    stamped = transactions is not None or hand.verbose  # someone reads the wall-clock times
    plain = not (stamped or hand.batch)
    seat_of = hand.seat_of
    finished = state.finished
    sent_at, sent_clock, sent_text = 0.0, 0.0, ""
    if not finished:
        sent_at, sent_clock, sent_text = _send_next(hand, channels, plain, stamped)
    while not finished:
        player = state.current_player
        seat = seat_of[player]
        channel = channels[seat]
        deadline = sent_clock + budget.seconds_left(seat)
        expected = MatchState(player, state)
        while True:
            raw = channel.receive_line(deadline)
            received_at = stamp() if stamped else 0.0
            action = response_action(seat, raw, received_at, expected, sent_text, budget, observer)
            if action is not None:
                break
        seconds = time.monotonic() - sent_clock
        budget.charge(seat, seconds)
        action_sent_at = sent_at
        hand.record(action, state.round)
        finished = state.finished
        try:
            if not finished:
                sent_at, sent_clock, sent_text = _send_next(hand, channels, plain, stamped)
        finally:  # the action is kept even when a seat fails as the next message goes out
            if transactions is not None:
                transactions.record(format_action(action, game), state.hand_id, action_sent_at, received_at)
            observer.action_taken(seat, action, seconds)
