"""The public betting tree of a limit game, flattened into arrays for level-by-level passes.

Nodes are numbered breadth-first, so each depth is a contiguous range: a pass over
the tree is one numpy step per depth, not one Python call per node. Built by
playing every betting sequence through the project's ``State`` engine, so the
tree has exactly the ACPC rules (raise caps, round ends, first players).

A decision node has up to three children, in the order fold, call, raise (-1
where the action is not legal). Cards are not in this tree: the solver pairs it
with the worlds (deals) it is solving over.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.native import source_file
from acpc_arena.protocol.state import FOLD, RAISE, Action, ActionKind, State
from acpc_arena.protocol.wire import format_betting

ACTIONS = tuple(ActionKind)
"""Fold, call, raise: the order of a node's children and of a strategy's columns."""
NUM_ACTIONS = len(ACTIONS)


@dataclass(frozen=True)
class BettingTree:
    game: Game
    parent: np.ndarray
    """Parent node of each node (-1 at the root)."""
    depth: np.ndarray
    player: np.ndarray
    """The player to act at a decision node; -1 at a terminal."""
    round: np.ndarray
    """The betting round of a decision node (the last round of a terminal)."""
    children: np.ndarray
    """(nodes, 3): the child after fold, call, raise; -1 where not legal (and at terminals)."""
    spent: np.ndarray
    """(nodes, players): chips each player has put in."""
    folded: np.ndarray
    """(nodes, players): who has folded."""
    showdown: np.ndarray
    """Terminal nodes that end in a showdown (the others ended by folds)."""
    sequences: tuple[str, ...]
    """Each node's betting as the ACPC prints it (``cr/rc``), for lookups by agents."""

    @property
    def size(self) -> int:
        return len(self.parent)

    @cached_property
    def decision_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.player >= 0)

    @cached_property
    def terminal_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.player < 0)

    @cached_property
    def levels(self) -> list[np.ndarray]:
        """Node indices at each depth, shallowest first."""
        return [np.flatnonzero(self.depth == d) for d in range(int(self.depth.max()) + 1)]

    @cached_property
    def node_of_sequence(self) -> dict[str, int]:
        return {sequence: node for node, sequence in enumerate(self.sequences)}

    @cached_property
    def fingerprint(self) -> str:
        """A digest of the tree's shape: checkpoints refuse a tree that differs from theirs."""
        digest = hashlib.sha256()
        for array in (self.parent, self.player, self.round, self.children, self.spent):
            digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
        return digest.hexdigest()[:16]


def build_tree(game: Game) -> BettingTree:
    """Every betting sequence of a limit game, breadth first; kept in the disk cache (named by the game and
    the sources that shape the tree), since walking a hold'em tree takes a third of a second."""
    if game.no_limit:
        raise ProtocolError("the CFR tree covers limit games (no-limit needs an action abstraction)")
    players = game.num_players
    code = source_digest(Path(__file__), *(source_file(f"protocol.{name}") for name in ("state", "wire", "game")))
    name = f"limit-tree-{hashlib.sha256(game.to_text().encode()).hexdigest()[:16]}-{code}"
    built: list[TreeLists] = []

    def walk() -> TreeLists:
        if not built:
            built.append(_walk_limit_tree(game))
        return built[0]

    columns = cached_array(f"{name}-columns", lambda: _tree_columns(walk(), players))
    sequences = cached_array(f"{name}-sequences", lambda: np.array(walk().sequences, dtype=str))
    if columns.ndim != 2 or columns.shape[1] != _FIXED_COLUMNS + 2 * players or sequences.shape != columns.shape[:1]:
        nodes = walk()  # a cached file of another shape (damaged, or written by other code): walked again
        return BettingTree(game=game, sequences=tuple(nodes.sequences), **nodes.arrays())
    return BettingTree(game=game, sequences=tuple(sequences.tolist()), **_tree_arrays(columns, players))


def _walk_limit_tree(game: Game) -> TreeLists:
    def moves(state: State, _: int) -> list[Move]:
        legal = state.legal_actions()
        return [
            (kind, Action(kind), 0)
            for kind in ACTIONS
            if not (kind == FOLD and not legal.can_fold) and not (kind == RAISE and not legal.can_raise)
        ]

    return walk_tree(game, NUM_ACTIONS, moves)


