"""The policy network's inputs: the last 5 steps of the current hand, 4 opponent and 6 game features each.

A *step* is a node of the current betting history: the hand's start and the
state after each action so far, the last one being the decision at hand. The
5 most recent steps are the input (fewer early in a hand: the sequence is
zero-padded at the front). For each step:

- opponent features (4): the opponent-model tree's statistics of that node
  (``OpponentModel.features``);
- game features (6), computed on the state of that step for the agent in
  position ``seat``:

  1. the share of the opponent's possible holdings (the 1,326 minus those using
     a visible card) that make a straight or better with a flush or straight in
     it, i.e. a hand of category straight, flush or straight flush, on the board
     visible then (0 before the flop);
  2. the number of board ranks seen at least twice, divided by 2;
  3. the round divided by 3;
  4. the agent's hand strength (pre-flop percentile, then the share of opposing
     holdings it beats; as the style opponents compute it);
  5. the opponent's total raise ratio: the chips it put in by raising (the
     increments over the calls) divided by the pot;
  6. the agent's own total raise ratio, likewise.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from acpc_arena.models.ensemble.opponent_model import OpponentModel, edge, node_key, replay
from acpc_arena.models.hand_strength.postflop import HOLDINGS, HOLDINGS_WITH_CARD, postflop_strength
from acpc_arena.models.hand_strength.preflop import percentile
from acpc_arena.protocol.cards import rank_of
from acpc_arena.protocol.evaluator import FLUSH, STRAIGHT, STRAIGHT_FLUSH, category_of_ranks, rank_hands
from acpc_arena.protocol.state import RAISE, State

STEPS = 5
OPPONENT_FEATURES = 4
GAME_FEATURES = 6


def hand_strength(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """The agent's hand strength: the styles' measure (``agents.styles``)."""
    return percentile(list(hole)) if not board else postflop_strength(hole, board)


@lru_cache(maxsize=1 << 14)
def straight_or_flush_share(board: tuple[int, ...]) -> float:
    """Share of the holdings not using a board card that make a straight, flush or straight flush."""
    if len(board) < 3:
        return 0.0
    holdings = HOLDINGS[~HOLDINGS_WITH_CARD[list(board)].any(axis=0)]
    categories = category_of_ranks(rank_hands(holdings, fixed=board))
    return float(np.isin(categories, (STRAIGHT, FLUSH, STRAIGHT_FLUSH)).mean())


def board_pairs(board: tuple[int, ...]) -> int:
    """How many ranks appear at least twice on the board."""
    ranks = [rank_of(card) for card in board]
    return sum(1 for r in set(ranks) if ranks.count(r) >= 2)


def game_features(state: State, seat: int, raised: list[int]) -> list[float]:
    """The 6 game features of ``state`` for the agent in position ``seat``; ``raised``: chips each put in by raising."""
    board = tuple(state.visible_board())
    pot = sum(state.spent)
    return [
        straight_or_flush_share(board),
        board_pairs(board) / 2,
        state.round / 3,
        hand_strength(tuple(state.hole_cards[seat]), board),
        raised[1 - seat] / pot,
        raised[seat] / pot,
    ]


def step_features(state: State, seat: int, model: OpponentModel) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(opponent features (5, 4), game features (5, 6), node keys of the whole path) for the decision in ``state``."""
    keys = [node_key(seat, "")]
    games = []
    raised = [0, 0]
    edges = ""

    for before, action in replay(state):
        games.append(game_features(before, seat, raised))
        if action.kind == RAISE:
            raised[before.current_player] += action.size - before.max_spent
        edges += edge(before, action)
        keys.append(node_key(seat, edges))
    games.append(game_features(state, seat, raised))
    last = keys[-STEPS:]
    opponent = np.zeros((STEPS, OPPONENT_FEATURES), dtype=np.float32)
    game = np.zeros((STEPS, GAME_FEATURES), dtype=np.float32)
    opponent[STEPS - len(last) :] = model.features(last)
    game[STEPS - len(last) :] = games[-STEPS:]
    return opponent, game, keys
