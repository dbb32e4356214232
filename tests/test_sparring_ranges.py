"""The sparring bots' hand reading (``agents/ranges.py``, ``agents/sparring/reading.py``), against eval7's equities
and hand-worked spots."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from acpc_arena.agents.ranges import (
    COMBOS,
    NUM_COMBOS,
    combo_index,
    drawing,
    equity,
    flush_draw,
    preflop_matrix,
    straight_draw,
    strengths,
)
from acpc_arena.agents.sparring.reading import OpponentModel
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state
from tests.helpers.sparring import cards7

eval7 = pytest.importorskip("eval7")

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
ANY_HAND = eval7.HandRange(
    "22+,A2s+,K2s+,Q2s+,J2s+,T2s+,92s+,82s+,72s+,62s+,52s+,42s+,32s,"
    "A2o+,K2o+,Q2o+,J2o+,T2o+,92o+,82o+,72o+,62o+,52o+,42o+,32o"
)


def eval7_equity(hole: list[int], board: list[int], iterations: int = 200_000) -> float:
    """eval7's equity against a random hand: exact on the river, the mean over rivers on the turn, else Monte Carlo."""
    if len(board) == 5:
        return float(eval7.py_hand_vs_range_exact(cards7(hole), ANY_HAND, cards7(board)))
    if len(board) == 4:
        rivers = [c for c in range(52) if c not in hole + board]
        return float(np.mean([eval7_equity(hole, [*board, river]) for river in rivers]))
    return float(eval7.py_hand_vs_range_monte_carlo(cards7(hole), ANY_HAND, cards7(board), iterations))


def test_the_1326_hands() -> None:
    assert NUM_COMBOS == 1326 == len({tuple(c) for c in COMBOS.tolist()})
    assert all(combo_index(list(c)) == i == combo_index(list(c)[::-1]) for i, c in enumerate(COMBOS.tolist()))


def test_preflop_matrix_is_the_equity_of_hand_against_hand() -> None:
    matrix = preflop_matrix()
    for first, second in (("AsAh", "KdKc"), ("AsKs", "QdQc"), ("7c2d", "AhKh"), ("9s8s", "9h8h")):
        i, j = combo_index(parse_cards(first)), combo_index(parse_cards(second))
        reference = eval7.py_hand_vs_range_monte_carlo(
            cards7(parse_cards(first)), eval7.HandRange(second), [], 1_000_000
        )  # a standard error under 0.0005
        assert matrix[i, j] == pytest.approx(reference, abs=0.002), (first, second)
        assert matrix[j, i] == pytest.approx(1 - matrix[i, j], abs=1e-6)
    assert matrix[combo_index(parse_cards("AsAh")), combo_index(parse_cards("AsKs"))] == 0.0  # a shared card
    # against a random hand: the mean of its row over the hands it can meet
    for hole in ("AsKd", "7s2h", "8c8d"):
        cards = parse_cards(hole)
        assert equity(cards, []) == pytest.approx(eval7_equity(cards, [], 400_000), abs=0.004)


@pytest.mark.parametrize(
    "spot", ["AdQd Qc8d8s3h2c", "7c2d AhKhQd9s4c", "AsKs QsJsTs", "9h8h 7h6c2s4d", "AsAh KsKhKdKc"]
)
def test_equity_against_a_random_hand_is_eval7s(spot: str) -> None:
    hole_text, board_text = spot.split(" ")
    hole, board = parse_cards(hole_text), parse_cards(board_text)
    tolerance = 1e-7 if len(board) >= 4 else 0.03  # exact on the turn and river; sampled runouts on the flop
    assert equity(hole, board) == pytest.approx(eval7_equity(hole, board), abs=tolerance)


def test_flop_equity_on_random_flops() -> None:
    rng = np.random.default_rng(4)
    errors = []
    for _ in range(12):
        cards = rng.choice(52, 5, replace=False).tolist()
        errors.append(equity(cards[:2], cards[2:]) - eval7_equity(cards[:2], cards[2:], 400_000))
    assert max(abs(e) for e in errors) < 0.03 and float(np.sqrt(np.mean(np.square(errors)))) < 0.015


