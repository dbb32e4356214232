"""Seed 003's delayed reward: UCT over determinised worlds from a decision of the hand.

``action_values`` answers, for the player to act at ``state``, what each of its actions
(fold, call, raise) returns on average. Each of ``worlds`` iterations determinises the
hand: the cards the player does not see (the opponent's hole cards, the board still to
come) are drawn from the unseen cards, uniformly. It then descends the tree of betting
from ``state``: at the player's own nodes, a 3-armed bandit (one arm per legal action)
picks ``ucb_choice``; at the opponent's, an action is drawn from the ACPC example
player's probabilities (``models.search.mcts``, as seed 000's search). The first node not yet
in the tree is added, the hand is played out (the opponent as before, the player checking
and calling: with the example player's 6% folds and 47% raises in its own seat as well,
as in seed 000's rollouts, every arm but fold came out below its worth and the first
network trained on them raised less with aces than with nothing), and the terminal
payoff (chips over ``scale``) is backed up along the path.
The value of each root arm is the mean return over the worlds that went through it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from acpc_arena.models.search.example_player import EXAMPLE_PLAYER_PROBABILITIES
from acpc_arena.models.search.mcts import Node
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, ActionKind, State

NUM_ARMS = len(ActionKind)
_ACTIONS = [Action(kind) for kind in ActionKind]


def example_kind(state: State, u: float) -> ActionKind:
    """The example player's action at ``state`` for a uniform draw ``u`` in [0, 1): fold, call, raise
    with probabilities 0.06, 0.47, 0.47 over the valid ones (``models.search.mcts`` draws the same, slower)."""
    fold = EXAMPLE_PLAYER_PROBABILITIES[FOLD] if state.can_fold() else 0.0
    raise_ = EXAMPLE_PLAYER_PROBABILITIES[RAISE] if state.raise_range() is not None else 0.0
    x = u * (fold + EXAMPLE_PLAYER_PROBABILITIES[CALL] + raise_)
    if x < fold:
        return FOLD
    return RAISE if x >= fold + EXAMPLE_PLAYER_PROBABILITIES[CALL] else CALL


def legal_arms(state: State) -> list[int]:
    """The valid action kinds at ``state``, in ``ActionKind`` order."""
    return [int(FOLD)] * state.can_fold() + [int(CALL)] + [int(RAISE)] * (state.raise_range() is not None)


def ucb_choice(visits: Sequence[int], totals: Sequence[float], arms: Sequence[int], c: float) -> int:
    """The arm to play at a node: an untried one first (the first of ``arms`` with no visit),
    else the arm with the largest mean + c * sqrt(ln N / n), N the node's visits (the sum
    over ``arms``) and n the arm's. Ties go to the first such arm of ``arms``."""
    for arm in arms:
        if visits[arm] == 0:
            return arm
    log_n = math.log(sum(visits[arm] for arm in arms))
    return max(arms, key=lambda arm: totals[arm] / visits[arm] + c * math.sqrt(log_n / visits[arm]))


def determinise(state: State, viewer: int, unseen: list[int], rng: random.Random) -> State:
    """A copy of ``state`` with the cards ``viewer`` cannot see drawn at random from ``unseen``."""
    game = state.game
    needed = (game.num_players - 1) * game.num_hole_cards + game.total_board_cards - len(state.visible_board())
    drawn = rng.sample(unseen, needed)
    world = state.copy()
    for p in range(game.num_players):
        if p != viewer:
            world.hole_cards[p] = [drawn.pop() for _ in range(game.num_hole_cards)]
    shown = state.visible_board()
    world.board_cards = list(shown) + [drawn.pop() for _ in range(game.total_board_cards - len(shown))]
    return world


def action_values(
    state: State, worlds: int, c: float, scale: float, rng: random.Random
) -> tuple[np.ndarray, np.ndarray]:
    """(values, visits), each (3,) by ``ActionKind``: the mean return (chips / ``scale``) of each of the
    acting player's actions over the sampled worlds and how many worlds each was played in (an arm
    not visited, illegal ones included, has value 0 and 0 visits)."""
    viewer = state.current_player
    known = set(state.hole_cards[viewer]) | set(state.visible_board())
    unseen = [card for card in state.game.deck if card not in known]
    root = Node()
    for _ in range(worlds):
        world = determinise(state, viewer, unseen, rng)
        node, path = root, []
        expanded = False
        while not world.finished and not expanded:
            if world.current_player == viewer:
                visits = [0] * NUM_ARMS
                totals = [0.0] * NUM_ARMS
                for kind, child in node.children.items():
                    visits[kind], totals[kind] = child.visits, child.total
                kind = ActionKind(ucb_choice(visits, totals, legal_arms(world), c))
                expanded = kind not in node.children
            else:
                kind = example_kind(world, rng.random())
            node = node.children.setdefault(kind, Node())
            path.append(node)
            world.apply(_ACTIONS[kind])
        while not world.finished:  # the rollout: the player checks and calls down, the opponent as above
            own = world.current_player == viewer
            world.apply(_ACTIONS[CALL] if own else _ACTIONS[example_kind(world, rng.random())])
        value = world.value(viewer) / scale
        root.visits += 1
        root.total += value
        for visited in path:
            visited.visits += 1
            visited.total += value
    values = np.zeros(NUM_ARMS)
    counts = np.zeros(NUM_ARMS, dtype=np.int64)
    for kind, child in root.children.items():
        values[kind], counts[kind] = child.total / child.visits, child.visits
    return values, counts
