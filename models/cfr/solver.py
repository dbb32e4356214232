"""Counterfactual regret minimisation over a betting tree and a batch of deals ("worlds").

One solver does CFR, CFR+ and chance-sampled MCCFR. The tree is walked one depth
at a time with numpy arrays over (nodes at that depth, deals), so an iteration is
a few hundred array operations whatever the size of the game; an information set
is a (decision node, key) pair where the key comes from the card abstraction.

- ``cfr``: vanilla CFR with alternating updates (each player in turn against the
  others' newest strategies, as OpenSpiel's ``CFRSolver``), uniform averaging.
- ``cfr+``: regret matching+ (regrets floored at zero), alternating updates,
  linear averaging (the strategy of iteration t weighs t), as OpenSpiel's
  ``CFRPlusSolver``: the two agree iteration by iteration (tests check it).
- ``dcfr``: discounted CFR (Brown and Sandholm, 2019) with their recommended
  alpha = 1.5, beta = 0, gamma = 2: after each iteration positive regrets are
  multiplied by t^1.5 / (t^1.5 + 1) and negative ones halved, and the strategy
  of iteration t weighs t^2 in the average; alternating updates.
- ``mccfr``: chance-sampled: every iteration draws a fresh batch of deals and
  otherwise does what ``cfr+`` does (the seed's training, with CFR+ regrets).
- ``mcdcfr``: chance-sampled ``dcfr``. Regret matching+ floors every sampled
  mistake at zero for good, while DCFR forgets old regrets gradually; on
  no-limit trees, where an all-in's sampled value swings by a whole stack, the
  discounted variant is the one that settles.

With every deal of a small game (``all_deals``) the passes are exact, and
``best_response_value``/``exploitability`` are exact too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from acpc_arena.models.cfr.abstraction import Abstraction, Worlds
from acpc_arena.models.cfr.tree import BettingTree
from acpc_arena.protocol.equity import expected_showdown_values
from acpc_arena.protocol.evaluator import rank_hands

ALGORITHMS = ("cfr", "cfr+", "dcfr", "mccfr", "mcdcfr")
SAMPLED = ("mccfr", "mcdcfr")
"""The algorithms that draw a fresh batch of deals every iteration."""
DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA = 1.5, 0.0, 2.0


@dataclass(frozen=True)
class TableLayout:
    """Where each decision node's information sets lie in a strategy table: the rows of a node are
    ``base[decision_row[node]] + key`` for the keys of its round."""

    decision_row: np.ndarray
    """(nodes,) each node's index among the decision nodes (-1 elsewhere)."""
    base: np.ndarray
    """(decision nodes,) the first row of each decision node."""
    num_infosets: int
    legal: np.ndarray
    """(information sets, actions) whether each action slot is legal there."""


def table_layout(tree: BettingTree, num_keys: Callable[[int], int]) -> TableLayout:
    """The table of ``tree``'s information sets when a round's card keys are ``range(num_keys(round))``."""
    decisions = tree.decision_nodes
    decision_row = np.full(tree.size, -1, dtype=np.int64)
    decision_row[decisions] = np.arange(len(decisions))
    sizes = np.array([num_keys(int(tree.round[n])) for n in decisions], dtype=np.int64)
    node_of_row = np.repeat(np.arange(len(decisions)), sizes)
    return TableLayout(
        decision_row=decision_row,
        base=np.concatenate([[0], np.cumsum(sizes)[:-1]]),
        num_infosets=int(sizes.sum()),
        legal=tree.children[decisions[node_of_row]] >= 0,
    )


@dataclass
class _Batch:
    """What a pass needs about the current deals."""

    worlds: Worlds
    info: np.ndarray
    """(decision nodes, W): information set row of the acting player at each node in each deal."""
    payoffs: np.ndarray
    """(terminal nodes, W, players): each player's chips at each terminal in each deal."""