_FIXED_COLUMNS = 5 + NUM_ACTIONS
"""A cached tree's columns before the players' spent and folded: parent, depth, player, round, showdown, children."""


def _tree_columns(nodes: TreeLists, players: int) -> np.ndarray:
    """A limit tree's per-node lists as one (nodes, columns) array, as the disk cache keeps it."""
    arrays = nodes.arrays()
    showdown = np.zeros(len(nodes.parent), dtype=np.int64)
    showdown[arrays["showdown"]] = 1
    flat = [
        arrays[key].astype(np.int64).reshape(len(nodes.parent), -1) for key in ("parent", "depth", "player", "round")
    ]
    return np.hstack([*flat, showdown[:, None], arrays["children"], arrays["spent"], arrays["folded"]]).astype(np.int64)


def _tree_arrays(columns: np.ndarray, players: int) -> dict[str, np.ndarray]:
    """``_tree_columns``' array back as ``TreeLists.arrays()`` gives it."""
    children_end = _FIXED_COLUMNS
    return {
        "parent": columns[:, 0].astype(np.int32),
        "depth": columns[:, 1].astype(np.int32),
        "player": columns[:, 2].astype(np.int8),
        "round": columns[:, 3].astype(np.int8),
        "showdown": np.flatnonzero(columns[:, 4]).astype(np.int32),
        "children": columns[:, 5:children_end].astype(np.int32),
        "spent": columns[:, children_end : children_end + players].astype(np.int64),
        "folded": columns[:, children_end + players :].astype(bool),
    }


Move = tuple[int, Action, int]
"""A move of a decision node: its action slot, the action, and the count it carries to the child."""


@dataclass
class TreeLists:
    """A betting tree's per-node lists, built breadth first (``walk_tree``)."""

    parent: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    round: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    spent: list[list[int]] = field(default_factory=list)
    folded: list[list[bool]] = field(default_factory=list)
    showdown: list[int] = field(default_factory=list)
    sequences: list[str] = field(default_factory=list)
    raise_to: list[list[int]] = field(default_factory=list)
    """The raise-to of each raise slot (0 where none)."""
    counts: list[int] = field(default_factory=list)
    """The count the moves carried to each node (set back to 0 at each new round)."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-node lists as the arrays ``BettingTree`` holds."""
        return {
            "parent": np.array(self.parent, dtype=np.int32),
            "depth": np.array(self.depth, dtype=np.int32),
            "player": np.array(self.player, dtype=np.int8),
            "round": np.array(self.round, dtype=np.int8),
            "children": np.array(self.children, dtype=np.int32),
            "spent": np.array(self.spent, dtype=np.int64),
            "folded": np.array(self.folded, dtype=bool),
            "showdown": np.array(self.showdown, dtype=np.int32),
        }


def walk_tree(game: Game, width: int, moves: Callable[[State, int], list[Move]]) -> TreeLists:
    """Every betting sequence from the start of a hand, breadth first, through the ``State`` engine:
    ``moves(state, count)`` gives a decision node's moves (``width`` slots) from its carried count."""
    nodes = TreeLists()
    queue: deque[tuple[State, int, int, int, int]] = deque([(State(game), -1, -1, 0, 0)])
    while queue:
        state, up, slot_from_up, level, count = queue.popleft()
        node = len(nodes.parent)
        nodes.parent.append(up)
        nodes.depth.append(level)
        nodes.round.append(state.round)
        nodes.spent.append(list(state.spent))
        nodes.folded.append(list(state.folded))
        nodes.sequences.append(format_betting(state))
        nodes.children.append([-1] * width)
        nodes.raise_to.append([0] * width)
        nodes.counts.append(count)
        if up >= 0:
            nodes.children[up][slot_from_up] = node
        if state.finished:
            nodes.player.append(-1)
            if state.num_folded + 1 < game.num_players:
                nodes.showdown.append(node)
            continue
        nodes.player.append(state.current_player)
        for slot, action, carried in moves(state, count):
            if action.kind == RAISE:
                nodes.raise_to[node][slot] = action.size
            child = state.copy()
            child.apply(action)
            queue.append((child, node, slot, level + 1, 0 if child.round != state.round else carried))
    return nodes
