"""One hand's rank by table lookups: the evaluator's scalar path, compiled with mypyc.

``rank_hand`` adds up the codes of the cards (``protocol.evaluator`` builds the
tables and says how the codes work), reads the rank of that sum from a table of
ranks, and only when a suit holds five or more of the cards looks up the best
flush of that suit's rank mask. Plain ints and lists: mypyc turns the loop into a
few machine instructions per card. The rank table is the batched path's, mapped
from the evaluator's cache file (shared between processes, read without numpy).
Each size's tables are loaded on its first hand, so importing this module costs
nothing.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Final, SupportsIndex

MAX_LOOKUP_CARDS: Final = 7
"""The most cards a hand ranked by lookup holds; larger hands are ranked from the rules."""
SUIT_SHIFT: Final = 32
"""A card's code: its rank key in the low 32 bits, a count of 1 in its suit's 4-bit field above."""
KEY_MASK: Final = (1 << SUIT_SHIFT) - 1
FLUSH_ADD: Final = 0x3333 << SUIT_SHIFT  # 3 more in each suit's count: its top bit is set at 5 to 7 cards
FLUSH_BITS: Final = 0x8888 << SUIT_SHIFT


class LookupTables:
    """The tables for hands of one size."""

    def __init__(self, codes: list[int], ranks: memoryview, flush_ranks: list[int]) -> None:
        self.codes = codes
        """The code of each card, 0..51."""
        self.ranks = ranks
        """The rank of the hand whose codes sum to ``s``, at ``s & KEY_MASK`` (the evaluator's table)."""
        self.flush_ranks = flush_ranks
        """The rank of the best flush in a 13-bit rank mask of one suit (-1 under five ranks)."""


_TABLES: Final[list[LookupTables | None]] = [None] * (MAX_LOOKUP_CARDS + 1)


def rank_hand(cards: Sequence[int]) -> int:
    """Hand rank of 1 to 10 distinct cards (larger is better; equal splits the pot)."""
    n = len(cards)
    if n < 1 or n > MAX_LOOKUP_CARDS:
        from acpc_arena.protocol.evaluator import rank_hand_by_rules

        return rank_hand_by_rules(cards)
    tables = _TABLES[n]
    if tables is None:
        tables = load_tables(n)
    codes = tables.codes
    total = 0
    try:
        for card in cards:
            total += codes[card]
    except TypeError:  # compiled, a numpy integer is not an int: rank the cards as ints
        return rank_hand(_as_ints(cards))
    value: int = tables.ranks[total & KEY_MASK]
    flush_bits = (total + FLUSH_ADD) & FLUSH_BITS
    if flush_bits:
        suit = 0
        while not flush_bits >> (SUIT_SHIFT + 3 + 4 * suit) & 1:
            suit += 1
        mask = 0
        for card in cards:
            if card & 3 == suit:
                mask |= 1 << (int(card) >> 2)  # int(): run from the source, a numpy uint8 would overflow
        flush = tables.flush_ranks[mask]
        if flush > value:
            value = flush
    return value


def _as_ints(cards: Sequence[SupportsIndex]) -> list[int]:
    return [operator.index(card) for card in cards]


def load_tables(n: int) -> LookupTables:
    """The tables for hands of ``n`` cards (1 to 7), loaded (or built) by the evaluator on first use."""
    tables = _TABLES[n]
    if tables is None:
        from acpc_arena.protocol.evaluator import lookup_tables

        tables = LookupTables(*lookup_tables(n))
        _TABLES[n] = tables
    return tables