def test_equity_against_a_range() -> None:
    hole, board = parse_cards("QsQd"), parse_cards("Qc8d8s3h2c")
    one = np.zeros(NUM_COMBOS)
    one[combo_index(parse_cards("8c8h"))] = 1.0  # quads beat the full house
    assert equity(hole, board, one) == 0.0
    one[combo_index(parse_cards("AhKh"))] = 1.0  # and the full house beats ace high: one of two
    assert equity(hole, board, one) == 0.5
    # on the turn, one hand against one hand: kings full against two pair, aces full on the two aces left
    pair = np.zeros(NUM_COMBOS)
    pair[combo_index(parse_cards("AcAh"))] = 1.0
    hole, board = parse_cards("KsKd"), parse_cards("Kc8d8s3h")
    rivers = [c for c in range(52) if c not in parse_cards("KsKdKc8d8s3hAcAh")]
    aces = [c for c in rivers if CARD_STRINGS[c][0] == "A"]
    assert len(rivers) == 44 and len(aces) == 2
    assert equity(hole, board, pair) == pytest.approx(42 / 44, abs=1e-12)
    # weights scale out
    weights = np.full(NUM_COMBOS, 3.0)
    assert equity(parse_cards("7c2d"), parse_cards("AhKhQd9s4c"), weights) == pytest.approx(
        equity(parse_cards("7c2d"), parse_cards("AhKhQd9s4c"))
    )


def test_river_strengths_count_the_hands_beaten() -> None:
    """On the river a hand's strength is the share of the board's other 1,080 hands it beats, ties half (whether
    or not they share a card with it: the opponent model's simplification), ranked here by eval7."""
    board = parse_cards("AhKhQd9s4c")
    values = strengths(board)
    unseen = [c for c in range(52) if c not in board]
    pairs = itertools.combinations(unseen, 2)
    ranks: dict[tuple[int, ...], int] = {pair: eval7.evaluate(cards7([*pair, *board])) for pair in pairs}
    for hole in ("7c2d", "JhTh", "AsKs", "4d4h", "3c2c"):
        mine = ranks[tuple(sorted(parse_cards(hole)))]
        beaten = sum(r < mine for r in ranks.values()) + 0.5 * (sum(r == mine for r in ranks.values()) - 1)
        assert values[combo_index(parse_cards(hole))] == pytest.approx(beaten / (len(ranks) - 1), abs=1e-9), hole
    assert values[combo_index(parse_cards("AhAc"))] == 0.0  # the board holds the Ah: not a hand here


def test_draws() -> None:
    assert flush_draw(parse_cards("Ah5h"), parse_cards("Kh9h2c"))
    assert not flush_draw(parse_cards("Ac5c"), parse_cards("Kh9h2h"))  # no card of the suit in the hand
    assert not flush_draw(parse_cards("Ah5h"), parse_cards("Kh9h2c3s4d"))  # no card to come
    assert straight_draw(parse_cards("9c8d"), parse_cards("7h6s2c"))  # 6789: a 5 or a T
    assert straight_draw(parse_cards("2c3d"), parse_cards("4h5sKc"))  # 2345: an ace or a 6
    assert not straight_draw(parse_cards("AcKd"), parse_cards("QhJs2c"))  # AKQJ: only a T (one end)
    assert not straight_draw(parse_cards("9c8d"), parse_cards("7h5s2c"))  # a gutshot
    assert not straight_draw(parse_cards("9c8d"), parse_cards("7h6s5c"))  # a straight already
    assert drawing(parse_cards("9c8d"), parse_cards("7h6s2c")) and not drawing(
        parse_cards("9c8d"), parse_cards("Ah6s2c")
    )


def test_a_raise_narrows_the_range_less_against_a_maniac() -> None:
    view = parse_match_state("MATCHSTATE:0:0:cc/cr:QsJh|/Td7c2h", LIMIT)  # position 1 limped, then bet the flop
    fresh = OpponentModel()
    maniac = OpponentModel()
    # position 1 raises first in and bets every street when checked to, hand after hand
    maniac_hand = parse_match_state("MATCHSTATE:0:1:rc/crc/crc/crc:QsJh|2c3d/Td7c2h/9s/4c", LIMIT).state
    for _ in range(200):
        maniac.observe(maniac_hand, 1)
    assert maniac.rates(1)[0] > 0.95 and fresh.rates(1)[0] == pytest.approx(0.3)  # the flop's bet rates

    def effective_hands(weights: np.ndarray) -> float:
        p = weights / weights.sum()
        return float(1 / np.sum(p**2))

    narrow, wide = fresh.range_weights(view.state, 1), maniac.range_weights(view.state, 1)
    assert effective_hands(wide) > 1.5 * effective_hands(narrow)
    hole, board = parse_cards("QsJh"), parse_cards("Td7c2h")
    assert equity(hole, board, wide) > equity(hole, board, narrow)
