"""The field's plain baselines: random (the ACPC example player), call, raise, rule, equity.

``rule`` is seed 000's simple rule opponent: when its hand strength is high it
raises or calls half the time each, otherwise it raises, calls or folds 40/40/20.
"High" means an equity of at least ``--threshold`` (default 0.6) against one
random hand, estimated by Monte Carlo over the unseen cards (``--samples``,
default 400; the draws seeded by ``--seed`` and the cards, so the same cards
always get the same estimate) with the evaluator; before the flop that is roughly the best fifth
of starting hands (pairs from 55, most aces, suited broadways). A fold when
nothing is owed becomes a check. In no-limit games ``raise`` raises the minimum
and ``rule`` raises the pot.

``equity`` is the hand-strength yardstick: it computes its equity against random
hands, one per opponent still in (the share of the pot its hand wins at a
showdown), then raises at ``--raise-at`` (default 0.65) or more, checks or calls
at ``--call-at`` (default 0.45) or more, and otherwise checks or folds. Heads-up,
the equity is exact whenever enumerating every board completion and opponent hand
takes at most ``EXACT_SHOWDOWNS`` showdowns (hold'em's turn and river, all of
Leduc and Kuhn); otherwise it is a Monte Carlo estimate (``--samples``, default
1000: about that many draws per holding, a standard error near 0.016 at most), its
draws seeded by ``--seed`` and the board and shared by every holding on that board
(``protocol.equity.BoardDraws``). A policy asked for many holdings on one board,
as AIVAT asks, ranks the hands of the board once (the exact values too:
``protocol.equity.BoardStrengths``, the same numbers as ``strength_moments``), and the latest boards'
work is kept for any equity agent of the same game, seed and samples (AIVAT scores a seed's two
seatings, which deal the same boards, hand by hand in turn).

Policies (``Agent.policy``): ``random`` is the example player's probabilities
(no-limit raise sizes as its ``genrand_int32() % n`` draws them); ``call`` and
``raise`` are deterministic; ``rule`` mixes as above over its strength, which
depends on the cards alone; ``equity`` is deterministic given the cards. It ignores the betting: its own
equity is all it looks at, which makes it a fixed, hand-strength-only opponent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Annotated

from acpc_arena.agents.base import Agent, Policy, limit_policy, merge, pot_size_raise_to, valid_or_call
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.models.search.example_player import EXAMPLE_PLAYER_PROBABILITIES
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action
from acpc_arena.protocol.wire import MatchState

if TYPE_CHECKING:  # numpy is imported where used: an agent starts without it (make bench SECTIONS=startup)
    import numpy as np

    from acpc_arena.protocol.equity import BoardDraws, BoardStrengths

EXACT_SHOWDOWNS = 50_000
RECENT_BOARDS = 8
"""The boards' equity work kept for any equity agent of the same game, seed and samples (the latest boards):
AIVAT scores a seed's two seatings hand by hand in turn, and they deal the same boards."""
_RECENT_BOARDS: dict[tuple[object, ...], BoardDraws | BoardStrengths] = {}
"""The latest boards' ``BoardDraws`` or ``BoardStrengths`` by game, seed, samples, board and opponents, oldest first."""


def default_rng(seed: int | Sequence[int] | None) -> np.random.Generator:
    """numpy's generator seeded by ``seed``, numpy imported on the first call."""
    import numpy as np  # random, call and raise start without numpy (make bench SECTIONS=startup)

    return np.random.default_rng(seed)


def card_seeded_rng(seed: int | None, hole: Sequence[int], board: Sequence[int]) -> np.random.Generator:
    """A generator seeded by the agent's seed and the cards: the same cards always draw the same samples."""
    return default_rng([seed or 0, len(hole), *hole, *board])


def board_seeded_rng(seed: int | None, board: Sequence[int], opponents: int) -> np.random.Generator:
    """A generator seeded by the agent's seed, the board and the opponents: every holding on a board shares
    its draws."""
    return default_rng([seed or 0, opponents, len(board), *board])


class CardMemo:
    """Values that depend on the cards alone (``rule``'s and ``equity``'s strengths), each computed once
    per board (once per match before the flop, where there are few holdings): a policy asked for 1,326
    holdings several times a street (LBR, AIVAT's ranges) computes each once."""

    def __init__(self) -> None:
        self.board: tuple[int, ...] | None = None
        self.values: dict[tuple[tuple[int, ...], int], float] = {}
        self.preflop: dict[tuple[tuple[int, ...], int], float] = {}

    def _table(self, board: Sequence[int]) -> dict[tuple[tuple[int, ...], int], float]:
        if not board:
            return self.preflop
        if tuple(board) != self.board:
            self.board, self.values = tuple(board), {}
        return self.values

    def get(self, hole: Sequence[int], board: Sequence[int], extra: int, compute: Callable[[], float]) -> float:
        """The value of ``hole`` on ``board`` (``extra``: anything else it depends on), computed when new."""
        table, key = self._table(board), (tuple(hole), extra)
        if key not in table:
            table[key] = compute()
        return table[key]

    def missing(self, holes: Sequence[Sequence[int]], board: Sequence[int], extra: int) -> list[tuple[int, ...]]:
        """The holdings of ``holes`` whose value on ``board`` is not kept yet, each once."""
        table = self._table(board)
        return list(dict.fromkeys(tuple(hole) for hole in holes if (tuple(hole), extra) not in table))

    def kept(self, holes: Sequence[Sequence[int]], board: Sequence[int], extra: int) -> list[float]:
        """The values of ``holes`` on ``board``, each kept already."""
        table = self._table(board)
        return [table[tuple(hole), extra] for hole in holes]

    def put(self, holes: Sequence[Sequence[int]], board: Sequence[int], extra: int, values: Sequence[float]) -> None:
        """Keep the values of ``holes`` on ``board``."""
        table = self._table(board)
        for hole, value in zip(holes, values, strict=True):
            table[tuple(hole), extra] = value


