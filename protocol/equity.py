"""Hand strength: the chance of winning at a showdown against random opponent hands.

Monte Carlo over the unseen cards with the batched evaluator: the missing board
cards and each opponent's hole cards are drawn from what the player cannot see;
a tie counts as half a win (split among the tied).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.evaluator import rank_hands
from protocol.game import Game


def equity_vs_random(
    game: Game,
    hole: Sequence[int],
    board: Sequence[int],
    opponents: int = 1,
    samples: int = 1000,
    rng: np.random.Generator | None = None,
) -> float:
    """Estimated share of the pot ``hole`` wins against ``opponents`` random hands.

    ``board`` holds the board cards seen so far; the rest of the game's board is
    drawn at random. Returns a number in [0, 1].
    """
    rng = rng or np.random.default_rng()
    seen = set(hole) | set(board)
    unseen = np.array([c for c in game.deck if c not in seen], dtype=np.uint8)
    missing = game.total_board_cards - len(board)
    per_opponent = game.num_hole_cards
    needed = missing + opponents * per_opponent
    if needed > len(unseen):
        raise ValueError("not enough unseen cards for the opponents and the board")
    draws = np.argsort(rng.random((samples, len(unseen))), axis=1)[:, :needed]
    cards = unseen[draws]
    extra_board = cards[:, :missing]
    full_board = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (samples, 1)), extra_board], axis=1)
    mine = rank_hands(np.concatenate([np.tile(np.array(hole, dtype=np.uint8), (samples, 1)), full_board], axis=1))
    best_other = np.full(samples, -1, dtype=np.int64)
    ties = np.zeros(samples, dtype=np.int64)  # opponents holding the best of their ranks
    for k in range(opponents):
        theirs_cards = cards[:, missing + k * per_opponent : missing + (k + 1) * per_opponent]
        theirs = rank_hands(np.concatenate([theirs_cards, full_board], axis=1)).astype(np.int64)
        ties = np.where(theirs > best_other, 1, np.where(theirs == best_other, ties + 1, ties))
        best_other = np.maximum(best_other, theirs)
    mine = mine.astype(np.int64)
    share = np.where(mine > best_other, 1.0, np.where(mine == best_other, 1.0 / (ties + 1), 0.0))
    return float(share.mean())
