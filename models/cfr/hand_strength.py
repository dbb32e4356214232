"""Exact hand strength of every starting hand on a hold'em board, at once.

The 1,326 two-card hands (``HANDS``) are scored together on one board, which is
what public chance sampling needs (``public_chance.py``): the board is sampled,
every hand is played.

- ``river_strengths(boards)``: HS, the share of the pot a hand wins at showdown
  against one random hand of the 990 the unseen cards make (ties count half),
  exact, for every hand on each complete board.
- ``turn_ehs2(board)``: E[HS^2] over the 46 river cards, exact.
- ``hands_turn_ehs2(holes, board)``, ``hands_river_strength(holes, board)``: the
  same numbers for a few holdings (an agent's own, AIVAT's decoys), counted from
  the board's ``TurnBoard``: every opponent hand's rank on every river, ranked once
  per four-card board and kept for the last boards asked (a river whose board has
  none kept ranks a few holdings' opponents alone).
- ``flop_ehs2(flop)``: E[HS^2] over the 1,081 turn and river cards, exact; the
  ``FlopTable`` keeps it for the 1,755 flops that differ up to suits, so that a
  flop costs one lookup after the table is built.
- ``canonical_board(board)``, ``canonical_boards(size)``: a board's representative up to
  suits and every representative (the flops' here, the turn boards' in ``turn_table.py``).

Hands that share a card with the board get NaN. The counting: on a board, hand h
wins against the hands ranked below it that share no card with it. Those are all
the hands ranked below, less those below holding either of h's cards (no hand
below holds both: that would be h). The counts come from one sort of the hands by
rank and one sort of the 51 hands that hold each card.
"""

from __future__ import annotations

import itertools
from functools import cache, cached_property

import numpy as np

from acpc_arena.protocol import evaluator
from acpc_arena.protocol.cards import MAX_SUITS
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.evaluator import rank_hands

NUM_HANDS = 1326
HANDS = np.array(list(itertools.combinations(range(52), 2)), dtype=np.uint8)
"""(1326, 2) every two-card hand, the lower card first."""
HAND_INDEX = np.full((52, 52), -1, dtype=np.int64)
HAND_INDEX[HANDS[:, 0], HANDS[:, 1]] = np.arange(NUM_HANDS)
HAND_INDEX[HANDS[:, 1], HANDS[:, 0]] = np.arange(NUM_HANDS)
CARD_HANDS = np.array([[HAND_INDEX[c, x] for x in range(52) if x != c] for c in range(52)], dtype=np.int64)
"""(52, 51) the hands holding each card."""
OPPONENT_HANDS = 990
"""Opponent hands against one hand on a complete board: 45 unseen cards, two of them."""


def board_mask(boards: np.ndarray) -> np.ndarray:
    """(B, 1326) whether each hand shares no card with each board (a (B, k) array)."""
    on_board = np.zeros((len(boards), 52), dtype=bool)
    np.put_along_axis(on_board, boards.astype(np.int64), True, axis=1)
    return ~(on_board[:, HANDS[:, 0]] | on_board[:, HANDS[:, 1]])


