"""One match, played over any trio streams: the ACPC dealer's ``gameLoop``.

``play_match`` checks each seat's ``VERSION`` line, then deals and plays the hands
exactly as the ACPC dealer: the same cards for the same seed, seats rotating one
position every hand (unless ``fixed_seats``), every state sent to every seat, the
acting seat's reply read and fixed as the C dealer fixes it, each finished hand
logged. Output happens through a ``MatchObserver`` (console lines, structured
events, metrics, progress) and the log and transaction files.

A seat that disconnects, runs out of time, sends an over-long line or runs out of
invalid actions ends the match: the result carries the error, every finished hand
is already in the log.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from acpc_arena.dealer.server.lines import LineChannel, SeatError, SeatFailure
from acpc_arena.dealer.server.logfiles import MatchLog, TransactionRecord
from acpc_arena.dealer.server.match_config import DEFAULT_T_HAND_MS as DEFAULT_T_HAND_MS
from acpc_arena.dealer.server.match_config import DEFAULT_T_PER_HAND_MS as DEFAULT_T_PER_HAND_MS
from acpc_arena.dealer.server.match_config import DEFAULT_T_RESPONSE_MS as DEFAULT_T_RESPONSE_MS
from acpc_arena.dealer.server.match_config import MAX_TIMEOUT_MS as MAX_TIMEOUT_MS
from acpc_arena.dealer.server.match_config import UINT32_MAX as UINT32_MAX
from acpc_arena.dealer.server.match_config import VERSION_MAJOR, VERSION_MINOR, MatchConfig
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.evaluator import MAX_FAST_CARDS, warm_up
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import (
    VERSION_PREFIX,
    MatchState,
    MatchStatePrinter,
    format_action,
    format_betting,
    format_log_line,
    format_score_line,
    match_states_equal,
    read_action,
    read_match_state,
)

if TYPE_CHECKING:
    from acpc_arena.dealer.server.trio_match import check_version as check_version
    from acpc_arena.dealer.server.trio_match import play_match as play_match


class WarningKind(StrEnum):
    """What a warning is about (the C dealer's ``WARNING:`` lines, and ``version``)."""

    BAD_STATE = "bad_state"
    """A reply whose state could not be read (ignored)."""
    UNREQUESTED = "unrequested"
    """A reply to another state than the one sent (ignored)."""
    BAD_ACTION = "bad_action"
    """A reply whose action could not be read (changed to call; counts as invalid)."""
    INVALID_ACTION = "invalid_action"
    """An action the rules do not allow (changed to call; counts as invalid)."""
    RAISE_FIXED = "raise_fixed"
    """A no-limit raise below the minimum or above the stack (moved into range)."""
    VERSION = "version"
    """A newer minor protocol version than this server's."""


@dataclass
class MatchResult:
    """What a match produced, by seat."""

    totals: list[float]
    hands_played: int = 0
    invalid_actions: list[int] = field(default_factory=list)
    """Actions each seat sent that were unreadable or against the rules, played as a call instead."""
    fixed_actions: list[int] = field(default_factory=list)
    """No-limit raises each seat sent below the minimum or above its stack, played resized."""
    seconds_used: list[float] = field(default_factory=list)
    error: SeatError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class MatchObserver:
    """Receives what happens in a match; every method does nothing unless overridden."""

    wants_messages: bool = False
    """Whether ``message_sent`` and ``message_received`` should be called (they cost time)."""

    def match_started(self, config: MatchConfig, stamp: float) -> None: ...

    def message_sent(self, seat: int, stamp: float, line: str) -> None: ...

    def message_received(self, seat: int, stamp: float, line: str) -> None: ...

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None: ...

    def action_taken(self, seat: int, action: Action, seconds: float) -> None: ...

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        """``values`` by position in the hand, ``totals`` by seat."""

    def time_report(self, seconds_used: list[float]) -> None:
        """Every 100 hands, the seconds each seat has used so far."""

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None: ...


class Observers(MatchObserver):
    """Several observers as one."""

    def __init__(self, observers: Sequence[MatchObserver]) -> None:
        self.observers = list(observers)
        self.wants_messages = any(o.wants_messages for o in self.observers)

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        for o in self.observers:
            o.match_started(config, stamp)

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        for o in self.observers:
            o.message_sent(seat, stamp, line)

    def message_received(self, seat: int, stamp: float, line: str) -> None:
        for o in self.observers:
            o.message_received(seat, stamp, line)

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        for o in self.observers:
            o.warning(seat, kind, text)

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        for o in self.observers:
            o.action_taken(seat, action, seconds)

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        for o in self.observers:
            o.hand_finished(config, state, values, totals)

    def time_report(self, seconds_used: list[float]) -> None:
        for o in self.observers:
            o.time_report(seconds_used)

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        for o in self.observers:
            o.match_finished(config, result, stamp)


class Budget:
    """Time and invalid-action accounting per seat (the C dealer's ``ErrorInfo``)."""

    def __init__(self, config: MatchConfig) -> None:
        n = config.game.num_players
        self.max_response = config.t_response_ms / 1000
        self.max_hand = config.t_hand_ms / 1000
        self.max_match = config.t_per_hand_ms * config.hands / 1000
        self.max_invalid = config.max_invalid_actions
        self.hand_used = [0.0] * n
        self.match_used = [0.0] * n
        self.invalid = [0] * n
        self.fixed = [0] * n

    def new_hand(self) -> None:
        self.hand_used = [0.0] * len(self.hand_used)

    def seconds_left(self, seat: int) -> float:
        return min(
            self.max_response,
            self.max_hand - self.hand_used[seat],
            self.max_match - self.match_used[seat],
        )

    def charge(self, seat: int, seconds: float) -> None:
        """Add a response's time; raises SeatError when a limit is passed."""
        seconds = max(0.0, seconds)  # wall clocks (transaction files) can step back
        self.hand_used[seat] += seconds
        self.match_used[seat] += seconds
        if (
            seconds > self.max_response
            or self.hand_used[seat] > self.max_hand
            or self.match_used[seat] > self.max_match
        ):
            raise SeatError(seat, "ran out of time", SeatFailure.TIMEOUT)

    def count_invalid(self, seat: int) -> None:
        self.invalid[seat] += 1
        if self.invalid[seat] > self.max_invalid:
            raise SeatError(seat, f"made more than {self.max_invalid} invalid actions", SeatFailure.INVALID_ACTIONS)


def version_line(seat: int, raw: bytes, observer: MatchObserver) -> bool:
    """Check a line a player sent before the match: False for a comment line (read the next), True for an
    accepted ``VERSION:2.x.y`` (a newer minor version is a warning); raises SeatError otherwise."""
    line = raw.decode("latin-1")
    if line.startswith(("#", ";")):
        return False
    text = line.rstrip("\r\n")
    parts = text[len(VERSION_PREFIX) :].split(".") if text.startswith(VERSION_PREFIX) else []
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):  # "²".isdigit() too
        raise SeatError(seat, f"invalid version string {text!r}", SeatFailure.VERSION)
    major, minor = int(parts[0]), int(parts[1])
    if major != VERSION_MAJOR:
        raise SeatError(
            seat,
            f"speaks protocol {text[8:]}, this server speaks {VERSION_MAJOR}.{VERSION_MINOR}.0",
            SeatFailure.VERSION,
        )
    if minor > VERSION_MINOR:
        observer.warning(seat, WarningKind.VERSION, f"this server is currently using version 2.0.0, player sent {text}")
    return True


