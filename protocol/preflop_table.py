"""Building the complete two-player pre-flop equity table of hold'em, shipped with the package.

``preflop_equity`` (``equity.py``) values an all-in before the flop by enumerating
the 1,712,304 boards of the deal, about 0.1 s each, and keeps what it computed on
disk; a first report of a no-limit run would spend minutes on that. This module
computes every suit-canonical deal at once and writes the table that
``PreflopTable`` loads for the standard deck (``tables/preflop-equity-13x4.npz``):

    python -m acpc_arena.protocol.preflop_table protocol/tables/preflop-equity-13x4.npz --workers 2

How: all 2,598,960 boards are ranked with every one of the 1,081 hands that
share no card with them (2.8e9 seven-card ranks, in blocks), and on each board the 169 hands that stand for the
pre-flop classes are compared with all 1,326. A hand that shares a card with the
board gets a rank that loses to everything (a class hand) or beats everything (the
other hand), so such boards add -1 to sign(rank difference) and every board the
deal can see adds its win (+1), tie (0) or loss (-1): summed over all boards,
``sign_sum + C(52, 5)`` is twice the wins plus the ties over the deal's C(48, 5)
boards. Every deal is a class hand against some hand up to renaming suits, so the
169 x 1,326 sums cover all of them; deals reached twice must agree (checked).
It takes CPU-minutes (``--workers N`` spreads them over N processes).
"""

from __future__ import annotations

import argparse
import itertools
import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from acpc_arena.protocol.completions import index_combinations
from acpc_arena.protocol.equity import suit_canonical
from acpc_arena.protocol.evaluator import rank_hands
from acpc_arena.protocol.game import Game, load_game

GAME = "holdem.nolimit.2p.reverse_blinds"  # only the deck and the card counts matter
ALL_BOARDS = math.comb(52, 5)
DEAL_BOARDS = math.comb(48, 5)
BLOCK = 20_000
LOSES, BEATS = -1, 32_000  # ranks for a hand that shares a card with the board (real ranks: 0 .. 7,461)


def hands() -> list[tuple[int, int]]:
    """The 1,326 two-card hands, in increasing order."""
    return list(itertools.combinations(range(52), 2))


def class_hands(game: Game) -> list[int]:
    """Indices into ``hands()`` of one hand per pre-flop class (169), the first of each."""
    seen: set[tuple[int, ...]] = set()
    chosen = []
    for index, hand in enumerate(hands()):
        key = suit_canonical(game, hand, ())
        if key not in seen:
            seen.add(key)
            chosen.append(index)
    return chosen


def sign_sums(game: Game, start: int, stop: int) -> np.ndarray:
    """(169, 1326) sum of sign(class hand's rank - other hand's rank) over boards ``start:stop``."""
    all_hands = np.array(hands(), dtype=np.uint8)
    reps = class_hands(game)
    holding = np.zeros((len(all_hands), 52), dtype=np.float32)
    holding[np.arange(len(all_hands))[:, None], all_hands] = 1
    sums = np.zeros((len(reps), len(all_hands)), dtype=np.int64)
    boards = np.arange(52, dtype=np.uint8)[index_combinations(52, 5)[start:stop]]
    for first in range(0, len(boards), BLOCK):
        block = boards[first : first + BLOCK]
        on_board = np.zeros((len(block), 52), dtype=np.float32)
        on_board[np.arange(len(block))[:, None], block] = 1
        clash = (on_board @ holding.T) > 0
        ranks = np.full(clash.shape, BEATS, dtype=np.int16)
        board_of, hand_of = np.nonzero(~clash)  # the evaluator takes distinct cards only
        seven = np.concatenate([block[board_of], all_hands[hand_of]], axis=1)
        ranks[board_of, hand_of] = rank_hands(seven)
        mine = ranks[:, reps]
        mine[clash[:, reps]] = LOSES
        partial = np.zeros(sums.shape, dtype=np.int32)  # at most BLOCK in size: no overflow
        difference = np.empty(sums.shape, dtype=np.int16)
        for row in range(len(block)):
            np.subtract(mine[row, :, None], ranks[row], out=difference)
            partial += np.sign(difference)
        sums += partial
    return sums


def build(workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(keys (N, 4) uint8, twice wins plus ties (N,) int64) for every suit-canonical deal, sorted by key."""
    game = load_game(GAME)
    edges = np.linspace(0, ALL_BOARDS, 8 * workers + 1).astype(int)
    with ProcessPoolExecutor(workers) as pool:
        parts = pool.map(sign_sums, itertools.repeat(game), edges[:-1], edges[1:])
        sums = sum(parts, np.zeros((169, 1326), dtype=np.int64))
    twice = sums + ALL_BOARDS
    all_hands = hands()
    table: dict[tuple[int, ...], int] = {}
    for row, index in enumerate(class_hands(game)):
        first = all_hands[index]
        for column, second in enumerate(all_hands):
            if set(first) & set(second):
                continue
            key = suit_canonical(game, first, second)
            value = int(twice[row, column])
            if table.setdefault(key, value) != value:
                raise AssertionError(f"deal {key} valued {table[key]} and {value}")
    keys = sorted(table)
    return np.array(keys, dtype=np.uint8), np.array([table[k] for k in keys], dtype=np.int64)


def save(path: Path, keys: np.ndarray, twice: np.ndarray) -> None:
    np.savez_compressed(path, keys=keys, twice_wins_plus_ties=twice, boards=np.int64(DEAL_BOARDS))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the .npz file to write")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    keys, twice = build(args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save(args.out, keys, twice)
    print(f"{len(keys)} deals -> {args.out}")


if __name__ == "__main__":
    main()
