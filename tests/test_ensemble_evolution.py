"""Seed 001's network and algorithm 1: operators, fitness on a hand-computed matrix, duplicate in-process play."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from acpc_arena.agents.registry import agent_class
from acpc_arena.models.ensemble.network import (
    ALL_IN_OUTPUT,
    CALL_OUTPUT,
    FOLD_OUTPUT,
    NUM_OUTPUTS,
    SHIPPED,
    NetConfig,
    forward,
    init_population,
    init_scale,
    legal_outputs,
    output_action,
)
from acpc_arena.models.ensemble.opponent_model import OpponentModel
from acpc_arena.models.training.ensemble_evolution import (
    crossover,
    fitness,
    mutate,
    next_generation,
    parents,
    schedule,
    survivors,
)
from acpc_arena.models.training.ensemble_play import duplicate_deals, play
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, RAISE, Action, State

GAME = load_game("holdem.nolimit.2p.reverse_blinds")


def test_fitness_on_a_hand_computed_matrix() -> None:
    e = np.array([[100.0, -50.0], [300.0, -200.0], [50.0, -100.0]])
    # n_0 = max(BB 100, 300) = 300; n_1 = max(100, -50) = 100
    expected = [(100 / 300 - 0.5) / 2, (1.0 - 2.0) / 2, (50 / 300 - 1.0) / 2]
    np.testing.assert_allclose(fitness(e, 100), expected)


def test_mutation_schedule_endpoints_are_linear() -> None:
    assert schedule(0, 300) == pytest.approx((0.25, 0.5))
    assert schedule(299, 300) == pytest.approx((0.05, 0.1))
    assert schedule(1, 3) == pytest.approx((0.15, 0.3))


def test_survivors_are_the_best_quarter_and_parents_the_survivors_above_their_mean() -> None:
    f = np.array([0.1, 0.9, 0.3, 0.8, 0.2, 0.0, 0.5, 0.4])
    kept = survivors(f)
    assert kept.tolist() == [1, 3]  # ceil(0.25 * 8) = 2
    assert parents(f, kept).tolist() == [1]  # the mean of 0.9 and 0.8 is 0.85
    assert survivors(np.arange(10.0)).tolist() == [9, 8, 7]  # ceil(2.5)


def _constant_population(size: int) -> dict[str, torch.Tensor]:
    params = init_population(SHIPPED, size, torch.Generator().manual_seed(0))
    return {name: torch.stack([torch.full(t.shape[1:], float(i)) for i in range(size)]) for name, t in params.items()}


def test_crossover_takes_each_segment_from_one_parent() -> None:
    population = _constant_population(2)
    a = {k: t[0] for k, t in population.items()}
    b = {k: t[1] for k, t in population.items()}
    rng = np.random.default_rng(3)
    pick = {k: torch.from_numpy(rng.random(t.shape[-1]) < 0.5) for k, t in a.items()}
    child = crossover(a, b, pick)
    for name, tensor in child.items():
        expected = torch.where(pick[name], 0.0, 1.0).expand_as(tensor)
        assert torch.equal(tensor, expected), name


def test_mutation_touches_whole_segments_with_the_scheduled_share_and_strength() -> None:
    config = NetConfig(layers=1, opponent_hidden=64, game_hidden=64, mlp=256)
    child = {k: torch.zeros(t.shape[1:]) for k, t in init_population(config, 1, torch.Generator()).items()}
    assert all(torch.equal(t, child[k]) for k, t in mutate(child, config, 0.0, 0.5, np.random.default_rng(1)).items())
    mutated = mutate(child, config, 0.25, 0.5, np.random.default_rng(1))
    w = mutated["mlp.1.w"]  # 256 x 256: 256 segments (columns)
    changed = (w != 0).all(dim=0)
    untouched = (w == 0).all(dim=0)
    assert bool((changed | untouched).all())  # a segment is mutated whole or not at all
    assert 0.15 < changed.float().mean().item() < 0.35
    sigma = 0.5 * init_scale("mlp.1.w", (256, 256), config)
    assert w[:, changed].std().item() == pytest.approx(sigma, rel=0.05)


def test_next_generation_keeps_survivors_and_breeds_only_from_parents() -> None:
    population = _constant_population(8)
    f = np.arange(8.0)  # survivors 7 and 6; only 7 is at least their mean
    new = next_generation(population, f, SHIPPED, 0, 10, np.random.default_rng(5))
    for name, tensor in new.items():
        assert torch.equal(tensor[0], population[name][7]) and torch.equal(tensor[1], population[name][6])
        for child in tensor[2:]:
            segments = child.reshape(-1, child.shape[-1])
            from_seven = (segments == 7.0).all(dim=0)
            mutated = (segments != 7.0).all(dim=0)
            assert bool((from_seven | mutated).all()), name


def test_the_population_lstm_is_torchs_lstm() -> None:
    config = NetConfig(layers=2, opponent_hidden=5, game_hidden=7, mlp=6)
    params = init_population(config, 3, torch.Generator().manual_seed(2))
    opponent = torch.randn(3, 4, 5, 4)
    game = torch.randn(3, 4, 5, 6)
    scores = forward(params, config, opponent, game)
    assert scores.shape == (3, 4, NUM_OUTPUTS)
    member = 1
    reference = []
    for branch, x, hidden in (("opponent", opponent, 5), ("game", game, 7)):
        lstm = torch.nn.LSTM(x.shape[-1], hidden, num_layers=2, batch_first=True)
        with torch.no_grad():
            for layer in range(2):
                getattr(lstm, f"weight_ih_l{layer}").copy_(params[f"{branch}.{layer}.w_ih"][member].T)
                getattr(lstm, f"weight_hh_l{layer}").copy_(params[f"{branch}.{layer}.w_hh"][member].T)
                getattr(lstm, f"bias_ih_l{layer}").copy_(params[f"{branch}.{layer}.b"][member])
                getattr(lstm, f"bias_hh_l{layer}").zero_()
            reference.append(lstm(x[member])[0][:, -1])
    x = torch.cat(reference, dim=-1)
    for i in range(3):
        x = x @ params[f"mlp.{i}.w"][member] + params[f"mlp.{i}.b"][member]
        x = torch.relu(x) if i < 2 else x
    torch.testing.assert_close(scores[member], x.detach(), rtol=1e-5, atol=1e-5)


def test_outputs_are_clamped_to_legal_actions() -> None:
    state = State(GAME)  # the small blind owes 50; min raise to 200; pot after calling 200
    assert legal_outputs(state).all()
    assert output_action(state, 2) == Action(RAISE, 200)  # 1/16 pot = 113, below the minimum raise
    assert output_action(state, 5) == Action(RAISE, 300)  # one pot on top of the call
    assert output_action(state, ALL_IN_OUTPUT) == Action(RAISE, 20000)
    state.apply(CALL_ACTION)  # the big blind owes nothing: folding is not legal
    assert not legal_outputs(state)[FOLD_OUTPUT]
    state.apply(Action(RAISE, 20000))
    mask = legal_outputs(state)  # facing all in: fold or call, no raise
    assert mask[FOLD_OUTPUT] and mask[CALL_OUTPUT] and not mask[2:].any()
    assert output_action(state, 7) == CALL_ACTION


def _fixed_policy(order: list[int]) -> dict[str, torch.Tensor]:
    """One network whose scores rank the outputs as ``order`` (best first), whatever it sees."""
    params = {k: torch.zeros_like(t) for k, t in init_population(SHIPPED, 1, torch.Generator()).items()}
    for rank, output in enumerate(order):
        params["mlp.2.b"][0, output] = float(len(order) - rank)
    return params


def test_duplicate_play_against_a_caller() -> None:
    """Fold when owing, else check: as the small blind it loses 50; as the big blind it checks down for 100."""
    deals = duplicate_deals(GAME, 7, 20)
    model = OpponentModel()
    e = play(_fixed_policy([FOLD_OUTPUT, CALL_OUTPUT]), SHIPPED, [agent_class("call")(GAME)], [model], deals)
    total = 0.0
    for deal in deals:
        total -= 50  # position 1, the small blind, acts first and folds
        board = deal.board_cards
        mine, theirs = rank_hand(deal.hole_cards[0] + board), rank_hand(deal.hole_cards[1] + board)
        total += 100 * np.sign(mine - theirs)
    assert e[0, 0] == pytest.approx(total / 40)
    assert model.node("0|").visits == 20 and model.node("1|").visits == 20
    assert model.node("1|f").visits == 20 and model.node("0|cccccccc").showdowns == 20


def test_all_in_duplicate_pairs_cancel() -> None:
    """Always all in against a caller: each deal is one all-in showdown per seating, won once and lost once."""
    deals = duplicate_deals(GAME, 8, 30)
    e = play(
        _fixed_policy([ALL_IN_OUTPUT, CALL_OUTPUT]), SHIPPED, [agent_class("call")(GAME)], [OpponentModel()], deals
    )
    assert e[0, 0] == 0.0
