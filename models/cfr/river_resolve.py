"""River re-solving for limit hold'em: the river betting subgame solved at card resolution.

``river_ranges`` gives both players' ranges at the start of the river: over every holding the
board does not block, the product over the player's own actions before the river of the
probability a trunk strategy (a ``policies`` function, the CFR agent's average strategy) gives
that action with that holding.

``solve_river`` solves the river's real betting (the bets left under the game's cap, the real
pot) between those ranges by CFR+ (regret matching+, alternating updates, iteration-weighted
average), vectorised over holdings: per decision node an actions x holdings regret array;
showdown values are the opponent's reach times a holdings x holdings win (+1) / tie (0) / lose (-1)
matrix with the pairs that share a card zeroed, fold values the opponent's reach over the holdings
that share no card with one's own (``Showdown`` computes both in O(H) a column). Values are chips
won or lost over the whole hand (what each player has put in), per pair of holdings, weighted by
the opponent's reach.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from acpc_arena.models.cfr.hand_strength import HANDS
from acpc_arena.protocol.evaluator import rank_hands
from acpc_arena.protocol.game import Game, game_name
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, Action, State
from acpc_arena.protocol.views import ZERO_FLOOR, range_views
from acpc_arena.protocol.wire import MatchState

Policies = Callable[[Sequence[MatchState]], list[dict[Action, float]]]
"""Policies of many views at once (``Agent.policies``)."""


@dataclass(frozen=True)
class Node:
    """A node of the river's betting: a decision of ``player`` (``actions`` leading to ``children``),
    or a terminal (``player`` -1): a fold by ``folder``, else a showdown. ``spent``: each player's
    chips in the pot over the whole hand."""

    player: int
    spent: tuple[int, int]
    folder: int
    actions: tuple[Action, ...]
    children: tuple[int, ...]


def river_tree(start: State) -> list[Node]:
    """The betting of the rest of the round from ``start`` (a two-player limit state), parents
    before children: node 0 is ``start``."""
    nodes: list[Node | None] = []

    def add(state: State) -> int:
        index = len(nodes)
        nodes.append(None)
        spent = (int(state.spent[0]), int(state.spent[1]))
        if state.finished or state.round != start.round:
            folder = next((p for p in range(2) if state.folded[p]), -1)
            nodes[index] = Node(-1, spent, folder, (), ())
            return index
        legal = state.legal_actions()
        actions = [FOLD_ACTION] if legal.can_fold else []
        actions.append(CALL_ACTION)
        if legal.can_raise:
            actions.append(LIMIT_RAISE_ACTION)
        children = []
        for action in actions:
            child = state.copy()
            child.apply(action)
            children.append(add(child))
        nodes[index] = Node(int(state.current_player), spent, -1, tuple(actions), tuple(children))
        return index

    add(start)
    return [node for node in nodes if node is not None]


def river_holdings(board: Sequence[int]) -> np.ndarray:
    """(H, 2) every holding that shares no card with ``board``, in ``HANDS`` order."""
    blocked = np.isin(HANDS, np.asarray(board, dtype=np.uint8)).any(axis=1)
    return HANDS[~blocked]


class Showdown:
    """Sums over the opponent's holdings at a showdown and at a fold, without the holdings that share a
    card with one's own: ``wins(R)`` is ``W @ R`` for the (H, H) matrix ``W`` of +1 where holding i beats
    j on the board, -1 where it loses, 0 for a tie or a shared card; ``apart(R)`` is ``A @ R`` for ``A``
    1 where i and j share no card. Computed from running sums over the holdings sorted by rank, less
    the same over the holdings that hold each of one's two cards (a holding other than one's own shares
    at most one card with it): O(H) a column instead of O(H^2)."""

    def __init__(self, holdings: np.ndarray, board: Sequence[int]) -> None:
        ranks = rank_hands(holdings, fixed=list(board)).astype(np.int64)
        self.count = len(holdings)
        self.order = np.argsort(ranks, kind="stable")
        self.below, self.upto = _rank_bounds(ranks[self.order], ranks)
        cards = sorted(set(holdings.ravel().tolist()))
        row_of = {card: row for row, card in enumerate(cards)}
        with_card = [np.flatnonzero((holdings == card).any(axis=1)) for card in cards]
        if len({len(hands) for hands in with_card}) != 1:
            raise ValueError("a showdown needs every holding the board leaves (river_holdings), not a part of them")
        self.card_holdings = np.array([hands[np.argsort(ranks[hands], kind="stable")] for hands in with_card])
        """(cards, holdings with the card) the holdings that hold each card, by rank."""
        self.card_row = np.array([[row_of[c] for c in pair] for pair in holdings.tolist()], dtype=np.int64)
        """(H, 2) the row of ``card_holdings`` of each card of each holding."""
        card_ranks = ranks[self.card_holdings][self.card_row]  # (H, 2, per card)
        self.card_below = (card_ranks < ranks[:, None, None]).sum(axis=2)
        self.card_upto = (card_ranks <= ranks[:, None, None]).sum(axis=2)

    def wins(self, reach: np.ndarray) -> np.ndarray:
        """(H, K): for each column of ``reach`` (H, K), the reach that each holding beats less the reach
        that beats it, over the holdings that share no card with it."""
        summed = _running_sums(reach[self.order], axis=0)
        every = summed[self.below] - (summed[-1] - summed[self.upto])
        by_card = _running_sums(reach[self.card_holdings], axis=1)  # (cards, per card + 1, K)
        rows = self.card_row
        clashing = by_card[rows, self.card_below] - (by_card[rows, -1] - by_card[rows, self.card_upto])
        return every - clashing.sum(axis=1)

    def apart(self, reach: np.ndarray) -> np.ndarray:
        """(H, K): for each column of ``reach``, its sum over the holdings that share no card with each."""
        per_card = reach[self.card_holdings].sum(axis=1)  # (cards, K)
        return reach.sum(axis=0) - per_card[self.card_row].sum(axis=1) + reach


def _rank_bounds(sorted_ranks: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many of ``sorted_ranks`` are below each of ``ranks``, and how many are at most it."""
    return np.searchsorted(sorted_ranks, ranks, side="left"), np.searchsorted(sorted_ranks, ranks, side="right")