def stamp() -> float:
    return time.time()


def start_match(config: MatchConfig, channels: Sequence[LineChannel]) -> tuple[Budget, MatchResult]:
    """The match's budget and empty result, a channel per seat checked, each channel's send time limit
    set and the evaluator's tables loaded (before any clock starts)."""
    game = config.game
    n = game.num_players
    if len(channels) != n:
        raise ValueError(f"{config.game_file} has {n} seats, got {len(channels)} channels")
    showdown_cards = game.num_hole_cards + game.total_board_cards
    if showdown_cards <= MAX_FAST_CARDS:
        warm_up((showdown_cards,))
    budget = Budget(config)
    for channel in channels:
        channel.send_timeout = budget.max_response
    return budget, MatchResult(
        totals=[0.0] * n, invalid_actions=budget.invalid, fixed_actions=budget.fixed, seconds_used=budget.match_used
    )


def end_hand(config: MatchConfig, state: State, result: MatchResult, log: MatchLog | None) -> list[float]:
    """Count a finished hand and log it; returns its values by position."""
    values = add_values(config, state, result)
    if log is not None:
        log.write_line(log_line(config, state, values))
    return values


def hand_over(
    config: MatchConfig,
    state: State,
    values: list[float],
    result: MatchResult,
    budget: Budget,
    observer: MatchObserver,
) -> None:
    """Report a finished hand, whose last states are sent (every 100 hands the time used too), and
    start the next hand's time budget."""
    observer.hand_finished(config, state, values, result.totals)
    if state.hand_id % 100 == 0:
        observer.time_report(budget.match_used)
    budget.new_hand()


