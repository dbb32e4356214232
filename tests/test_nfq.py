"""Seed 003's NFQ: the observation, the eligibility-trace update, the UCT bandit, checkpoints, the agent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from acpc_arena.agents.nfq import NFQAgent
from acpc_arena.models.nfq.features import FEATURES, hand_strength, max_loss, observation, window
from acpc_arena.models.nfq.network import EligibilityTraces, NFQNetwork, q_gradients
from acpc_arena.models.training.nfq import Trainer, config_for
from acpc_arena.models.training.nfq_uct import action_values, ucb_choice
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, LIMIT_RAISE_ACTION, State
from acpc_arena.protocol.wire import MatchState
from tests.helpers.processes import check_log, play, program

LIMIT_NAME = "holdem.limit.2p.reverse_blinds"
LIMIT = load_game(LIMIT_NAME)
MAX_POT = 480  # each player at most 10 + 3*10 + 4*10 + 4*20 + 4*20 = 240 chips in limit hold'em


def hand(actions: str, hole: tuple[str, str] = ("AsAh", "2c7d"), board: str = "Kc9h4d3s2h") -> State:
    state = State(LIMIT, 0, [parse_cards(hole[0]), parse_cards(hole[1])], parse_cards(board))
    for char in actions.replace("/", ""):
        state.apply(LIMIT_RAISE_ACTION if char == "r" else CALL_ACTION)
    return state


def test_observation_before_the_flop_by_hand() -> None:
    # seat 1 (small blind, 5) raises to 20, seat 0 (big blind, 10) re-raises to 30: seat 1 owes 10
    z = observation(hand("rr"), 1, (0.6, 0.4))
    expected = [1, 0, 0, 0, 50 / MAX_POT, 10 / 10, 0.6, 0.4, 1 / 4, 0, 1 / 4, 0, 1, 2 / 3]
    assert len(z) == FEATURES and max_loss(LIMIT) == 240
    np.testing.assert_allclose(z, expected, rtol=1e-6)


def test_observation_on_the_flop_by_hand() -> None:
    # call, check; on the flop seat 0 bets 10: seat 1 owes 10 of a 30-chip pot
    state = hand("cc/r")
    z1 = observation(state, 1, (0.3, 0.1))
    np.testing.assert_allclose(z1, [0, 1, 0, 0, 30 / MAX_POT, 1, 0.3, 0.1, 0, 1 / 4, 1 / 4, 1 / 4, 1, 1 / 4], rtol=1e-6)
    z0 = observation(state, 0, (0.3, 0.1))  # the same numbers from seat 0's side (not its turn: nothing owed)
    np.testing.assert_allclose(z0, [0, 1, 0, 0, 30 / MAX_POT, 0, 0.3, 0.1, 1 / 4, 1 / 4, 0, 1 / 4, 0, 1 / 4], rtol=1e-6)


def test_window_keeps_the_last_n_oldest_first() -> None:
    a, b, c = (np.full(FEATURES, v, dtype=np.float32) for v in (1, 2, 3))
    np.testing.assert_array_equal(window([a, b], 3), np.concatenate([np.zeros(FEATURES), a, b]))
    np.testing.assert_array_equal(window([a, b, c], 2), np.concatenate([b, c]))
    np.testing.assert_array_equal(window([], 1), np.zeros(FEATURES))


def test_hand_strength_against_known_values() -> None:
    # quad aces on this river cannot be beaten (no straight flush is possible): HS = 1
    assert hand_strength(LIMIT, parse_cards("AhAs"), parse_cards("AcAd2c7d9h")) == (1.0, 1.0)
    # a royal flush on the board: every hand ties, HS = 1/2
    assert hand_strength(LIMIT, parse_cards("2c3d"), parse_cards("AsKsQsJsTs")) == (0.5, 0.25)
    # pocket aces win 85.2% against a random hand (the standard pre-flop equity table)
    mean, square = hand_strength(LIMIT, parse_cards("AdAc"), [])
    assert mean == pytest.approx(0.852, abs=0.01) and mean**2 <= square <= mean


def numeric_gradient(net: NFQNetwork, x: torch.Tensor, action: int, eps: float = 1e-6) -> list[torch.Tensor]:
    """dQ(x, action)/dparameter by central differences, one weight at a time."""
    out = []
    for p in net.parameters():
        grad = torch.zeros_like(p)
        flat, g = p.data.view(-1), grad.view(-1)
        for i in range(flat.numel()):
            keep = flat[i].item()
            flat[i] = keep + eps
            up = net(x)[action].item()
            flat[i] = keep - eps
            down = net(x)[action].item()
            flat[i] = keep
            g[i] = (up - down) / (2 * eps)
        out.append(grad)
    return out


def test_trace_update_matches_a_hand_computation_on_a_tiny_network() -> None:
    torch.manual_seed(3)
    net = NFQNetwork(2, 2).double()
    alpha, lam = 0.1, 0.5
    steps = [(torch.tensor([0.3, -0.7], dtype=torch.float64), 2, 0.25), (torch.tensor([1.0, 0.5]).double(), 1, -0.4)]
    expected = [p.detach().clone() for p in net.parameters()]
    reference = NFQNetwork(2, 2).double()
    reference.load_state_dict(net.state_dict())
    z = [torch.zeros_like(p) for p in expected]
    traces = EligibilityTraces(net, 1)
    traces.z = [t.double() for t in traces.z]
    row = torch.tensor([0])
    for x, action, delta in steps:
        # by hand: z = lambda z + dQ(s, a)/dw (numerically), then w += alpha delta z
        g = numeric_gradient(reference, x, action)
        z = [lam * zi + gi for zi, gi in zip(z, g, strict=True)]
        with torch.no_grad():
            for p, zi in zip(reference.parameters(), z, strict=True):
                p.add_(alpha * delta * zi)
        _, gradients = q_gradients(net, x[None], torch.tensor([action]))
        traces.accumulate(row, gradients, lam)
        traces.apply(row, torch.tensor([delta], dtype=torch.float64), alpha)
    for mine, theirs in zip(net.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-8, rtol=1e-6)
    traces.reset(row)
    assert all(not t.any() for t in traces.z)


def test_ucb_choice_on_hand_made_counts() -> None:
    assert ucb_choice([0, 5, 3], [0.0, 1.0, 1.0], [0, 1, 2], 1.0) == 0  # an untried arm first
    # fold (unvisited) is not offered; N = 8: call 0.2 + sqrt(ln 8 / 5) = 0.845, raise 0.333 + sqrt(ln 8 / 3) = 1.166
    assert ucb_choice([0, 5, 3], [0.0, 1.0, 1.0], [1, 2], 1.0) == 2
    visits, totals = [1, 1, 8], [-0.5, 0.2, 3.2]  # means -0.5, 0.2, 0.4; ln 10 = 2.3026
    assert ucb_choice(visits, totals, [0, 1, 2], 0.0) == 2  # greedy: the best mean
    # c = 0.5: fold -0.5 + 0.5 * 1.517 = 0.259, call 0.2 + 0.759 = 0.959, raise 0.4 + 0.5 * 0.537 = 0.668
    assert ucb_choice(visits, totals, [0, 1, 2], 0.5) == 1


def test_uct_values_fold_exactly_and_count_every_world() -> None:
    import random

    state = hand("rr")  # seat 1 has 20 chips in and owes 10
    values, visits = action_values(state, 30, 0.5, 240.0, random.Random(1))
    assert visits.sum() == 30 and (visits > 0).all()
    assert values[0] == pytest.approx(-20 / 240)  # folding loses what is in, in every world
    river = hand("cc/cc/cc/c", ("2c3d", "AhAs"), "AcAd2h7d9h")  # seat 1 holds unbeatable quads on the river
    values, visits = action_values(river, 30, 0.5, 240.0, random.Random(1))
    assert visits[0] == 0 and values[1] >= 0 and values[2] >= 0  # nothing owed: no fold; it never loses


def tiny_checkpoint(path: Path) -> tuple[Path, Trainer]:
    config = config_for(hands=40, tables=4, opponents=(("call", 1.0),), uct_worlds=4, snapshot_every=20)
    trainer = Trainer(config)
    trainer.run()
    return trainer.save(path, {}), trainer


def test_checkpoint_round_trip_plays_the_same_network(tmp_path: Path) -> None:
    path, trainer = tiny_checkpoint(tmp_path / "tiny")
    agent = NFQAgent(LIMIT, checkpoint=path)
    assert agent.window == 3 and agent.meta["hands_trained"] >= 40
    state = hand("rr")
    view = MatchState(1, state)
    x = torch.from_numpy(agent.state_vector(view))
    torch.testing.assert_close(agent.q_values([view])[0], trainer.net(x).detach().numpy())


def test_damaged_checkpoint_is_one_line(tmp_path: Path) -> None:
    path, _ = tiny_checkpoint(tmp_path / "tiny")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(path.read_bytes()[:300])
    bad.with_suffix(".json").write_text(path.with_suffix(".json").read_text())
    done = subprocess.run(
        [program("acpc-agent"), "nfq", "127.0.0.1", "1", "--checkpoint", str(bad)], capture_output=True, text=True
    )
    assert done.returncode == 2  # a file named on the command line that cannot be used
    assert done.stderr.count("\n") == 1 and "damaged checkpoint" in done.stderr and "Traceback" not in done.stderr
    other = json.loads(path.with_suffix(".json").read_text()) | {"window": 2}
    path.with_suffix(".json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="do not match"):
        NFQAgent(LIMIT, checkpoint=path)
    with pytest.raises(ValueError, match="heads-up limit"):
        NFQAgent(load_game("holdem.nolimit.2p.reverse_blinds"))


def test_nfq_plays_through_the_dealer(tmp_path: Path) -> None:
    status, _, err = play(tmp_path, LIMIT_NAME, 150, 5, [("nfq", []), ("random", [])], "-q")
    assert status == 0, err
    assert "WARNING" not in err  # the dealer warns about every invalid action it fixes
    check_log(tmp_path / "match.log", LIMIT, 150)
