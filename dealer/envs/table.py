"""One match of the engine played hand by hand, as both environments play it: ``Table``.

A ``Table`` holds a ``MatchEngine`` and drives it in process (``engine.answer``), as the arena's
in-process driver does, with no clock: every action takes no time, so no time limit ever ends
the match. The match is the one ``acpc-dealer`` plays with the same game, seed and number of
hands: its deals (the dealer's MT19937), its seats rotating one position a hand (unless
``fixed_seats``), its log lines (to the ``log`` sink, ``dealer.server.engine.LogSink``).

An episode of either environment is one hand of this match: ``deal`` ends the hand in play and
deals the next, ``start`` begins a new match from hand 0 of a seed. A hand ended early (the
environment reset in the middle of it) is abandoned: nobody wins or loses, it is not logged,
and the next hand is dealt as the dealer deals it (the log skips its number).
"""

from __future__ import annotations

import secrets
from typing import Literal

from acpc_arena.dealer.server.engine import LogSink, MatchEngine
from acpc_arena.dealer.server.match import MatchConfig
from acpc_arena.dealer.server.match_config import MAX_TIMEOUT_MS, UINT32_MAX
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import Action, State
from acpc_arena.protocol.wire import MatchStatePrinter, format_betting

Rewards = Literal["chips", "mbb"]
"""The unit of the rewards: chips, or thousandths of a big blind."""

MAX_SEED = UINT32_MAX
"""The largest seed: the dealer's seeds are 32-bit."""


class EpisodeOverError(RuntimeError):
    """A step or an observation asked of a hand that is over (or a match whose hands are all played)."""


class IllegalActionError(ValueError):
    """An action the rules do not allow where it was taken (with ``illegal_actions="error"``), or an index
    outside the action space."""


def game_of(game: str | Game) -> tuple[Game, str]:
    """The game and its name as a log header prints it: a ``Game``, or a game file or shipped game's name
    (``protocol.game.load_game``: a bad file is a one-line ``ProtocolError``)."""
    if isinstance(game, Game):
        return game, "game"
    return load_game(game), str(game)


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """ValueError, one line, unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, not {value!r}")


def check_seed(seed: int) -> int:
    """``seed`` as the dealer takes it (0 to 2**32 - 1); ValueError otherwise."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is 0 to {MAX_SEED} (the dealer's seeds are 32-bit), not {seed}")
    return int(seed)


class Table:
    """A match of ``game`` between seats named ``names``, played one hand at a time.

    ``hands``: the match's length (``acpc-dealer``'s), after which ``deal`` raises EpisodeOverError;
    ``log``: where its ``.log`` lines go (the ``STATE`` line of each hand, the ``SCORE`` line at the
    end; the header is the caller's: ``config.header()``).
    """

    def __init__(
        self,
        game: Game,
        game_file: str,
        names: tuple[str, ...],
        hands: int = UINT32_MAX,
        fixed_seats: bool = False,
        rewards: Rewards = "chips",
        log: LogSink | None = None,
    ) -> None:
        if not 1 <= hands <= UINT32_MAX:
            raise ValueError(f"hands must be 1 to {UINT32_MAX}, not {hands}")
        check_choice("rewards", rewards, ("chips", "mbb"))
        self.game = game
        self.game_file = game_file
        self.names = names
        self.hands = hands
        self.fixed_seats = fixed_seats
        self.scale = 1000 / game.big_blind if rewards == "mbb" else 1.0
        """Reward units per chip."""
        self.log = log
        self.engine: MatchEngine | None = None
        self.config: MatchConfig | None = None
        self._printer: MatchStatePrinter | None = None
        self._betting: str | None = None
        """The lines' printer and betting text for the state as it stands (None: to be made)."""

    def start(self, seed: int | None) -> int:
        """A new match, its first hand dealt; ``seed`` None: a fresh random one. Returns the seed."""
        seed = secrets.randbits(32) if seed is None else check_seed(seed)
        self.config = config = MatchConfig(
            name="env",
            game=self.game,
            game_file=self.game_file,
            hands=self.hands,
            seed=seed,
            players=self.names,
            fixed_seats=self.fixed_seats,
            t_response_ms=MAX_TIMEOUT_MS,
            t_hand_ms=MAX_TIMEOUT_MS,
            t_per_hand_ms=MAX_TIMEOUT_MS,
        )
        self.engine = MatchEngine(config, log=self.log)
        self.engine.start(0.0)
        self._printer = None
        return seed

    @property
    def started(self) -> bool:
        return self.engine is not None

    def deal(self) -> None:
        """End the hand in play (abandoned if unfinished) and deal the next; EpisodeOverError after the last."""
        engine = self.match_engine()
        if not engine.over:
            engine.next_hand()
        self._printer = None
        if engine.over:
            raise EpisodeOverError(f"the match's {self.hands} hands are played: reset(seed=...) starts a new match")

    def match_engine(self) -> MatchEngine:
        if self.engine is None:
            raise EpisodeOverError("no hand has been dealt: call reset() first")
        return self.engine

    @property
    def state(self) -> State:
        """The hand in play (the engine's own: read it, never change it)."""
        return self.match_engine().state

    def acting_seat(self) -> int:
        """The seat to act, or -1 when the hand is over."""
        engine = self.match_engine()
        state = engine.state
        return -1 if state.finished else engine.seat_of_position[state.current_player]

    def position(self, seat: int) -> int:
        """``seat``'s position in the hand in play."""
        return self.match_engine().seat_of_position.index(seat)

    def line(self, seat: int) -> str:
        """The ``MATCHSTATE`` line the dealer sends ``seat`` now."""
        state = self.state
        printer = self._printer
        if printer is None or printer.state is not state:
            printer = self._printer = MatchStatePrinter(state)
            self._betting = None
        if self._betting is None:
            self._betting = format_betting(state)
        return printer.line(self.position(seat), self._betting)

    def play(self, action: Action) -> None:
        """The acting seat's action, fixed as the dealer fixes a reply (an invalid one played as a call and
        counted in ``invalid_actions``, a no-limit raise out of range resized)."""
        self.match_engine().answer(action, 0.0, 0.0)
        self.played()

    def played(self) -> None:
        """After an action played on the engine: the lines are made anew, and the match ends with its last
        hand (its ``SCORE`` line logged at once, the hand still in view)."""
        self._betting = None
        engine = self.match_engine()
        state = engine.state
        if state.finished and state.hand_id + 1 >= self.hands:
            engine.next_hand()

    def rewards(self) -> list[float]:
        """Each seat's winnings in the hand just finished, in the reward unit."""
        engine = self.match_engine()
        values = engine.state.values()
        by_seat = [0.0] * len(values)
        for position, seat in enumerate(engine.seat_of_position):
            by_seat[seat] = values[position] * self.scale
        return by_seat

    def invalid_actions(self, seat: int) -> int:
        """The invalid actions ``seat`` has taken in this match (each played as a call)."""
        return self.match_engine().result.invalid_actions[seat]
