"""The limit sparring suite: six heuristic players of heads-up limit hold'em, none tuned against any agent.

Each plays ``holdem.limit.2p.reverse_blinds`` only (another game is refused in one
line). "Equity" is the share of the pot a hand wins at a showdown against a random
hand, over the cards to come (``ranges.equity``); the "percentile" of a starting hand
ranks it among the 1,326 (``models.hand_strength.preflop``: the top 30% are those at 0.7 or more);
the "price" of a call is what it costs over the pot after calling (``bot.price``);
a "draw" is a flush draw or an open-ended straight draw with a card to come.

``spar_equity``: a hand-strength player. It raises whenever its equity against a
random hand is at least ``--raise-at`` (0.65), calls a bet when its equity is at least
``--call-at`` (0.40) or at least the price, and otherwise checks, or folds to a bet.
It never looks at what the opponent did.

``spar_tag``: a tight-aggressive player who reads hands. Before the flop it raises
the top half of its starting hands first in, limps the next fifth and folds the
bottom 30%; in the big blind it raises a limp with the top 40%. Against every bet or
raise it puts the opponent on a range (``reading.OpponentModel``: the 1,326 hands
weighted by how likely each was to bet, raise or call as the opponent did, the
opponent's own bet and raise rates per street, counted over the match, deciding how
much a bet says), and weighs its equity against that range: it bets for value at
0.62 and raises at 0.72, calls when its equity beats the price by a margin (0.04;
0.08 before the flop) or it has a draw, and otherwise folds. It bluffs rarely (6%
of the time when checked to with nothing), semi-bluffs half its draws and raises a
fifth of them when bet into. Against a maniac, whose raise rate is high, a raise narrows the range
it assumes only a little, so it calls down wider.

``spar_lag``: a loose-aggressive player. It plays 90% of its small blinds (raising
75%), raises a limp with 60% of hands, and calls raises with the top 80% (re-raising
the top 30%). After the flop it bets every hand with an equity of 0.5 or more and
every draw, and barrels its air 45% of the time when checked to; when bet into it raises 0.65 or more and
40% of its draws, calls at the price, and gives up (folds) with nothing: less than
0.40 equity and no draw.

``spar_station``: a calling station. It never folds before the flop and calls
down after it with anything reasonable (an equity of 0.25 or a draw); it raises only
near-nuts: the top 5% of starting hands before the flop, 0.85 equity after it.

``spar_rock``: a tight-passive player. It plays the top 30% of starting hands from
the small blind, limping all but the top 5%, calls raises with the top 25% and
re-raises only the top 3%. After the flop it bets or raises only monsters (0.85
equity; raises at 0.90), calls a bet with 0.60 or more, and folds anything less.

``spar_bluffer``: a solid value player who bluffs rivers. Before the flop it plays
as ``spar_tag`` does first in and defends its big blind at the price; after the
flop it bets 0.60 equity and raises 0.72 (against a random hand), calls at the
price with a margin of 0.04, and checks or folds the rest. On the river, when the
opponent checks to it, it bets its missed draws (a draw on the turn that did not
come in) with probability ``2b / (P + b)`` and its other weak hands (under 0.40
equity) with ``b / (2 (P + b))``, for a bet of ``b`` into a pot of ``P``: about the
share of bluffs that makes a caller's decision close.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from acpc_arena.agents.base import Policy, limit_policy
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.agents.ranges import drawing, equity
from acpc_arena.agents.sparring.bot import (
    LIMIT_GAME,
    PREFLOP,
    RIVER,
    SparringBot,
    checked_to,
    first_in,
    hand_equity,
    hole_and_board,
    pot,
    preflop_percentile,
    price,
)
from acpc_arena.agents.sparring.reading import OpponentModel
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState


def fold_call_raise(state: State, fold: float, call: float, raise_: float) -> Policy:
    """``limit_policy``: the weights over the valid actions (a fold with nothing owed becomes a check)."""
    if not state.can_fold():
        call, fold = call + fold, 0.0
    return limit_policy(state, fold, call, raise_)


Ladder = tuple[float, float]
"""(call at, raise at): the thresholds of a ``ladder``."""


def ladder(state: State, value: float, call_at: float, raise_at: float) -> Policy:
    """Fold below ``call_at``, call below ``raise_at``, raise from it on (``fold_call_raise``)."""
    return fold_call_raise(state, value < call_at, call_at <= value < raise_at, value >= raise_at)


def preflop_ladder(view: MatchState, first_in_at: Ladder, checked_at: Ladder, facing_at: Ladder) -> Policy:
    """Before the flop, ``ladder`` on the hand's percentile at the thresholds of where the bot stands:
    first in, nothing owed, or chips owed."""
    state = view.state
    strength = preflop_percentile(view)
    if first_in(state):
        return ladder(state, strength, *first_in_at)
    if not facing_bet(state):
        return ladder(state, strength, *checked_at)
    return ladder(state, strength, *facing_at)


def facing_bet(state: State) -> bool:
    """Chips are owed."""
    return state.legal_actions().to_call > 0


class LimitBot(SparringBot):
    """A bot of the limit suite."""

    default_game = LIMIT_GAME


@dataclass(frozen=True)
class SparEquityOptions(AgentOptions):
    raise_at: Annotated[float, "raise at this equity or more"] = 0.65
    call_at: Annotated[float, "call a bet at this equity or more"] = 0.40


class SparEquity(LimitBot):
    """Raises, calls or folds on its equity against a random hand (the module docstring)."""

    name = "spar_equity"

    Options = SparEquityOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed, **options)
        chosen = options_from(SparEquityOptions, options)
        self.raise_at, self.call_at = chosen.raise_at, chosen.call_at
        if not 0 <= self.call_at <= self.raise_at <= 1:
            raise ValueError(f"need 0 <= --call-at <= --raise-at <= 1, not {self.call_at} and {self.raise_at}")

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        eq = hand_equity(view)
        if eq >= self.raise_at:
            return fold_call_raise(state, 0, 0, 1)
        if not facing_bet(state) or eq >= min(self.call_at, price(state)):
            return fold_call_raise(state, 0, 1, 0)
        return fold_call_raise(state, 1, 0, 0)


class SparTAG(LimitBot):
    """Tight-aggressive, equity against the range its opponent model reads (the module docstring)."""

    name = "spar_tag"
    VALUE, VALUE_RAISE, MARGIN, PREFLOP_MARGIN = 0.62, 0.72, 0.04, 0.08
    BLUFF, SEMI_BLUFF, SEMI_RAISE = 0.06, 0.5, 0.2

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed, **options)
        self.model = OpponentModel()

    def end_hand(self, view: MatchState) -> None:
        self.model.observe(view.state, 1 - view.viewer)

    def range_equity(self, view: MatchState) -> float:
        """Equity against the range the opponent's actions in this hand point to."""
        hole, board = hole_and_board(view)
        return equity(hole, board, self.model.range_weights(view.state, 1 - view.viewer))

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP and state.round_raises == 0:
            strength = preflop_percentile(view)
            if first_in(state):
                return ladder(state, strength, 0.3, 0.5)
            return ladder(state, strength, 0, 0.6)  # the big blind after a limp
        eq = self.range_equity(view)
        hole, board = hole_and_board(view)
        draw = drawing(hole, board)
        if not facing_bet(state):
            if eq >= self.VALUE:
                return fold_call_raise(state, 0, 0, 1)
            bluff = self.SEMI_BLUFF if draw else self.BLUFF
            return fold_call_raise(state, 0, 1 - bluff, bluff)
        if eq >= self.VALUE_RAISE:
            return fold_call_raise(state, 0, 0, 1)
        margin = self.PREFLOP_MARGIN if state.round == PREFLOP else self.MARGIN
        if eq >= price(state) + margin or draw:
            raise_ = self.SEMI_RAISE if draw else 0.0
            return fold_call_raise(state, 0, 1 - raise_, raise_)
        return fold_call_raise(state, 1, 0, 0)


