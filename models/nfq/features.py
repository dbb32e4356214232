"""NFQ's observation vector (seed 003) and the PN-step state: the window of the last n observations.

One observation z is what the player sees at one of its own decisions, ``FEATURES``
numbers, each scaled to about [0, 1]:

====  ===================================================================
0-3   the betting round, one-hot (pre-flop, flop, turn, river)
4     the pot (all chips put in so far) over the largest pot the game allows
5     chips to call over the round's raise size (0, 1/2 or 1 in limit hold'em)
6     hand strength E[HS]: equity against one random hand over the boards to come
7     E[HS^2], its second moment (high for made hands, lower for draws of the same E[HS])
8-9   the player's raises and calls (checks included) so far this hand, over 4
10-11 the opponent's raises and calls so far this hand, over 4
12    position: 1 for the last seat (the button, who acts last after the flop), else 0
13    raises made this round over the round's cap (1: no raise left)
====  ===================================================================

Hand strength comes from the project's evaluator (``protocol.equity.strength_moments``).
Before the flop it is looked up in a table of the 169 starting hands (2,000 board runouts
against 200 opponent hands each, computed once and cached on disk); after it, it is
computed over a fixed subset of ``RUNOUTS`` board completions against ``OPPONENTS``
opponent hands (exact when there are fewer: the river, small games), so the same cards
always get the same numbers.

The state s_t is the window (z_{t-n+1}, ..., z_t) of the player's last n observations in
this hand, the current one last, zeros before the hand's first decision (``window``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

import acpc_arena.protocol.equity
import acpc_arena.protocol.evaluator
from acpc_arena.models.hand_strength import classes
from acpc_arena.models.hand_strength.classes import class_representative, hand_class
from acpc_arena.protocol.cards import MAX_RANKS
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.equity import strength_moments
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, RAISE, State

FEATURES = 14
RUNOUTS = 32
"""Board completions sampled for the flop and turn strength (all 46 would take 6 times as long)."""
OPPONENTS = 96
"""Opponent hands sampled per completion (of 990-1,081)."""
PREFLOP_RUNOUTS = 2000
PREFLOP_OPPONENTS = 200
COUNT_SCALE = 4.0


def is_holdem_deck(game: Game) -> bool:
    return game.num_hole_cards == 2 and game.num_suits == 4 and game.num_ranks == MAX_RANKS


@cache
def preflop_table(game: Game) -> np.ndarray:
    """(169, 2) E[HS], E[HS^2] of every starting hand class of a hold'em deck, cached on disk."""
    sources = (
        Path(__file__),
        Path(classes.__file__),
        Path(acpc_arena.protocol.equity.__file__),
        *acpc_arena.protocol.evaluator.SOURCES,
    )
    parts = [game.to_text(), PREFLOP_RUNOUTS, PREFLOP_OPPONENTS, source_digest(*sources)]
    key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    def build() -> np.ndarray:
        table = np.zeros((MAX_RANKS * MAX_RANKS, 2))
        for index in range(MAX_RANKS * MAX_RANKS):
            hole = np.array([class_representative(index)], dtype=np.uint8)
            mean, square = strength_moments(
                game.deck, hole, np.zeros((1, 0), np.uint8), game.total_board_cards, PREFLOP_RUNOUTS, PREFLOP_OPPONENTS
            )
            table[index] = mean[0], square[0]
        return table

    return cached_array(f"nfq-preflop-{key}", build)


def hand_strength(game: Game, hole: Sequence[int], board: Sequence[int]) -> tuple[float, float]:
    """(E[HS], E[HS^2]) of ``hole`` with the board cards seen so far (see the module docstring)."""
    if not board and is_holdem_deck(game) and game.total_board_cards:
        mean, square = preflop_table(game)[hand_class(hole)]
        return float(mean), float(square)
    holes = np.array([list(hole)], dtype=np.uint8)
    boards = np.array([list(board)], dtype=np.uint8).reshape(1, len(board))
    mean, square = strength_moments(game.deck, holes, boards, game.total_board_cards, RUNOUTS, OPPONENTS)
    return float(mean[0]), float(square[0])


def check_game(game: Game) -> None:
    """Raise ValueError unless the observation fits ``game``: heads-up limit poker, at most 4
    rounds, every round's raises capped."""
    if game.no_limit or game.num_players != 2 or game.num_rounds > 4 or max(game.max_raises) > 16:
        raise ValueError("NFQ plays heads-up limit games of at most 4 rounds with capped raises")


def observation(state: State, viewer: int, strength: tuple[float, float]) -> np.ndarray:
    """z: the ``FEATURES`` numbers of the table above for ``viewer`` at ``state`` (``strength`` from
    ``hand_strength``, passed in so that a caller can reuse it within a round)."""
    game = state.game
    z = np.zeros(FEATURES, dtype=np.float32)
    round_ = state.round
    z[round_] = 1.0
    z[4] = sum(state.spent) / _max_pot(game)
    raise_size = game.raise_size[round_] or max(game.blind) or 1
    z[5] = (state.max_spent - state.spent[viewer]) / raise_size
    z[6], z[7] = strength
    for r in range(round_ + 1):
        for player, action in zip(state.acting_players[r], state.actions[r], strict=True):
            offset = 8 if player == viewer else 10
            if action.kind == RAISE:
                z[offset] += 1.0 / COUNT_SCALE
            elif action.kind == CALL:
                z[offset + 1] += 1.0 / COUNT_SCALE
    z[12] = float(viewer == game.num_players - 1)
    cap = game.max_raises[round_]
    z[13] = min(state.round_raises, cap) / cap if cap else 1.0
    return z


def _max_pot(game: Game) -> int:
    """All the chips a limit hand can put in the pot: every player at every round's raise cap."""
    each = max(game.blind) + sum(cap * size for cap, size in zip(game.max_raises, game.raise_size, strict=False))
    return game.num_players * min(each, max(game.stack))


def max_loss(game: Game) -> int:
    """The most chips one player can lose in a hand (rewards are scaled by it into [-1, 1])."""
    return _max_pot(game) // game.num_players


def window(observations: Sequence[np.ndarray], n: int) -> np.ndarray:
    """The PN-step state: the last ``n`` observations, oldest first, zeros where the hand had fewer."""
    out = np.zeros((n, FEATURES), dtype=np.float32)
    recent = list(observations)[-n:]
    if recent:
        out[n - len(recent) :] = np.stack(recent)
    return out.reshape(-1)