class RandomAgent(Agent):
    """The ACPC ``example_player``: fold 0.06, call 0.47, raise 0.47 over the valid actions.

    It draws from MT19937 exactly as the C player does, so with the same seed it makes
    the same choices; without ``--seed`` it seeds from the clock, as the C player does.
    """

    name = "random"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)
        if seed is None:
            seed = int(time.time() * 1_000_000) % 1_000_000  # the C player seeds with tv_usec
        self.rng = MT19937(seed)

    def act(self, view: MatchState) -> Action:
        legal = view.state.legal_actions()
        fold, call, raise_ = EXAMPLE_PLAYER_PROBABILITIES
        if not legal.can_fold:
            fold = 0.0
        if not legal.can_raise:
            raise_ = 0.0
        total = sum([fold, call, raise_])
        x = self.rng.genrand_real2()  # the first kind whose probability x is within, as the C player walks them
        if x <= fold / total:
            return FOLD_ACTION
        x -= fold / total
        if x <= call / total or not legal.can_raise:
            return CALL_ACTION
        size = self.rng.genrand_int32()  # drawn in limit games too, as the C player does
        if not self.game.no_limit:
            return Action(RAISE)
        low, high = legal.min_raise_to, legal.max_raise_to
        return Action(RAISE, low + size % (high - low + 1))

    def policy(self, view: MatchState) -> Policy:
        state = view.state
        fold, call, raise_ = EXAMPLE_PLAYER_PROBABILITIES
        policy = limit_policy(state, fold, call, raise_)
        raise_p = policy.pop(Action(RAISE), 0.0)
        if raise_p and self.game.no_limit:
            legal = state.legal_actions()
            low, count = legal.min_raise_to, legal.max_raise_to - legal.min_raise_to + 1
            each, extra = divmod(1 << 32, count)  # genrand_int32() % count: the first `extra` sizes once more
            for k in range(count):
                policy[Action(RAISE, low + k)] = raise_p * (each + (k < extra)) / (1 << 32)
        elif raise_p:
            policy[Action(RAISE)] = raise_p
        return policy

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """The cards play no part: one policy for every view of the same betting."""
        return [self.policy(views[0])] * len(views) if views else []


class CallAgent(Agent):
    """Always checks or calls."""

    name = "call"

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION

    def policy(self, view: MatchState) -> Policy:
        return {CALL_ACTION: 1.0}


class RaiseAgent(Agent):
    """Raises whenever a raise is valid (the minimum in no-limit), otherwise calls."""

    name = "raise"

    def act(self, view: MatchState) -> Action:
        legal = view.state.legal_actions()
        if not legal.can_raise:
            return CALL_ACTION
        return Action(RAISE, legal.min_raise_to if self.game.no_limit else 0)

    def policy(self, view: MatchState) -> Policy:
        return {self.act(view): 1.0}


@dataclass(frozen=True)
class RuleOptions(AgentOptions):
    threshold: Annotated[float, "equity that counts as a strong hand"] = 0.6
    samples: Annotated[int, "Monte Carlo samples per decision"] = 400


class RuleAgent(Agent):
    """Seed 000's rule opponent (see the module docstring for the choices made)."""

    name = "rule"
    Options = RuleOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        given = options_from(RuleOptions, options)
        self.rng = default_rng(seed)
        self.threshold = given.threshold
        self.samples = given.samples
        self.strengths = CardMemo()

    def hand_strength(self, view: MatchState) -> float:
        from acpc_arena.protocol.equity import equity_vs_random  # numpy: not for random, call and raise

        state = view.state
        hole, board = state.hole_cards[view.viewer], state.visible_board()
        return self.strengths.get(
            hole,
            board,
            0,
            lambda: equity_vs_random(self.game, hole, board, 1, self.samples, card_seeded_rng(self.seed, hole, board)),
        )

    def choices(self, view: MatchState) -> list[tuple[Action, float]]:
        """(action, probability) of the raise, the call and the fold branches, each made valid."""
        state = view.state
        raise_p, call_p = (0.5, 0.5) if self.hand_strength(view) >= self.threshold else (0.4, 0.4)
        raise_action = valid_or_call(state, Action(RAISE, pot_size_raise_to(state) if self.game.no_limit else 0))
        fold_action = FOLD_ACTION if state.can_fold() else CALL_ACTION
        return [(raise_action, raise_p), (CALL_ACTION, call_p), (fold_action, 1.0 - raise_p - call_p)]

    def act(self, view: MatchState) -> Action:
        x = self.rng.random()
        choices = self.choices(view)
        for action, p in choices:
            if x < p:
                return action
            x -= p
        return choices[-1][0]

    def policy(self, view: MatchState) -> Policy:
        return merge(self.choices(view))


