"""The all-in guard: facing an all-in or an overbet, go on only with the equity the price asks for against the
range the opponent's line implies.

A *large bet* is a bet or raise of at least ``LARGE_BET_POTS`` (1.5) pots: the chips to call
over the pot before the bet with both players' chips matched (for the raiser, its raise over
the call in pots after calling). Its *price* (the chips to call over the pot after calling) is
then 3/8 or more. Every all-in into a pot under two thirds of the chips behind is one.

The range: the top ``f`` share of the hands without a card of the board, ranked before the flop
by the pre-flop percentile (``models.hand_strength.preflop``: the top 10% is 66+, A8s+, KJs+, ATo+) and after
it by strength on the board (``agents.ranges.strengths``: the share of the other hands each
beats, averaged over the cards to come, so a draw counts for what it becomes); a hand of the
class or strength at the cut is in. The hands holding one of the agent's cards drop out of it
when the equity is computed. ``f`` is how often this opponent made a large bet when it could raise, counted
over the hands of the match that have ended, before the flop and after it apart, starting
from a prior worth ``PRIOR_CHANCES`` (20) chances at ``PRIOR_SHARE`` (0.15), and kept within
[``FLOOR``, ``CEILING``] = [0.05, 0.9]: one shove moves it little, and a range is never
narrower than the top 5% nor wider than the top 90%.

The verdict: the agent goes on (calls, or raises if its own policy says so) when its equity
against that range (``agents.ranges.equity``: exact before the flop and on the turn and river)
is at least the price plus ``MARGIN`` (0.02); otherwise it folds. Equities are kept per hand,
board and range, so a decision costs well under a millisecond once the board's table is built.
The guard plays heads-up hold'em of the standard deck only (``supports``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from acpc_arena.agents.ranges import blocked, equity, strengths
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, State

LARGE_BET_POTS = 1.5
MARGIN = 0.02
PRIOR_CHANCES, PRIOR_SHARE = 20.0, 0.15
FLOOR, CEILING = 0.05, 0.9
PREFLOP, POSTFLOP = 0, 1


def supports(game: Game) -> bool:
    """Whether the guard can read ranges in ``game``: heads-up no-limit hold'em of the 52-card deck."""
    return (
        game.no_limit
        and game.num_players == 2
        and game.num_hole_cards == 2
        and len(game.deck) == 52
        and game.total_board_cards == 5
    )


def to_call(state: State) -> int:
    """Chips the player to act must put in to call."""
    return state.max_spent - state.spent[state.current_player]


def bet_in_pots(state: State) -> float:
    """The bet faced by the player to act, over the pot before it with both players' chips matched (0: none)."""
    owed = to_call(state)
    matched = sum(state.spent) - owed
    return owed / matched if owed > 0 else 0.0


def large_bet(state: State) -> bool:
    """Whether the player to act faces a bet of at least ``LARGE_BET_POTS`` pots."""
    return not state.finished and bet_in_pots(state) >= LARGE_BET_POTS


def price(state: State) -> float:
    """The chips to call over the pot after calling: the equity a call needs to break even."""
    owed = to_call(state)
    return owed / (sum(state.spent) + owed)


def street(round_: int) -> int:
    return PREFLOP if round_ == 0 else POSTFLOP


class LineCounts:
    """How often the opponent made a large bet when it could raise, before the flop and after it."""

    def __init__(self) -> None:
        self.chances = [0, 0]
        self.large = [0, 0]

    def observe(self, final: State, opponent: int) -> None:
        """Count the opponent's decisions in a finished hand."""
        state = State(final.game, final.hand_id, final.hole_cards, final.board_cards)
        for round_actions in final.actions:
            for action in round_actions:
                if state.current_player == opponent and state.legal_actions().can_raise:
                    group = street(state.round)
                    self.chances[group] += 1
                    if action.kind == RAISE:
                        after = state.copy()
                        after.apply(action)
                        self.large[group] += large_bet(after)
                state.apply(action)

    def share(self, round_: int) -> float:
        """``f``: the opponent's share of large bets, the prior added, within [FLOOR, CEILING]."""
        group = street(round_)
        estimate = (self.large[group] + PRIOR_CHANCES * PRIOR_SHARE) / (self.chances[group] + PRIOR_CHANCES)
        return min(max(estimate, FLOOR), CEILING)


def top_range(board: Sequence[int], share: float) -> np.ndarray:
    """(1326,) weight 1 on the top ``share`` of the hands without a card of ``board``, by strength on it."""
    possible = ~blocked(board)
    strength = strengths(board)
    ranked = np.sort(strength[possible])[::-1]
    count = max(1, round(share * len(ranked)))
    return np.asarray(possible & (strength >= ranked[count - 1]), dtype=np.float64)


class AllInGuard:
    """The guard of one agent over a match (see the module docstring)."""

    def __init__(self) -> None:
        self.counts = LineCounts()
        self._range: tuple[tuple[tuple[int, ...], float], np.ndarray] = (((), -1.0), np.zeros(0))
        """(board, share) and the range of the last decision."""
        self._equities: dict[tuple[int, ...], float] = {}
        """The equity of each hand held against that range."""

    def equity(self, state: State, seat: int) -> float:
        """The equity of ``seat``'s hand against the range the opponent's line implies."""
        hole, board = tuple(state.hole_cards[seat]), tuple(state.visible_board())
        share = self.counts.share(state.round)
        if self._range[0] != (board, share):
            self._range = ((board, share), top_range(board, share))
            self._equities.clear()
        value = self._equities.get(hole)
        if value is None:
            value = self._equities[hole] = equity(hole, board, self._range[1])
        return value

    def folds(self, state: State, seat: int) -> bool:
        """Whether ``seat``, to act facing a large bet, folds: its equity is under the price plus the margin."""
        return self.equity(state, seat) < price(state) + MARGIN

    def end_hand(self, final: State, seat: int) -> None:
        self.counts.observe(final, 1 - seat)
