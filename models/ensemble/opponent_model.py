"""The opponent-model tree of seed 001: betting histories, statistics of the opponent, style distance.

Nodes are betting histories seen from the agent's seat in the hand (the seat is
part of the key: ``"0|c3"`` is "the agent in position 0, the opponent limped,
the agent made a raise of bucket 3"). Edges are the nine abstract actions of the
notes: ``f`` (fold), ``c`` (check or call) and ``1`` .. ``7``, the raise buckets.
A raise's size is its increment over the call divided by the pot after calling
(the same measure the style opponents bet with), bucketed with right-open
intervals::

    bucket  1       2            3           4           5          6          7
    size    <0.125  [0.125,.375) [.375,.75)  [.75,1.25)  [1.25,2)   [2,4)      >=4

Every node keeps, over the finished hands that passed through it:

- ``visits``: how many;
- ``opponent_folds``: how many the opponent ended by folding (here or later);
- ``showdowns``: how many reached a showdown;
- ``strength_sum``: the sum of the opponent's hand strength at those showdowns
  (the share of the possible opposing holdings its cards beat on the final
  board, as ``models.hand_strength.postflop.postflop_strength``);
- ``actions``: where the opponent acts, how often it took each of the 9 edges.

From these come the network's 4 opponent features of a node (visit frequency =
visits / visits of the seat's root, fold rate, showdown rate, expected strength
at showdown; 0.5 where no showdown was seen) and the 11-dimensional style vector
(showdown rate, expected strength, P(fold), P(call), P(raise bucket 1..7); the
action part is 0 where the opponent does not act or was never seen acting).

Style distance (choices the paper leaves open): the distance to library entry
``p`` is the sum over the nodes of the current path (root to the node to act at)
of the Euclidean distance between this opponent's style vector and entry ``p``'s
at the same node, a node that a tree has never seen counting as its empty vector
``(0, 0.5, 0, ..., 0)``. It is not divided by the path length: deeper in a hand
the evidence adds up and the weights ``softmax(-d)`` (the paper prints
``softmax(d)``, a typo: it would favour the least similar style) get sharper.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from acpc_arena.models.hand_strength.postflop import postflop_strength
from acpc_arena.protocol.state import FOLD, RAISE, Action, State

EDGES = "fc1234567"
"""The 9 edge labels: fold, check/call, raise buckets 1 .. 7."""
RAISE_BUCKET_BOUNDS = (0.125, 0.375, 0.75, 1.25, 2.0, 4.0)
"""Upper bounds (exclusive) of raise buckets 1 .. 6; bucket 7 is everything from 4 pots up."""
NUM_EDGES = len(EDGES)
NO_SHOWDOWN_STRENGTH = 0.5
EMPTY_STYLE = np.array([0.0, NO_SHOWDOWN_STRENGTH] + [0.0] * NUM_EDGES)


def raise_fraction(state: State, raise_to: int) -> float:
    """A raise's increment over the call, in pots after calling, for the player to act in ``state``."""
    to_call = state.max_spent - state.spent[state.current_player]
    return (raise_to - state.max_spent) / (sum(state.spent) + to_call)


def raise_bucket(fraction: float) -> int:
    """The bucket (1 .. 7) of a raise of ``fraction`` pots."""
    for bucket, bound in enumerate(RAISE_BUCKET_BOUNDS, start=1):
        if fraction < bound:
            return bucket
    return len(RAISE_BUCKET_BOUNDS) + 1


def edge(state: State, action: Action) -> str:
    """The edge label of ``action`` taken by the player to act in ``state``."""
    if action.kind == FOLD:
        return "f"
    if action.kind == RAISE:
        if not state.game.no_limit:
            return "3"  # a limit raise: one size only; any fixed bucket would do
        return str(raise_bucket(raise_fraction(state, action.size)))
    return "c"


def replay(final: State) -> Iterator[tuple[State, Action]]:
    """Each action of ``final``'s hand with the state just before it (a fresh copy per hand, cards kept)."""
    state = State(final.game, final.hand_id, final.hole_cards, final.board_cards)
    for round_actions in final.actions:
        for action in round_actions:
            yield state, action
            state.apply(action)


def node_key(seat: int, edges: str) -> str:
    return f"{seat}|{edges}"


def path_keys(state: State, seat: int) -> list[str]:
    """The node keys from the root to ``state``'s history, for the agent in position ``seat``."""
    edges = ""
    keys = [node_key(seat, edges)]
    for before, action in replay(state):
        edges += edge(before, action)
        keys.append(node_key(seat, edges))
    return keys


