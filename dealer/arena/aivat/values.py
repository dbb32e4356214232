"""AIVAT's value function: what a hand is worth to position 0 if both players only check or call from
here on, their cards drawn from their ranges.

A *range* is a weight for every holding of the game's deck (``Holdings``); a player whose cards
are taken as seen has all its weight on its own holding. The value of a state is

    m * E[sign(rank0 - rank1)]

over pairs of holdings drawn from the two ranges (a pair sharing a card has probability 0: the
joint distribution of the two players' cards), each holding ranked with the board shown so far
(before the last round a hand's current strength, no draws counted: cheap, and in our
measurements no worse than the showdown equity over the board's completions, which costs
ten times more), ``m`` the chips each player has in once the bet to the player to act is
called (``stake``; after a no-limit raise, the bet it calls: valued at its raise-to size, the
corrections of a large raise, mostly folded to, added variance; a limit raise counts at its
size). A hand that ended in a fold is worth its result whatever the cards.

``sign_sums`` gives the unnormalised sums ``S = sum p(a) q(b) sign(rank a - rank b)`` and
``Z = sum p(a) q(b)`` over the pairs of holdings sharing no card, for a batch of ranges and boards:
by brute force over the pairs where the ranges are small, else in O(n log n) per row by sorting
the holdings by rank and taking out, by inclusion and exclusion, the holdings that share a card
(one or two hole cards).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from acpc_arena.protocol.cards import NUM_CARDS
from acpc_arena.protocol.equity import BoardDraws, Holdings, deck_holdings
from acpc_arena.protocol.evaluator import HAND_RANKS, rank_holdings_on_boards
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import State

DENSE_PAIRS = 4096
"""Pairs of holdings with weight up to which ``sign_sums`` sums over the pairs directly."""


@cache
def holdings_of(game: Game) -> Holdings:
    """The holdings of ``game`` (one or two hole cards)."""
    k = game.num_hole_cards
    if k not in (1, 2):
        raise ValueError(f"AIVAT's value function takes games of one or two hole cards, not {k}")
    return deck_holdings(tuple(sorted(game.deck)), k)


STRATA_SAMPLES = 400
"""Monte Carlo deals a holding of ``holding_strata``'s ordering is valued on (about; fixed draws)."""


@cache
def holding_strata(game: Game, count: int) -> np.ndarray:
    """(holdings,) the stratum, 0 to ``count - 1``, of each holding of ``game``: the holdings ordered by their
    equity against one random holding before any board card (``BoardDraws`` on fixed draws: an ordering fixed
    for the game, not an exact one), cut into ``count`` groups as equal in size as can be (0 the strongest)."""
    holdings = holdings_of(game)
    if not 1 <= count <= holdings.size:
        raise ValueError(f"{count} strata of {holdings.size} holdings")
    draws = BoardDraws(game, [], 1, STRATA_SAMPLES, np.random.default_rng(0))
    order = np.argsort(-draws.equities(holdings.cards.tolist()), kind="stable")
    strata = np.empty(holdings.size, dtype=np.intp)
    strata[order] = np.arange(holdings.size) * count // holdings.size
    return strata


@cache
def stratum_order(game: Game, count: int) -> np.ndarray:
    """(holdings,) the rows of ``game``'s holdings by their stratum of ``holding_strata``, each stratum's in
    row order."""
    return np.argsort(holding_strata(game, count), kind="stable")


def stake(state: State) -> int:
    """The chips each player has in once the bet to the player to act is called (heads-up: a showdown's stake)."""
    return min(min(state.max_spent, stack) for stack in state.game.stack)


def outcome_masks(outcomes: np.ndarray) -> np.ndarray:
    """(B,) one bit per card of each row of ``outcomes`` (B, e)."""
    bits = np.left_shift(np.uint64(1), outcomes.astype(np.uint64))
    return np.bitwise_or.reduce(bits, axis=1) if outcomes.shape[1] else np.zeros(len(outcomes), dtype=np.uint64)


