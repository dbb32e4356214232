"""One hand's rank by table lookups: the evaluator's scalar path, compiled with mypyc.

``rank_hand`` adds up the codes of the cards (``card_codes``; ``protocol.evaluator``
says how the codes work), reads the rank of that sum from a table of ranks, and only
when a suit holds five or more of the cards looks up the best flush of that suit's
rank mask. Plain ints and lists: mypyc turns the loop into a few machine instructions
per card. The tables are the batched path's, their contents from
``protocol.rank_rules``, mapped from their cache files (shared between processes,
read without numpy; built and saved with numpy where they are not there yet). Each
size's tables are loaded on its first hand, so importing this module costs nothing.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Final, SupportsIndex

from acpc_arena.protocol.cards import NUM_CARDS, rank_of, suit_of
from acpc_arena.protocol.disk_cache import cached_view
from acpc_arena.protocol.rank_rules import RANK_KEYS, flush_rank_table, rank_hand_by_rules, rank_table, table_name

MAX_FAST_CARDS: Final = 7
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


_TABLES: Final[list[LookupTables | None]] = [None] * (MAX_FAST_CARDS + 1)


def rank_hand(cards: Sequence[int]) -> int:
    """Hand rank of 1 to 10 distinct cards (larger is better; equal splits the pot)."""
    n = len(cards)
    if n < 1 or n > MAX_FAST_CARDS:
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


def card_codes(n: int) -> list[int]:
    """The code of each card 0..51 in hands of ``n`` cards: its rank's key, and a count of 1 in its suit's field."""
    keys = RANK_KEYS[n]
    return [keys[rank_of(card)] + (1 << (SUIT_SHIFT + 4 * suit_of(card))) for card in range(NUM_CARDS)]


def load_tables(n: int) -> LookupTables:
    """The tables for hands of ``n`` cards (1 to 7), loaded (or built) on first use."""
    tables = _TABLES[n]
    if tables is None:
        ranks = cached_view(table_name(f"rank-table-{n}"), lambda: rank_table(n), "H")
        flush_ranks = cached_view(table_name("flush-rank"), flush_rank_table, "i")
        tables = LookupTables(card_codes(n), ranks, flush_ranks.tolist())
        _TABLES[n] = tables
    return tables


def warm_up(sizes: Sequence[int] = (5, 6, 7)) -> None:
    """Load (or build) the tables for hands of these sizes now rather than at first use."""
    for n in sizes:
        load_tables(n)