@dataclass(frozen=True)
class EquityOptions(AgentOptions):
    raise_at: Annotated[float, "raise at this equity or more"] = 0.65
    call_at: Annotated[float, "check or call at this equity or more"] = 0.45
    samples: Annotated[int, "Monte Carlo samples where not exact"] = 1000


class EquityAgent(Agent):
    """Acts on its equity against random hands alone (see the module docstring)."""

    name = "equity"
    Options = EquityOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        given = options_from(EquityOptions, options)
        self.raise_at, self.call_at, self.samples = given.raise_at, given.call_at, given.samples
        if not 0 <= self.call_at <= self.raise_at <= 1:
            raise ValueError(f"need 0 <= --call-at <= --raise-at <= 1, not {self.call_at} and {self.raise_at}")
        self.equities = CardMemo()
        self.boards: dict[tuple[tuple[int, ...], int], BoardDraws | BoardStrengths] = {}

    def equity(self, view: MatchState) -> float:
        """Share of the pot this hand wins at a showdown against a random hand per opponent still in."""
        state = view.state
        hole, board = state.hole_cards[view.viewer], state.visible_board()
        opponents = self.game.num_players - state.num_folded - 1
        return self.equities.get(hole, board, opponents, lambda: self._equities([hole], board, opponents)[0])

    def _equities(self, holes: Sequence[Sequence[int]], board: Sequence[int], opponents: int) -> list[float]:
        """The equity of each holding of ``holes`` on ``board``, in one batch (each the value it gets alone)."""
        from acpc_arena.protocol.equity import BoardDraws, BoardStrengths  # numpy: not for random, call and raise

        game = self.game
        unseen = len(game.deck) - game.num_hole_cards - len(board)
        missing = game.total_board_cards - len(board)
        showdowns = comb(unseen, missing) * comb(unseen - missing, game.num_hole_cards)
        key = (tuple(board), opponents)
        values = self.boards.get(key)
        if values is None:  # kept before the flop, and on the board of the moment
            self.boards = {k: v for k, v in self.boards.items() if not k[0]}
            shared = (game, self.seed, self.samples, *key)
            values = _RECENT_BOARDS.pop(shared, None)
            if values is None and opponents == 1 and showdowns <= EXACT_SHOWDOWNS:
                values = BoardStrengths(game.deck, board, game.total_board_cards, game.num_hole_cards)
            elif values is None:  # the same draws whichever holdings are asked
                rng = board_seeded_rng(self.seed, board, opponents)
                values = BoardDraws(game, board, opponents, self.samples, rng)
            _RECENT_BOARDS[shared] = values
            while len(_RECENT_BOARDS) > RECENT_BOARDS:
                del _RECENT_BOARDS[next(iter(_RECENT_BOARDS))]
            self.boards[key] = values
        if isinstance(values, BoardStrengths):
            return [float(e) for e in values.strengths(holes)]
        return [float(e) for e in values.equities(holes)]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """``policy`` at each view; where the views share a board (a range's views), their equities are
        computed in one batch, and where they share the betting too, each band of equity (fold, call, raise)
        gets one policy object, shared by its views."""
        boards = {(tuple(v.state.visible_board()), self.game.num_players - v.state.num_folded - 1) for v in views}
        holes = [v.state.hole_cards[v.viewer] for v in views]
        if len(boards) == 1:  # the memo keeps one board at a time
            (board, opponents), *_ = boards
            new = self.equities.missing(holes, board, opponents)
            if new:
                self.equities.put(new, board, opponents, self._equities(new, board, opponents))
        first = views[0] if views else None
        if (
            first is None
            or len(boards) != 1
            or any(v.state.actions is not first.state.actions or v.viewer != first.viewer for v in views)
        ):
            return [self.policy(view) for view in views]
        # one betting (a range's views share it): the action follows the equity's band, one policy a band
        made: dict[int, Policy] = {}
        out = []
        for view, equity in zip(views, self.equities.kept(holes, board, opponents), strict=True):
            band = 2 if equity >= self.raise_at else 1 if equity >= self.call_at else 0
            if band not in made:
                made[band] = self.policy(view)
            out.append(made[band])
        return out

    def policy(self, view: MatchState) -> Policy:
        return {self.act(view): 1.0}

    def act(self, view: MatchState) -> Action:
        state = view.state
        equity = self.equity(view)
        if equity >= self.raise_at:
            return valid_or_call(state, Action(RAISE, pot_size_raise_to(state) if self.game.no_limit else 0))
        if equity >= self.call_at or not state.can_fold():
            return CALL_ACTION
        return FOLD_ACTION
