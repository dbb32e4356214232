"""Every rule of one match, without I/O: the ACPC dealer's ``gameLoop`` as a state machine.

A ``MatchEngine`` is told what arrived and when, and answers what to send, to whom, and until
when it waits; it reads no socket and no clock (in the manner of h11 or ``wsproto``). It holds:
the ``VERSION`` handshake, the deal (the dealer's MT19937, seats rotating one position a hand
unless ``fixed_seats``), every seat's view of every state, the acting seat's reply read and fixed
as the C dealer's ``readPlayerResponse`` fixes it, invalid actions counted, the time budgets
(``t_response``, ``t_hand``, ``t_per_hand``: the C ``ErrorInfo``), the log and transaction lines
(handed to the sinks it is given: files for a driver, lists for a test), a resumed match's
transactions replayed, and the observer's calls.

A driver is a short loop over it, on its own I/O and clock (``sync_match`` blocking sockets and
``time.monotonic()``, ``trio_match`` trio, ``arena.in_process`` agents in the same process)::

    for seat: read lines until engine.version_received(seat, line); then engine.start(wall())
    while not engine.over:
        for seat, data, held, noted in engine.messages(): send or hold data; if noted: engine.sent(seat, ...)
        asked = engine.next_reply()       # (seat, deadline), or None: the hand is over -> engine.next_hand()
        read lines from the seat until engine.receive(line, clock(), wall())
    (a SeatError: engine.fail(error)); result = engine.finish(wall())

An in-process driver, whose agents read no lines, calls ``engine.answer(action, asked, answered)``
instead. A ``SeatError`` the rules raise (a bad version, too many invalid actions, time run out) ends
the match; every finished hand is in the log by then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from acpc_arena.dealer.server.lines import SeatError, timed_out
from acpc_arena.dealer.server.logfiles import TransactionRecord
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult, WarningKind, reads_actions
from acpc_arena.dealer.server.seat_rules import Budget, SeatTables, version_line
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.rank_lookup import MAX_FAST_CARDS, warm_up
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import (
    MatchState,
    MatchStatePrinter,
    action_text,
    format_action,
    format_betting,
    format_log_line,
    format_score_line,
    match_states_equal,
    read_action,
    read_match_state,
)


class LogSink(Protocol):
    """Where the ``.log`` lines go (``logfiles.MatchLog``): the hand a resumed log needs next and its last line."""

    next_hand: int
    last_record: str

    def write_line(self, line: str) -> None: ...


class TransactionSink(Protocol):
    """Where the ``.tlog`` lines go (``logfiles.TransactionLog``)."""

    def record(self, action: str, hand_id: int, sent: float, received: float) -> None: ...


Message = tuple[int, bytes, bool, bool]
"""A line for one seat, ``(seat, data, held, noted)``: send ``data`` (or, ``held``, queue it for the seat's
next send), then, if ``noted``, tell the engine when it went (``MatchEngine.sent``). A plain tuple: a
state's messages are made for every action."""

_Noted = tuple[int, Action, float, int, float, float]
"""An action played, for its transaction line and the observer's ``action_taken``: the seat, the action,
its seconds, the hand's number, when it was asked and when it came (wall clock)."""


class _Hand:
    """One hand in play: its state, each position's seat, the betting text so far, and who acts."""

    __slots__ = ("acting_first", "betting", "printer", "seat_of", "seat_order", "state")

    def __init__(self, tables: SeatTables, state: State) -> None:
        self.state = state
        self.printer = MatchStatePrinter(state)
        rotation = tables.rotation(state.hand_id)
        self.seat_order = tables.orders[rotation]
        self.seat_of = tables.seats[rotation]
        self.acting_first = tables.acting_first[rotation]
        self.betting = format_betting(state) if state.actions[0] else ""  # a hand just dealt: no betting yet

    def apply(self, action: Action) -> None:
        """Apply ``action`` and extend the betting text (a ``/`` for each round it ends)."""
        state = self.state
        round_before = state.round
        state.apply(action)
        text, ended = action_text(action, state.rules.no_limit), state.round - round_before
        self.betting += text + "/" * ended if ended else text


