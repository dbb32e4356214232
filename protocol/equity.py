"""Equity: what a hand is worth before all the cards are out.

- ``equity_vs_random``: a player's chance of winning a showdown against random
  opponent hands (Monte Carlo over the unseen cards; ties split).
- ``allin_expected_values``: the exact expected value of a hand whose players went
  all in before the last round, over every way the board could have come.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

import numpy as np

from acpc_arena.protocol.evaluator import rank_hands, rank_hands_of_players
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import State


def equity_vs_random(
    game: Game,
    hole: Sequence[int],
    board: Sequence[int],
    opponents: int = 1,
    samples: int = 1000,
    rng: np.random.Generator | None = None,
) -> float:
    """Estimated share of the pot ``hole`` wins against ``opponents`` random hands.

    ``board`` holds the board cards seen so far; the rest of the game's board is
    drawn at random. Returns a number in [0, 1].
    """
    rng = rng or np.random.default_rng()
    seen = set(hole) | set(board)
    unseen = np.array([c for c in game.deck if c not in seen], dtype=np.uint8)
    missing = game.total_board_cards - len(board)
    per_opponent = game.num_hole_cards
    needed = missing + opponents * per_opponent
    if needed > len(unseen):
        raise ValueError("not enough unseen cards for the opponents and the board")
    draws = np.argsort(rng.random((samples, len(unseen))), axis=1)[:, :needed]
    cards = unseen[draws]
    extra_board = cards[:, :missing]
    full_board = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (samples, 1)), extra_board], axis=1)
    mine = rank_hands(np.concatenate([np.tile(np.array(hole, dtype=np.uint8), (samples, 1)), full_board], axis=1))
    best_other = np.full(samples, -1, dtype=np.int64)
    ties = np.zeros(samples, dtype=np.int64)  # opponents holding the best of their ranks
    for k in range(opponents):
        theirs_cards = cards[:, missing + k * per_opponent : missing + (k + 1) * per_opponent]
        theirs = rank_hands(np.concatenate([theirs_cards, full_board], axis=1)).astype(np.int64)
        ties = np.where(theirs > best_other, 1, np.where(theirs == best_other, ties + 1, ties))
        best_other = np.maximum(best_other, theirs)
    mine = mine.astype(np.int64)
    share = np.where(mine > best_other, 1.0, np.where(mine == best_other, 1.0 / (ties + 1), 0.0))
    return float(share.mean())


@cache
def _index_combinations(available: int, chosen: int) -> np.ndarray:
    """Every ``chosen``-subset of ``range(available)`` as rows of an array (kept for reuse)."""
    return np.array(list(itertools.combinations(range(available), chosen)), dtype=np.uint8).reshape(-1, chosen)


def expected_showdown_values(ranks: np.ndarray, spent: Sequence[int], folded: Sequence[bool]) -> np.ndarray:
    """Each player's value averaged over the rows of hand ranks ``(B, n)`` (one row per board).

    Pots are split as by the ACPC ``valueOfState``: one pot per distinct amount
    spent, shared equally by the best hands among those who put it in; folded
    players rank below every hand. With one row this is the value of that showdown.
    """
    ranks = np.asarray(ranks)
    if any(folded):
        ranks = ranks.astype(np.int32)
        ranks[:, [p for p, f in enumerate(folded) if f]] = -1
    values = -np.asarray(spent, dtype=np.float64)
    previous = 0
    for level in sorted({s for s in spent if s > 0}):
        in_pot = [p for p, s in enumerate(spent) if s >= level]
        contest = ranks[:, in_pot]
        winners = contest == contest.max(axis=1, keepdims=True)
        share = 1.0 / winners.sum(axis=1)
        pot = (level - previous) * len(in_pot)
        values[in_pot] += pot * (winners * share[:, None]).mean(axis=0)
        previous = level
    return values


def ended_all_in_early(state: State) -> bool:
    """Whether a finished hand went to a showdown with board cards still to come when the betting ended."""
    game = state.game
    if not state.finished or state.num_folded + 1 >= game.num_players:
        return False
    last = max((r for r in range(game.num_rounds) if state.actions[r]), default=0)
    return game.board_start[last + 1] < game.total_board_cards


def allin_expected_values(state: State) -> list[float] | None:
    """Expected values of a hand that ended all in before its last round, over every board.

    The board cards still to come when the betting ended are enumerated over all the
    cards nobody holds (every player's hole cards are known in a log); each player's
    value is averaged, side pots included. Returns None for a hand that did not end
    all in with board cards to come.
    """
    if not ended_all_in_early(state):
        return None
    game = state.game
    last = max((r for r in range(game.num_rounds) if state.actions[r]), default=0)
    shown = game.board_start[last + 1]
    board = state.board_cards[:shown]
    known = {c for hole in state.hole_cards for c in hole} | set(board)
    unseen = np.array([c for c in game.deck if c not in known], dtype=np.uint8)
    missing = game.total_board_cards - shown
    completions = unseen[_index_combinations(len(unseen), missing)]
    holes = [list(hole) + list(board) for hole in state.hole_cards]
    ranks = rank_hands_of_players(completions, holes)
    return expected_showdown_values(ranks, state.spent, state.folded).tolist()
