"""Hand ranks from the rules of poker, and the contents of the evaluator's tables, without numpy.

Every hand gets a *hand rank*, an integer where larger is better and equal means a
split pot. Ranks compare hands of the same number of cards (the only comparison a
showdown makes). Hands of five or more cards rank 0 (7-5-4-3-2 offsuit) to 7,461
(royal flush), the 7,462 standard classes; hands of fewer cards (Kuhn, Leduc) get
ranks from 7,462 up, ordered among themselves by category and then by their cards
high to low, as the ACPC server orders them.

The classes are enumerated here from the rules (``hand_classes``); ``rank_hand_by_rules``
ranks any hand by them (the reference path), and the builders of the tables that the
fast paths look ranks up in (``protocol.rank_lookup`` one hand at a time,
``protocol.evaluator`` batched with numpy) compute their contents from them, named on
disk by ``table_name`` so that a change to this file renames them.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, rank_of, suit_of
from acpc_arena.protocol.disk_cache import source_digest

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

# For n cards: rank keys whose n-card sums (at most four of a rank) are all distinct.
RANK_KEYS: dict[int, tuple[int, ...]] = {
    1: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
    2: (0, 1, 3, 7, 12, 20, 30, 44, 65, 80, 96, 122, 147),
    3: (0, 1, 4, 13, 32, 71, 124, 218, 375, 572, 744, 1208, 1556),
    4: (0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603, 4967, 8194, 13663),
    5: (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415),
    6: (0, 1, 5, 22, 98, 422, 1734, 5760, 14270, 37951, 90838, 206930, 436437),
    7: (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181),
}
HAND_RANKS = 9841
"""How many hand ranks there are (0 .. 7,461 for five cards and more, the rest for fewer)."""


def _pack(category: int, ranks: Sequence[int]) -> int:
    """Category then up to five ranks (high to low) as one sortable integer."""
    value = category
    for i in range(5):
        value = value * 16 + (ranks[i] + 1 if i < len(ranks) else 0)
    return value


def _top_straight(rank_mask: int) -> int:
    """Rank of the top card of the best straight in a rank mask, or -1 (the wheel tops at 3)."""
    for top in range(MAX_RANKS - 1, 3, -1):
        if (rank_mask >> (top - 4)) & 0b11111 == 0b11111:
            return top
    if rank_mask & 0b1111 == 0b1111 and rank_mask >> 12 & 1:  # the wheel: A-2-3-4-5
        return 3
    return -1


def _packed_without_flush(counts: Sequence[int]) -> int:
    """Packed value of the best hand of a rank multiset, ignoring suits."""
    ranks = [r for r in range(MAX_RANKS - 1, -1, -1) if counts[r]]
    pairs = [r for r in ranks if counts[r] >= 2]
    trips = [r for r in pairs if counts[r] >= 3]
    quads = [r for r in trips if counts[r] >= 4]
    if quads:
        q = quads[0]
        return _pack(QUADS, [q, *[r for r in ranks if r != q][:1]])
    if trips:
        t = trips[0]
        others = [r for r in pairs if r != t]
        if others:
            return _pack(FULL_HOUSE, [t, others[0]])
    top = _top_straight(sum(1 << r for r in ranks)) if len(ranks) >= 5 else -1
    if top >= 0:
        return _pack(STRAIGHT, [top])
    if trips:
        t = trips[0]
        return _pack(TRIPS, [t, *[r for r in ranks if r != t][:2]])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return _pack(TWO_PAIR, [high, low, *[r for r in ranks if r != high and r != low][:1]])
    if pairs:
        p = pairs[0]
        return _pack(PAIR, [p, *[r for r in ranks if r != p][:3]])
    return _pack(HIGH_CARD, ranks[:5])


def _packed_flush(rank_mask: int) -> int:
    """Packed value of the best hand within one suit holding five or more ranks."""
    top = _top_straight(rank_mask)
    if top >= 0:
        return _pack(STRAIGHT_FLUSH, [top])
    ranks = [r for r in range(MAX_RANKS - 1, -1, -1) if rank_mask >> r & 1]
    return _pack(FLUSH, ranks[:5])


def _multisets(n: int) -> list[tuple[int, ...]]:
    """Every multiset of ``n`` ranks with at most four of each rank."""
    return [
        combo
        for combo in itertools.combinations_with_replacement(range(MAX_RANKS), n)
        if all(combo.count(r) <= 4 for r in set(combo))
    ]


def _counts(combo: Sequence[int]) -> list[int]:
    counts = [0] * MAX_RANKS
    for r in combo:
        counts[r] += 1
    return counts


@cache
def hand_classes() -> tuple[int, ...]:
    """Every packed value a hand can have, in rank order: rank = index.

    First the five-card classes, sorted; then the classes only hands of fewer than
    five cards reach (they have fewer tie-breaking cards), sorted. Hands of six or
    more cards play their best five, so these are all the classes there are.
    """
    five = {_packed_without_flush(_counts(combo)) for combo in _multisets(5)}
    five.update(_packed_flush(mask) for mask in range(1 << MAX_RANKS) if mask.bit_count() == 5)
    fewer = {_packed_without_flush(_counts(combo)) for n in range(1, 5) for combo in _multisets(n)}
    return tuple(sorted(five)) + tuple(sorted(fewer - five))


@cache
def _rank_by_packed() -> dict[int, int]:
    return {packed: rank for rank, packed in enumerate(hand_classes())}


def _rank_of_packed(packed: int) -> int:
    return _rank_by_packed()[packed]


@cache
def _source_digest() -> str:
    return source_digest(Path(__file__))


def table_name(kind: str) -> str:
    """The cache file name of a table of ``kind`` (``rank-table-5``, ``flush-rank``, ``categories``): it
    changes whenever this file does."""
    return f"{kind}-{_source_digest()}"


def rank_table(n: int) -> array[int]:
    """The rank (uint16) of each hand of ``n`` cards without a flush, at the sum of its cards' ``RANK_KEYS[n]``."""
    keys = RANK_KEYS[n]
    combos = _multisets(n)
    sums = [sum(keys[r] for r in combo) for combo in combos]
    table = array("H", bytes(2 * (max(sums) + 1)))
    for total, combo in zip(sums, combos, strict=True):
        table[total] = _rank_of_packed(_packed_without_flush(_counts(combo)))
    return table


