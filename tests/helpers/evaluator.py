"""Hand-evaluator helpers shared by the evaluator's tests and benchmarks."""

from __future__ import annotations

import itertools

import numpy as np

from acpc_arena.protocol.evaluator import category_of_ranks, rank_hands


def category_counts_of_all_seven_card_hands() -> np.ndarray:
    """Category counts over all C(52, 7) hands: two leading cards fixed, every five after them."""
    fives = np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)
    first = fives[:, 0]
    counts = np.zeros(9, dtype=np.int64)
    for a, b in itertools.combinations(range(52), 2):
        rest = fives[np.searchsorted(first, b + 1) :]
        if len(rest):
            counts += np.bincount(category_of_ranks(rank_hands(rest, fixed=(a, b))), minlength=9)
    return counts
