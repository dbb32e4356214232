"""Poker hand evaluation: the best five-card hand from any 1 to 10 cards.

Every hand gets a *hand rank*, an integer where larger is better and equal means a
split pot. Ranks compare hands of the same number of cards (the only comparison a
showdown makes). Hands of five or more cards rank 0 (7-5-4-3-2 offsuit) to 7,461
(royal flush), the 7,462 standard classes; hands of fewer cards (Kuhn, Leduc) get
ranks from 7,462 up, ordered among themselves by category and then by their cards
high to low, as the ACPC server orders them.

How it is fast: each rank *r* has a key ``RANK_KEYS[n][r]`` chosen (by a greedy
search, checked in the tests) so that the sum of the keys of any ``n`` cards
identifies their rank multiset; a table indexed by that sum gives the rank of
every hand without a flush. Each card's code also carries a 4-bit count for its
suit above bit 32, so the same sum tells whether a suit has five cards; only then
is the flush suit's rank mask looked up. The batched path does this with a few
numpy operations per column of cards; the scalar path, ``rank_hand``, with one
loop in ``protocol.rank_lookup``, which is compiled with mypyc.

The tables are built on first use, not at import, and take about half a second;
they are kept in ``$ACPC_ARENA_CACHE`` (default ``~/.cache/acpc-arena``) under a
name that changes whenever this file does, so later processes load them in
milliseconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, NUM_CARDS, rank_of, suit_of
from acpc_arena.protocol.disk_cache import cached_array, cached_view, source_digest
from acpc_arena.protocol.rank_lookup import (
    FLUSH_ADD,
    FLUSH_BITS,
    KEY_MASK,
    MAX_LOOKUP_CARDS,
    SUIT_SHIFT,
    load_tables,
)
from acpc_arena.protocol.rank_lookup import rank_hand as rank_hand

if TYPE_CHECKING:  # numpy is imported where used: a command starts without it (make bench SECTIONS=startup)
    import numpy as np

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
MAX_FAST_CARDS = MAX_LOOKUP_CARDS
HAND_RANKS = 9841
"""How many hand ranks there are (0 .. 7,461 for five cards and more, the rest for fewer)."""
_BATCH_ROWS = 1 << 15


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
def _classes() -> tuple[int, ...]:
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
    return {packed: rank for rank, packed in enumerate(_classes())}


def _rank_of_packed(packed: int) -> int:
    return _rank_by_packed()[packed]


@cache
def _source_digest() -> str:
    return source_digest(Path(__file__))


def _cached(name: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """``build()``, kept on disk between processes under a name that changes with this file."""
    return cached_array(f"{name}-{_source_digest()}", build)


def _build_flush_rank() -> np.ndarray:
    import numpy as np

    flush_rank = np.full(1 << MAX_RANKS, -1, dtype=np.int32)
    for mask in range(1 << MAX_RANKS):
        if mask.bit_count() >= 5:
            flush_rank[mask] = _rank_of_packed(_packed_flush(mask))
    return flush_rank


@cache
def _flush_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batched path's flush tables: the four suits' rank masks of a hand are packed 16 bits a suit.

    (suit-count nibbles -> 16 times the suit holding five or more cards, card -> its rank bit shifted
    to its suit's 16 bits, rank mask -> rank of its best flush or -1).
    """
    import numpy as np

    nibbles = np.arange(1 << 16)
    shift_of_counts = np.zeros(1 << 16, dtype=np.uint64)
    for suit in range(MAX_SUITS):
        shift_of_counts[(nibbles >> (4 * suit)) & 0xF >= 5] = 16 * suit
    suit_rank_bit = np.array([1 << (rank_of(card) + 16 * suit_of(card)) for card in range(NUM_CARDS)], np.uint64)
    return shift_of_counts, suit_rank_bit, _cached("flush-rank", _build_flush_rank)


def _build_rank_table(n: int) -> np.ndarray:
    import numpy as np

    keys = RANK_KEYS[n]
    combos = _multisets(n)
    sums = [sum(keys[r] for r in combo) for combo in combos]
    table = np.zeros(max(sums) + 1, dtype=np.uint16)
    table[np.array(sums)] = [_rank_of_packed(_packed_without_flush(_counts(combo))) for combo in combos]
    return table


