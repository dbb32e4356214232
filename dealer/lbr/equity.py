"""LBR's showdown equity ``wp``: its chance of winning (ties half) against a weighted range.

The board is completed from the unseen cards, every completion where there are at
most ``rollouts`` of them, else ``rollouts`` drawn at random; both players are
assumed to check or call to the showdown. The holdings of a game's deck are rows of
cards with one bit per card (``card_masks``), and the showdowns of all of them are
ranked in one batched evaluator call.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache
from math import comb

import numpy as np

from acpc_arena.protocol.equity import shuffled_prefixes
from acpc_arena.protocol.evaluator import rank_hands
from acpc_arena.protocol.game import Game


@cache
def holdings(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Every holding of the game's deck: (H, hole cards) cards in increasing order, and (H,) card masks."""
    combos = list(itertools.combinations(sorted(game.deck), game.num_hole_cards))
    cards = np.array(combos, dtype=np.uint8).reshape(len(combos), game.num_hole_cards)
    return cards, card_masks(cards)


def card_masks(cards: np.ndarray) -> np.ndarray:
    """(N,) one bit per card of each row of ``cards`` (N, k)."""
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)


def mask_of(cards: Sequence[int]) -> np.uint64:
    return np.uint64(sum(1 << c for c in set(cards)))


def win_probability(
    game: Game,
    hole: Sequence[int],
    board: Sequence[int],
    cards: np.ndarray,
    weights: np.ndarray,
    rollouts: int,
    rng: np.random.Generator,
) -> float:
    """Chance ``hole`` wins a showdown (ties half) against the holdings ``cards`` weighted by ``weights``,
    the board completed from the unseen cards: every completion if there are at most ``rollouts``, else
    ``rollouts`` of them drawn at random. A holding counts on the completions it shares no card with."""
    known = np.array([*hole, *board], dtype=np.uint8)
    live = (weights > 0) & (card_masks(cards) & mask_of(known.tolist()) == 0)
    cards, weights = cards[live], weights[live]
    if not len(cards) or weights.sum() <= 0:
        raise ValueError("the range is empty: no holding of the agent is consistent with its play")
    unseen = np.array(sorted(set(game.deck) - set(known.tolist())), dtype=np.uint8)
    missing = game.total_board_cards - len(board)
    if comb(len(unseen), missing) <= rollouts:
        picks = list(itertools.combinations(range(len(unseen)), missing))
        completions = unseen[np.array(picks, dtype=np.intp).reshape(len(picks), missing)]
    else:
        completions = unseen[shuffled_prefixes(rng, rollouts, len(unseen), missing)]
    boards = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (len(completions), 1)), completions], axis=1)
    count, k = len(cards), cards.shape[1]
    mine = rank_hands(np.concatenate([np.tile(np.array(hole, dtype=np.uint8), (len(boards), 1)), boards], axis=1))
    # (completions, holdings): the holding shares no card with the completion
    fits = ~(completions[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))
    # a holding that shares a card is ranked as LBR's own cards instead (a valid hand), then left out
    holding_cards = np.where(fits[:, :, None], cards[None], np.array(hole, dtype=np.uint8)[None, None, :])
    theirs_cards = np.concatenate([holding_cards, np.repeat(boards[:, None], count, axis=1)], axis=2)
    theirs = rank_hands(theirs_cards.reshape(-1, k + boards.shape[1])).reshape(len(boards), count)
    share = np.where(mine[:, None] > theirs, 1.0, np.where(mine[:, None] == theirs, 0.5, 0.0))
    seen = fits.sum(axis=0)
    usable = seen > 0
    per_holding = (share * fits).sum(axis=0)[usable] / seen[usable]
    w = weights[usable]
    return float(per_holding @ w / w.sum())
