"""Local best response (LBR): a lower bound on a heads-up agent's exploitability.

Lisý and Bowling, "Equilibrium approximation quality of current no-limit poker
bots" (2017). LBR plays the agent using nothing but the agent's ``policy``:

- Its *range* is a weight for every hole-card holding the agent could have. It
  starts uniform over the holdings that do not share a card with LBR's own;
  after each action of the agent every holding's weight is multiplied by the
  probability the agent's policy gives that action with those cards (Bayes'
  rule), floored at ``ZERO_FLOOR`` (1e-9): an argmax agent's near-tie can
  round one way in ``act``'s batch of one view and the other in the range's
  batch of 1,326, and the floor keeps the agent's real holding in the range
  (at a weight too small to move any value) instead of emptying it. An action
  that no holding left in the range gives any probability is an error.
  Holdings that share a card with the board drop out as it comes.
- At each of its decisions LBR computes ``wp``, its chance of winning (ties
  half) a showdown against the range with the board completed at random (every
  completion where there are at most ``rollouts`` of them, else ``rollouts``
  sampled ones), assuming that both players only check or call from here on.
- It values each candidate action in chips relative to folding now (fold 0):
  call ``wp * pot - (1 - wp) * asked`` (``pot`` the chips in the middle,
  ``asked`` the chips to call); a raise to ``R`` (adding ``a`` over the call)
  ``fp * pot + (1 - fp) * (wp * (pot + a) - (1 - wp) * (asked + a))``, where
  ``fp`` is the range's probability of folding to it, from the agent's policy
  at the state after the raise. It takes the best; on a tie the earliest of
  fold, call, the raises (so it folds when nothing is worth more than 0), as
  the paper does. Candidates: fold (where legal), call, and in limit games the
  raise; in no-limit ones raises of each of ``fractions`` times the pot after
  calling on top of the call (clamped into the legal range) and all-in.
- In hold'em's first round the paper's LBR only checks and calls (``wp`` over a
  1,326-hand range before the flop is the costly case), which is the default
  here for games of more than one round with a 52-card deck; ``first_round``
  makes it respond there too. Smaller games (Leduc) respond everywhere.

LBR is a legal strategy, so what it wins against the agent is at most what a
best response wins: the agent's exploitability is at least LBR's winnings
(``lbr.evaluation`` plays it, ``lbr.exact`` values it exactly in small games).
The range's policies are asked for in one ``Agent.policies`` call per decision
(one batch of up to 1,326 views); ``wp`` is ``lbr.equity``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.lbr.equity import holdings, mask_of, win_probability
from acpc_arena.models.cfr.nolimit import fraction_raise_to
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State
from acpc_arena.protocol.views import ZERO_FLOOR, range_views


class ImpossibleAction(ValueError):
    """The agent took an action its policy gives probability 0 with every holding LBR still considers."""


DEFAULT_FRACTIONS = (0.5, 1.0)
"""No-limit raises LBR considers besides all-in: half a pot and a pot (after calling, on top of the call)."""
DEFAULT_ROLLOUTS = 100


@dataclass(frozen=True)
class Settings:
    """How LBR plays (see the module docstring)."""

    fractions: tuple[float, ...] = DEFAULT_FRACTIONS
    rollouts: int = DEFAULT_ROLLOUTS
    first_round: bool | None = None
    """Respond in the first round too; None: only in games smaller than hold'em."""

    def responds_in(self, game: Game, round_: int) -> bool:
        if round_ > 0:
            return True
        if self.first_round is not None:
            return self.first_round
        return not (len(game.deck) == 52 and game.num_rounds > 1)


@dataclass
class LocalBestResponse:
    """LBR in one position of one hand against ``agent`` (a fresh object per hand)."""

    agent: Agent
    position: int
    state: State
    settings: Settings
    rng: np.random.Generator
    cards: np.ndarray = field(init=False)
    masks: np.ndarray = field(init=False)
    weights: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        game = self.state.game
        if game.num_players != 2:
            raise ValueError("local best response is for heads-up games")
        self.cards, self.masks = holdings(game)
        self.weights = (self.masks & mask_of(self.state.hole_cards[self.position]) == 0).astype(np.float64)

    @property
    def opponent(self) -> int:
        return 1 - self.position

    def _live(self, state: State) -> np.ndarray:
        """Indices of the holdings with weight that fit LBR's cards and the board so far."""
        known = mask_of(state.hole_cards[self.position] + state.visible_board())
        return np.flatnonzero((self.weights > 0) & (self.masks & known == 0))

    def range_policies(self, state: State) -> tuple[np.ndarray, list[Policy]]:
        """The live holdings and the agent's policy with each, at ``state`` (the agent to act)."""
        live = self._live(state)
        views = range_views(state, self.opponent, self.cards[live].tolist())
        return live, self.agent.policies(views)

    def observe(self, state: State, action: Action) -> None:
        """The agent took ``action`` at ``state``: weigh each holding by the probability of it."""
        live, policies = self.range_policies(state)
        chances = np.array([policy.get(action, 0.0) for policy in policies])
        if not (chances > 0).any():
            raise ImpossibleAction(
                f"agent {self.agent.name!r} took {action} where its policy gives it probability 0 with every holding"
            )
        kept = np.zeros_like(self.weights)
        kept[live] = self.weights[live] * np.maximum(chances, ZERO_FLOOR)
        self.weights = kept

    def candidates(self, state: State) -> list[Action]:
        """Fold (where legal), call, and the raises LBR considers at ``state``."""
        legal = state.legal_actions()
        out = [FOLD_ACTION] if legal.can_fold else []
        out.append(CALL_ACTION)
        if not legal.can_raise:
            return out
        if not state.game.no_limit:
            return [*out, LIMIT_RAISE_ACTION]
        low, high = legal.min_raise_to, legal.max_raise_to
        sizes = sorted({min(max(fraction_raise_to(state, f), low), high) for f in self.settings.fractions} | {high})
        return out + [Action(RAISE, size) for size in sizes]

    def values(self, state: State) -> dict[Action, float]:
        """Each candidate's value in chips relative to folding now (the module docstring's formulas)."""
        game = state.game
        me = self.position
        live = self._live(state)
        wp = win_probability(
            game,
            state.hole_cards[me],
            state.visible_board(),
            self.cards[live],
            self.weights[live],
            self.settings.rollouts,
            self.rng,
        )
        pot = sum(state.spent)
        asked = state.legal_actions().to_call
        out: dict[Action, float] = {}
        for action in self.candidates(state):
            if action.kind == FOLD:
                out[action] = 0.0
                continue
            if action.kind != RAISE:
                out[action] = wp * pot - (1 - wp) * asked
                continue
            after = state.copy()
            after.apply(action)
            added = after.spent[me] - state.spent[me] - asked
            fold = 0.0
            if not after.finished and after.current_player == self.opponent:
                holdings_live, policies = self.range_policies(after)
                w = self.weights[holdings_live]
                folds = np.array([policy.get(FOLD_ACTION, 0.0) for policy in policies])
                fold = float(folds @ w / w.sum())
            out[action] = fold * pot + (1 - fold) * (wp * (pot + added) - (1 - wp) * (asked + added))
        return out

    def act(self, state: State) -> Action:
        if not self.settings.responds_in(state.game, state.round):
            return CALL_ACTION
        values = self.values(state)
        return max(values, key=values.__getitem__)  # the first of equal values: fold, call, raises
