"""The card-image encoding of a player's view (seed 000, section 3.4, table 3-1).

Each card is a one-hot 4x13 (suit row x rank column) in the top-left corner of a
17x17 plane. For heads-up hold'em the view is 16 planes:

====  ==========================================================
0-1   the player's hole cards, one per plane
2-6   the board: flop 1-3, turn, river (empty until dealt)
7     all board cards dealt so far
8     hole cards and board together
9-12  the betting round: the current round's plane is all ones
13    the pot: one cell per big blind, in card order 2c 2d 2h 2s 3c ...
14    the opponent's last action this round: ones for a raise, zeros otherwise
15    the size of that raise, one cell per big blind (as the pot)
====  ==========================================================

Other games get the same layout with their own counts: one plane per hole card,
per board card and per round (Leduc: 9 planes). Choices where the seed is loose:
the pot and raise unit is the big blind (the seed says "the minimum bet", 5 in its
game; with the ACPC limit game's 10 the largest pot, 48 big blinds, fits the 52
card cells); counts past 52 go on in row-major order over the rest of the plane
(no-limit pots), up to 289. "The opponent" is the last player before the viewer
who acted this round; a call, a check or no action yet all leave plane 14 empty.
"""

from __future__ import annotations

import numpy as np

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, NUM_CARDS, rank_of, suit_of
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, State

IMAGE_SIZE = 17
"""Rows and columns of each plane."""
_CELLS = [(suit_of(card), rank_of(card)) for card in range(NUM_CARDS)] + [
    (row, col) for row in range(IMAGE_SIZE) for col in range(IMAGE_SIZE) if not (row < MAX_SUITS and col < MAX_RANKS)
]


def _count_planes() -> np.ndarray:
    """(290, 17, 17): plane c has the first c cells (in the order above) set."""
    planes = np.zeros((IMAGE_SIZE * IMAGE_SIZE + 1, IMAGE_SIZE, IMAGE_SIZE), dtype=np.float32)
    for count in range(1, IMAGE_SIZE * IMAGE_SIZE + 1):
        planes[count] = planes[count - 1]
        row, col = _CELLS[count - 1]
        planes[count, row, col] = 1.0
    return planes


_COUNTS = _count_planes()


def num_planes(game: Game) -> int:
    return game.num_hole_cards + game.total_board_cards + 2 + game.num_rounds + 3


def observe(state: State, viewer: int) -> np.ndarray:
    """The few numbers the image is made from (int16): hole cards, board cards (-1 not yet
    dealt), round, pot in big blinds, the opponent's last raise this round in big blinds (-1
    if its last action was not a raise). Replay memories keep these instead of images."""
    game = state.game
    board = state.visible_board()
    big_blind = game.big_blind or 1
    raised = _opponent_last_action(state, viewer)
    fields = list(state.hole_cards[viewer]) + list(board) + [-1] * (game.total_board_cards - len(board))
    fields += [state.round, sum(state.spent) // big_blind, -1 if raised is None else raised // big_blind]
    return np.array(fields, dtype=np.int16)


def images(game: Game, observations: np.ndarray) -> np.ndarray:
    """(N, planes, 17, 17) float32 images of (N, fields) observations from ``observe``."""
    observations = np.asarray(observations, dtype=np.int64)
    n = len(observations)
    k, b, rounds = game.num_hole_cards, game.total_board_cards, game.num_rounds
    planes = np.zeros((n, num_planes(game), IMAGE_SIZE, IMAGE_SIZE), dtype=np.float32)
    rows = np.arange(n)
    cards = observations[:, : k + b]
    for i in range(k + b):
        card = cards[:, i]
        seen = card >= 0
        suit, rank = card[seen] % MAX_SUITS, card[seen] // MAX_SUITS
        planes[rows[seen], i, suit, rank] = 1.0
        if i >= k:
            planes[rows[seen], k + b, suit, rank] = 1.0
        planes[rows[seen], k + b + 1, suit, rank] = 1.0
    base = k + b + 2
    round_ = observations[:, k + b]
    planes[rows, base + round_] = 1.0
    planes[:, base + rounds] = _COUNTS[np.clip(observations[:, k + b + 1], 0, IMAGE_SIZE * IMAGE_SIZE)]
    raised = observations[:, k + b + 2]
    planes[:, base + rounds + 1] = (raised >= 0)[:, None, None]
    planes[:, base + rounds + 2] = _COUNTS[np.clip(raised, 0, IMAGE_SIZE * IMAGE_SIZE)]
    return planes


def encode(state: State, viewer: int) -> np.ndarray:
    """(planes, 17, 17) float32 image of ``state`` as ``viewer`` sees it."""
    return images(state.game, observe(state, viewer)[None])[0]


def _opponent_last_action(state: State, viewer: int) -> int | None:
    """The amount raised by the opponent's last action this round, if it was a raise."""
    actions = state.actions[state.round]
    players = state.acting_players[state.round]
    for i in range(len(actions) - 1, -1, -1):
        if players[i] != viewer:
            if actions[i].kind != RAISE:
                return None
            return _raise_amount(state, i)
    return None


def _raise_amount(state: State, index: int) -> int:
    """Chips the raise at ``index`` of the current round put on top of the bet it faced."""
    game = state.game
    bet = max(game.blind)
    for r in range(state.round + 1):
        for i, action in enumerate(state.actions[r]):
            if action.kind != RAISE:
                continue
            raised_to = action.size if game.no_limit else bet + game.raise_size[r]
            if r == state.round and i == index:
                return raised_to - bet
            bet = raised_to
    return 0
