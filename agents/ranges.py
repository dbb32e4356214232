"""Hand ranges: the 1,326 starting hands, equity against a weighted range, draws (for the sparring bots and the
all-in guard of the ``ensemble`` and ``cfr`` agents).

A *range* is a weight for each of the 1,326 two-card hands (``COMBOS``) the opponent
could hold; a random hand is the range of equal weights. ``equity(hole, board, weights)``
is the share of the pot ``hole`` wins at a showdown against a hand drawn from the
range (ties split), averaged over the board cards still to come:

- before the flop, exactly, from ``preflop_matrix()``: the equity of every hand
  against every other, read from the complete pre-flop table shipped with the
  package (``protocol/tables/preflop-equity-13x4.npz``, every deal up to suit
  renaming) and kept on disk (``$ACPC_ARENA_CACHE``) once built (about a second);
- on the turn and the river, exactly: every river card is ranked with every hand;
- on the flop, over 188 of the 1,081 turn and river pairs, the same for every flop up to
  the cards' names, chosen so that every unseen card comes equally often as the turn
  and as the river (``FLOP_RIVERS``): an error of about 0.01 on the equity (0.03 at most
  on 40 random flops, against the full enumeration).

A board's ranks are computed once (``board_table``, kept for the last boards seen)
and serve every hand and range on that board. ``strengths(board)`` is each hand's
*strength*, the share of the other hands it beats (ties half), averaged over the
runouts (on the flop, 47 of them: one river for each turn card): a made hand and a
draw both count for what they become.
Before the flop it is the hand's pre-flop percentile (``models.hand_strength.preflop``: the 169
classes ranked by equity against a random hand).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from acpc_arena.models.hand_strength.preflop import percentile
from acpc_arena.protocol.cards import rank_of, suit_of
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.equity import SHIPPED_TABLES
from acpc_arena.protocol.evaluator import rank_hands

NUM_CARDS = 52
COMBOS = np.array(list(itertools.combinations(range(NUM_CARDS), 2)), dtype=np.uint8)
"""The 1,326 two-card hands, in increasing order."""
NUM_COMBOS = len(COMBOS)
COMBO_INDEX = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
COMBO_INDEX[COMBOS[:, 0], COMBOS[:, 1]] = COMBO_INDEX[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)
HOLDS_CARD = np.zeros((NUM_CARDS, NUM_COMBOS), dtype=bool)
"""``HOLDS_CARD[c, j]``: hand ``j`` holds card ``c``."""
HOLDS_CARD[COMBOS[:, 0], np.arange(NUM_COMBOS)] = HOLDS_CARD[COMBOS[:, 1], np.arange(NUM_COMBOS)] = True
FLOP_RIVERS = 4
"""A flop's equities are averaged over 47 x ``FLOP_RIVERS`` of its 1,081 turn and river pairs."""
PREFLOP_TABLE = SHIPPED_TABLES / "preflop-equity-13x4.npz"


def combo_index(hole: Sequence[int]) -> int:
    """Index of two hole cards in ``COMBOS``."""
    return int(COMBO_INDEX[hole[0], hole[1]])


def blocked(cards: Sequence[int]) -> np.ndarray:
    """(1326,) whether each hand shares a card with ``cards``."""
    if not cards:
        return np.zeros(NUM_COMBOS, dtype=bool)
    return np.asarray(HOLDS_CARD[list(cards)].any(axis=0))


# -- before the flop -------------------------------------------------------------------------------


def _encoded_pairs_canonical() -> np.ndarray:
    """(1326, 1326) int64: the deal (hand i, hand j) as its suit-canonical key, the four cards in base 52
    (the least key over the 24 renamings of the suits, each hand's two cards in increasing order)."""
    best = np.full((NUM_COMBOS, NUM_COMBOS), np.iinfo(np.int64).max, dtype=np.int64)
    cards = COMBOS.astype(np.int64)
    for order in itertools.permutations(range(4)):
        renamed = cards - cards % 4 + np.asarray(order)[cards % 4]
        low, high = renamed.min(axis=1), renamed.max(axis=1)
        code = low * NUM_CARDS + high
        np.minimum(best, code[:, None] * NUM_CARDS**2 + code[None, :], out=best)
    return best


