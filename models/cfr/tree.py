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
from dataclasses import dataclass
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
    parent: list[int] = []
    depth: list[int] = []
    player: list[int] = []
    round_: list[int] = []
    children: list[list[int]] = []
    spent: list[list[int]] = []
    folded: list[list[bool]] = []
    showdown: list[int] = []
    sequences: list[str] = []
    queue: deque[tuple[State, int, int, int]] = deque([(State(game), -1, -1, 0)])
    while queue:
        state, up, kind_from_up, level = queue.popleft()
        node = len(parent)
        parent.append(up)
        depth.append(level)
        round_.append(state.round)
        spent.append(list(state.spent))
        folded.append(list(state.folded))
        sequences.append(format_betting(state))
        children.append([-1, -1, -1])
        if up >= 0:
            children[up][kind_from_up] = node
        if state.finished:
            player.append(-1)
            if state.num_folded + 1 < game.num_players:
                showdown.append(node)
            continue
        player.append(state.current_player)
        legal = state.legal_actions()
        for kind in ACTIONS:
            if (kind == FOLD and not legal.can_fold) or (kind == RAISE and not legal.can_raise):
                continue
            child = state.copy()
            child.apply(Action(kind))
            queue.append((child, node, kind, level + 1))
    arrays = node_arrays(parent, depth, player, round_, children, spent, folded, showdown)
    return BettingTree(game=game, sequences=tuple(sequences), **arrays)


def node_arrays(
    parent: list[int],
    depth: list[int],
    player: list[int],
    round_: list[int],
    children: list[list[int]],
    spent: list[list[int]],
    folded: list[list[bool]],
    showdown: list[int],
) -> dict[str, np.ndarray]:
    """A betting tree's per-node lists (built breadth first) as the arrays its dataclass holds."""
    return {
        "parent": np.array(parent, dtype=np.int32),
        "depth": np.array(depth, dtype=np.int32),
        "player": np.array(player, dtype=np.int8),
        "round": np.array(round_, dtype=np.int8),
        "children": np.array(children, dtype=np.int32),
        "spent": np.array(spent, dtype=np.int64),
        "folded": np.array(folded, dtype=bool),
        "showdown": np.array(showdown, dtype=np.int32),
    }