def _first_and_after(sorted_ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position of rows sorted along the last axis: the index where its value starts and
    the index after where it ends."""
    size = sorted_ranks.shape[-1]
    index = np.broadcast_to(np.arange(size), sorted_ranks.shape)
    starts = np.ones(sorted_ranks.shape, dtype=bool)
    starts[..., 1:] = sorted_ranks[..., 1:] != sorted_ranks[..., :-1]
    first = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
    ends = np.ones(sorted_ranks.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    after = np.flip(np.minimum.accumulate(np.flip(np.where(ends, index + 1, size), axis=-1), axis=-1), axis=-1)
    return first, after


def showdown_counts(ranks: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranks (B, 1326) of every hand on B boards (``valid``: the hands off the board): how many
    hands sharing no card with each hand rank below it, and how many rank the same (itself excluded)."""
    big = np.iinfo(np.int32).max
    keyed = np.where(valid, ranks.astype(np.int32), big)  # hands on the board sort last, never counted
    below_all, same_all = _below_and_same(keyed)
    by_card = keyed[:, CARD_HANDS]  # (B, 52, 51)
    below_card, same_card = _below_and_same(by_card)
    # the position of each hand in the list of each of its two cards
    below = below_all.copy()
    same = same_all.copy()
    for column in (0, 1):
        cards = HANDS[:, column].astype(np.int64)
        slot = _slot_in_card_list(cards)
        below -= below_card[:, cards, slot]
        same -= same_card[:, cards, slot]
    return below, same + 1  # the hand itself is among the same rank of all and of both its cards


def _below_and_same(keyed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Along the last axis: how many values lie below each, and how many equal it (itself included)."""
    order = np.argsort(keyed, axis=-1, kind="stable")
    ranked = np.take_along_axis(keyed, order, axis=-1)
    first, after = _first_and_after(ranked)
    below_sorted, same_sorted = first, after - first
    below = np.empty_like(below_sorted)
    same = np.empty_like(same_sorted)
    np.put_along_axis(below, order, below_sorted, axis=-1)
    np.put_along_axis(same, order, same_sorted, axis=-1)
    return below, same


@cache
def _slot_table() -> np.ndarray:
    """(52, 1326) the position of each hand in ``CARD_HANDS[card]`` (-1 where it does not hold the card)."""
    table = np.full((52, NUM_HANDS), -1, dtype=np.int64)
    for card in range(52):
        table[card, CARD_HANDS[card]] = np.arange(51)
    return table


def _slot_in_card_list(cards: np.ndarray) -> np.ndarray:
    return _slot_table()[cards, np.arange(NUM_HANDS)]


def river_strengths(boards: np.ndarray) -> np.ndarray:
    """(B, 1326) the exact hand strength of every hand on each of the complete boards (B, 5); NaN for
    the hands that share a card with the board."""
    boards = np.asarray(boards, dtype=np.uint8).reshape(-1, 5)
    count = len(boards)
    valid = board_mask(boards)
    cards = np.concatenate(
        [np.broadcast_to(HANDS, (count, NUM_HANDS, 2)), np.broadcast_to(boards[:, None, :], (count, NUM_HANDS, 5))],
        axis=2,
    ).reshape(-1, 7)
    flat = np.zeros(count * NUM_HANDS, dtype=np.uint16)
    flat[valid.reshape(-1)] = rank_hands(cards[valid.reshape(-1)])  # a hand on the board is no hand
    below, same = showdown_counts(flat.reshape(count, NUM_HANDS), valid)
    strength = (below + 0.5 * same) / OPPONENT_HANDS
    return np.where(valid, strength, np.nan)


def _mean_square_over(boards: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """(1326,) the mean of HS^2 over the complete ``boards`` that share no card with each hand
    (each board extends the same partial board ``fixed``); NaN for hands on ``fixed``."""
    total = np.zeros(NUM_HANDS)
    seen = np.zeros(NUM_HANDS)
    for start in range(0, len(boards), 128):
        strength = river_strengths(boards[start : start + 128])
        valid = ~np.isnan(strength)
        total += np.where(valid, strength, 0.0).__pow__(2).sum(axis=0)
        seen += valid.sum(axis=0)
    on_fixed = ~board_mask(fixed[None, :])[0]
    return np.where(on_fixed | (seen == 0), np.nan, total / np.maximum(seen, 1))


def hand_river_strength(hole: np.ndarray, board: np.ndarray) -> float:
    """HS of one hand on a complete board, the same number ``river_strengths`` gives it."""
    return float(hands_river_strength(np.asarray(hole).reshape(1, 2), board)[0])


def hand_turn_ehs2(hole: np.ndarray, board: np.ndarray) -> float:
    """E[HS^2] of one hand on a four-card board, the same number ``turn_ehs2`` gives it."""
    return float(hands_turn_ehs2(np.asarray(hole).reshape(1, 2), board)[0])


def hands_river_strength(holes: np.ndarray, board: np.ndarray) -> np.ndarray:
    """(H,) HS of each of the holes (H, 2) on a complete board, the numbers ``river_strengths`` gives
    them (the same counts, the same arithmetic). Holes on one board share its ``TurnBoard``."""
    board = np.asarray(board, dtype=np.uint8)
    if board.shape != (5,):
        raise ValueError(f"a river board has 5 cards, not {board.tolist()}")
    turn = tuple(board[:4].tolist())
    holes = np.asarray(holes).reshape(-1, 2)
    if turn not in TURN_BOARDS and len(holes) <= RIVER_ALONE:
        return _river_alone(holes, board)
    kept = turn_board(turn)
    return kept.strengths(kept.positions(holes), kept.position_of(int(board[4]), holes))[:, 0]


RIVER_ALONE = 4
"""Holdings on a river whose four-card board has no ``TurnBoard`` kept, up to which each holding's
990 opponent hands are ranked instead of building one."""
_PAIRS_OF_45 = np.array(list(itertools.combinations(range(45), 2)), dtype=np.int64)


def _river_alone(holes: np.ndarray, board: np.ndarray) -> np.ndarray:
    """``hands_river_strength`` with each holding's 990 opponent hands ranked for it."""
    strengths = np.empty(len(holes))
    for row, hole in enumerate(holes.tolist()):
        unseen = np.ones(52, dtype=bool)
        unseen[board] = False
        if len(set(hole)) != 2 or not unseen[hole].all():
            raise ValueError(f"a hole of {holes.tolist()} repeats a card or holds one of the board {board.tolist()}")
        unseen[hole] = False
        hands = np.concatenate([np.flatnonzero(unseen).astype(np.uint8)[_PAIRS_OF_45], np.array([hole], np.uint8)])
        ranks = rank_hands(hands, board.tolist())  # the opponents' and, last, the holding's: one call
        theirs, mine = ranks[:-1], ranks[-1]
        below, same = np.count_nonzero(theirs < mine), np.count_nonzero(theirs == mine)
        strengths[row] = (below + 0.5 * same) / OPPONENT_HANDS
    return strengths


def hands_turn_ehs2(holes: np.ndarray, board: np.ndarray) -> np.ndarray:
    """(H,) E[HS^2] of each of the holes (H, 2) on a four-card board, the numbers ``turn_ehs2`` gives
    them: the squares added one river at a time in the order of the cards, as ``turn_ehs2``'s sum over
    its rows does. Holes on one board share its ``TurnBoard``."""
    board = np.asarray(board, dtype=np.uint8)
    if board.shape != (4,):
        raise ValueError(f"a turn board has 4 cards, not {board.tolist()}")
    turn = turn_board(tuple(board.tolist()))
    positions = turn.positions(holes)
    rivers = _RIVERS[_HOLE_PAIR[positions[:, 0], positions[:, 1]]]  # (H, 46) ascending, as the cards
    squares = turn.strengths(positions, rivers) ** 2
    totals = np.empty(len(positions))
    for row, values in enumerate(squares.tolist()):
        total = 0.0
        for value in values:
            total += value
        totals[row] = total
    return totals / rivers.shape[1]


UNSEEN = 48
"""Cards off a four-card board."""
NOT_A_HAND = np.iinfo(np.uint16).max
"""A ``TurnBoard`` rank where two of the three cards are one: above every rank, so never counted."""
_TRIPLES = np.array(list(itertools.combinations(range(UNSEEN), 3)), dtype=np.int64)
_PAIRS = np.array(list(itertools.combinations(range(UNSEEN), 2)), dtype=np.int64)
_SLOTS = len(_PAIRS) + 1
"""A river's row of a ``TurnBoard``: a slot for each pair of positions, and one more never written."""
_HOLE_PAIR = np.full((UNSEEN, UNSEEN), _SLOTS - 1, dtype=np.int64)
_HOLE_PAIR[_PAIRS[:, 0], _PAIRS[:, 1]] = np.arange(len(_PAIRS))
_HOLE_PAIR[_PAIRS[:, 1], _PAIRS[:, 0]] = np.arange(len(_PAIRS))
"""The slot of each pair of positions (either order); a position with itself: the slot never written."""
_RIVERS = np.array([[r for r in range(UNSEEN) if r not in pair] for pair in _PAIRS.tolist()], dtype=np.int64)
"""(1128, 46) the positions left as rivers by each pair of positions (``_HOLE_PAIR``), ascending."""
_RIVER_LAST = ((1, 2, 0), (0, 2, 1), (0, 1, 2))
"""Each card of a triple as the river, after the other two."""
_TRIPLE_ENTRIES = np.stack(
    [_TRIPLES[:, r] * _SLOTS + _HOLE_PAIR[_TRIPLES[:, a], _TRIPLES[:, b]] for a, b, r in _RIVER_LAST]
)
"""(3, 17296) the entries of each of ``_TRIPLES`` with each of its cards as the river."""
_ENTRY_TRIPLE = np.full((UNSEEN, _SLOTS), len(_TRIPLES), dtype=np.intp)
for _entries in _TRIPLE_ENTRIES:
    _ENTRY_TRIPLE.reshape(-1)[_entries] = np.arange(len(_TRIPLES))
"""(48, _SLOTS) the triple of ``_TRIPLES`` whose rank each entry holds (``len(_TRIPLES)``: none)."""


COUNT_DIRECTLY = 8 * 46
"""Holdings times rivers up to which ``TurnBoard.strengths`` compares each river's whole row of
opponent ranks (a few holdings, as an agent asks) instead of sorting the rows once and searching them."""


class TurnBoard:
    """The rank of every two unseen cards with every river on one four-card board, from which the HS
    of any hand on any river and its E[HS^2] on the turn are counted without ranking again.

    ``ranks[r, _HOLE_PAIR[a, b]]`` ranks the seven cards made of the board and the unseen cards at
    positions a, b, r (positions in ``unseen``, the 48 cards off the board in order); a pair holding
    r is ``NOT_A_HAND``. Each opponent hand {a, b} on river r is one entry, shared by every hole. A
    hand's wins on river r are the opponent hands ranked below it, less those holding one of its cards
    (no hand below holds both: that would be the hand itself); its ties likewise, the hand itself
    taken back once.
    """

    def __init__(self, board: tuple[int, ...]) -> None:
        self.board = board
        off_board = np.ones(52, dtype=bool)
        off_board[list(board)] = False
        self.unseen = np.flatnonzero(off_board).astype(np.uint8)
        self.position = np.full(52, -1, dtype=np.int64)
        self.position[self.unseen] = np.arange(UNSEEN)
        ranks = rank_hands(self.unseen.take(_TRIPLES), list(board))
        self.ranks = np.append(ranks, np.uint16(NOT_A_HAND)).take(_ENTRY_TRIPLE)  # each river's block

    @cached_property
    def keyed(self) -> np.ndarray:
        """Every river's opponent ranks, river r's at ``r << 16`` up, in one ascending array (sorted when
        first asked: a few holdings are counted without it)."""
        by_river = np.sort(self.ranks, axis=1)  # NOT_A_HAND (a pair holding r, the unwritten slot) last
        return (by_river.astype(np.int32) + (np.arange(UNSEEN, dtype=np.int32) << 16)[:, None]).reshape(-1)

    def positions(self, holes: np.ndarray) -> np.ndarray:
        """(H, 2) the positions of the holes' cards; a hole holding a board card is refused."""
        holes = np.asarray(holes, dtype=np.int64).reshape(-1, 2)
        positions = self.position[holes]
        if (positions < 0).any() or (positions[:, 0] == positions[:, 1]).any():
            raise ValueError(f"a hole of {holes.tolist()} repeats a card or holds one of the board {list(self.board)}")
        return positions

    def position_of(self, card: int, holes: np.ndarray) -> np.ndarray:
        """(H, 1) the position of the river ``card`` for each hole; one on the board or a hole is refused."""
        position = int(self.position[card])
        if position < 0 or card in np.asarray(holes).reshape(-1).tolist():
            raise ValueError(f"the river {card} is on the board {list(self.board)} or in a hole")
        return np.full((len(np.asarray(holes).reshape(-1, 2)), 1), position, dtype=np.int64)

    def strengths(self, positions: np.ndarray, rivers: np.ndarray) -> np.ndarray:
        """(H, R) HS of each hole (``positions``) on each of its rivers (positions (H, R)): wins plus half
        the ties over the 990 opponent hands."""
        x, y = positions[:, 0, None], positions[:, 1, None]  # (H, 1) each
        mine = self.ranks[rivers, _HOLE_PAIR[x, y]].astype(np.int32)  # (H, R)
        if rivers.size <= COUNT_DIRECTLY:  # each river's row compared whole: no sort
            row = self.ranks[rivers]  # (H, R, _SLOTS)
            below = (row < mine[:, :, None]).sum(axis=2)
            same = (row == mine[:, :, None]).sum(axis=2)
        else:
            key = mine + (rivers << 16).astype(np.int32)
            offset = rivers * _SLOTS
            below = np.searchsorted(self.keyed, key, side="left") - offset
            same = np.searchsorted(self.keyed, key, side="right") - offset - below
        for card in (x, y):
            holding = self.ranks[rivers[:, :, None], _HOLE_PAIR[card]]  # (H, R, 48): each hand holding the card
            below -= (holding < mine[:, :, None]).sum(axis=2)
            same -= (holding == mine[:, :, None]).sum(axis=2)
        return (below + 0.5 * (same + 1)) / OPPONENT_HANDS  # the hand itself was taken from both cards' ties


TURN_BOARDS: dict[tuple[int, ...], TurnBoard] = {}
"""The ``TurnBoard``s of the last ``TURN_BOARDS_KEPT`` four-card boards asked, the last asked last."""
TURN_BOARDS_KEPT = 32


def turn_board(board: tuple[int, ...]) -> TurnBoard:
    """The ``TurnBoard`` of a four-card board, kept for the last boards asked (a hand's turn and river,
    and every holding asked on one board, share it)."""
    kept = TURN_BOARDS.pop(board, None)
    if kept is None:
        kept = TurnBoard(board)
        if len(TURN_BOARDS) >= TURN_BOARDS_KEPT:
            del TURN_BOARDS[next(iter(TURN_BOARDS))]
    TURN_BOARDS[board] = kept
    return kept


def turn_ehs2(board: np.ndarray) -> np.ndarray:
    """(1326,) exact E[HS^2] of every hand over the river cards, for a four-card board."""
    board = np.asarray(board, dtype=np.uint8)
    rivers = np.setdiff1d(np.arange(52, dtype=np.uint8), board)
    boards = np.concatenate([np.broadcast_to(board, (len(rivers), 4)), rivers[:, None]], axis=1)
    return _mean_square_over(boards, board)


def flop_ehs2(flop: np.ndarray) -> np.ndarray:
    """(1326,) exact E[HS^2] of every hand over the turn and river cards, for a three-card flop."""
    flop = np.asarray(flop, dtype=np.uint8)
    rest = np.setdiff1d(np.arange(52, dtype=np.uint8), flop)
    pairs = rest[np.array(list(itertools.combinations(range(len(rest)), 2)))]
    boards = np.concatenate([np.broadcast_to(flop, (len(pairs), 3)), pairs], axis=1)
    return _mean_square_over(boards, flop)


# -- boards up to suits ---------------------------------------------------------------

SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(MAX_SUITS))), dtype=np.int64)