class Solver:
    def __init__(
        self,
        tree: BettingTree,
        abstraction: Abstraction,
        algorithm: str = "cfr+",
        worlds: Worlds | None = None,
        sampler: Callable[[], Worlds] | None = None,
        dtype: type[np.float32] | type[np.float64] = np.float64,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
        if (worlds is None) == (sampler is None):
            raise ValueError("give either every deal (worlds) or a way to sample them (sampler)")
        if algorithm in SAMPLED and sampler is None:
            raise ValueError(f"{algorithm} samples its deals: give a sampler")
        self.tree = tree
        self.game = tree.game
        self.abstraction = abstraction
        self.algorithm = algorithm
        self.sampler = sampler
        self.dtype = dtype
        self.iterations = 0
        self.num_actions = int(tree.children.shape[1])
        """Action slots per node: 3 (fold, call, raise) in limit trees, more in no-limit ones."""
        layout = table_layout(tree, abstraction.num_keys)
        self.decision_row, self.base, self.legal = layout.decision_row, layout.base, layout.legal
        self.num_infosets = layout.num_infosets
        self.regrets = np.zeros((self.num_infosets, self.num_actions), dtype=dtype)
        self.strategy_sum = np.zeros((self.num_infosets, self.num_actions), dtype=dtype)
        # the children table with -1 pointing at an extra all-zero row
        self._children = np.where(tree.children >= 0, tree.children, tree.size)
        self._levels = [level[tree.player[level] >= 0] for level in tree.levels]
        self._edges = [self._level_edges(nodes) for nodes in self._levels if len(nodes)]
        self._terminal_row = np.full(tree.size, -1, dtype=np.int64)
        self._terminal_row[tree.terminal_nodes] = np.arange(len(tree.terminal_nodes))
        self._fixed = self._batch(worlds) if worlds is not None else None

    def _level_edges(self, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every (node, legal action) pair of one depth: parents, children, actions, actors, parent rows."""
        tree = self.tree
        pairs = [(n, a) for n in nodes.tolist() for a in range(self.num_actions) if tree.children[n, a] >= 0]
        parents = np.array([n for n, _ in pairs], dtype=np.int64)
        actions = np.array([a for _, a in pairs], dtype=np.int64)
        return (
            parents,
            tree.children[parents, actions].astype(np.int64),
            actions,
            tree.player[parents].astype(np.int64),
            self.decision_row[parents],
            np.arange(len(pairs)),
        )

    # -- strategies ----------------------------------------------------------

    def _regret_matching(self, regrets: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Probabilities proportional to the positive regrets (uniform over the legal actions if none)."""
        positive = np.where(legal, np.maximum(regrets, 0), 0)
        total = positive.sum(axis=-1, keepdims=True)
        uniform = legal / legal.sum(axis=-1, keepdims=True)
        return np.where(total > 0, positive / np.where(total > 0, total, 1), uniform).astype(self.dtype)

    def current_strategy(self) -> np.ndarray:
        """(information sets, actions) the strategy regret matching gives now."""
        return self._regret_matching(self.regrets, self.legal)

    def _current_rows(self, batch: _Batch) -> np.ndarray:
        """(decision nodes, W, actions) the current strategy where this batch needs it (computed only there
        when that is less work than the whole table)."""
        if batch.info.size < self.num_infosets:
            return self._regret_matching(self.regrets[batch.info], self.legal[batch.info])
        return self.current_strategy()[batch.info]

    def average_strategy(self) -> np.ndarray:
        """(information sets, actions) the average strategy (uniform where never reached)."""
        total = self.strategy_sum.sum(axis=1, keepdims=True)
        uniform = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(total > 0, self.strategy_sum / np.where(total > 0, total, 1), uniform)

    def uniform_strategy(self) -> np.ndarray:
        return self.legal / self.legal.sum(axis=1, keepdims=True)

    # -- the deals -----------------------------------------------------------

    def _batch(self, worlds: Worlds) -> _Batch:
        tree, game = self.tree, self.game
        decisions = tree.decision_nodes
        keys = {
            (p, r): self.abstraction.keys(worlds, p, r) for p in range(game.num_players) for r in range(game.num_rounds)
        }
        info = np.empty((len(decisions), len(worlds)), dtype=np.int64)
        for p in range(game.num_players):
            for r in range(game.num_rounds):
                rows = np.flatnonzero((tree.player[decisions] == p) & (tree.round[decisions] == r))
                if len(rows):
                    info[rows] = self.base[rows, None] + keys[(p, r)][None, :]
        return _Batch(worlds, info, self._payoffs(worlds))

    def _payoffs(self, worlds: Worlds) -> np.ndarray:
        """(terminals, W, players) chips won at every terminal in every deal."""
        tree, game = self.tree, self.game
        terminals = tree.terminal_nodes
        spent = tree.spent[terminals].astype(np.float64)
        folded = tree.folded[terminals]
        total = spent.sum(axis=1, keepdims=True)
        # fold endings: the one player left takes everything; the others lose what they put in
        alone = np.where(folded, -spent, total - spent)
        payoffs = np.repeat(alone[:, None, :], len(worlds), axis=1)
        if len(tree.showdown):
            holes = [np.concatenate([worlds.holes[:, p, :], worlds.boards], axis=1) for p in range(game.num_players)]
            ranks = np.stack([rank_hands(h) for h in holes], axis=1).astype(np.int64)
            rows = self._terminal_row[tree.showdown]
            if game.num_players == 2 and not folded[rows].any() and (spent[rows, 0] == spent[rows, 1]).all():
                sign = np.sign(ranks[:, 0] - ranks[:, 1]).astype(np.float64)
                stake = spent[rows, 0][:, None]
                sign_by_row = np.repeat(sign[None, :], len(rows), axis=0)
                shares = getattr(worlds, "allin_equity", None)
                if shares is not None:  # all in before the river: player 0's expected share (pool.py)
                    betting_round = tree.round[tree.parent[tree.showdown]]
                    early = betting_round < game.num_rounds - 1
                    sign_by_row[early] = 2 * shares[:, betting_round[early]].T - 1
                payoffs[rows, :, 0] = stake * sign_by_row
                payoffs[rows, :, 1] = -stake * sign_by_row
            else:
                for row in rows:
                    for w in range(len(worlds)):
                        payoffs[row, w] = expected_showdown_values(ranks[w : w + 1], spent[row], folded[row])
        return payoffs.astype(self.dtype)

    # -- passes --------------------------------------------------------------

    def _reaches(self, strategy_rows: np.ndarray, batch: _Batch) -> np.ndarray:
        """(players, nodes + 1, W): each player's own probability of reaching each node."""
        n, w = self.game.num_players, len(batch.worlds)
        reach = np.ones((n, self.tree.size + 1, w), dtype=self.dtype)
        for parents, children, actions, actors, rows, edges in self._edges:
            step = reach[:, parents, :]
            step[actors, edges, :] *= strategy_rows[rows, :, actions]
            reach[:, children, :] = step
        return reach

    def _others_reach(self, reach: np.ndarray, nodes: np.ndarray, player: int) -> np.ndarray:
        """(len(nodes), W): the product of every other player's reach probability."""
        others = [q for q in range(self.game.num_players) if q != player]
        product = reach[others[0], nodes, :]
        for q in others[1:]:
            product = product * reach[q, nodes, :]
        return product

    def _utilities(self, strategy_rows: np.ndarray, batch: _Batch, player: int) -> np.ndarray:
        """(nodes + 1, W): ``player``'s expected chips from each node on, in each deal."""
        tree = self.tree
        values = np.zeros((tree.size + 1, len(batch.worlds)), dtype=self.dtype)
        values[tree.terminal_nodes] = batch.payoffs[:, :, player]
        for nodes in reversed(self._levels):
            if len(nodes):
                sigma = strategy_rows[self.decision_row[nodes]]
                values[nodes] = np.einsum("kwa,kaw->kw", sigma, values[self._children[nodes]])
        return values

    def _strategy_rows(self, strategy: np.ndarray, batch: _Batch) -> np.ndarray:
        """(decision nodes, W, actions) the acting player's strategy at each node in each deal."""
        return strategy[batch.info]

    def _update(self, player: int, batch: _Batch, weight: float, floor: bool) -> None:
        """Regret and average-strategy updates of one player's information sets from one pass."""
        tree = self.tree
        current = self._current_rows(batch)
        reach = self._reaches(current, batch)
        values = self._utilities(current, batch, player)
        nodes = tree.decision_nodes[tree.player[tree.decision_nodes] == player]
        d = self.decision_row[nodes]
        chance = batch.worlds.weights.astype(self.dtype)[None, :]
        others = self._others_reach(reach, nodes, player) * chance  # (k, W)
        child_values = values[self._children[nodes]]  # (k, 3, W)
        regret = others[:, None, :] * (child_values - values[nodes][:, None, :])
        own = reach[player, nodes, :] * chance  # (k, W)
        gain = own[:, None, :] * current[d].transpose(0, 2, 1)  # (k, 3, W)
        pick = batch.info[d].reshape(-1)
        if self.num_infosets <= 4 * pick.size:  # small table: accumulate over all of it
            rows: slice | np.ndarray = slice(None)
            slots, size = pick, self.num_infosets
        else:  # large table (perfect recall): only the rows this batch touched
            rows, slots = np.unique(pick, return_inverse=True)
            size = len(rows)
        for a in range(self.num_actions):
            self.regrets[rows, a] += np.bincount(slots, weights=regret[:, a, :].reshape(-1), minlength=size)
            self.strategy_sum[rows, a] += weight * np.bincount(slots, weights=gain[:, a, :].reshape(-1), minlength=size)
        if floor:
            self.regrets[rows] = np.maximum(self.regrets[rows], 0)

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` iterations."""
        for _ in range(count):
            self.iterations += 1
            if self._fixed is not None:
                batch = self._fixed
            else:
                assert self.sampler is not None, "__init__ takes either worlds or a sampler"
                batch = self._batch(self.sampler())
            t = self.iterations
            if self.algorithm in ("dcfr", "mcdcfr"):
                for p in range(self.game.num_players):
                    self._update(p, batch, weight=float(t) ** DCFR_GAMMA, floor=False)
                self._discount_regrets(t)
                continue
            vanilla = self.algorithm == "cfr"
            weight = 1.0 if vanilla else float(t)
            for p in range(self.game.num_players):
                self._update(p, batch, weight=weight, floor=not vanilla)

    def _discount_regrets(self, t: int) -> None:
        """DCFR's discount at the end of iteration ``t``: positive and negative regrets scaled apart."""
        positive = t**DCFR_ALPHA / (t**DCFR_ALPHA + 1)
        negative = t**DCFR_BETA / (t**DCFR_BETA + 1)
        self.regrets *= np.where(self.regrets > 0, positive, negative).astype(self.dtype)

    # -- evaluation (exact with every deal) -----------------------------------

    def expected_values(self, strategy: np.ndarray) -> np.ndarray:
        """(players,) expected chips of each player when everyone plays ``strategy``."""
        batch = self._require_exact()
        rows = self._strategy_rows(strategy, batch)
        chance = batch.worlds.weights
        return np.array([float(self._utilities(rows, batch, p)[0] @ chance) for p in range(self.game.num_players)])

    def best_response_value(self, strategy: np.ndarray, player: int) -> float:
        """``player``'s expected chips playing a best response to the others' ``strategy``."""
        return self.best_response(strategy, player)[0]

    def best_response(self, strategy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
        """``player``'s best response to the others' ``strategy`` over this solver's deals: its expected
        chips and its action at each information set (one per row of the table; ``player``'s rows only)."""
        tree = self.tree
        batch = self._require_exact()
        rows = self._strategy_rows(strategy, batch)
        reach = self._reaches(rows, batch)
        chance = batch.worlds.weights[None, :]
        values = np.zeros((tree.size + 1, len(batch.worlds)))
        values[tree.terminal_nodes] = batch.payoffs[:, :, player]
        choices = np.full(self.num_infosets, -1, dtype=np.int64)
        for nodes in reversed(self._levels):
            if not len(nodes):
                continue
            mine = tree.player[nodes] == player
            theirs = nodes[~mine]
            if len(theirs):
                sigma = rows[self.decision_row[theirs]]
                values[theirs] = np.einsum("kwa,kaw->kw", sigma, values[self._children[theirs]])
            own = nodes[mine]
            if len(own):
                child_values = values[self._children[own]]  # (k, 3, W)
                weight = self._others_reach(reach, own, player) * chance
                info = batch.info[self.decision_row[own]]
                totals = np.stack(
                    [
                        np.bincount(
                            info.ravel(), weights=(weight * child_values[:, a, :]).ravel(), minlength=self.num_infosets
                        )
                        for a in range(self.num_actions)
                    ],
                    axis=1,
                )
                best = np.argmax(np.where(self.legal, totals, -np.inf), axis=1)
                touched = np.zeros(self.num_infosets, dtype=bool)
                touched[info.ravel()] = True
                choices[touched] = best[touched]
                choice = best[info]  # (k, W)
                values[own] = np.take_along_axis(child_values, choice[:, None, :], axis=1)[:, 0, :]
        return float(values[0] @ batch.worlds.weights), choices

    def nash_conv(self, strategy: np.ndarray) -> float:
        """Sum over players of what a best response gains over ``strategy`` (0 at an equilibrium)."""
        values = self.expected_values(strategy)
        return float(sum(self.best_response_value(strategy, p) - values[p] for p in range(self.game.num_players)))

    def exploitability(self, strategy: np.ndarray | None = None) -> float:
        """NashConv divided by the number of players (OpenSpiel's ``exploitability``)."""
        strategy = self.average_strategy() if strategy is None else strategy
        return self.nash_conv(strategy) / self.game.num_players

    def _require_exact(self) -> _Batch:
        if self._fixed is None:
            raise ValueError("exact values need every deal: build the solver with worlds=all_deals(game)")
        return self._fixed


def sampled_exploitability(
    tree: BettingTree, abstraction: Abstraction, strategy: np.ndarray, fit: Worlds, test: Worlds
) -> tuple[float, float]:
    """Exploitability of ``strategy`` in an abstracted game too large for every deal, estimated twice.

    For each player a best response over the abstraction's information sets is
    found on the deals ``fit``. ``in_sample`` is its gain there: it knows those
    deals, so it overstates what a response can gain. ``held_out`` plays the same
    response on the independent deals ``test``: an unbiased value of one response,
    so it estimates a lower bound. Both are NashConv / players, in chips per hand,
    paired over the same deals (the strategy's own value on them is subtracted).
    """
    fitting = Solver(tree, abstraction, "cfr+", worlds=fit)
    testing = Solver(tree, abstraction, "cfr+", worlds=test)
    players = tree.game.num_players
    on_fit, on_test = fitting.expected_values(strategy), testing.expected_values(strategy)
    in_sample = held_out = 0.0
    for p in range(players):
        value, choices = fitting.best_response(strategy, p)
        in_sample += value - on_fit[p]
        response = strategy.copy()
        rows = np.flatnonzero(choices >= 0)
        response[rows] = 0
        response[rows, choices[rows]] = 1
        held_out += testing.expected_values(response)[p] - on_test[p]
    return in_sample / players, held_out / players