def write_score(config: MatchConfig, result: MatchResult, log: MatchLog | None, over_before: bool) -> None:
    """The log's ``SCORE`` line, unless every hand was replayed and the log has it already."""
    score = format_score_line(result.totals, config.players)
    if log is not None and not (over_before and log.last_record == score):
        log.write_line(score)


def add_values(config: MatchConfig, state: State, result: MatchResult) -> list[float]:
    """Count a finished hand in ``result``; returns its values by position."""
    values = state.values()
    for p, value in enumerate(values):
        result.totals[config.seat_of_player(state.hand_id, p)] += value
    result.hands_played += 1
    return values


def log_line(config: MatchConfig, state: State, values: list[float]) -> str:
    names = [config.players[config.seat_of_player(state.hand_id, p)] for p in range(config.game.num_players)]
    return format_log_line(state, values, names)


def replay_transactions(
    config: MatchConfig,
    records: Sequence[TransactionRecord],
    rng: MT19937,
    budget: Budget,
    result: MatchResult,
    log: MatchLog | None,
) -> tuple[int, State]:
    """Apply the transactions of an interrupted run (the C ``processTransactionFile``), logging
    the finished hands the log lacks; returns the hand to play next, dealt."""
    game = config.game
    hand_id = 0
    state = deal_hand(game, hand_id, rng)
    for record in records:
        if record.hand_id != hand_id:
            raise ProtocolError(f"hand number mismatch in transaction file: {record.text}")
        try:
            action, _ = read_action(record.action, 0, game)
        except ProtocolError:
            raise ProtocolError(f"could not parse transaction action {record.text}") from None
        if state.validate_action(action) != action:
            raise ProtocolError(f"invalid action in transaction file: {record.text}")
        budget.charge(config.seat_of_player(hand_id, state.current_player), record.received - record.sent)
        state.apply(action)
        if state.finished:
            values = add_values(config, state, result)
            if log is not None and hand_id >= log.next_hand:
                log.write_line(log_line(config, state, values))
            hand_id += 1
            budget.new_hand()
            state = deal_hand(game, hand_id, rng)
    return hand_id, state


class SeatTables:
    """Each seat rotation's order of seats, computed once per match."""

    def __init__(self, config: MatchConfig) -> None:
        n = config.game.num_players
        self.num_players = n
        self.fixed = config.fixed_seats
        self.orders: list[list[tuple[int, int]]] = []
        """By rotation: (seat, the position it views) seat by seat."""
        self.others_after: list[list[list[tuple[int, int]]]] = []
        """By rotation and position: the pairs of ``acting_first`` after that position's."""
        self.seats: list[list[int]] = []
        """By rotation: the seat of each position."""
        self.acting_first: list[list[list[tuple[int, int]]]] = []
        """By rotation and position: the same pairs with that position's seat first (the others in seat order)."""
        for rotation in range(1 if self.fixed else n):
            order = [(seat, config.player_of_seat(rotation, seat)) for seat in range(n)]
            self.orders.append(order)
            self.seats.append([config.seat_of_player(rotation, position) for position in range(n)])
            self.acting_first.append([sorted(order, key=lambda pair: pair[1] != position) for position in range(n)])
            self.others_after.append([pairs[1:] for pairs in self.acting_first[-1]])

    def rotation(self, hand_id: int) -> int:
        return 0 if self.fixed else hand_id % self.num_players