def _permuted(cards: np.ndarray, permutation: np.ndarray) -> np.ndarray:
    return (cards // MAX_SUITS) * MAX_SUITS + permutation[cards % MAX_SUITS]


SUIT_IMAGES = np.stack([_permuted(np.arange(52), permutation) for permutation in SUIT_PERMUTATIONS])
"""(24, 52) each card's image under each of ``SUIT_PERMUTATIONS``."""
IMAGE_BITS = np.left_shift(np.uint64(1), (51 - SUIT_IMAGES).astype(np.uint64))
"""(24, 52) the bit of each card's image, card 0's highest: of two sets of as many cards, the one whose sorted
cards come first has the larger sum of bits (the first card where they differ is in it)."""


def canonical_board(board: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """The board's representative up to suits (the smallest sorted image under the 24 suit
    permutations; the first permutation of ``SUIT_PERMUTATIONS`` that gives it) and the permutation
    of the 52 cards that maps the board onto it."""
    board = np.asarray(board, dtype=np.intp)
    best = int(np.argmax(IMAGE_BITS[:, board].sum(axis=1)))  # the first largest sum of bits
    mapping = SUIT_IMAGES[best]
    return tuple(sorted(mapping[board].tolist())), mapping


@cache
def canonical_boards(size: int) -> tuple[tuple[int, ...], ...]:
    """The boards of ``size`` cards that differ up to suits, each as its representative, in order
    (``canonical_board`` of every board at once: the largest sum of bits of the 24 images)."""
    boards = np.array(list(itertools.combinations(range(52), size)), dtype=np.intp)
    sums = np.zeros((len(SUIT_IMAGES), len(boards)), dtype=np.uint64)
    for column in boards.T:
        sums += IMAGE_BITS[:, column]
    largest = np.unique(sums.max(axis=0))[::-1]  # the representatives' sums, their cards in order
    held = (largest[:, None] >> (51 - np.arange(52)).astype(np.uint64)) & np.uint64(1)
    return tuple(tuple(np.flatnonzero(row).tolist()) for row in held)


def canonical_flop(flop: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """``canonical_board`` of a three-card flop."""
    return canonical_board(flop)


def canonical_flops() -> tuple[tuple[int, ...], ...]:
    """The 1,755 flops that differ up to suits, each as its representative (``canonical_boards(3)``)."""
    return canonical_boards(3)


FLOP_TABLE_VERSION = 1
"""Part of the flop table's cache name: raise it when what the table holds changes."""


class FlopTable:
    """Exact flop E[HS^2] of every hand on every flop, kept for the flops up to suits.

    Built once (about a second a flop) and cached on disk like the evaluator's tables.
    """

    def __init__(self) -> None:
        flops = canonical_flops()
        self.row = {flop: i for i, flop in enumerate(flops)}
        code = source_digest(*evaluator.SOURCES)
        self.values = cached_array(f"flop-ehs2-exact-v{FLOP_TABLE_VERSION}-{code}", lambda: self._build(flops))

    @staticmethod
    def _build(flops: tuple[tuple[int, ...], ...]) -> np.ndarray:
        return np.stack([flop_ehs2(np.array(f)) for f in flops]).astype(np.float32)

    def ehs2(self, flop: np.ndarray) -> np.ndarray:
        """(1326,) E[HS^2] of every hand on ``flop`` (NaN for hands holding a flop card)."""
        representative, mapping = canonical_flop(flop)
        row = self.values[self.row[representative]]
        images = HAND_INDEX[mapping[HANDS[:, 0]], mapping[HANDS[:, 1]]]
        return row[images]
