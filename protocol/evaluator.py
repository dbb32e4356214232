"""Poker hand evaluation: the best five-card hand from any 1 to 10 cards, one or millions at a time.

The ranks are ``protocol.rank_rules``'s (larger is better, equal splits the pot;
0 to 7,461 for five cards and more). How it is fast: each rank *r* has a key
``RANK_KEYS[n][r]`` chosen (by a greedy search, checked in the tests) so that the
sum of the keys of any ``n`` cards identifies their rank multiset; a table indexed
by that sum gives the rank of every hand without a flush. Each card's code also
carries a 4-bit count for its suit above bit 32, so the same sum tells whether a
suit has five cards; only then is the flush suit's rank mask looked up. The batched
path here does this with a few numpy operations per column of cards; the scalar
path, ``rank_hand``, with one loop in ``protocol.rank_lookup``, which is compiled
with mypyc and runs without numpy (the dealer ranks its hands with it).

This module imports numpy; it also gives the scalar path's and the rules' names
(``rank_hand``, ``describe_rank``, the categories), so that one import serves a
caller that has numpy anyway. The tables are built on first use, not at import, and
take about half a second; they are kept in ``$ACPC_ARENA_CACHE`` (default
``~/.cache/acpc-arena``) under a name that changes whenever ``rank_rules.py`` does,
so later processes load them in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, NUM_CARDS, rank_of, suit_of
from acpc_arena.protocol.disk_cache import cached_array
from acpc_arena.protocol.rank_lookup import (
    FLUSH_ADD,
    FLUSH_BITS,
    KEY_MASK,
    MAX_FAST_CARDS,
    SUIT_SHIFT,
    card_codes,
    rank_hand,
    warm_up,
)
from acpc_arena.protocol.rank_rules import (
    CATEGORY_NAMES,
    FLUSH,
    FULL_HOUSE,
    HAND_RANKS,
    HIGH_CARD,
    PAIR,
    QUADS,
    RANK_KEYS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    category_table,
    describe_rank,
    flush_rank_table,
    rank_hand_by_rules,
    rank_table,
    table_name,
)

__all__ = [
    "CATEGORY_NAMES",
    "FLUSH",
    "FULL_HOUSE",
    "HAND_RANKS",
    "HIGH_CARD",
    "MAX_FAST_CARDS",
    "PAIR",
    "QUADS",
    "RANK_KEYS",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "TRIPS",
    "TWO_PAIR",
    "category_of_ranks",
    "describe_rank",
    "hand_category",
    "rank_hand",
    "rank_hand_by_rules",
    "rank_hands",
    "rank_hands_of_players",
    "rank_holdings_on_boards",
    "warm_up",
]

SOURCES = (Path(__file__).with_name("evaluator.py"), Path(__file__).with_name("rank_rules.py"))
"""The files whose code decides a hand's rank: a cache of values computed from ranks digests them."""

_BATCH_ROWS = 1 << 15


@cache
def _flush_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batched path's flush tables: the four suits' rank masks of a hand are packed 16 bits a suit.

    (suit-count nibbles -> 16 times the suit holding five or more cards, card -> its rank bit shifted
    to its suit's 16 bits, rank mask -> rank of its best flush or -1).
    """
    nibbles = np.arange(1 << 16)
    shift_of_counts = np.zeros(1 << 16, dtype=np.uint64)
    for suit in range(MAX_SUITS):
        shift_of_counts[(nibbles >> (4 * suit)) & 0xF >= 5] = 16 * suit
    suit_rank_bit = np.array([1 << (rank_of(card) + 16 * suit_of(card)) for card in range(NUM_CARDS)], np.uint64)
    return shift_of_counts, suit_rank_bit, cached_array(table_name("flush-rank"), flush_rank_table)


@cache
def _size_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(code of each of the 52 cards, rank table indexed by the sum of ``n`` codes' keys)."""
    return np.array(card_codes(n), dtype=np.uint64), cached_array(table_name(f"rank-table-{n}"), lambda: rank_table(n))


@cache
def _pair_codes(n: int) -> np.ndarray:
    """The sum of the codes of two cards ``a`` and ``b`` at ``a + 256 * b`` (two uint8 cards read as one
    little-endian uint16)."""
    codes = _size_tables(n)[0]
    pairs = np.zeros(1 << 16, dtype=np.uint64)
    cards = np.arange(NUM_CARDS)
    pairs[(cards[:, None] + 256 * cards[None, :]).ravel()] = (codes[:, None] + codes[None, :]).ravel()
    return pairs


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
    return cached_array(table_name("categories"), category_table)


def category_of_ranks(ranks: np.ndarray) -> np.ndarray:
    """``hand_category`` over an array of hand ranks."""
    return _category_table()[np.asarray(ranks, dtype=np.intp)]