@cache
def _size_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(code of each of the 52 cards, rank table indexed by the sum of ``n`` codes' keys)."""
    import numpy as np

    return np.array(_codes(n), dtype=np.uint64), _cached(f"rank-table-{n}", lambda: _build_rank_table(n))


def _codes(n: int) -> list[int]:
    keys = RANK_KEYS[n]
    return [keys[rank_of(card)] + (1 << (SUIT_SHIFT + 4 * suit_of(card))) for card in range(NUM_CARDS)]


@cache
def _pair_codes(n: int) -> np.ndarray:
    """The sum of the codes of two cards ``a`` and ``b`` at ``a + 256 * b`` (two uint8 cards read as one
    little-endian uint16)."""
    import numpy as np

    codes = _size_tables(n)[0]
    pairs = np.zeros(1 << 16, dtype=np.uint64)
    cards = np.arange(NUM_CARDS)
    pairs[(cards[:, None] + 256 * cards[None, :]).ravel()] = (codes[:, None] + codes[None, :]).ravel()
    return pairs


def lookup_tables(n: int) -> tuple[list[int], memoryview, list[int]]:
    """The scalar path's tables for hands of ``n`` cards (``protocol.rank_lookup.LookupTables``): each card's
    code, the rank of each sum of codes, the best flush of each rank mask. The batched path's tables, mapped
    from their cache files without numpy where they are there (a process that ranks only one hand at a time
    starts without numpy)."""
    ranks = cached_view(f"rank-table-{n}-{_source_digest()}", lambda: _build_rank_table(n), "H")
    flush_ranks = cached_view(f"flush-rank-{_source_digest()}", _build_flush_rank, "i")
    return _codes(n), ranks, flush_ranks.tolist()


def warm_up(sizes: Sequence[int] = (5, 6, 7)) -> None:
    """Load (or build) the tables for hands of these sizes now rather than at first use."""
    for n in sizes:
        load_tables(n)


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


def rank_hands(cards: np.ndarray, fixed: Sequence[int] = ()) -> np.ndarray:
    """Hand ranks of many hands at once.

    ``cards`` is an (N, k) integer array, one hand per row; the ``fixed`` cards (a
    board, say) are part of every hand and cost nothing per row. ``k + len(fixed)``
    must be 1..7. Returns an (N,) uint16 array.
    """
    return rank_hands_of_players(cards, [fixed])[:, 0]


def rank_hands_of_players(boards: np.ndarray, holes: Sequence[Sequence[int]]) -> np.ndarray:
    """Ranks of several players' hands on many boards: an (N, len(holes)) uint16 array.

    Row i, column p ranks ``holes[p]`` together with ``boards[i]`` (an (N, k) array of
    cards 0..51). The boards' part of the work is done once for all players. Rows are
    processed in blocks that stay in cache; two cards at a time are read as one 16-bit
    index into a table of the codes of every pair.
    """
    import numpy as np

    boards = np.asarray(boards)
    if boards.ndim != 2 or not holes:
        raise ValueError(f"expected an (N, k) array of cards and some players, got shape {boards.shape}")
    sizes = {boards.shape[1] + len(hole) for hole in holes}
    n = sizes.pop()
    if sizes or not 1 <= n <= MAX_FAST_CARDS or boards.shape[1] == 0:
        raise ValueError(f"hands of {n} cards: the batched path takes 1 to {MAX_FAST_CARDS} cards per hand")
    if boards.size and (int(boards.max()) >= NUM_CARDS or int(boards.min()) < 0):
        raise ValueError(f"cards are 0 to {NUM_CARDS - 1}, got {int(boards.min())} to {int(boards.max())}")
    if any(not 0 <= card < NUM_CARDS for hole in holes for card in hole):
        raise ValueError(f"cards are 0 to {NUM_CARDS - 1}, got {[list(hole) for hole in holes]}")
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    codes, table = _size_tables(n)
    pair_codes = _pair_codes(n)
    shift_of_counts, suit_rank_bit, flush_rank = _flush_tables()
    bases = [np.uint64(sum(int(codes[c]) for c in hole)) for hole in holes]
    hole_bits = [np.uint64(sum(int(suit_rank_bit[c]) for c in hole)) for hole in holes]
    out = np.empty((boards.shape[0], len(holes)), dtype=np.uint16)
    key_mask, suit_shift, rank_mask = np.uint64(KEY_MASK), np.uint64(SUIT_SHIFT), np.uint64((1 << MAX_RANKS) - 1)
    flush_add, flush_bits = np.uint64(FLUSH_ADD), np.uint64(FLUSH_BITS)
    k = boards.shape[1]
    for start in range(0, boards.shape[0], _BATCH_ROWS):
        block = boards[start : start + _BATCH_ROWS]
        pairs = np.ndarray(shape=(block.shape[0], k // 2), dtype="<u2", buffer=block, strides=(k, 2))
        board_total = pair_codes.take(pairs[:, 0]) if k > 1 else codes.take(block[:, 0])
        for j in range(1, k // 2):
            board_total += pair_codes.take(pairs[:, j])
        if k > 1 and k % 2:
            board_total += codes.take(block[:, k - 1])
        for p, base in enumerate(bases):
            total = board_total + base if base else board_total
            ranks = table.take(total & key_mask)
            flushed = np.flatnonzero(((total + flush_add) & flush_bits) != 0)  # on bools: several times faster
            if flushed.size:  # the packed rank masks of these rows, shifted to the suit with five or more
                packed = suit_rank_bit.take(block[flushed]).sum(axis=1, dtype=np.uint64) + hole_bits[p]
                shift = shift_of_counts.take((total.take(flushed) >> suit_shift).astype(np.intp))
                flush = flush_rank.take(((packed >> shift) & rank_mask).astype(np.intp))
                ranks[flushed] = np.maximum(ranks.take(flushed), flush)
            out[start : start + block.shape[0], p] = ranks
    return out


def rank_holdings_on_boards(holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Ranks of every holding on every board: an (H, D) uint16 array.

    Entry (i, j) ranks ``holes[i]`` (an (H, k) array) together with ``boards[j]`` (a (D, m) array), for
    many holdings valued on the same draws of the board (equities, hand strengths). Each board's and each
    holding's part of the work is done once; a pair is one addition and a look-up. A holding that shares
    a card with a board gets a rank that means nothing: leave those pairs out.
    """
    import numpy as np

    holes, boards = np.asarray(holes), np.asarray(boards)
    if holes.ndim != 2 or boards.ndim != 2:
        raise ValueError(f"expected (H, k) holes and (D, m) boards, got shapes {holes.shape} and {boards.shape}")
    n = holes.shape[1] + boards.shape[1]
    if not 1 <= n <= MAX_FAST_CARDS:
        raise ValueError(f"hands of {n} cards: the batched path takes 1 to {MAX_FAST_CARDS} cards per hand")
    for cards in (holes, boards):
        if cards.size and (int(cards.max()) >= NUM_CARDS or int(cards.min()) < 0):
            raise ValueError(f"cards are 0 to {NUM_CARDS - 1}, got {int(cards.min())} to {int(cards.max())}")
    codes, table = _size_tables(n)
    shift_of_counts, suit_rank_bit, flush_rank = _flush_tables()
    hole_totals = codes.take(holes.astype(np.intp)).sum(axis=1, dtype=np.uint64)
    board_totals = codes.take(boards.astype(np.intp)).sum(axis=1, dtype=np.uint64)
    hole_bits = suit_rank_bit.take(holes.astype(np.intp)).sum(axis=1, dtype=np.uint64)
    board_bits = suit_rank_bit.take(boards.astype(np.intp)).sum(axis=1, dtype=np.uint64)
    key_mask, suit_shift, rank_mask = np.uint64(KEY_MASK), np.uint64(SUIT_SHIFT), np.uint64((1 << MAX_RANKS) - 1)
    flush_add, flush_bits = np.uint64(FLUSH_ADD), np.uint64(FLUSH_BITS)
    out = np.empty((len(holes), len(boards)), dtype=np.uint16)
    step = max(1, _BATCH_ROWS // max(len(boards), 1))  # holdings a block, a block's totals kept in cache
    for start in range(0, len(holes), step):
        total = hole_totals[start : start + step, None] + board_totals[None, :]
        ranks = table.take(total & key_mask, mode="clip")  # a pair sharing a card may sum past the table
        flushed = np.flatnonzero(((total + flush_add) & flush_bits) != 0)
        if flushed.size:  # the packed rank masks of these pairs, shifted to the suit with five or more
            hole, board = np.divmod(flushed, len(boards))
            packed = hole_bits[start + hole] + board_bits[board]
            shift = shift_of_counts.take((total.ravel()[flushed] >> suit_shift).astype(np.intp))
            flush = flush_rank.take(((packed >> shift) & rank_mask).astype(np.intp))
            flat = ranks.reshape(-1)
            flat[flushed] = np.maximum(flat[flushed], flush)
        out[start : start + step] = ranks
    return out


def hand_category(rank: int) -> int:
    """Category (HIGH_CARD .. STRAIGHT_FLUSH) of a hand rank."""
    return int(_category_table()[rank])


@cache
def _category_table() -> np.ndarray:
    import numpy as np

    return _cached("categories", lambda: (np.array(_classes(), dtype=np.int64) >> 20).astype(np.uint8))


def category_of_ranks(ranks: np.ndarray) -> np.ndarray:
    """``hand_category`` over an array of hand ranks."""
    import numpy as np

    return _category_table()[np.asarray(ranks, dtype=np.intp)]


def describe_rank(rank: int) -> tuple[int, tuple[int, ...]]:
    """(category, card ranks high to low that decide ties) of a hand rank."""
    packed = _classes()[rank]
    ranks = tuple((packed >> (4 * i) & 0xF) - 1 for i in range(4, -1, -1))
    return packed >> 20, tuple(r for r in ranks if r >= 0)
