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
best response wins: the agent's exploitability is at least LBR's winnings.
``evaluate`` plays the seeded deals of each seed twice, LBR in either position
(duplicate), and reports mbb per hand with a 95% interval over the deals.

Everything runs in-process on the engine's ``State``; the range's policies are
asked for in one ``Agent.policies`` call per decision (one batch of up to 1,326
views), the showdowns ranked in one batched evaluator call.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb
from typing import TypeVar

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.models.cfr.abstraction import ExactCards, all_deals
from acpc_arena.models.cfr.nolimit import fraction_raise_to
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import NUM_ACTIONS, BettingTree, build_tree
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.equity import shuffled_prefixes
from acpc_arena.protocol.evaluator import rank_hands
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import (
    CALL_ACTION,
    FOLD,
    FOLD_ACTION,
    LIMIT_RAISE_ACTION,
    RAISE,
    Action,
    ActionKind,
    State,
)
from acpc_arena.protocol.views import ZERO_FLOOR, agent_view, range_views
from acpc_arena.protocol.wire import MatchState, format_betting

_T = TypeVar("_T")


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


@cache
def holdings(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Every holding of the game's deck: (H, hole cards) cards in increasing order, and (H,) card masks."""
    combos = list(itertools.combinations(sorted(game.deck), game.num_hole_cards))
    cards = np.array(combos, dtype=np.uint8).reshape(len(combos), game.num_hole_cards)
    return cards, card_masks(cards)


def card_masks(cards: np.ndarray) -> np.ndarray:
    """(N,) one bit per card of each row of ``cards`` (N, k)."""
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)


def mask_of(cards: Sequence[int]) -> np.uint64:
    return np.uint64(sum(1 << c for c in set(cards)))


def win_probability(
    game: Game,
    hole: Sequence[int],
    board: Sequence[int],
    cards: np.ndarray,
    weights: np.ndarray,
    rollouts: int,
    rng: np.random.Generator,
) -> float:
    """Chance ``hole`` wins a showdown (ties half) against the holdings ``cards`` weighted by ``weights``,
    the board completed from the unseen cards: every completion if there are at most ``rollouts``, else
    ``rollouts`` of them drawn at random. A holding counts on the completions it shares no card with."""
    known = np.array([*hole, *board], dtype=np.uint8)
    live = (weights > 0) & (card_masks(cards) & mask_of(known.tolist()) == 0)
    cards, weights = cards[live], weights[live]
    if not len(cards) or weights.sum() <= 0:
        raise ValueError("the range is empty: no holding of the agent is consistent with its play")
    unseen = np.array(sorted(set(game.deck) - set(known.tolist())), dtype=np.uint8)
    missing = game.total_board_cards - len(board)
    if comb(len(unseen), missing) <= rollouts:
        picks = list(itertools.combinations(range(len(unseen)), missing))
        completions = unseen[np.array(picks, dtype=np.intp).reshape(len(picks), missing)]
    else:
        completions = unseen[shuffled_prefixes(rng, rollouts, len(unseen), missing)]
    boards = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (len(completions), 1)), completions], axis=1)
    count, k = len(cards), cards.shape[1]
    mine = rank_hands(np.concatenate([np.tile(np.array(hole, dtype=np.uint8), (len(boards), 1)), boards], axis=1))
    # (completions, holdings): the holding shares no card with the completion
    fits = ~(completions[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))
    # a holding that shares a card is ranked as LBR's own cards instead (a valid hand), then left out
    holding_cards = np.where(fits[:, :, None], cards[None], np.array(hole, dtype=np.uint8)[None, None, :])
    theirs_cards = np.concatenate([holding_cards, np.repeat(boards[:, None], count, axis=1)], axis=2)
    theirs = rank_hands(theirs_cards.reshape(-1, k + boards.shape[1])).reshape(len(boards), count)
    share = np.where(mine[:, None] > theirs, 1.0, np.where(mine[:, None] == theirs, 0.5, 0.0))
    seen = fits.sum(axis=0)
    usable = seen > 0
    per_holding = (share * fits).sum(axis=0)[usable] / seen[usable]
    w = weights[usable]
    return float(per_holding @ w / w.sum())


@dataclass
class HandRecord:
    """What happened in one hand LBR played: its chips and its decisions."""

    value: float
    decisions: int


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