def board_ranks(holdings: Holdings, board: Sequence[int], outcomes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(B, len(rows)) ranks of the holdings ``rows`` with ``board`` and each row of ``outcomes`` (B, e)
    added (0 for a holding that shares a card with the outcome: give it no weight)."""
    out = np.zeros((len(outcomes), len(rows)), dtype=np.int64)
    apart = (outcome_masks(outcomes)[:, None] & holdings.masks[rows][None, :]) == 0
    if apart.any():
        shown = np.broadcast_to(np.array(board, dtype=np.uint8), (len(outcomes), len(board)))
        boards = np.concatenate([shown, outcomes.astype(np.uint8)], axis=1)
        out[apart] = rank_holdings_on_boards(holdings.cards[rows], boards).T[apart]
    return out


def sign_sums(
    holdings: Holdings, rows: np.ndarray, p: np.ndarray, q: np.ndarray, ranks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(S, Z), each (B,): over the pairs of holdings sharing no card, the sums of ``p[a] q[b] sign(ranks[a]
    - ranks[b])`` and of ``p[a] q[b]``; ``p``, ``q`` and ``ranks`` are (B, len(rows)), of the holdings
    ``rows`` (the others have no weight)."""
    first = np.flatnonzero(p.any(axis=0))
    second = np.flatnonzero(q.any(axis=0))
    if len(first) * len(second) <= DENSE_PAIRS:  # each row's signs of the pairs (int8), one product a row
        masks = holdings.masks[rows]
        apart = (masks[first][:, None] & masks[second][None, :]) == 0
        mine, theirs = ranks[:, first][:, :, None], ranks[:, second][:, None, :]
        signs = ((mine > theirs).view(np.int8) - (mine < theirs).view(np.int8)) * apart
        p_first, q_second = p[:, first], q[:, second]
        signed = np.matmul(p_first[:, None, :], np.matmul(signs.astype(np.float64), q_second[:, :, None]))
        return signed[:, 0, 0], ((p_first @ apart) * q_second).sum(axis=1)
    full = [np.zeros((len(p), holdings.size), dtype=array.dtype) for array in (p, q, ranks)]
    for array, values in zip(full, (p, q, ranks), strict=True):
        array[:, rows] = values
    return _sorted_sums(holdings, *full)


def _positions(sorted_rows: np.ndarray, row_ids: np.ndarray, values: np.ndarray, side: str) -> np.ndarray:
    """The ``searchsorted`` position of each value in its row of ``sorted_rows`` (R, w), the rows sorted
    and holding values 0 .. HAND_RANKS + 1: one search over the rows laid end to end."""
    rows, width = sorted_rows.shape
    span = HAND_RANKS + 2
    flat = (sorted_rows + np.arange(rows, dtype=np.int64)[:, None] * span).ravel()
    found = np.searchsorted(flat, values + row_ids * span, side=side)  # type: ignore[call-overload]
    return np.asarray(found) - row_ids * width


def _sorted_sums(holdings: Holdings, p: np.ndarray, q: np.ndarray, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    batch, n = p.shape
    k = holdings.cards.shape[1]
    shifted = ranks.astype(np.int64) + 1  # 0 is the padding's rank
    order = np.argsort(shifted, axis=1, kind="stable")
    sorted_ranks = np.take_along_axis(shifted, order, axis=1)
    cumulative = np.zeros((batch, n + 1))
    np.cumsum(np.take_along_axis(q, order, axis=1), axis=1, out=cumulative[:, 1:])
    batch_rows = np.repeat(np.arange(batch, dtype=np.int64), n)
    values = shifted.ravel()
    flat_cumulative = cumulative.ravel()
    start = batch_rows * (n + 1)
    total = cumulative[:, -1]
    below = flat_cumulative[start + _positions(sorted_ranks, batch_rows, values, "left")]
    above = total[batch_rows] - flat_cumulative[start + _positions(sorted_ranks, batch_rows, values, "right")]
    # the same over the holdings that contain each card: rows (batch, card) of width a
    padded_ranks = np.concatenate([shifted, np.zeros((batch, 1), dtype=np.int64)], axis=1)
    padded_q = np.concatenate([q, np.zeros((batch, 1))], axis=1)
    member_ranks = padded_ranks[:, holdings.members].reshape(batch * NUM_CARDS, -1)
    member_order = np.argsort(member_ranks, axis=1, kind="stable")
    member_sorted = np.take_along_axis(member_ranks, member_order, axis=1)
    member_q = np.take_along_axis(padded_q[:, holdings.members].reshape(batch * NUM_CARDS, -1), member_order, axis=1)
    width = member_q.shape[1]
    member_cumulative = np.zeros((batch * NUM_CARDS, width + 1))
    np.cumsum(member_q, axis=1, out=member_cumulative[:, 1:])
    flat_members = member_cumulative.ravel()
    member_total = member_cumulative[:, -1]
    signed = below - above
    mass = total[batch_rows] + (k - 1) * q.ravel()
    for j in range(k):
        rows = batch_rows * NUM_CARDS + np.tile(holdings.cards[:, j].astype(np.int64), batch)
        start = rows * (width + 1)
        shared_below = flat_members[start + _positions(member_sorted, rows, values, "left")]
        shared_above = member_total[rows] - flat_members[start + _positions(member_sorted, rows, values, "right")]
        signed -= shared_below - shared_above
        mass -= member_total[rows]
    return (p * signed.reshape(batch, n)).sum(axis=1), (p * mass.reshape(batch, n)).sum(axis=1)
