"""Starting hands of hold'em ranked by strength: the pre-flop percentile of every hand.

The 1,326 two-card starting hands fall into 169 classes (13 pairs, 78 suited and
78 offsuit rank pairs; 6, 4 and 12 hands each). A class's strength is its equity
against one random hand (the share of the pot it wins at a showdown on a random
board, ties split), estimated with ``protocol.equity.equity_vs_random`` and the
project's evaluator. ``EQUITY`` is that table, made by
``python -m acpc_arena.models.hand_strength.preflop`` (200,000 samples per class, seed 2022:
standard error under 0.11 points); it starts 85.2 for AA and ends 32.3 for 32o,
the figures the usual equity calculators give.

``percentile(hole)`` is the share of the 1,326 hands weaker than ``hole`` plus
half the hands of its own class (so the 1,326 hands' percentiles average 0.5):
a hand is in the top ``r`` of starting hands when its percentile is at least ``1 - r``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

import numpy as np

from acpc_arena.protocol.cards import MAX_RANKS, RANK_CHARS, make_card, rank_of, suit_of
from acpc_arena.protocol.equity import equity_vs_random
from acpc_arena.protocol.game import load_game

NUM_STARTING_HANDS = 1326

# EQUITY[i][j], ranks i, j from A (0) down to 2 (12): a pair on the diagonal, suited above it
# (row = higher rank), offsuit below it (column = higher rank); percent of the pot won.
# fmt: off
EQUITY: tuple[tuple[float, ...], ...] = (
    (85.31, 66.94, 66.09, 65.51, 64.35, 62.84, 62.00, 60.77, 59.82, 59.87, 59.27, 58.19, 57.54),
    (65.25, 82.34, 63.45, 62.73, 61.75, 59.99, 58.46, 57.54, 56.48, 55.84, 54.99, 54.27, 53.08),
    (64.22, 61.35, 79.94, 60.33, 59.63, 57.61, 56.02, 54.27, 53.55, 52.75, 51.86, 51.02, 50.35),
    (63.64, 60.66, 58.21, 77.58, 57.35, 55.68, 54.02, 52.26, 50.46, 50.10, 49.19, 48.34, 47.09),
    (62.68, 59.80, 57.36, 55.29, 75.01, 54.01, 52.14, 50.61, 49.06, 47.30, 46.51, 45.77, 44.95),
    (60.53, 57.74, 55.43, 53.30, 51.67, 72.01, 50.72, 48.96, 47.50, 45.78, 43.99, 43.05, 42.56),
    (59.79, 56.16, 53.44, 51.39, 49.86, 47.95, 69.21, 47.80, 46.10, 44.65, 42.61, 40.87, 40.34),
    (58.92, 55.10, 51.96, 49.42, 47.75, 46.07, 45.09, 66.23, 45.41, 43.82, 41.81, 39.99, 38.02),
    (57.75, 54.22, 51.12, 47.65, 46.09, 44.66, 43.34, 42.15, 63.15, 43.08, 41.33, 39.54, 37.60),
    (57.49, 53.25, 50.10, 47.05, 44.27, 42.79, 41.54, 40.34, 39.89, 60.50, 41.45, 39.73, 37.99),
    (56.80, 52.41, 49.05, 46.37, 43.42, 40.56, 39.42, 38.57, 38.18, 38.19, 56.96, 38.78, 36.85),
    (56.02, 51.42, 48.29, 45.40, 42.50, 40.07, 37.48, 36.55, 35.96, 36.37, 35.22, 53.63, 35.93),
    (54.91, 50.43, 47.28, 44.43, 41.90, 39.02, 36.80, 34.56, 33.98, 34.51, 33.31, 32.39, 50.27),
)
# fmt: on


def class_name(high: int, low: int, suited: bool) -> str:
    """``AA``, ``AKs``, ``72o``: ranks 0 (2) to 12 (A), ``high >= low``."""
    if high == low:
        return RANK_CHARS[high] * 2
    return f"{RANK_CHARS[high]}{RANK_CHARS[low]}{'s' if suited else 'o'}"


def class_of(hole: Sequence[int]) -> tuple[int, int, bool]:
    """(high rank, low rank, suited) of two hole cards."""
    first, second = hole
    high, low = sorted((rank_of(first), rank_of(second)), reverse=True)
    return high, low, high != low and suit_of(first) == suit_of(second)


def class_equity(high: int, low: int, suited: bool) -> float:
    """Equity (percent) of a class against one random hand, from ``EQUITY``."""
    row, column = MAX_RANKS - 1 - high, MAX_RANKS - 1 - low
    if suited:
        return EQUITY[row][column]
    return EQUITY[column][row]


def all_classes() -> list[tuple[int, int, bool]]:
    """The 169 classes as (high, low, suited)."""
    classes = [(r, r, False) for r in range(MAX_RANKS)]
    for high, low in itertools.combinations(range(MAX_RANKS - 1, -1, -1), 2):
        classes += [(high, low, True), (high, low, False)]
    return classes


def class_size(high: int, low: int, suited: bool) -> int:
    """How many of the 1,326 starting hands are in the class."""
    return 6 if high == low else 4 if suited else 12


@cache
def _percentiles() -> dict[tuple[int, int, bool], float]:
    # Weakest first; equal equities (none in the table) would be ordered by the class tuple.
    ordered = sorted(all_classes(), key=lambda c: (class_equity(*c), c))
    result: dict[tuple[int, int, bool], float] = {}
    below = 0
    for c in ordered:
        size = class_size(*c)
        result[c] = (below + size / 2) / NUM_STARTING_HANDS
        below += size
    return result


def percentile(hole: Sequence[int]) -> float:
    """Share of the starting hands weaker than ``hole`` (half its own class counted), in [0, 1]."""
    return _percentiles()[class_of(hole)]


def compute_equity_table(samples: int = 200_000, seed: int = 2022) -> list[list[float]]:
    """``EQUITY`` computed afresh: every class's equity against a random hand (Monte Carlo)."""
    game = load_game("holdem.nolimit.2p.reverse_blinds")
    rng = np.random.default_rng(seed)
    table = [[0.0] * MAX_RANKS for _ in range(MAX_RANKS)]
    for high, low, suited in all_classes():
        hole = [make_card(high, 0), make_card(low, 0 if suited else 1)]
        value = round(100 * equity_vs_random(game, hole, [], 1, samples, rng), 2)
        row, column = MAX_RANKS - 1 - high, MAX_RANKS - 1 - low
        if suited:
            table[row][column] = value
        else:
            table[column][row] = value
    return table


def main() -> None:
    """Print ``EQUITY`` as Python source."""
    print("EQUITY: tuple[tuple[float, ...], ...] = (")
    for row in compute_equity_table():
        print("    (" + ", ".join(f"{v:5.2f}" for v in row) + "),")
    print(")")


if __name__ == "__main__":
    main()
