"""The hand evaluator against eval7, and random hands through the betting engine, compiled and from its sources."""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from benchmarks.timing import PURE, Row, best_of


def bench_evaluator() -> Iterator[Row]:
    import eval7

    from acpc_arena.protocol.cards import CARD_STRINGS
    from acpc_arena.protocol.evaluator import rank_hand, rank_hands
    from tests.test_evaluator import category_counts_of_all_seven_card_hands

    rng = np.random.default_rng(0)
    count = 1_000_000
    hands = np.argsort(rng.random((count // 10, 52)), axis=1)[:, :7].astype(np.uint8)
    hands = np.tile(hands, (10, 1))
    rng.shuffle(hands)
    rank_hands(hands[:10])
    eval7_cards = [eval7.Card(s) for s in CARD_STRINGS]
    sample = [[eval7_cards[c] for c in h] for h in hands[:200_000].tolist()]
    t_eval7 = best_of(3, lambda: [eval7.evaluate(h) for h in sample]) / len(sample)
    t_batch = best_of(3, lambda: rank_hands(hands)) / count
    board = [0, 17, 34, 51, 22]
    holes = np.array([h for h in itertools.combinations(range(52), 2) if not set(h) & set(board)], dtype=np.uint8)
    holes = np.tile(holes, (1000, 1))
    t_board = best_of(3, lambda: rank_hands(holes, fixed=board)) / len(holes)
    lists = hands[:200_000].tolist()
    t_scalar = best_of(3, lambda: [rank_hand(h) for h in lists]) / len(lists)
    yield ("eval7.evaluate, one call per 7-card hand", f"{1 / t_eval7 / 1e6:.2f} M hands/s", "reference")
    yield (
        "rank_hands, 7 random cards per row",
        f"{1 / t_batch / 1e6:.1f} M hands/s",
        f"{t_eval7 / t_batch:.1f}x eval7",
    )
    yield (
        "rank_hands, 2 hole cards + shared board",
        f"{1 / t_board / 1e6:.1f} M hands/s",
        f"{t_eval7 / t_board:.1f}x eval7",
    )
    yield (
        "rank_hand, one call per 7-card hand",
        f"{1 / t_scalar / 1e6:.2f} M hands/s",
        f"{t_eval7 / t_scalar:.2f}x eval7",
    )
    start = time.perf_counter()
    counts = category_counts_of_all_seven_card_hands()
    elapsed = time.perf_counter() - start
    yield (
        "all 133,784,560 7-card hands, category counts",
        f"{elapsed:.1f} s",
        f"{counts.sum() / elapsed / 1e6:.0f} M hands/s, {t_eval7 * counts.sum() / elapsed:.0f}x eval7",
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
