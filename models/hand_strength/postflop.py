"""A hold'em hand's strength after the flop: the share of the opponent's possible hole cards it beats.

The styles (``agents.styles``) and the ensemble's features (``models.ensemble``) measure hand
strength as a percentile: before the flop ``models.hand_strength.preflop.percentile``, after it
``postflop_strength``, exact over every holding of the unseen cards, ranked with the evaluator.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from acpc_arena.protocol.evaluator import rank_hand, rank_hands

HOLDINGS = np.array(list(itertools.combinations(range(52), 2)), dtype=np.uint8)
"""(1326, 2) the two-card holdings of a 52-card deck, the lower card first."""
HOLDINGS_WITH_CARD = np.zeros((52, len(HOLDINGS)), dtype=bool)
"""(52, 1326) whether each holding contains each card."""
HOLDINGS_WITH_CARD[HOLDINGS[:, 0], np.arange(len(HOLDINGS))] = True
HOLDINGS_WITH_CARD[HOLDINGS[:, 1], np.arange(len(HOLDINGS))] = True


@lru_cache(maxsize=1 << 16)
def postflop_strength(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Share of the opponent's possible hole cards that ``hole`` beats on ``board`` (ties count half).

    Every holding of the cards not seen is ranked with the evaluator (``holding_ranks``, once a
    board for every hole asked on it); the result is kept (the same cards on the same board recur
    between matches on the same deal).
    """
    seen = [*hole, *board]
    theirs = holding_ranks(board)[~HOLDINGS_WITH_CARD[seen].any(axis=0)]
    mine = rank_hand(seen)
    return float((np.count_nonzero(theirs < mine) + 0.5 * np.count_nonzero(theirs == mine)) / len(theirs))


@lru_cache(maxsize=256)
def holding_ranks(board: tuple[int, ...]) -> np.ndarray:
    """(1326,) the rank of each of ``HOLDINGS`` with ``board`` (0 for one holding a board card), read-only:
    a range's holes on one board (AIVAT, LBR, both seats of a deal) rank the board's holdings once."""
    off_board = ~HOLDINGS_WITH_CARD[list(board)].any(axis=0)
    ranks = np.zeros(len(HOLDINGS), dtype=np.int64)
    ranks[off_board] = rank_hands(HOLDINGS[off_board], fixed=board)
    ranks.flags.writeable = False
    return ranks