def flush_rank_table() -> array[int]:
    """The rank (int32) of the best flush in each 13-bit rank mask of one suit, -1 under five ranks."""
    table = array("i", [-1]) * (1 << MAX_RANKS)
    for mask in range(1 << MAX_RANKS):
        if mask.bit_count() >= 5:
            table[mask] = _rank_of_packed(_packed_flush(mask))
    return table


def category_table() -> array[int]:
    """The category (uint8, ``HIGH_CARD`` .. ``STRAIGHT_FLUSH``) of each hand rank."""
    return array("B", [packed >> 20 for packed in hand_classes()])


def rank_hand_by_rules(cards: Sequence[int]) -> int:
    """Hand rank straight from the rules (any number of cards); the reference path."""
    if not cards:
        raise ValueError("no cards to rank")
    value = _packed_without_flush(_counts([rank_of(card) for card in cards]))
    for suit in range(MAX_SUITS):
        mask = 0
        for card in cards:
            if suit_of(card) == suit:
                mask |= 1 << rank_of(card)
        if mask.bit_count() >= 5:
            value = max(value, _packed_flush(mask))
    return _rank_of_packed(value)


def describe_rank(rank: int) -> tuple[int, tuple[int, ...]]:
    """(category, card ranks high to low that decide ties) of a hand rank."""
    packed = hand_classes()[rank]
    ranks = tuple((packed >> (4 * i) & 0xF) - 1 for i in range(4, -1, -1))
    return packed >> 20, tuple(r for r in ranks if r >= 0)