class MatchEngine:
    """One match's rules and state; see the module's docstring for the loop that drives it.

    ``replay``: the
    transactions of an interrupted run of the same match, applied first (hands the log lacks are
    logged then). ``version_timeout``: seconds to wait for each ``VERSION`` line (default
    ``t_response``). ``batch_messages``: a seat that is not to act gets its lines held until it must
    act or the match ends (the same bytes in the same order, fewer system calls).
    """

    def __init__(
        self,
        config: MatchConfig,
        observer: MatchObserver | None = None,
        log: LogSink | None = None,
        transactions: TransactionSink | None = None,
        replay: Sequence[TransactionRecord] = (),
        version_timeout: float | None = None,
        batch_messages: bool = False,
    ) -> None:
        game = config.game
        n = game.num_players
        showdown_cards = game.num_hole_cards + game.total_board_cards
        if showdown_cards <= MAX_FAST_CARDS:
            warm_up((showdown_cards,))  # the evaluator's tables, before any clock starts
        self.config = config
        self.observer = observer or MatchObserver()
        self.log = log
        self.transactions = transactions
        self.replay = replay
        self.budget = budget = Budget(config)
        self.result = MatchResult(
            totals=[0.0] * n, invalid_actions=budget.invalid, fixed_actions=budget.fixed, seconds_used=budget.match_used
        )
        self.send_timeout = budget.max_response
        """Seconds a send may wait for a seat that does not read (each channel's ``send_timeout``)."""
        self.version_wait = budget.max_response if version_timeout is None else version_timeout
        self.game, self.hands = game, config.hands
        """Seconds to wait for each seat's ``VERSION`` line."""
        self.verbose = self.observer.wants_messages
        self.stamped = transactions is not None or self.verbose
        """Whether anyone reads the wall-clock times (the transactions, the observer's messages)."""
        self.batch = batch_messages
        self.tables = SeatTables(config)
        self.rng = MT19937(config.seed)
        self.over = False
        """Every hand played (or the match failed): no more messages."""
        self._hand: _Hand | None = None
        self._asked_clock = self._asked_wall = 0.0
        """When the acting seat's question went (the driver's clock, the wall clock)."""
        self._asked_text = ""
        """The question's line (a reply echoes it, then ``:`` and the action)."""
        self._acting_seat = -1
        """The seat the last messages ask to act (-1: none, the hand is over)."""
        self._noted: _Noted | None = None
        """The last action's transaction and observer call, made once the next messages are out."""
        self._tells_actions = reads_actions(self.observer)
        """Whether the observer reads ``action_taken`` (called for every action only then)."""
        self._texts: dict[int, str] = {}
        """The text of each seat's last message, for an observer that reads them."""
        self._values: list[float] = []
        """The values by position of the hand that ended last."""

    @property
    def state(self) -> State:
        """The hand in play's state (the engine's own: read it, never change it)."""
        assert self._hand is not None
        return self._hand.state

    def check_seats(self, count: int) -> None:
        """Raise ValueError unless ``count`` (the driver's connections) is the game's number of seats."""
        seats = self.config.game.num_players
        if count != seats:
            raise ValueError(f"{self.config.game_file} has {seats} seats, got {count} channels")

    @property
    def seat_of_position(self) -> list[int]:
        """The seat of each position in the hand in play."""
        assert self._hand is not None
        return self._hand.seat_of

    def version_received(self, seat: int, raw: bytes) -> bool:
        """A line ``seat`` sent before the match: True once its ``VERSION`` line is accepted, False for a
        comment (read the next); raises SeatError for anything else."""
        return version_line(seat, raw, self.observer)

    def start(self, wall: float) -> None:
        """Begin the match (every seat's version read): the transactions of ``replay`` applied, the
        first hand to play dealt."""
        self.observer.match_started(self.config, wall)
        hand_id, state = self._replay_transactions()
        if hand_id >= self.config.hands:  # every hand replayed: the run stopped at the very end
            self.over = True
            self._write_score(replayed=True)
        else:
            self._hand = _Hand(self.tables, state)

    def messages(self) -> list[Message]:
        """Every seat's view of the state as it stands, in the order they go out.

        The acting seat's message comes first, so that it thinks while the others are sent theirs (and
        only it is ``noted``); when the observer reads the messages they go seat by seat, each noted, in
        the order the C dealer prints them. A hand's last states go to every seat held (unless the observer
        reads the messages): each goes out in one send with the seat's first state of the next hand (or at
        the end of the match), the same bytes in the same order with a system call less a seat a hand.
        """
        hand = self._hand
        assert hand is not None
        printer, betting = hand.printer, hand.betting
        acting = hand.state.current_player
        verbose = self.verbose
        batch = self.batch or (acting < 0 and not verbose)
        order = hand.seat_order if verbose or acting < 0 else hand.acting_first[acting]
        self._acting_seat = hand.seat_of[acting] if acting >= 0 else -1
        out: list[Message] = []
        for seat, viewer in order:
            line = printer.line(viewer, betting, "\r\n")
            if verbose:
                self._texts[seat] = line
            if viewer == acting:
                self._asked_clock = self._asked_wall = 0.0
                self._asked_text = line[:-2]
                out.append((seat, line.encode("ascii"), False, True))
            else:
                out.append((seat, line.encode("ascii"), batch, verbose))
        return out

    def sent(self, seat: int, clock: float, wall: float) -> None:
        """A noted message to ``seat`` went out at ``clock`` (the driver's clock, which its deadlines use) and
        ``wall``."""
        if seat == self._acting_seat:
            self._asked_clock, self._asked_wall = clock, wall
        if self.verbose:
            self.observer.message_sent(seat, wall, self._texts[seat])

    def next_reply(self) -> tuple[int, float] | None:
        """Once the messages are out: the seat to read a reply from and the deadline (the driver's clock),
        or None when the hand is over (then ``next_hand``)."""
        if self._noted is not None:
            self._note()
        hand = self._hand
        assert hand is not None
        state = hand.state
        if state.finished:
            return None
        seat = hand.seat_of[state.current_player]
        return seat, self._asked_clock + self.budget.seconds_left(seat)

    def receive(self, raw: bytes, clock: float, wall: float) -> bool:
        """A line the acting seat sent, read at ``clock`` and ``wall``: True once its action is played,
        False for a line to ignore (read the next)."""
        hand = self._hand
        assert hand is not None
        state = hand.state
        seat = hand.seat_of[state.current_player]
        if self.verbose:
            self.observer.message_received(seat, wall, raw.decode("latin-1"))
        action = self._read_reply(seat, raw, state)
        if action is None:
            return False
        self._play(seat, action, clock - self._asked_clock, self._asked_wall, wall)
        return True

    def answer(self, action: Action, asked: float, answered: float) -> None:
        """The acting seat's action, decided in this process between ``asked`` and ``answered`` (no lines:
        it is fixed as a reply's would be and charged the same time)."""
        hand = self._hand
        assert hand is not None
        seat = hand.seat_of[hand.state.current_player]
        seconds = answered - asked
        if seconds > self.budget.seconds_left(seat):
            raise timed_out(seat)
        self._play(seat, self._fixed(seat, action, hand.state), seconds, 0.0, 0.0)
        self._note()

    def next_hand(self) -> None:
        """After a hand's last states went out: report it, deal the next or end the match (``over``; ``state``
        stays the last hand's). An unfinished hand (an environment's reset) is dropped, never reported."""
        hand = self._hand
        assert hand is not None
        state, result, budget = hand.state, self.result, self.budget
        if state.finished:
            self.observer.hand_finished(self.config, state, self._values, result.totals)
            if state.hand_id % 100 == 0:
                self.observer.time_report(budget.match_used)
        budget.new_hand()
        hand_id = state.hand_id + 1
        if hand_id >= self.hands:
            self.over = True
            self._write_score(replayed=False)
        else:
            self._hand = _Hand(self.tables, deal_hand(self.game, hand_id, self.rng))

    def fail(self, error: SeatError) -> None:
        """A seat failed (a rule or the driver's I/O): the match ends, the last action still recorded."""
        self._note()
        self.result.error = error
        self.over = True

    def finish(self, wall: float) -> MatchResult:
        """The match is over (played or failed): the observer told, the result."""
        self.observer.match_finished(self.config, self.result, wall)
        return self.result

    def _play(self, seat: int, action: Action, seconds: float, asked_wall: float, wall: float) -> None:
        """Charge the seat its time and apply its action; a hand that ends is counted and logged."""
        self.budget.charge(seat, seconds)
        hand = self._hand
        assert hand is not None
        hand_id = hand.state.hand_id
        hand.apply(action)
        if self.transactions is not None or self._tells_actions:
            self._noted = (seat, action, seconds, hand_id, asked_wall, wall)
        if hand.state.finished:
            self._note()
            self._end_hand(hand.state)

    def _note(self) -> None:
        """The last action's transaction line and the observer's ``action_taken``, once."""
        noted = self._noted
        if noted is None:
            return
        self._noted = None
        seat, action, seconds, hand_id, asked_wall, received_wall = noted
        if self.transactions is not None:
            self.transactions.record(format_action(action, self.game), hand_id, asked_wall, received_wall)
        if self._tells_actions:
            self.observer.action_taken(seat, action, seconds)

    def _read_reply(self, seat: int, raw: bytes, state: State) -> Action | None:
        """The action in a line the acting seat sent, fixed as the C dealer's ``readPlayerResponse`` fixes
        it; None for a line to ignore (a comment, a bad or un-requested state)."""
        line, game = raw.decode("latin-1"), self.game
        asked = self._asked_text
        if line.startswith(asked) and line[len(asked) : len(asked) + 1] == ":":  # the usual case: the state
            text, pos = line, len(asked)  # echoed byte for byte, then ":" (the action's end is read, not the line's)
        elif line.startswith(("#", ";")):
            return None
        else:
            text = line.rstrip("\r\n")
            try:
                echoed, pos = read_match_state(text, game)
            except ProtocolError:
                self.observer.warning(seat, WarningKind.BAD_STATE, "bad state format in response")
                return None
            if not match_states_equal(MatchState(state.current_player, state), echoed):
                self.observer.warning(seat, WarningKind.UNREQUESTED, "ignoring un-requested response")
                return None
        try:
            if text[pos : pos + 1] != ":":
                raise ProtocolError("no action")
            action, _ = read_action(text, pos + 1, game)
        except ProtocolError:
            self.budget.count_invalid(seat)
            self.observer.warning(seat, WarningKind.BAD_ACTION, "bad action format in response, changed to call")
            return CALL_ACTION
        return self._fixed(seat, action, state)

    def _fixed(self, seat: int, action: Action, state: State) -> Action:
        """``action`` as the rules allow it: an invalid one changed to call (counted), a no-limit raise
        out of range resized (counted as fixed)."""
        fixed = state.validate_action(action, try_fixing=True)
        if fixed is None:
            self.budget.count_invalid(seat)
            self.observer.warning(seat, WarningKind.INVALID_ACTION, "invalid action, changed to call")
            return CALL_ACTION
        if fixed.kind is RAISE and fixed.size != action.size and state.game.no_limit:
            self.budget.fixed[seat] += 1
            change = "increased" if fixed.size > action.size else "decreased"
            self.observer.warning(seat, WarningKind.RAISE_FIXED, f"raise of {action.size} {change} to {fixed.size}")
        return fixed

    def _add_values(self, state: State) -> list[float]:
        """Count a finished hand in the result; its values by position."""
        values = state.values()
        totals, seats = self.result.totals, self.tables.seats[self.tables.rotation(state.hand_id)]
        for p, value in enumerate(values):
            totals[seats[p]] += value
        self.result.hands_played += 1
        return values

    def _log_line(self, state: State, values: list[float]) -> str:
        return format_log_line(state, values, self.tables.names[self.tables.rotation(state.hand_id)])

    def _end_hand(self, state: State) -> None:
        values = self._values = self._add_values(state)
        hand = self._hand
        if self.log is not None and hand is not None:  # the hand's own printer and betting text: the same line
            names = self.tables.names[self.tables.rotation(state.hand_id)]
            self.log.write_line(hand.printer.log_line(hand.betting, values, names))

    def _write_score(self, replayed: bool) -> None:
        """The log's ``SCORE`` line, unless every hand was replayed and the log has it already."""
        score = format_score_line(self.result.totals, self.config.players)
        if self.log is not None and not (replayed and self.log.last_record == score):
            self.log.write_line(score)

    def _replay_transactions(self) -> tuple[int, State]:
        """Apply the transactions of an interrupted run (the C ``processTransactionFile``), logging the
        finished hands the log lacks; the hand to play next, dealt (and partly played)."""
        config, game, budget, log = self.config, self.config.game, self.budget, self.log
        hand_id = 0
        state = deal_hand(game, hand_id, self.rng)
        for record in self.replay:
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
                values = self._add_values(state)
                if log is not None and hand_id >= log.next_hand:
                    log.write_line(self._log_line(state, values))
                hand_id += 1
                budget.new_hand()
                state = deal_hand(game, hand_id, self.rng)
        return hand_id, state
