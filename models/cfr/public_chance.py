"""Public chance sampling CFR for heads-up limit hold'em, vectorised over every hand.

Each iteration samples one board (all five cards; Johanson, Bard, Lanctot, Gibson
and Bowling 2012, "Efficient Nash equilibrium approximation through Monte Carlo
counterfactual regret minimization") and plays every betting sequence with every
one of the 1,081 hands each player can hold on it at once: a node's reach
probabilities and values are vectors over hands, and a terminal's value for a hand
is a sum over the opponent's hands that share no card with it, weighted by the
opponent's reach. No loop runs over the 1,081 x 990 pairs: a fold's sum is the opponent's total less
the hands holding either card; a showdown's is one product with the board's
win/lose matrix (``terminal_values``).

Updates alternate between the players. ``pcs-dcfr`` (the default): discounted CFR
(Brown and Sandholm 2019; alpha 1.5, beta 0, gamma 2): positive regrets are scaled
by t^1.5 / (t^1.5 + 1) after iteration t, negative ones halved, and the strategy
of iteration t weighs t^2 in the average. ``pcs-cfr+``: regret matching+ (regrets
floored at zero) with the average weighted by t. The solver keeps the same
attributes as ``solver.Solver`` that ``checkpoint.save_policy`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from acpc_arena.models.cfr.hand_strength import HANDS, board_mask
from acpc_arena.models.cfr.solver import DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA, table_layout
from acpc_arena.models.cfr.tree import BettingTree
from acpc_arena.protocol.evaluator import rank_hands

ALGORITHMS = ("pcs-dcfr", "pcs-cfr+")


class BoardKeys(Protocol):
    """What the solver asks of a card abstraction: every hand's key in every round on one board."""

    def num_keys(self, round_: int) -> int: ...

    def board_keys(self, board: np.ndarray) -> np.ndarray:
        """(4, 1326) each hand's key in each round on the five-card ``board`` (any value for hands on it)."""
        ...


@dataclass
class Board:
    """One sampled board and what the passes need of it."""

    cards: np.ndarray
    hands: np.ndarray
    """(H,) indices into ``HANDS`` of the hands off the board."""
    keys: np.ndarray
    """(4, H) each hand's key in each round."""
    hand_cards: np.ndarray
    """(H, 2) each hand's two cards."""
    incidence: np.ndarray
    """(H, 52) which cards each hand holds."""
    showdown: np.ndarray
    """(H, H) +1 where the row's hand beats the column's at showdown, -1 where it loses, 0 for a tie
    or two hands that share a card."""


def prepare_board(cards: np.ndarray, abstraction: BoardKeys) -> Board:
    cards = np.asarray(cards, dtype=np.uint8)
    hands = np.flatnonzero(board_mask(cards[None, :])[0])
    held = HANDS[hands].astype(np.int64)
    ranks = rank_hands(held.astype(np.uint8), fixed=[int(c) for c in cards]).astype(np.int32)
    incidence = np.zeros((len(hands), 52), dtype=np.float32)
    incidence[np.arange(len(hands)), held[:, 0]] = 1
    incidence[np.arange(len(hands)), held[:, 1]] = 1
    meet = (incidence @ incidence.T) == 0
    showdown = (np.sign(ranks[:, None] - ranks[None, :]) * meet).astype(np.float32)
    return Board(cards, hands, abstraction.board_keys(cards)[:, hands], held, incidence, showdown)


def compatible_sums(board: Board, opponent: np.ndarray) -> np.ndarray:
    """(T, H): for each row of opponent weights over hands (T, H), the sum over the hands sharing no
    card with each hand (all of them, less those holding either of its cards; the hand itself holds
    both, so it is added back once)."""
    by_card = opponent @ board.incidence  # (T, 52)
    held = board.hand_cards
    return opponent.sum(axis=1, keepdims=True) - by_card[:, held[:, 0]] - by_card[:, held[:, 1]] + opponent


