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

import numpy as np

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
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
    """Every betting sequence of a limit game, breadth first."""
    if game.no_limit:
        raise ProtocolError("the CFR tree covers limit games (no-limit needs an action abstraction)")

    def moves(state: State, _: int) -> list[Move]:
        legal = state.legal_actions()
        return [
            (kind, Action(kind), 0)
            for kind in ACTIONS
            if not (kind == FOLD and not legal.can_fold) and not (kind == RAISE and not legal.can_raise)
        ]

    nodes = walk_tree(game, NUM_ACTIONS, moves)
    return BettingTree(game=game, sequences=tuple(nodes.sequences), **nodes.arrays())


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