class Hand:
    """One hand in play: the state, each seat's position, and the betting text so far."""

    def __init__(self, tables: SeatTables, state: State, observer: MatchObserver, batch_messages: bool) -> None:
        self.state = state
        self.printer = MatchStatePrinter(state)
        rotation = tables.rotation(state.hand_id)
        self.seat_order = tables.orders[rotation]
        self.seat_of = tables.seats[rotation]
        """The seat of each position."""
        self.acting_first = tables.acting_first[rotation]
        self.others_after = tables.others_after[rotation]
        self.betting = format_betting(state)
        self.observer = observer
        self.verbose = observer.wants_messages
        self.batch = batch_messages

    def record(self, action: Action, round_before: int) -> None:
        """Apply ``action`` and extend the betting text (a ``/`` for each round it ends)."""
        state = self.state
        state.apply(action)
        self.betting += format_action(action, state.game) + "/" * (state.round - round_before)

    def send_order(self) -> list[tuple[int, int]]:
        """(seat, the position it views) in the order their views go out.

        The acting seat gets its message first, so that it thinks while the others are sent theirs;
        when the messages are reported (``-q`` not given) they go seat by seat, in the order the C
        dealer prints them.
        """
        acting = self.state.current_player
        return self.seat_order if self.verbose or acting < 0 else self.acting_first[acting]


def response_action(
    seat: int,
    raw: bytes,
    received_at: float,
    expected: MatchState,
    sent_text: str,
    budget: Budget,
    observer: MatchObserver,
) -> Action | None:
    """The action in a line the acting seat sent, fixed as the C dealer's ``readPlayerResponse`` fixes
    it; None for a line to ignore (a comment, a bad or un-requested state: read the next). An invalid
    action counts against the seat's budget (SeatError past its limit)."""
    state = expected.state
    game = state.game
    line = raw.decode("latin-1")
    if observer.wants_messages:
        observer.message_received(seat, received_at, line)
    if line.startswith(("#", ";")):
        return None
    text = line.rstrip("\r\n")
    if text.startswith(sent_text) and text[len(sent_text) : len(sent_text) + 1] == ":":
        pos = len(sent_text)  # the usual case: the state echoed byte for byte
    else:
        try:
            echoed, pos = read_match_state(text, game)
        except ProtocolError:
            observer.warning(seat, WarningKind.BAD_STATE, "bad state format in response")
            return None
        if not match_states_equal(expected, echoed):
            observer.warning(seat, WarningKind.UNREQUESTED, "ignoring un-requested response")
            return None
    try:
        if text[pos : pos + 1] != ":":
            raise ProtocolError("no action")
        action, _ = read_action(text, pos + 1, game)
    except ProtocolError:
        budget.count_invalid(seat)
        observer.warning(seat, WarningKind.BAD_ACTION, "bad action format in response, changed to call")
        return CALL_ACTION
    fixed = state.validate_action(action, try_fixing=True)
    if fixed is None:
        budget.count_invalid(seat)
        observer.warning(seat, WarningKind.INVALID_ACTION, "invalid action, changed to call")
        return CALL_ACTION
    if fixed.kind == RAISE and fixed.size != action.size and game.no_limit:
        budget.fixed[seat] += 1
        change = "increased" if fixed.size > action.size else "decreased"
        observer.warning(seat, WarningKind.RAISE_FIXED, f"raise of {action.size} {change} to {fixed.size}")
    return fixed


def __getattr__(name: str) -> object:
    """``play_match`` and ``check_version``, the match on trio (``dealer.trio_match``), imported when
    first asked for: a plain match and the command line's checks run without trio."""
    if name in ("play_match", "check_version"):
        from acpc_arena.dealer.server import trio_match

        return getattr(trio_match, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_T_HAND_MS",
    "DEFAULT_T_PER_HAND_MS",
    "DEFAULT_T_RESPONSE_MS",
    "MatchConfig",
    "MatchObserver",
    "MatchResult",
    "Observers",
    "SeatError",
    "SeatFailure",
    "WarningKind",
    "play_match",
]