def terminal_values(tree: BettingTree, board: Board, opponent_reach: np.ndarray, player: int) -> np.ndarray:
    """(terminals, H) ``player``'s counterfactual value of each terminal for each of its hands:
    its chips there summed over the opponent's hands it can meet, each weighted by the opponent's
    reach (``opponent_reach``: (terminals, H), the opponent's probability of playing to the terminal)."""
    terminals = tree.terminal_nodes
    spent = tree.spent[terminals].astype(np.float32)
    folded = tree.folded[terminals]
    reach = opponent_reach.astype(np.float32, copy=False)
    values = np.empty_like(reach)
    fold_rows = np.flatnonzero(folded.any(axis=1))
    if len(fold_rows):
        won = np.where(folded[fold_rows, player], -spent[fold_rows, player], spent[fold_rows, 1 - player])
        values[fold_rows] = won[:, None] * compatible_sums(board, reach[fold_rows])
    show_rows = np.flatnonzero(~folded.any(axis=1))
    if len(show_rows):
        values[show_rows] = spent[show_rows, player][:, None] * (reach[show_rows] @ board.showdown.T)
    return values


class PublicChanceSolver:
    """DCFR or CFR+ with public chance sampling over a heads-up limit hold'em betting tree."""

    def __init__(self, tree: BettingTree, abstraction: BoardKeys, algorithm: str = "pcs-dcfr", seed: int = 0) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
        game = tree.game
        if game.num_players != 2 or game.no_limit or game.num_rounds != 4 or len(game.deck) != 52:
            raise ValueError("public chance sampling here is for heads-up limit hold'em")
        self.tree = tree
        self.game = game
        self.abstraction = abstraction
        self.algorithm = algorithm
        self.rng = np.random.default_rng(seed)
        self.iterations = 0
        self.num_actions = int(tree.children.shape[1])
        decisions = tree.decision_nodes
        layout = table_layout(tree, abstraction.num_keys)
        self.decision_row, self.base, self.legal = layout.decision_row, layout.base, layout.legal
        self.num_infosets = layout.num_infosets
        self.regrets = np.zeros((self.num_infosets, self.num_actions))
        self.strategy_sum = np.zeros((self.num_infosets, self.num_actions))
        self._children = np.where(tree.children >= 0, tree.children, tree.size)
        self._decision_round = tree.round[decisions].astype(np.int64)
        self._levels = [level[tree.player[level] >= 0] for level in tree.levels]
        self._edges = [self._level_edges(nodes) for nodes in self._levels if len(nodes)]
        self._own = [self._own_blocks(player) for player in (0, 1)]

    def _own_blocks(self, player: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per round: ``player``'s decision nodes, their information set rows (nodes, keys), and their
        legal actions (nodes, actions)."""
        tree = self.tree
        decisions = tree.decision_nodes
        blocks = []
        for round_ in range(self.game.num_rounds):
            nodes = decisions[(tree.player[decisions] == player) & (tree.round[decisions] == round_)]
            rows = self.base[self.decision_row[nodes]][:, None] + np.arange(self.abstraction.num_keys(round_))
            blocks.append((nodes, rows, tree.children[nodes] >= 0))
        return blocks

    def _level_edges(self, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
        tree = self.tree
        pairs = [(n, a) for n in nodes.tolist() for a in range(self.num_actions) if tree.children[n, a] >= 0]
        parents = np.array([n for n, _ in pairs], dtype=np.int64)
        actions = np.array([a for _, a in pairs], dtype=np.int64)
        return parents, tree.children[parents, actions].astype(np.int64), actions, tree.player[parents].astype(np.int64)

    # -- strategies ----------------------------------------------------------

    def _regret_matching(self) -> np.ndarray:
        positive = np.where(self.legal, np.maximum(self.regrets, 0), 0)
        total = positive.sum(axis=1, keepdims=True)
        uniform = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(total > 0, positive / np.where(total > 0, total, 1), uniform).astype(np.float32)

    def average_strategy(self) -> np.ndarray:
        """(information sets, actions) the average strategy (uniform where never reached)."""
        total = self.strategy_sum.sum(axis=1, keepdims=True)
        uniform = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(total > 0, self.strategy_sum / np.where(total > 0, total, 1), uniform)

    def _rows(self, board: Board) -> np.ndarray:
        """(decision nodes, H) each node's information set row for each hand."""
        return self.base[:, None] + board.keys[self._decision_round]

    # -- passes --------------------------------------------------------------

    def _reach(self, sigma: np.ndarray, player: int) -> np.ndarray:
        """(nodes + 1, H) ``player``'s own probability of playing to each node with each hand."""
        reach = np.ones((self.tree.size + 1, sigma.shape[1]), dtype=np.float32)
        for parents, children, actions, actors in self._edges:
            step = reach[parents]
            mine = np.flatnonzero(actors == player)
            step[mine] *= sigma[self.decision_row[parents[mine]], :, actions[mine]]
            reach[children] = step
        return reach

    def _values(self, sigma: np.ndarray, board: Board, opponent_reach: np.ndarray, player: int) -> np.ndarray:
        """(nodes + 1, H) ``player``'s counterfactual value of each node for each of its hands."""
        tree = self.tree
        values = np.zeros((tree.size + 1, sigma.shape[1]), dtype=np.float32)
        terminals = tree.terminal_nodes
        values[terminals] = terminal_values(tree, board, opponent_reach[terminals], player)
        for nodes in reversed(self._levels):
            if not len(nodes):
                continue
            children = values[self._children[nodes]]  # (k, actions, H)
            mine = tree.player[nodes] == player
            own, theirs = nodes[mine], nodes[~mine]
            if len(own):
                weights = sigma[self.decision_row[own]]  # (k, H, actions)
                values[own] = np.einsum("kha,kah->kh", weights, children[mine])
            if len(theirs):
                values[theirs] = children[~mine].sum(axis=1)
        return values

    def _update(self, board: Board, rows: np.ndarray, player: int, weight: float) -> None:
        """One player's regret and average-strategy updates from one pass over ``board``.

        A node's update for its information sets is a sum over the hands in each bucket: one product
        with the round's hand-to-bucket matrix per round."""
        sigma = self._regret_matching()[rows]  # (decision nodes, H, actions)
        opponent_reach = self._reach(sigma, 1 - player)
        own_reach = self._reach(sigma, player)
        values = self._values(sigma, board, opponent_reach, player)
        hands, actions = sigma.shape[1], self.num_actions
        for round_, (nodes, blocks, legal) in enumerate(self._own[player]):
            if not len(nodes):
                continue
            members = np.zeros((hands, self.abstraction.num_keys(round_)), dtype=np.float32)
            members[np.arange(hands), board.keys[round_]] = 1
            k = len(nodes)
            regret = (values[self._children[nodes]] - values[nodes][:, None, :]) * legal[:, :, None]  # (k, A, H)
            by_bucket = (regret.reshape(k * actions, hands) @ members).reshape(k, actions, -1)
            self.regrets[blocks] += by_bucket.transpose(0, 2, 1)
            gain = (own_reach[nodes][:, :, None] * sigma[self.decision_row[nodes]]).transpose(0, 2, 1)  # (k, A, H)
            by_bucket = (gain.reshape(k * actions, hands) @ members).reshape(k, actions, -1)
            self.strategy_sum[blocks] += weight * by_bucket.transpose(0, 2, 1)

    def sample_board(self) -> np.ndarray:
        return self.rng.permutation(52)[:5].astype(np.uint8)

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` iterations, each on a freshly sampled board."""
        for _ in range(count):
            self.iterations += 1
            t = self.iterations
            board = prepare_board(self.sample_board(), self.abstraction)
            rows = self._rows(board)
            discounted = self.algorithm == "pcs-dcfr"
            weight = float(t) ** DCFR_GAMMA if discounted else float(t)
            for player in (0, 1):
                self._update(board, rows, player, weight)
                if not discounted:
                    np.maximum(self.regrets, 0, out=self.regrets)
            if discounted:
                positive = t**DCFR_ALPHA / (t**DCFR_ALPHA + 1)
                negative = t**DCFR_BETA / (t**DCFR_BETA + 1)
                self.regrets *= np.where(self.regrets > 0, positive, negative)
