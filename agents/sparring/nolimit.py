"""The no-limit sparring suite: nine heuristic players of heads-up no-limit hold'em, none tuned against any agent.

Each plays ``holdem.nolimit.2p.reverse_blinds`` (stacks 20,000, blinds 50/100) or any
other heads-up no-limit hold'em game; another game is refused in one line. "Equity",
"percentile", "price" and "draw" are as in ``limit``. A bet of "x pots" is a raise
of x times the pot after calling, on top of the call (``styles.bet_to``); any size is
made valid as the dealer would make it (clamped between the minimum raise and all in;
a raise that is not allowed becomes a call).

``spar_shove10``, ``spar_shove30``, ``spar_shove60``: pre-flop shovers. Each goes all
in before the flop with the top 10%, 30% or 60% of starting hands (``--top``, by the
pre-flop percentile) and otherwise checks or folds, on every street.

``spar_overbet``: an overbettor. With a strong hand (the top 30% of starting hands
before the flop, 0.70 equity after it) it bets or raises 2 or 3 pots, each half the
time, and re-raises the same way with the top 10% or 0.80 equity. With a weak hand
(the bottom 30%, or under 0.35 equity) it overbets as a bluff a fifth of the time
when it may bet first (before the flop: when first in), and otherwise checks. Facing
a bet it calls when its equity beats the price by 0.05 and folds the rest; first in
before the flop it limps the middle 40%.

``spar_minraise``: a min-raiser. When its hand passes its gate (the top 60% of
starting hands before the flop, 0.50 equity after it) it makes the minimum bet or
raise, on every street, up to three raises of its own in a round, then calls; below
the gate it checks, calls a bet when its equity is at least the price, and folds
the rest.

``spar_limper``: a limp-caller. It limps every small blind, checks its big blind,
and calls any bet when its equity is at least the price less 0.05; it raises only
the nuts-ish (aces before the flop, 0.90 equity after it), a pot-sized raise.

``spar_fractions``: an equity player that sizes by the pot. With nothing owed it bets
half the pot at 0.55 equity, three quarters at 0.65, the pot at 0.75 and goes all in
at 0.85; facing a bet it raises by the same fraction at 0.65 or more (all in at
0.85), calls at the price, and folds the rest.

``spar_oddsize``: an equity player with odd sizes: with nothing owed it bets 1.7
pots at 0.70 equity and 0.37 of the pot at 0.55 (one chip over the minimum when that
is below it); facing a bet it raises to one chip over the minimum raise at 0.70
(up to three raises of its own in a round, then it calls), calls at the price and
folds the rest.

``spar_fuzz``: a bot for robustness tests. At every decision it picks, whatever it
holds: all in (0.30), a raise to twice its stack plus one (0.20, over the stack), a
raise to half the minimum raise (0.20, under the minimum; at least 1), a fold (0.15,
even with nothing owed) or a call (0.15); it asks for a raise even where none is
allowed. Through ``acpc-agent`` (and ``acpc-match``) those are made valid before they
are sent, as for every agent: over the stack is all in, under the minimum the
minimum, a fold with nothing owed a check, a raise not allowed a call. ``python -m
acpc_arena.agents.sparring.fuzz`` sends them as drawn, for the dealer to correct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from acpc_arena.agents.base import Policy, merge, pot_size_raise_to, valid_or_call
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.agents.sparring.bot import (
    NOLIMIT_GAME,
    PREFLOP,
    SparringBot,
    first_in,
    hand_equity,
    preflop_percentile,
    price,
)
from acpc_arena.agents.styles import bet_to
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

MAX_OWN_RAISES = 3
"""``spar_minraise`` and ``spar_oddsize`` call rather than raise a fourth time in a round."""


def check_or_fold(state: State) -> Action:
    """A fold when chips are owed, else a check."""
    return FOLD_ACTION if state.can_fold() else CALL_ACTION


def raise_to(state: State, size: int) -> Action:
    """A raise to ``size`` made valid (clamped; a call where no raise is allowed)."""
    return valid_or_call(state, Action(RAISE, size))


def all_in(state: State) -> Action:
    """All in (a call where no raise is allowed)."""
    return raise_to(state, state.game.stack[state.current_player])


def pots(state: State, fraction: float) -> Action:
    """A bet or raise of ``fraction`` pots."""
    return raise_to(state, bet_to(state, fraction))


def only(action: Action) -> Policy:
    return {action: 1.0}


def call_at_price(state: State, eq: float, margin: float) -> Action:
    """A call when ``eq`` is at least the price plus ``margin`` (or nothing is owed), else a fold."""
    if not state.can_fold() or eq >= price(state) + margin:
        return CALL_ACTION
    return FOLD_ACTION


def own_raises(state: State, player: int) -> int:
    """Raises ``player`` made this round."""
    round_ = state.round
    return sum(
        a.kind == RAISE for a, p in zip(state.actions[round_], state.acting_players[round_], strict=True) if p == player
    )


class NoLimitBot(SparringBot):
    """A bot of the no-limit suite."""

    no_limit = True
    default_game = NOLIMIT_GAME


@dataclass(frozen=True)
class SparShoveOptions(AgentOptions):
    top: Annotated[float | None, "share of starting hands shoved (default: the share the bot is named for)"] = None


class SparShove(NoLimitBot):
    """All in before the flop with the top ``--top`` of starting hands, else check or fold (the module docstring)."""

    name = "spar_shove"
    TOP: ClassVar[float] = 0.3

    Options = SparShoveOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed, **options)
        top = options_from(SparShoveOptions, options).top
        self.top = self.TOP if top is None else top
        if not 0 <= self.top <= 1:
            raise ValueError(f"--top is a share of the starting hands, from 0 to 1, not {self.top}")

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP and preflop_percentile(view) >= 1 - self.top:
            return only(all_in(state))
        return only(check_or_fold(state))


class SparShove10(SparShove):
    name = "spar_shove10"
    TOP = 0.1


class SparShove30(SparShove):
    name = "spar_shove30"
    TOP = 0.3


class SparShove60(SparShove):
    name = "spar_shove60"
    TOP = 0.6


class SparOverbet(NoLimitBot):
    """Bets 2 or 3 pots with strong hands and as bluffs (the module docstring)."""

    name = "spar_overbet"
    BLUFF = 0.2

    def overbets(self, state: State, p: float) -> list[tuple[Action, float]]:
        return [(pots(state, 2.0), p / 2), (pots(state, 3.0), p / 2)]

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        if state.round == PREFLOP:
            strength = preflop_percentile(view)
            strong, very_strong, weak = strength >= 0.7, strength >= 0.9, strength < 0.3
        else:
            eq = hand_equity(view)
            strong, very_strong, weak = eq >= 0.7, eq >= 0.8, eq < 0.35
        owed = state.legal_actions().to_call > 0
        if very_strong or (strong and (not owed or first_in(state))):
            return merge(self.overbets(state, 1.0))
        may_lead = first_in(state) or (not owed and state.round > PREFLOP)
        if weak and may_lead:
            return merge([*self.overbets(state, self.BLUFF), (check_or_fold(state), 1 - self.BLUFF)])
        if first_in(state):
            return only(CALL_ACTION)  # the middle 40%: a limp
        return only(call_at_price(state, hand_equity(view), 0.05))


class SparMinRaise(NoLimitBot):
    """Min-bets and min-raises every street past a strength gate (the module docstring)."""

    name = "spar_minraise"

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        eq = hand_equity(view)
        passes = preflop_percentile(view) >= 0.4 if state.round == PREFLOP else eq >= 0.5
        if not passes:
            return only(call_at_price(state, eq, 0.0))
        if own_raises(state, view.viewer) >= MAX_OWN_RAISES:
            return only(CALL_ACTION)
        return only(raise_to(state, state.legal_actions().min_raise_to))


class SparLimper(NoLimitBot):
    """Limps and calls down, raising only the nuts-ish (the module docstring)."""

    name = "spar_limper"

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        nuts = preflop_percentile(view) >= 0.995 if state.round == PREFLOP else hand_equity(view) >= 0.9
        if nuts:
            return only(raise_to(state, pot_size_raise_to(state)))
        if state.round == PREFLOP and (first_in(state) or not state.can_fold()):
            return only(CALL_ACTION)
        return only(call_at_price(state, hand_equity(view), -0.05))


class SparFractions(NoLimitBot):
    """Sizes by pot fractions on its equity, all in with strong hands (the module docstring)."""

    name = "spar_fractions"
    SIZES: ClassVar[tuple[tuple[float, float], ...]] = ((0.75, 1.0), (0.65, 0.75), (0.55, 0.5))
    """(equity at least, pot fraction), strongest first."""

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        eq = hand_equity(view)
        owed = state.legal_actions().to_call > 0
        if eq >= 0.85:
            return only(all_in(state))
        for least, fraction in self.SIZES:
            if eq >= least and (not owed or least >= 0.65):
                return only(pots(state, fraction))
        return only(call_at_price(state, eq, 0.0))


class SparOddSize(NoLimitBot):
    """Bets 0.37 and 1.7 pots and raises one chip over the minimum (the module docstring)."""

    name = "spar_oddsize"

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        eq = hand_equity(view)
        legal = state.legal_actions()
        if legal.to_call > 0:
            if eq >= 0.7 and own_raises(state, view.viewer) < MAX_OWN_RAISES:
                return only(raise_to(state, legal.min_raise_to + 1))
            return only(call_at_price(state, eq, 0.0))
        if eq >= 0.7:
            return only(pots(state, 1.7))
        if eq >= 0.55:
            return only(raise_to(state, max(bet_to(state, 0.37), legal.min_raise_to + 1)))
        return only(CALL_ACTION)


class SparFuzz(NoLimitBot):
    """Asks for out-of-range sizes, folds with nothing owed, raises where none is allowed (the module docstring)."""

    name = "spar_fuzz"

    def intents(self, state: State) -> list[tuple[Action, float]]:
        """The actions it draws from, as drawn (invalid ones included), with their probabilities."""
        stack = self.game.stack[state.current_player]
        low = max(1, state.min_no_limit_raise_to // 2)
        return [
            (Action(RAISE, stack), 0.30),
            (Action(RAISE, 2 * stack + 1), 0.20),
            (Action(RAISE, low), 0.20),
            (FOLD_ACTION, 0.15),
            (CALL_ACTION, 0.15),
        ]

    def decide(self, view: MatchState) -> Policy:
        state = view.state
        return merge([(valid_or_call(state, action), p) for action, p in self.intents(state)])

    def act(self, view: MatchState) -> Action:
        return valid_or_call(view.state, self.act_as_drawn(view))

    def act_as_drawn(self, view: MatchState) -> Action:
        """The action drawn, not made valid (``act`` takes the same draw made valid)."""
        x = float(self.rng.random())
        choices = self.intents(view.state)
        for action, p in choices:
            if x < p:
                return action
            x -= p
        return choices[-1][0]