def _running_sums(values: np.ndarray, axis: int) -> np.ndarray:
    """``values``' sums of the first 0, 1, ... n entries along ``axis`` (one more entry than it has)."""
    shape = list(values.shape)
    shape[axis] = 1
    return np.concatenate([np.zeros(shape), np.cumsum(values, axis=axis)], axis=axis)


def river_start(state: State) -> State:
    """The hand of ``state`` (cards as given) replayed up to the first action of the river."""
    replay = State(state.game, state.hand_id, [list(h) for h in state.hole_cards], list(state.board_cards))
    for round_actions in state.actions[: state.game.num_rounds - 1]:
        for action in round_actions:
            replay.apply(action)
    return replay


def river_ranges(state: State, policies: Policies, holdings: np.ndarray) -> np.ndarray:
    """(2, H) each player's range over ``holdings`` at the start of the river of ``state``'s hand:
    the product over its actions before the river of the probability ``policies`` gives the action
    with each holding (at least ``ZERO_FLOOR``, as local best response keeps a holding alive)."""
    game = state.game
    replay = State(game, state.hand_id, [[] for _ in range(game.num_players)], list(state.board_cards))
    weights = np.ones((2, len(holdings)))
    cards = holdings.tolist()
    for round_actions in state.actions[: game.num_rounds - 1]:
        for action in round_actions:
            actor = replay.current_player
            chances = np.array([policy.get(action, 0.0) for policy in policies(range_views(replay, actor, cards))])
            weights[actor] *= np.maximum(chances, ZERO_FLOOR)
            replay.apply(action)
    return weights