def play_hand(
    agent: Agent,
    deal: State,
    lbr_position: int,
    settings: Settings,
    rng: np.random.Generator,
    trace: list[tuple[State, Action]] | None = None,
) -> HandRecord:
    """One hand of ``deal`` between LBR in ``lbr_position`` and ``agent``: LBR's chips and decisions
    (each of LBR's decisions appended to ``trace`` as (state before, action) when given)."""
    state = State(deal.game, deal.hand_id, [list(c) for c in deal.hole_cards], list(deal.board_cards))
    lbr = LocalBestResponse(agent, lbr_position, state, settings, rng)
    seat = 1 - lbr_position
    own_cards = state.hole_cards[seat]
    agent.begin_hand(agent_view(state, seat, own_cards))
    decisions = 0
    while not state.finished:
        if state.current_player == lbr_position:
            action = lbr.act(state)
            decisions += 1
            if trace is not None:
                trace.append((state.copy(), action))
        else:
            action = agent.act(agent_view(state, seat, own_cards))
            fixed = state.validate_action(action)
            if fixed is None:
                raise ValueError(f"agent {agent.name!r} chose an invalid action {action}")
            lbr.observe(state, fixed)
            action = fixed
        state.apply(action)
    shown = not any(state.folded)  # as the dealer's last message: LBR's cards only at a showdown
    agent.end_hand(MatchState(seat, state) if shown else agent_view(state, seat, own_cards))
    return HandRecord(state.value(lbr_position), decisions)


@dataclass
class Result:
    """LBR's winnings against an agent over duplicate deals, in mbb per hand."""

    agent: str
    game: Game
    seeds: tuple[int, ...]
    hands: int
    """Deals per seed; each is played twice (LBR in either position)."""
    pair_values: np.ndarray
    """(deals,) LBR's chips per hand on each deal, averaged over the two positions."""
    decisions: int
    seconds: float
    cpu_seconds: float
    """This process's CPU time (the measure on a shared machine)."""
    agent_cpu_seconds: float = 0.0
    """The part of ``cpu_seconds`` spent in the agent (its policies for the range, its own play)."""

    @property
    def mbb_per_hand(self) -> float:
        return float(self.pair_values.mean()) * 1000 / self.game.big_blind

    @property
    def interval(self) -> float:
        """Half-width of the 95% interval of ``mbb_per_hand`` (normal, over the deals)."""
        n = len(self.pair_values)
        if n < 2:
            return math.inf
        return 1.96 * float(self.pair_values.std(ddof=1)) / math.sqrt(n) * 1000 / self.game.big_blind

    def as_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "seeds": list(self.seeds),
            "deals": len(self.pair_values),
            "hands": 2 * len(self.pair_values),
            "mbb_per_hand": round(self.mbb_per_hand, 3),
            "ci95": round(self.interval, 3),
            "lbr_decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "cpu_ms_per_lbr_decision": round(1000 * self.cpu_seconds / max(self.decisions, 1), 1),
            "lbr_own_cpu_ms_per_lbr_decision": round(
                1000 * (self.cpu_seconds - self.agent_cpu_seconds) / max(self.decisions, 1), 1
            ),
        }


def evaluate(
    make_agent: Callable[[], Agent],
    game: Game,
    seeds: Sequence[int],
    hands: int,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """LBR against the agents ``make_agent`` builds, on ``hands`` deals of each seed, each deal in both
    positions (one agent for each position, kept across the deals of a seed, as in a duplicate match)."""
    import time

    settings = settings or Settings()
    start, cpu = time.perf_counter(), time.process_time()
    pairs: list[float] = []
    decisions = 0
    total = len(seeds) * hands
    timed: list[_Timed] = []
    for seed in seeds:
        agents = [_Timed(make_agent()), _Timed(make_agent())]
        timed += agents
        rng = np.random.default_rng(seed)
        for deal in deal_hands(game, seed, hands):
            both = []
            for position in (0, 1):
                record = play_hand(agents[position], deal, position, settings, rng)
                both.append(record.value)
                decisions += record.decisions
            pairs.append(sum(both) / 2)
            if progress:
                progress(len(pairs), total)
    name = agents[0].name if seeds else "agent"
    return Result(
        name,
        game,
        tuple(seeds),
        hands,
        np.array(pairs),
        decisions,
        time.perf_counter() - start,
        time.process_time() - cpu,
        sum(agent.cpu_seconds for agent in timed),
    )


class _Timed(Agent):
    """``agent``, its CPU time counted (``evaluate`` reports LBR's own work apart from the agent's)."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.game, agent.seed)
        self.agent = agent
        self.name = agent.name  # type: ignore[misc]
        self.cpu_seconds = 0.0

    def _timed(self, work: Callable[[], _T]) -> _T:
        import time

        start = time.process_time()
        try:
            return work()
        finally:
            self.cpu_seconds += time.process_time() - start

    def begin_hand(self, view: MatchState) -> None:
        self._timed(lambda: self.agent.begin_hand(view))

    def act(self, view: MatchState) -> Action:
        return self._timed(lambda: self.agent.act(view))

    def end_hand(self, view: MatchState) -> None:
        self._timed(lambda: self.agent.end_hand(view))

    def policy(self, view: MatchState) -> Policy:
        return self._timed(lambda: self.agent.policy(view))

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        return self._timed(lambda: self.agent.policies(views))


# -- exact values in small games ------------------------------------------------


@dataclass
class ExactValues:
    """Exact values in a small limit game, chips per hand, by LBR's (or the best response's) position."""

    lbr: tuple[float, ...]
    best_response: tuple[float, ...]

    @property
    def lbr_mean(self) -> float:
        """LBR's value averaged over the two positions (the duplicate value)."""
        return sum(self.lbr) / len(self.lbr)

    @property
    def exploitability(self) -> float:
        """The best response's value averaged over the positions: the agent's exploitability."""
        return sum(self.best_response) / len(self.best_response)