@dataclass
class Node:
    """Statistics of the opponent over the hands that passed through one betting history."""

    visits: int = 0
    opponent_folds: int = 0
    showdowns: int = 0
    strength_sum: float = 0.0
    actions: list[int] = field(default_factory=lambda: [0] * NUM_EDGES)

    def features(self, root_visits: int) -> list[float]:
        """The 4 opponent features: visit frequency, fold rate, showdown rate, expected strength at showdown."""
        if self.visits == 0:
            return [0.0, 0.0, 0.0, NO_SHOWDOWN_STRENGTH]
        return [
            self.visits / max(root_visits, 1),
            self.opponent_folds / self.visits,
            self.showdowns / self.visits,
            self.expected_strength(),
        ]

    def expected_strength(self) -> float:
        return self.strength_sum / self.showdowns if self.showdowns else NO_SHOWDOWN_STRENGTH

    def style(self) -> np.ndarray:
        """The 11-dimensional style vector (see the module docstring)."""
        if self.visits == 0:
            return EMPTY_STYLE.copy()
        acted = sum(self.actions)
        frequencies = [count / acted for count in self.actions] if acted else [0.0] * NUM_EDGES
        return np.array([self.showdowns / self.visits, self.expected_strength(), *frequencies])


EMPTY_NODE = Node()


class OpponentModel:
    """The opponent-model tree of one opponent, grown from finished hands."""

    def __init__(self, nodes: dict[str, Node] | None = None) -> None:
        self.nodes: dict[str, Node] = nodes if nodes is not None else {}

    def node(self, key: str) -> Node:
        return self.nodes.get(key, EMPTY_NODE)

    def observe(self, final: State, seat: int, opponent_strength: float | None) -> None:
        """Add a finished hand seen by the agent in position ``seat``.

        ``opponent_strength`` is the opponent's hand strength on the final board when
        its cards were shown at a showdown, else None.
        """
        opponent = 1 - seat
        showdown = not any(final.folded)
        folded = final.folded[opponent]
        edges = ""
        path = [node_key(seat, edges)]
        acts: list[tuple[str, str]] = []
        for before, action in replay(final):
            label = edge(before, action)
            if before.current_player == opponent:
                acts.append((node_key(seat, edges), label))
            edges += label
            path.append(node_key(seat, edges))
        for key in path:
            node = self.nodes.get(key)
            if node is None:
                node = self.nodes[key] = Node()
            node.visits += 1
            node.opponent_folds += folded
            if showdown and opponent_strength is not None:
                node.showdowns += 1
                node.strength_sum += opponent_strength
        for key, label in acts:
            self.nodes[key].actions[EDGES.index(label)] += 1

    def features(self, keys: Sequence[str]) -> np.ndarray:
        """The 4 opponent features of each node in ``keys`` (shape ``(len(keys), 4)``)."""
        if not keys:
            return np.zeros((0, 4))
        root = self.node(keys[0].split("|")[0] + "|").visits
        return np.array([self.node(key).features(root) for key in keys])

    def visits(self, key: str) -> int:
        return self.node(key).visits

    def distance(self, other: OpponentModel, keys: Sequence[str]) -> float:
        """Summed Euclidean distance between the style vectors of the two trees along ``keys``."""
        return float(sum(np.linalg.norm(self.node(k).style() - other.node(k).style()) for k in keys))

    # -- storage ---------------------------------------------------------------

    def to_json(self, min_visits: int = 1) -> dict[str, Any]:
        """The nodes with at least ``min_visits`` visits, as plain lists."""
        return {
            key: [n.visits, n.opponent_folds, n.showdowns, round(n.strength_sum, 4), n.actions]
            for key, n in sorted(self.nodes.items())
            if n.visits >= min_visits
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpponentModel:
        nodes = {}
        for key, (visits, folds, showdowns, strength, actions) in data.items():
            if len(actions) != NUM_EDGES or "|" not in key:
                raise ValueError(f"node {key!r}: not an opponent-model node")
            nodes[key] = Node(int(visits), int(folds), int(showdowns), float(strength), [int(a) for a in actions])
        return cls(nodes)


def similarity_weights(distances: Sequence[float]) -> np.ndarray:
    """softmax(-d): the most similar library entry weighs most."""
    d = -np.asarray(distances, dtype=np.float64)
    e = np.exp(d - d.max())
    return e / e.sum()


def shown_strength(final: State, seat: int) -> float | None:
    """The opponent's hand strength on the final board if the hand reached a showdown with its cards shown."""
    opponent = final.hole_cards[1 - seat]
    if any(final.folded) or len(opponent) != final.game.num_hole_cards:
        return None
    return postflop_strength(tuple(opponent), tuple(final.visible_board()))