@dataclass
class RiverSolution:
    """The river subgame's tree, its holdings and each decision node's average strategy, (actions, H)
    columns summing to 1 (None at terminals)."""

    tree: list[Node]
    holdings: np.ndarray
    strategy: list[np.ndarray | None]

    def node_of(self, actions: Sequence[Action]) -> int:
        """The node that the river ``actions`` so far lead to."""
        node = 0
        for action in actions:
            node = self.tree[node].children[self.tree[node].actions.index(action)]
        return node

    def row(self, node: int, hole: Sequence[int]) -> np.ndarray:
        """The strategy at decision ``node`` for holding ``hole``."""
        strategy = self.strategy[node]
        assert strategy is not None, "a terminal node has no strategy"
        low, high = sorted(hole)
        index = np.flatnonzero((self.holdings[:, 0] == low) & (self.holdings[:, 1] == high))
        return strategy[:, int(index[0])]


def _current(regret: np.ndarray) -> np.ndarray:
    """Regret matching over the actions (rows): the positive regrets normalised, uniform where none is
    positive."""
    positive = np.maximum(regret, 0.0)
    total = positive.sum(axis=0)
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), 1.0 / len(positive))


def solve_river(
    start: State, board: Sequence[int], ranges: np.ndarray, iterations: int, holdings: np.ndarray | None = None
) -> RiverSolution:
    """CFR+ for ``iterations`` iterations on the river betting from ``start`` (two players, limit),
    the players' ``ranges`` (2, H) over ``holdings`` (default: ``river_holdings(board)``)."""
    holdings = river_holdings(board) if holdings is None else holdings
    tree = river_tree(start)
    showdown = Showdown(holdings, board)
    count = len(holdings)
    regret = [np.zeros((len(n.actions), count)) if n.player >= 0 else None for n in tree]
    average = [np.zeros((len(n.actions), count)) if n.player >= 0 else None for n in tree]
    terminals = _terminals(tree)
    for t in range(1, iterations + 1):
        for player in (0, 1):
            current = [None if r is None else _current(r) for r in regret]
            own, other = _reaches(tree, current, ranges, player)
            values = _terminal_values(tree, player, other, showdown, *terminals)
            for index, node, children in _bottom_up(tree, values):
                if node.player != player:
                    values[index] = children.sum(axis=0)
                    continue
                sigma = current[index]
                node_regret, node_average = regret[index], average[index]
                assert sigma is not None and node_regret is not None and node_average is not None
                values[index] = (children * sigma).sum(axis=0)
                np.maximum(node_regret + children - values[index], 0.0, out=node_regret)
                node_average += t * own[index] * sigma
    strategy = [None if a is None else _current(a) for a in average]
    return RiverSolution(tree, holdings, strategy)


def _terminals(tree: list[Node]) -> tuple[list[int], list[int]]:
    """The indices of the terminal nodes that end in a showdown, and of those that end in a fold."""
    showdowns = [i for i, n in enumerate(tree) if n.player < 0 and n.folder < 0]
    return showdowns, [i for i, n in enumerate(tree) if n.folder >= 0]


def _bottom_up(tree: list[Node], values: list[np.ndarray]) -> Iterator[tuple[int, Node, np.ndarray]]:
    """Each decision node, last first, with its children's ``values`` stacked (a node's children come
    after it, so the caller's ``values[index]`` of each node is set before its parent is reached)."""
    for index in reversed(range(len(tree))):
        node = tree[index]
        if node.player >= 0:
            yield index, node, np.stack([values[c] for c in node.children])


