"""The hand evaluator against eval7, and random hands through the betting engine, compiled and from its sources."""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from benchmarks.timing import PURE, Row

EVALUATOR_PAIRS = 7
"""Interleaved rounds of eval7 and the project's evaluator; each figure is the median over them."""


def bench_evaluator() -> Iterator[Row]:
    """eval7 against ``rank_hand`` (one call a hand, goal >= 1.0x) and ``rank_hands`` (batched, goal >= 30x):
    in each round eval7 and each path of ours rank the same random 7-card hands, timed on this process's
    CPU clock; the ratio is the median of the rounds' ratios. Two rows more rank hands that share cards:
    holdings on one board, and ``rank_holdings_on_boards``' grid of holdings by boards (a range's holdings
    on a Monte Carlo flop's draws)."""
    import statistics

    import eval7

    from acpc_arena.protocol.cards import CARD_STRINGS
    from acpc_arena.protocol.evaluator import rank_hand, rank_hands, rank_holdings_on_boards
    from tests.helpers.evaluator import category_counts_of_all_seven_card_hands

    rng = np.random.default_rng(0)
    count = 1_000_000
    hands = np.argsort(rng.random((count // 10, 52)), axis=1)[:, :7].astype(np.uint8)
    hands = np.tile(hands, (10, 1))
    rng.shuffle(hands)
    eval7_cards = [eval7.Card(s) for s in CARD_STRINGS]
    lists = hands[:200_000].tolist()
    sample = [[eval7_cards[c] for c in h] for h in lists]
    board = [0, 17, 34, 51, 22]
    holes = np.array([h for h in itertools.combinations(range(52), 2) if not set(h) & set(board)], dtype=np.uint8)
    holes = np.tile(holes, (1000, 1))
    # a range's holdings on a Monte Carlo flop's draws: 40 holdings of cards 0-9, 1,200 boards of the others
    grid_holes = np.array(list(itertools.combinations(range(10), 2))[:40], dtype=np.uint8)
    grid_boards = (10 + np.argsort(rng.random((1200, 42)), axis=1)[:, :5]).astype(np.uint8)
    rank_hand(lists[0]), rank_hands(hands[:10]), rank_hands(holes[:10], fixed=board)  # load the tables

    def seconds_per_hand(work: Callable[[], object], hands: int) -> float:
        start = time.process_time()
        work()
        return (time.process_time() - start) / hands

    times: dict[str, list[float]] = {"eval7": [], "scalar": [], "batch": [], "board": [], "grid": []}
    for _ in range(EVALUATOR_PAIRS):
        times["eval7"].append(seconds_per_hand(lambda: [eval7.evaluate(h) for h in sample], len(sample)))
        times["scalar"].append(seconds_per_hand(lambda: [rank_hand(h) for h in lists], len(lists)))
        times["batch"].append(seconds_per_hand(lambda: rank_hands(hands), count))
        times["board"].append(seconds_per_hand(lambda: rank_hands(holes, fixed=board), len(holes)))
        grid = 50 * len(grid_holes) * len(grid_boards)
        times["grid"].append(
            seconds_per_hand(lambda: [rank_holdings_on_boards(grid_holes, grid_boards) for _ in range(50)], grid)
        )

    def rate(name: str) -> float:
        return 1 / statistics.median(times[name]) / 1e6

    def ratio(name: str, goal: str) -> str:
        ratios = [e / t for e, t in zip(times["eval7"], times[name], strict=True)]
        return f"{statistics.median(ratios):.2f}x eval7 (median of {len(ratios)} pairs{goal})"

    yield ("eval7.evaluate, one call per 7-card hand", f"{rate('eval7'):.2f} M hands/s", "reference (CPU time)")
    yield ("rank_hand, one call per 7-card hand", f"{rate('scalar'):.2f} M hands/s", ratio("scalar", "; goal >= 1.0x"))
    yield ("rank_hands, 7 random cards per row", f"{rate('batch'):.1f} M hands/s", ratio("batch", "; goal >= 30x"))
    yield ("rank_hands, 2 hole cards + shared board", f"{rate('board'):.1f} M hands/s", ratio("board", ""))
    yield ("rank_holdings_on_boards, 40 holdings x 1,200 boards", f"{rate('grid'):.1f} M hands/s", ratio("grid", ""))
    start = time.process_time()
    counts = category_counts_of_all_seven_card_hands()
    elapsed = time.process_time() - start
    t_eval7 = statistics.median(times["eval7"])
    yield (
        "all 133,784,560 7-card hands, category counts",
        f"{elapsed:.1f} s",
        f"{counts.sum() / elapsed / 1e6:.0f} M hands/s, {t_eval7 * counts.sum() / elapsed:.0f}x eval7 (CPU time)",
    )


def engine_rates(hands: int = 20_000) -> dict[str, tuple[float, float]]:
    """Hands/s and actions per hand of random play through the engine, by game."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.evaluator import rank_hand
    from acpc_arena.protocol.game import load_game
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action

    rank_hand([0, 5, 10, 15, 20, 25, 30])  # build the 7-card table outside the timing

    def play(game_name: str) -> tuple[float, float]:
        game = load_game(game_name)
        deal_rng = MT19937(1)
        choice = random.Random(1)
        draw = choice.random
        actions = 0
        start = time.perf_counter()
        for hand_id in range(hands):
            state = deal_hand(game, hand_id, deal_rng)
            while not state.finished:
                x = draw()
                if x < 0.06 and state.can_fold():
                    action = FOLD_ACTION
                elif x < 0.53:
                    action = CALL_ACTION
                else:
                    bounds = state.raise_range()
                    if bounds is None:
                        action = CALL_ACTION
                    elif game.no_limit:
                        action = Action(RAISE, choice.randint(bounds[0], bounds[1]))
                    else:
                        action = LIMIT_RAISE_ACTION
                state.apply(action)
                actions += 1
            state.values()
        elapsed = time.perf_counter() - start
        return hands / elapsed, actions / hands

    return {name: play(name) for name in ENGINE_GAMES}


ENGINE_GAMES = ("holdem.nolimit.2p.reverse_blinds", "holdem.limit.2p.reverse_blinds", "holdem.nolimit.3p")


def bench_engine() -> Iterator[Row]:
    """Random hands through the engine, compiled (when ``make install`` could) and from its sources."""
    import json
    import subprocess

    from acpc_arena.protocol.native import is_compiled

    ours = engine_rates()
    code = "import json; from benchmarks import engine; print(json.dumps(engine.engine_rates()))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=PURE,
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    pure = json.loads(done.stdout)
    engine = "compiled" if is_compiled() else "not compiled"
    for name in ENGINE_GAMES:
        rate, per_hand = ours[name]
        yield (
            f"engine ({engine}): random hands of {name}",
            f"{rate:,.0f} hands/s",
            f"deal + {per_hand:.1f} actions + showdown",
        )
        yield (
            "  the same from the sources (ACPC_ARENA_PURE=1)",
            f"{pure[name][0]:,.0f} hands/s",
            f"the engine in use {rate / pure[name][0]:.2f}x its rate",
        )
