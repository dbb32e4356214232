"""The ensemble's starting network: the teacher's actions as network outputs, its records, the fit, the fan-out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acpc_arena.dealer.arena.fanout import fan_out
from acpc_arena.models.ensemble.network import NUM_OUTPUTS, NetConfig
from acpc_arena.models.training.ensemble_imitation import Records, agreement, fit, output_of, teacher_records
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action
from acpc_arena.protocol.wire import parse_match_state

GAME = load_game("holdem.nolimit.2p.reverse_blinds")


def test_a_raise_is_the_output_of_its_pot_fraction_bucket() -> None:
    # Reverse blinds: position 1 posts 50 and acts first; calling costs 50, the pot after calling is 200.
    state = parse_match_state("MATCHSTATE:1:0::|AsAh", GAME).state
    assert output_of(state, FOLD_ACTION) == 0
    assert output_of(state, CALL_ACTION) == 1
    assert output_of(state, Action(RAISE, 200)) == 4  # +100 over the call: 0.5 pots, bucket 3 [0.375, 0.75)
    assert output_of(state, Action(RAISE, 300)) == 5  # +200: 1 pot, bucket 4 [0.75, 1.25)
    assert output_of(state, Action(RAISE, 110)) == 2  # +10: 0.05 pots, bucket 1 (< 0.125)
    assert output_of(state, Action(RAISE, 900)) == 8  # +800: 4 pots, bucket 7 (>= 4)
    assert output_of(state, Action(RAISE, 20000)) == 9  # the whole stack: all in


def test_the_teachers_records_are_its_decisions_with_a_policy_over_the_legal_outputs() -> None:
    records = teacher_records(GAME, "o1", 20, seed=5)
    assert len(records) >= 10  # the teacher acts at least once in each of the 20 hands
    assert records.opponent.shape == (len(records), 5, 4) and records.game.shape == (len(records), 5, 6)
    np.testing.assert_allclose(records.target.sum(axis=1), 1, atol=1e-5)
    assert not (records.target * ~records.legal).any()
    assert records.legal[:, 1].all()  # check or call is always allowed
    # The first decision of every hand is pre-flop: the round feature (round / 3) is 0 there.
    assert (records.game[:, -1, 2] == 0).any() and (records.game[:, -1, 2] > 0).any()


def test_the_fit_learns_a_rule_of_its_inputs() -> None:
    # A made-up teacher: fold when the own hand strength (game feature 4) is below 0.5, else raise one pot.
    rng = np.random.default_rng(0)
    count = 2000
    game = rng.random((count, 5, 6)).astype(np.float32)
    opponent = rng.random((count, 5, 4)).astype(np.float32)
    legal = np.ones((count, NUM_OUTPUTS), dtype=bool)
    target = np.zeros((count, NUM_OUTPUTS), dtype=np.float32)
    weak = game[:, -1, 3] < 0.5
    target[weak, 0] = 1
    target[~weak, 5] = 1
    records = Records(opponent, game, legal, target)
    params, figures = fit(records, NetConfig(), epochs=20, seed=1, batch=64)
    assert figures["held_out_agreement"] > 0.95
    assert agreement(params, NetConfig(), records) > 0.95


def test_fan_out_gives_every_result_by_its_index_and_raises_a_tasks_error() -> None:
    assert dict(fan_out(math.factorial, [3, 5, 0, 4], workers=2)) == {0: 6, 1: 120, 2: 1, 3: 24}
    with pytest.raises(ValueError, match="negative"):
        dict(fan_out(math.factorial, [2, -1], workers=1))