def _reaches(
    tree: list[Node], strategy: Sequence[np.ndarray | None], ranges: np.ndarray, player: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each node's reach of ``player``'s holdings and of the opponent's, under ``strategy``."""
    own = [ranges[player]] * len(tree)
    other = [ranges[1 - player]] * len(tree)
    for index, node in enumerate(tree):
        sigma = strategy[index]
        if sigma is None:
            continue
        for slot, child in enumerate(node.children):
            own[child] = own[index] * sigma[slot] if node.player == player else own[index]
            other[child] = other[index] * sigma[slot] if node.player != player else other[index]
    return own, other


def _terminal_values(
    tree: list[Node],
    player: int,
    other: list[np.ndarray],
    showdown: Showdown,
    showdowns: list[int],
    folds: list[int],
) -> list[np.ndarray]:
    """``player``'s counterfactual value of each holding at each terminal (zeros elsewhere): chips
    won over the whole hand, summed over the opponent's holdings weighted by their reach."""
    values = [np.zeros(showdown.count)] * len(tree)
    for indices, sums in ((showdowns, showdown.wins), (folds, showdown.apart)):
        if not indices:
            continue
        summed = sums(np.stack([other[i] for i in indices], axis=1))
        for column, index in enumerate(indices):
            node = tree[index]
            if node.folder < 0:
                stake = node.spent[player]
            else:
                stake = -node.spent[player] if node.folder == player else node.spent[node.folder]
            values[index] = stake * summed[:, column]
    return values


def exploitability(solution: RiverSolution, board: Sequence[int], ranges: np.ndarray) -> float:
    """How much a best response to each player's strategy in ``solution`` wins, averaged over the
    two players, in chips a pair of holdings (weighted by the ranges; 0 at an equilibrium)."""
    tree, holdings = solution.tree, solution.holdings
    showdown = Showdown(holdings, board)
    terminals = _terminals(tree)
    total = 0.0
    for player in (0, 1):
        _, other = _reaches(tree, solution.strategy, ranges, player)
        values = _terminal_values(tree, player, other, showdown, *terminals)
        for index, node, children in _bottom_up(tree, values):
            values[index] = children.max(axis=0) if node.player == player else children.sum(axis=0)
        total += float(ranges[player] @ values[0])
    return total / float(ranges[0] @ showdown.apart(ranges[1][:, None])[:, 0]) / 2


class RiverResolver:
    """Re-solves the river of each hand it is asked about (``policies``) and keeps the solution for the
    rest of that river: the ranges at the river's start from ``trunk`` (``river_ranges``), then
    ``iterations`` of CFR+ (``solve_river``)."""

    def __init__(self, game: Game, trunk: Policies, iterations: int) -> None:
        if not limit_holdem(game):
            raise ValueError(f"--resolve-river plays two-player limit hold'em only, not {game_name(game)}")
        if iterations < 1:
            raise ValueError(f"--resolve-iterations must be at least 1, not {iterations}")
        self.trunk = trunk
        self.iterations = iterations
        self.solved: tuple[tuple[object, ...], RiverSolution] | None = None
        """The last river solved: its board and betting before the river, and its solution."""
        self.seconds: list[float] = []
        """The time each solve took (ranges and CFR+), in seconds."""

    def solution(self, state: State) -> RiverSolution:
        """The solution of the river of ``state``'s hand, solved on first use."""
        board = state.visible_board()
        before = tuple(tuple(actions) for actions in state.actions[: state.game.num_rounds - 1])
        key = (tuple(board), before)
        if self.solved is None or self.solved[0] != key:
            began = time.perf_counter()
            holdings = river_holdings(board)
            ranges = river_ranges(state, self.trunk, holdings)
            solved = solve_river(river_start(state), board, ranges, self.iterations, holdings)
            self.seconds.append(time.perf_counter() - began)
            self.solved = (key, solved)
        return self.solved[1]

    def policies(self, views: Sequence[MatchState]) -> list[dict[Action, float]]:
        """The re-solved strategy at the river node of the views (one betting, any cards)."""
        state = views[0].state
        solution = self.solution(state)
        node = solution.node_of(state.actions[state.round])
        actions = solution.tree[node].actions
        out = []
        for view in views:
            row = solution.row(node, view.state.hole_cards[view.viewer])
            out.append({action: float(p) for action, p in zip(actions, row, strict=True) if p > 0})
        return out


def limit_holdem(game: Game) -> bool:
    """Whether ``game`` is two-player limit hold'em (52 cards, two hole cards, five on the board)."""
    return (
        not game.no_limit
        and game.num_players == 2
        and game.num_suits * game.num_ranks == 52
        and game.num_hole_cards == 2
        and game.total_board_cards == 5
    )
