"""Seed 000's MCTS-based reward (section 3.3): compare a hand's result with what search expected.

``uct_value`` runs UCT from the start state S of a hand, as the player holding
``hole`` in ``position`` sees it: every iteration deals the unseen cards anew
(chance and the opponent's cards are sampled), descends the tree choosing the
player's own actions by UCB = V + c sqrt(ln N / n) and the opponent's by sampling,
expands one node, plays the rest out at random, and backs the result up. V(S) is
the root's mean result.

The seed rewards when the result R beats V(S) and punishes when it falls short,
for wins and losses alike, without saying by how much; the reward used here is
R - V(S) in big blinds, which has the sign of each of its four cases. Opponent
moves and rollouts follow the ACPC example player's probabilities (fold 0.06,
call 0.47, raise 0.47 over the valid actions).

V(S) depends only on the two hole cards (up to suits) and the position, so the
trainer computes it once per starting hand class and position and keeps the table
(``value_table``), cached on disk like the evaluator's tables: the file name holds
the game, the search settings, the probabilities and a digest of the code that
plays the hands (this file, the rules and the evaluator), so a change to any of
them computes the table anew.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np

import acpc_arena.protocol.evaluator
from acpc_arena.models.hand_strength import classes
from acpc_arena.models.hand_strength.classes import class_representative
from acpc_arena.models.search.example_player import EXAMPLE_PLAYER_PROBABILITIES
from acpc_arena.protocol import native
from acpc_arena.protocol.cards import MAX_RANKS
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, ActionKind, State

VALUE_SOURCES = (
    Path(__file__),
    Path(classes.__file__),
    native.FOLDER / "state.py",
    *acpc_arena.protocol.evaluator.SOURCES,
)
"""The code V(S) comes from: the search and rollouts here, the hand classes, the betting rules, the hand ranks."""


class Node:
    __slots__ = ("children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[ActionKind, Node] = {}
        self.visits = 0
        self.total = 0.0


def _legal_kinds(state: State) -> list[ActionKind]:
    legal = state.legal_actions()
    return [CALL] + [FOLD] * legal.can_fold + [RAISE] * legal.can_raise


def _sampled_kind(state: State, rng: np.random.Generator) -> ActionKind:
    kinds = _legal_kinds(state)
    weights = np.array([EXAMPLE_PLAYER_PROBABILITIES[k] for k in kinds])
    return kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]


def _deal(game: Game, hole: list[int], position: int, rng: np.random.Generator) -> State:
    """A start state with ``hole`` at ``position`` and every other card drawn at random."""
    rest = [c for c in game.deck if c not in hole]
    drawn = list(rng.permutation(rest))
    holes = []
    for p in range(game.num_players):
        if p == position:
            holes.append(list(hole))
        else:
            holes.append([int(drawn.pop()) for _ in range(game.num_hole_cards)])
    board = [int(drawn.pop()) for _ in range(game.total_board_cards)]
    return State(game, 0, holes, board)


def uct_value(game: Game, hole: list[int], position: int, rollouts: int, c: float, rng: np.random.Generator) -> float:
    """V(S) in big blinds: the UCT estimate of the hand's value from its start state."""
    root = Node()
    big_blind = game.big_blind or 1
    for _ in range(rollouts):
        state = _deal(game, hole, position, rng)
        node, path = root, [root]
        expanded = False
        while not state.finished and not expanded:
            if state.current_player == position:
                kinds = _legal_kinds(state)
                untried = [k for k in kinds if k not in node.children]
                if untried:
                    kind = untried[int(rng.integers(len(untried)))]
                    expanded = True
                else:
                    log_n = math.log(node.visits)
                    kind = max(
                        kinds,
                        key=lambda k: (
                            node.children[k].total / node.children[k].visits
                            + c * math.sqrt(log_n / node.children[k].visits)
                        ),
                    )
            else:
                kind = _sampled_kind(state, rng)
            node = node.children.setdefault(kind, Node())
            path.append(node)
            state.apply(Action(kind))
        while not state.finished:
            state.apply(Action(_sampled_kind(state, rng)))
        value = state.value(position) / big_blind
        for visited in path:
            visited.visits += 1
            visited.total += value
    return root.total / root.visits


def value_table_key(game: Game, rollouts: int, c: float, seed: int) -> str:
    """What a value table depends on, digested: the game, the search settings, the example
    player's probabilities and the source of the code that plays the hands (``VALUE_SOURCES``)."""
    parts = [game.to_text(), rollouts, c, seed, EXAMPLE_PLAYER_PROBABILITIES, source_digest(*VALUE_SOURCES)]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def value_table(game: Game, rollouts: int = 1000, c: float = 1.4, seed: int = 0) -> np.ndarray:
    """(players, 169) V(S) of every starting hand class in every position (hold'em), cached on disk."""

    def build() -> np.ndarray:
        rng = np.random.default_rng(seed)
        table = np.zeros((game.num_players, MAX_RANKS * MAX_RANKS))
        for position in range(game.num_players):
            for index in range(MAX_RANKS * MAX_RANKS):
                table[position, index] = uct_value(game, class_representative(index), position, rollouts, c, rng)
        return table

    return cached_array(f"uct-values-{value_table_key(game, rollouts, c, seed)}", build)