def _node_states(game: Game, tree: BettingTree) -> list[State]:
    """The (cardless) state at each node of ``tree``."""
    states: list[State] = [State(game)]
    for node in range(1, tree.size):
        up = int(tree.parent[node])
        kind = int(np.flatnonzero(tree.children[up] == node)[0])
        child = states[up].copy()
        child.apply(Action(ActionKind(kind)))
        states.append(child)
    return states


class _Remembered(Agent):
    """``agent``'s policies, each view's asked once (the exact walk asks for the same views many times)."""

    name = "remembered"

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.game, agent.seed)
        self.agent = agent
        self.known: dict[tuple[str, int, tuple[int, ...], tuple[int, ...]], Policy] = {}

    def policy(self, view: MatchState) -> Policy:
        state = view.state
        key = (format_betting(state), view.viewer, tuple(state.hole_cards[view.viewer]), tuple(state.visible_board()))
        if key not in self.known:
            self.known[key] = self.agent.policy(view)
        return self.known[key]


def exact_values(agent: Agent, game: Game, settings: Settings | None = None) -> ExactValues:
    """LBR's exact value against ``agent`` and the exact best response's, by enumerating every deal of a
    small limit game (Kuhn, Leduc); LBR plays its ``act`` at every information set. ``wp`` must be exact
    (every board completion within ``rollouts``) for LBR to be the deterministic strategy valued."""
    settings = settings or Settings()
    agent = _Remembered(agent)
    tree = build_tree(game)
    abstraction = ExactCards(game)
    solver = Solver(tree, abstraction, "cfr+", worlds=all_deals(game))
    states = _node_states(game, tree)
    agent_table = np.zeros((solver.num_infosets, NUM_ACTIONS))
    lbr_table = np.zeros((solver.num_infosets, NUM_ACTIONS))
    rng = np.random.default_rng(0)
    for node in tree.decision_nodes.tolist():
        state, player = states[node], int(tree.player[node])
        shown = game.board_cards_after(state.round)
        base = int(solver.base[solver.decision_row[node]])
        for hole in itertools.combinations(sorted(game.deck), game.num_hole_cards):
            rest = [c for c in game.deck if c not in hole]
            for board in itertools.combinations(rest, shown):
                row = base + abstraction.key(list(hole), list(board), state.round)
                at = state.copy()
                at.hole_cards[player], at.board_cards = list(hole), list(board)
                for action, p in agent.policy(agent_view(at, player, hole)).items():
                    agent_table[row, action.kind] += p
                lbr_table[row, _lbr_action_at(agent, at, player, settings, rng).kind] = 1.0
    values = []
    for p in range(game.num_players):
        mixed = agent_table.copy()
        keys = [abstraction.num_keys(int(tree.round[n])) for n in tree.decision_nodes]
        rows = np.repeat(tree.player[tree.decision_nodes] == p, keys)
        mixed[rows] = lbr_table[rows]
        values.append(float(solver.expected_values(mixed)[p]))
    best = tuple(solver.best_response_value(agent_table, p) for p in range(game.num_players))
    return ExactValues(tuple(values), best)


def _lbr_action_at(agent: Agent, state: State, position: int, settings: Settings, rng: np.random.Generator) -> Action:
    """LBR's action at ``state`` (its cards and the board in it), its range built by replaying the betting.
    Where the agent never takes the betting's actions (``call`` never raises) the node is never reached and
    LBR's action there is worth nothing either way: it calls."""
    replay = State(state.game, state.hand_id, [list(c) for c in state.hole_cards], list(state.board_cards))
    lbr = LocalBestResponse(agent, position, replay, settings, rng)
    for round_ in range(state.round + 1):
        for action, actor in zip(state.actions[round_], state.acting_players[round_], strict=True):
            if actor != position:
                try:
                    lbr.observe(replay, action)
                except ImpossibleAction:
                    return CALL_ACTION
            replay.apply(action)
    return lbr.act(replay)