class SparLAG(LimitBot):
    """Loose-aggressive (the module docstring)."""

    name = "spar_lag"
    BARREL, DRAW_RAISE = 0.45, 0.4

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP:
            return preflop_ladder(view, (0.1, 0.25), (0, 0.4), (0.2, 0.7))
        eq = hand_equity(view)
        draw = drawing(*hole_and_board(view))
        if not facing_bet(state):
            if eq >= 0.5 or draw:
                return fold_call_raise(state, 0, 0, 1)
            return fold_call_raise(state, 0, 1 - self.BARREL, self.BARREL)
        if eq >= 0.65:
            return fold_call_raise(state, 0, 0, 1)
        if draw:
            return fold_call_raise(state, 0, 1 - self.DRAW_RAISE, self.DRAW_RAISE)
        if eq >= 0.4 and eq >= price(state):
            return fold_call_raise(state, 0, 1, 0)
        return fold_call_raise(state, 1, 0, 0)


class SparStation(LimitBot):
    """A calling station that raises near-nuts (the module docstring)."""

    name = "spar_station"

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP:
            raise_ = preflop_percentile(view) >= 0.95
            return fold_call_raise(state, 0, not raise_, raise_)
        eq = hand_equity(view)
        if eq >= 0.85:
            return fold_call_raise(state, 0, 0, 1)
        if not facing_bet(state) or eq >= 0.25 or drawing(*hole_and_board(view)):
            return fold_call_raise(state, 0, 1, 0)
        return fold_call_raise(state, 1, 0, 0)


class SparRock(LimitBot):
    """Tight-passive (the module docstring)."""

    name = "spar_rock"

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP:
            return preflop_ladder(view, (0.7, 0.95), (0, 0.95), (0.75, 0.97))
        eq = hand_equity(view)
        if not facing_bet(state):
            return ladder(state, eq, 0, 0.85)
        return ladder(state, eq, 0.6, 0.9)


class SparBluffer(LimitBot):
    """A value player who bluffs rivers when checked to (the module docstring)."""

    name = "spar_bluffer"
    VALUE, VALUE_RAISE, MARGIN, WEAK = 0.60, 0.72, 0.04, 0.40

    def bluff_probability(self, view: MatchState) -> float:
        """On the river when checked to: ``2b / (P + b)`` with a missed draw, else ``b / (2 (P + b))``."""
        state = view.state
        hole, board = hole_and_board(view)
        bet = self.game.raise_size[RIVER]
        share = bet / (pot(state) + bet)
        return min(1.0, 2 * share) if drawing(hole, board[:4]) else share / 2

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP:
            strength = preflop_percentile(view)
            if first_in(state):
                return ladder(state, strength, 0.3, 0.5)
            if not facing_bet(state):
                return ladder(state, strength, 0, 0.6)
        eq = hand_equity(view)
        if eq >= (self.VALUE_RAISE if facing_bet(state) else self.VALUE):
            return fold_call_raise(state, 0, 0, 1)
        if facing_bet(state):
            go_on = eq >= price(state) + self.MARGIN
            return fold_call_raise(state, not go_on, go_on, 0)
        if state.round == RIVER and checked_to(state) and eq < self.WEAK:
            bluff = self.bluff_probability(view)
            return fold_call_raise(state, 0, 1 - bluff, bluff)
        return fold_call_raise(state, 0, 1, 0)
