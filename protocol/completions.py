"""The ways a board can be completed and the opponents' hands, chosen by position among the unseen cards
(``index_combinations``, ``subset``), and the hand strengths of many holdings on one board after each
completion (``shared_board_strengths``: ``equity.strength_moments``' numbers, the work shared).
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from acpc_arena.protocol.cards import NUM_CARDS
from acpc_arena.protocol.evaluator import rank_hands, rank_holdings_on_boards

ROWS = 200_000
"""Hands ranked at a time where each completion is ranked on its own (memory and cache)."""


@cache
def index_combinations(available: int, chosen: int) -> np.ndarray:
    """Every ``chosen``-subset of ``range(available)`` as rows of an array (kept for reuse)."""
    return np.array(list(itertools.combinations(range(available), chosen)), dtype=np.uint8).reshape(-1, chosen)


@cache
def _fixed_subset(total: int, count: int) -> np.ndarray:
    """``count`` of ``range(total)`` drawn once at random with a fixed seed, in increasing order."""
    return np.sort(np.random.default_rng(total * 1_000_003 + count).choice(total, count, replace=False))


def subset(rows: np.ndarray, count: int | None) -> np.ndarray:
    """A fixed random ``count`` of ``rows`` (all of them if ``count`` is None or not smaller)."""
    if count is None or count >= len(rows):
        return rows
    return rows[_fixed_subset(len(rows), count)]


@cache
def _left_after(available: int, completions: bytes, missing: int) -> np.ndarray:
    """(C, available - missing) the positions of ``range(available)`` left once each completion (a row of
    ``missing`` positions, ``completions`` as bytes) is dealt, in increasing order."""
    taken = np.frombuffer(completions, dtype=np.uint8).reshape(-1, missing)
    left = np.ones((len(taken), available), dtype=bool)
    left[np.arange(len(taken))[:, None], taken] = False
    return np.nonzero(left)[1].reshape(len(taken), available - missing)


def shared_board_strengths(
    holes: np.ndarray, board: np.ndarray, unseen: np.ndarray, completions: np.ndarray, hands: np.ndarray
) -> np.ndarray:
    """(N, C) the hand strength of each of ``holes`` (N, k) on ``board`` completed by each of ``completions``
    (C, missing: positions among the hole's ``unseen`` cards (N, U), in increasing order) against the
    opponent hands ``hands`` (positions among the cards still unseen after the completion): the numbers
    ``equity.showdown_strengths`` gives each full board, the unseen cards of each read off the hole's. With one
    card to come, every holding is ranked once on each board of the deck (``rank_holdings_on_boards``); else
    each hand is ranked, about ``ROWS`` at a time."""
    count, k = holes.shape
    missing = completions.shape[1]
    theirs_at = _left_after(unseen.shape[1], completions.astype(np.uint8).tobytes(), missing)[:, hands]  # (C, O, k)
    grid = _river_grid(board) if missing == 1 and k == 2 else None
    out = np.empty((count, len(completions)))
    step = max(1, ROWS // (len(completions) * (len(hands) + 1)))
    for start in range(0, count, step):
        part = slice(start, start + step)
        rest = unseen[part][:, completions]  # (n, C, missing)
        theirs_cards = unseen[part][:, theirs_at]  # (n, C, O, k)
        if grid is not None:
            ranks, row_of, column = grid
            river = column[rest[:, :, 0]]  # (n, C)
            theirs = ranks[row_of[theirs_cards[..., 0], theirs_cards[..., 1]], river[:, :, None]]
            mine = ranks[row_of[holes[part, 0], holes[part, 1]][:, None], river][:, :, None]
        else:
            theirs, mine = _ranked(holes[part], board, rest, theirs_cards)
        out[part] = ((theirs < mine).sum(axis=2) + 0.5 * (theirs == mine).sum(axis=2)) / theirs.shape[2]
    return out


def _river_grid(board: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ranks (1326, R), row_of (52, 52), column (52,)): the rank of every two-card holding on ``board`` with
    each other card (R of them) added, the holding's row by its cards (either order) and each card's column."""
    pairs, row_of = _two_card_holdings()
    rivers = np.array(sorted(set(range(NUM_CARDS)) - set(board.tolist())), dtype=np.uint8)
    boards = np.concatenate([np.broadcast_to(board, (len(rivers), len(board))), rivers[:, None]], axis=1)
    ranks = rank_holdings_on_boards(pairs, boards).astype(np.int32)  # a pair sharing a card: never read
    column = np.zeros(NUM_CARDS, dtype=np.intp)
    column[rivers] = np.arange(len(rivers))
    return ranks, row_of, column


@cache
def _two_card_holdings() -> tuple[np.ndarray, np.ndarray]:
    """(pairs (1326, 2), row_of (52, 52)): every two cards, and the row of each pair in either order."""
    pairs = np.array(list(itertools.combinations(range(NUM_CARDS), 2)), dtype=np.uint8)
    row_of = np.zeros((NUM_CARDS, NUM_CARDS), dtype=np.intp)
    row_of[pairs[:, 0], pairs[:, 1]] = row_of[pairs[:, 1], pairs[:, 0]] = np.arange(len(pairs))
    return pairs, row_of


def _ranked(
    holes: np.ndarray, board: np.ndarray, rest: np.ndarray, theirs_cards: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(theirs (n, C, O), mine (n, C, 1)): the ranks of the opponent hands ``theirs_cards`` (n, C, O, k) and of
    ``holes`` (n, k) on ``board`` completed by ``rest`` (n, C, missing)."""
    count, each, opponents, k = theirs_cards.shape
    full = np.concatenate([np.broadcast_to(board, (count, each, len(board))), rest], axis=2)
    shared = np.broadcast_to(full[:, :, None, :], (count, each, opponents, full.shape[2]))
    theirs = rank_hands(np.concatenate([theirs_cards, shared], axis=3).reshape(-1, k + full.shape[2]))
    own = np.broadcast_to(holes[:, None, :], (count, each, k))
    mine = rank_hands(np.concatenate([own, full], axis=2).reshape(-1, k + full.shape[2]))
    return theirs.reshape(count, each, opponents).astype(np.int32), mine.reshape(count, each, 1).astype(np.int32)
