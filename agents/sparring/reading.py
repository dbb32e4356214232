"""Reading the opponent: how often it bets and raises on each street over the match, and the range of
hands its actions in the current hand point to.

``OpponentModel`` counts, per street, the opponent's decisions with nothing owed and how
many of them were bets, and its decisions facing a bet (the big blind counts as one
before the flop) and how many were raises and how many went on (a call or a raise).
Each rate starts from a prior worth ``PRIOR_DECISIONS`` decisions (a bet rate of 0.3, a
raise rate of 0.15, going on 0.65) and is updated at the end of every hand from the
whole betting, seen or not.

The range starts as every hand equally likely and, for each of the opponent's actions
in this hand, each hand's weight is multiplied by how likely that hand was to take the
action under a simple model: the opponent bets or raises the share of its hands that
its observed rate says, the strongest ones (by ``ranges.strengths`` on the board of
that street), with a floor of ``BLUFF`` for bluffs; it goes on facing a bet with the
share its going-on rate says; a check or a call of a strong hand keeps ``SLOWPLAY`` of
its weight. The boundaries are soft (a logistic of width ``SOFTNESS`` in strength).
So against a player who raises 80% of the time a raise removes little: the range it
points to stays wide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from acpc_arena.agents.ranges import NUM_COMBOS, strengths
from acpc_arena.protocol.state import FOLD, RAISE, ActionKind, State

PRIOR_DECISIONS = 10.0
PRIOR_BET, PRIOR_RAISE, PRIOR_GO_ON = 0.3, 0.15, 0.65
BLUFF = 0.08
SLOWPLAY = 0.3
SOFTNESS = 0.08


def decisions(state: State, player: int) -> list[tuple[int, bool, ActionKind]]:
    """(round, whether a bet was owed, kind) of each of ``player``'s actions in the hand so far."""
    replay = State(state.game)
    out = []
    for round_ in range(state.round + 1):
        for action, actor in zip(state.actions[round_], state.acting_players[round_], strict=True):
            if actor == player:
                out.append((round_, replay.spent[actor] < replay.max_spent, action.kind))
            replay.apply(action)
    return out


@dataclass
class StreetCounts:
    """One street's counts of the opponent's decisions (see the module docstring)."""

    unbet: float = PRIOR_DECISIONS
    bets: float = PRIOR_DECISIONS * PRIOR_BET
    facing: float = PRIOR_DECISIONS
    raises: float = PRIOR_DECISIONS * PRIOR_RAISE
    go_on: float = PRIOR_DECISIONS * PRIOR_GO_ON


def _soft_above(values: np.ndarray, threshold: float) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-(values - threshold) / SOFTNESS)))


@dataclass
class OpponentModel:
    """The opponent's rates per street and the range they point to (see the module docstring)."""

    streets: list[StreetCounts] = field(default_factory=lambda: [StreetCounts() for _ in range(4)])

    def observe(self, final: State, opponent: int) -> None:
        """Count the opponent's decisions in a finished hand."""
        for round_, owed, kind in decisions(final, opponent):
            counts = self.streets[round_]
            if owed:
                counts.facing += 1
                counts.raises += kind == RAISE
                counts.go_on += kind != FOLD
            else:
                counts.unbet += 1
                counts.bets += kind == RAISE

    def rates(self, round_: int) -> tuple[float, float, float]:
        """(bet, raise, go-on) rates of the opponent on street ``round_``."""
        c = self.streets[round_]
        return c.bets / c.unbet, c.raises / c.facing, c.go_on / c.facing

    def range_weights(self, state: State, opponent: int) -> np.ndarray:
        """(1326,) the weight of each hand the opponent could hold, from its actions in this hand."""
        weights = np.ones(NUM_COMBOS)
        board = state.board_cards
        game = state.game
        for round_, owed, kind in decisions(state, opponent):
            if kind == FOLD:
                continue
            strength = strengths(board[: game.board_cards_after(round_)])
            bet, raise_, go_on = self.rates(round_)
            if not owed:
                strong = _soft_above(strength, 1.0 - bet)
                like = BLUFF + (1 - BLUFF) * strong if kind == RAISE else 1 - (1 - SLOWPLAY) * strong
            else:
                raising = _soft_above(strength, 1.0 - raise_)
                if kind == RAISE:
                    like = BLUFF + (1 - BLUFF) * raising
                else:
                    like = np.clip(_soft_above(strength, 1.0 - go_on) - (1 - SLOWPLAY) * raising, BLUFF, 1.0)
            weights *= like
        return weights