def _build_preflop_matrix() -> np.ndarray:
    with np.load(PREFLOP_TABLE, allow_pickle=False) as table:
        keys, twice, boards = table["keys"].astype(np.int64), table["twice_wins_plus_ties"], int(table["boards"])
    encoded = ((keys[:, 0] * NUM_CARDS + keys[:, 1]) * NUM_CARDS + keys[:, 2]) * NUM_CARDS + keys[:, 3]
    order = np.argsort(encoded)
    encoded, values = encoded[order], twice[order] / (2 * boards)
    wanted = _encoded_pairs_canonical()
    apart = ~(HOLDS_CARD.T.astype(np.int8) @ HOLDS_CARD.astype(np.int8)).astype(bool)
    found = np.searchsorted(encoded, wanted[apart])
    if (found >= len(encoded)).any() or (encoded[np.minimum(found, len(encoded) - 1)] != wanted[apart]).any():
        raise ValueError(f"{PREFLOP_TABLE} lacks deals of the standard deck")
    matrix = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.float32)
    matrix[apart] = values[found]
    return matrix


@cache
def preflop_matrix() -> np.ndarray:
    """(1326, 1326) float32: the exact pre-flop equity of hand i against hand j (0 where they share a card)."""
    digest = source_digest(Path(__file__), PREFLOP_TABLE)
    return cached_array(f"preflop-equity-matrix-{digest}", _build_preflop_matrix)


@cache
def preflop_strengths() -> np.ndarray:
    """(1326,) each hand's pre-flop percentile (``models.hand_strength.preflop.percentile``)."""
    return np.array([percentile(tuple(hole)) for hole in COMBOS.tolist()])


# -- after the flop --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardTable:
    """Every hand ranked on every runout of one board."""

    board: tuple[int, ...]
    runout_holds: np.ndarray
    """(52, K) whether runout k uses card c."""
    ranks: np.ndarray
    """(K, 1326) int16 rank of each hand on the board completed by runout k; -1 for a hand sharing a card with it."""
    strengths: np.ndarray
    """(1326,) share of the other hands each hand beats (ties half), averaged over the runouts it can see."""


def _runouts(board: tuple[int, ...]) -> np.ndarray:
    """(K, 5 - len(board)) the board cards still to come, as described in the module docstring."""
    unseen = np.array([c for c in range(NUM_CARDS) if c not in board], dtype=np.uint8)
    missing = 5 - len(board)
    if missing == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    if missing == 1:
        return unseen[:, None]
    # the unseen cards in a fixed random cycle, each paired with the next FLOP_RIVERS: every card
    # comes FLOP_RIVERS times as the turn and as many as the river, no pair twice
    cycle = unseen[np.random.default_rng(len(unseen)).permutation(len(unseen))]
    return np.array(
        [(cycle[i], cycle[(i + k) % len(cycle)]) for i in range(len(cycle)) for k in range(1, FLOP_RIVERS + 1)]
    )


def _strengths(ranks: np.ndarray) -> np.ndarray:
    """(1326,) mean over the rows of each valid hand's share of the row's other valid hands it beats."""
    rows, _ = ranks.shape
    width = int(ranks.max()) + 2
    valid = ranks >= 0
    shifted = ranks.astype(np.int64) + 1 + (np.arange(rows) * width)[:, None]
    counts = np.bincount(shifted[valid], minlength=rows * width).reshape(rows, width)
    below = np.cumsum(counts, axis=1) - counts  # hands of a lower rank, per row and rank
    flat_below, flat_counts = below.reshape(-1), counts.reshape(-1)
    beaten = flat_below[shifted] + 0.5 * (flat_counts[shifted] - 1)
    others = valid.sum(axis=1, keepdims=True) - 1
    share = np.where(valid, beaten / np.maximum(others, 1), 0.0)
    seen = valid.sum(axis=0)
    return np.asarray(share.sum(axis=0) / np.maximum(seen, 1))


