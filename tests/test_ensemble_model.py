"""Seed 001's opponent-model tree on hand-made histories; every expected number is worked out by hand here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acpc_arena.models.ensemble.features import board_pairs, game_features, step_features, straight_or_flush_share
from acpc_arena.models.ensemble.opponent_model import (
    OpponentModel,
    edge,
    path_keys,
    raise_bucket,
    shown_strength,
    similarity_weights,
)
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import RAISE, Action, State
from acpc_arena.protocol.wire import parse_match_state

GAME = load_game("holdem.nolimit.2p.reverse_blinds")


def final(text: str) -> State:
    return parse_match_state(text, GAME).state


@pytest.mark.parametrize(
    ("fraction", "bucket"),
    [
        (0.05, 1),
        (0.125, 2),
        (0.3, 2),
        (0.375, 3),
        (0.5, 3),
        (0.75, 4),
        (1.0, 4),
        (1.25, 5),
        (2.0, 6),
        (3.99, 6),
        (4.0, 7),
    ],
)
def test_raise_buckets_are_the_notes_intervals(fraction: float, bucket: int) -> None:
    assert raise_bucket(fraction) == bucket


def test_raise_edges_measure_the_increment_in_pots_after_calling() -> None:
    state = State(GAME)  # the small blind (position 1) owes 50; the pot after calling is 200
    assert edge(state, Action(RAISE, 300)) == "4"  # 200 more than the call: 1 pot
    assert edge(state, Action(RAISE, 200)) == "3"  # the minimum raise: 100, half a pot
    assert edge(state, Action(RAISE, 20000)) == "7"  # all in: 19,900 / 200 pots


HAND_1 = "MATCHSTATE:0:0:r300c/cr600f:AsAh|/2c3d4h"  # opponent raises 1 pot, bets half a pot; the agent folds
HAND_2 = "MATCHSTATE:0:1:cc/cc/cc/cc:9s8s|JhTh/AhKhQh/2c/3d"  # checked down; the opponent shows a royal flush
HAND_3 = "MATCHSTATE:0:2:f:AsAh|"  # the opponent folds its small blind


def grown() -> OpponentModel:
    model = OpponentModel()
    for text in (HAND_1, HAND_2, HAND_3):
        state = final(text)
        model.observe(state, 0, shown_strength(state, 0))
    return model


def test_path_keys_follow_the_abstract_history() -> None:
    assert path_keys(final(HAND_1), 0) == ["0|", "0|4", "0|4c", "0|4cc", "0|4cc3", "0|4cc3f"]


def test_shown_strength_is_the_opponents_share_of_beaten_holdings() -> None:
    assert shown_strength(final(HAND_2), 0) == 1.0  # a royal flush beats every other holding
    assert shown_strength(final(HAND_1), 0) is None  # folded: nothing shown


def test_node_statistics_after_three_hands() -> None:
    model = grown()
    root = model.node("0|")
    assert (root.visits, root.opponent_folds, root.showdowns, root.strength_sum) == (3, 1, 1, 1.0)
    assert root.actions == [1, 1, 0, 0, 0, 1, 0, 0, 0]  # fold, call, raise bucket 4
    flop_bet = model.node("0|4cc")
    assert flop_bet.visits == 1 and flop_bet.actions == [0, 0, 0, 0, 1, 0, 0, 0, 0]  # bucket 3
    assert model.node("0|4cc3f").visits == 1
    assert model.node("1|").visits == 0  # the other seat's tree is untouched
    np.testing.assert_allclose(model.features(["0|", "0|4"]), [[1, 1 / 3, 1 / 3, 1.0], [1 / 3, 0, 0, 0.5]])
    np.testing.assert_allclose(model.node("0|").style(), [1 / 3, 1.0, 1 / 3, 1 / 3, 0, 0, 0, 1 / 3, 0, 0, 0])
    np.testing.assert_allclose(model.node("0|c").style(), [1, 1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0])


def test_distance_sums_style_distances_along_the_path() -> None:
    library = OpponentModel()
    library.observe(final(HAND_3), 0, None)  # an opponent seen only folding its small blind
    # root: ours (1/3, 1, 1/3, 1/3, 0, 0, 0, 1/3, ...) against (0, 0.5, 1, 0, ...):
    # squares 1/9 + 1/4 + 4/9 + 1/9 + 1/9; node "c": ours (1, 1, 0...) against the empty (0, 0.5, 0...): 1 + 1/4
    expected = math.sqrt(1 / 9 + 1 / 4 + 4 / 9 + 1 / 9 + 1 / 9) + math.sqrt(1 + 1 / 4)
    assert grown().distance(library, ["0|", "0|c"]) == pytest.approx(expected)
    assert grown().distance(grown(), ["0|", "0|c"]) == 0.0


def test_similarity_weights_are_softmax_of_minus_distance() -> None:
    np.testing.assert_allclose(similarity_weights([0.0, math.log(3)]), [0.75, 0.25])
    np.testing.assert_allclose(similarity_weights([5.0, 5.0, 5.0, 5.0]), [0.25] * 4)


def test_the_tree_survives_json() -> None:
    model = grown()
    again = OpponentModel.from_json(model.to_json())
    assert again.to_json() == model.to_json()
    assert again.distance(model, path_keys(final(HAND_2), 0)) == 0.0


def test_game_features_on_a_hand_made_board() -> None:
    assert board_pairs(tuple(parse_cards("9h9d5c"))) == 1
    assert board_pairs(tuple(parse_cards("9h9d5c5s9s"))) == 2
    # Ah Kh Qh: a flush needs two more hearts (10 holdings of the 10 hearts left: C(10,2) = 45),
    # a straight needs J T (4 x 4 = 16, one of which, Jh Th, is a heart pair already counted): 45 + 15 = 60
    assert straight_or_flush_share(tuple(parse_cards("AhKhQh"))) == pytest.approx(60 / 1176)
    state = final("MATCHSTATE:0:0:r300c/r600:2s2d|/AhKhQh")
    raised = [300, 200]  # the agent (position 0) raised 300 more on the flop; the opponent 200 more pre-flop
    features = game_features(state, 0, raised)
    assert features[:3] == pytest.approx([60 / 1176, 0, 1 / 3])
    assert features[4:] == pytest.approx([200 / 900, 300 / 900])


def test_step_features_keep_the_last_five_steps() -> None:
    state = final("MATCHSTATE:0:0:r300c/r600:2s2d|/AhKhQh")
    opponent, game, keys = step_features(state, 0, grown())
    assert keys == ["0|", "0|4", "0|4c", "0|4c3"]  # the agent's flop bet: 300 more into 600, half a pot
    assert opponent.shape == (5, 4) and game.shape == (5, 6)
    np.testing.assert_allclose(game[-1], game_features(state, 0, [300, 200]), rtol=1e-6)
    np.testing.assert_allclose(opponent[0], 0.0)  # 4 nodes on the path: one padding step in front
    np.testing.assert_allclose(opponent[1], [1, 1 / 3, 1 / 3, 1.0])