@lru_cache(maxsize=64)
def board_table(board: tuple[int, ...]) -> BoardTable:
    """The ranks of every hand on every runout of ``board`` (3 to 5 cards), kept for the last boards seen."""
    runouts = _runouts(board)
    count, missing = runouts.shape
    full = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (count, 1)), runouts], axis=1)
    clash = np.zeros((count, NUM_COMBOS), dtype=bool)
    for column in range(full.shape[1]):
        clash |= HOLDS_CARD[full[:, column]]
    # every (runout, hand) ranked at once, the board fixed; a hand that shares a card with the
    # runout is swapped for one that does not (the evaluator takes distinct cards) and marked -1
    cards = np.empty((count, NUM_COMBOS, missing + 2), dtype=np.uint8)
    cards[:, :, :missing] = runouts[:, None, :]
    cards[:, :, missing:] = COMBOS[None, :, :]
    spare = COMBOS[np.argmin(clash, axis=1)]  # a hand apart from each runout
    cards[clash, missing:] = np.broadcast_to(spare[:, None, :], cards[:, :, missing:].shape)[clash]
    ranks = rank_hands(cards.reshape(count * NUM_COMBOS, -1), fixed=board).astype(np.int16).reshape(count, -1)
    ranks[clash] = -1
    runout_holds = np.zeros((NUM_CARDS, count), dtype=bool)
    for column in range(missing):
        runout_holds[runouts[:, column], np.arange(count)] = True
    one_river_a_turn = ranks[:: FLOP_RIVERS if missing == 2 else 1]  # every card once as the turn and as the river
    return BoardTable(board, runout_holds, ranks, _strengths(one_river_a_turn))


# -- equity ------------------------------------------------------------------------------------------


def equity(hole: Sequence[int], board: Sequence[int], weights: np.ndarray | None = None) -> float:
    """Share of the pot ``hole`` wins against a hand of the range ``weights`` (a random hand if None)."""
    i = combo_index(hole)
    out = blocked([*hole, *board])
    w = np.where(out, 0.0, 1.0 if weights is None else weights)
    if not board:
        total = w.sum()
        return float(preflop_matrix()[i] @ w / total) if total > 0 else 0.5
    table = board_table(tuple(board))
    rows = ~(table.runout_holds[hole[0]] | table.runout_holds[hole[1]])
    theirs = table.ranks[rows]
    mine = theirs[:, i][:, None]
    valid = theirs >= 0  # a hand that shares a card with the runout cannot be held on it
    total = valid.astype(np.float64) @ w
    score = ((theirs < mine) & valid).astype(np.float64) @ w + 0.5 * ((theirs == mine).astype(np.float64) @ w)
    total = total.sum()
    return float(score.sum() / total) if total > 0 else 0.5


@lru_cache(maxsize=1 << 16)
def equity_vs_random(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """``equity`` against a random hand, kept."""
    return equity(hole, board)


def strengths(board: Sequence[int]) -> np.ndarray:
    """(1326,) every hand's strength on ``board`` (see the module docstring)."""
    return preflop_strengths() if not board else board_table(tuple(board)).strengths


# -- draws -------------------------------------------------------------------------------------------


def flush_draw(hole: Sequence[int], board: Sequence[int]) -> bool:
    """Four cards of a suit, at least one of them in the hand, with a card to come (not yet a flush)."""
    if len(board) >= 5:
        return False
    cards = [*hole, *board]
    return any(sum(suit_of(c) == suit for c in cards) == 4 for suit in {suit_of(c) for c in hole})


def straight_draw(hole: Sequence[int], board: Sequence[int]) -> bool:
    """An open-ended straight draw using a hole card: four ranks in a row that two ranks complete (no straight yet)."""
    if len(board) >= 5:
        return False
    ranks = {rank_of(c) for c in [*hole, *board]}
    ranks |= {-1} if 12 in ranks else set()  # the ace plays low too (rank -1)
    mine = {rank_of(c) for c in hole}
    if any(set(range(low, low + 5)) <= ranks for low in range(-1, 9)):
        return False  # already a straight
    # four in a row from 2345 to TJQK: a card below (the ace below 2) and a card above complete it
    return any(set(range(low, low + 4)) <= ranks and mine & set(range(low, low + 4)) for low in range(9))


def drawing(hole: Sequence[int], board: Sequence[int]) -> bool:
    """A flush draw or an open-ended straight draw (``flush_draw``, ``straight_draw``)."""
    return flush_draw(hole, board) or straight_draw(hole, board)
