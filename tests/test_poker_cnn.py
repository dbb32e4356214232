"""Seed 004's Poker-CNN: the network, the decision records and targets from ACPC logs, training, the agent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from acpc_arena.models.q_networks.checkpoint import load_network
from acpc_arena.models.q_networks.networks import PokerCNN
from acpc_arena.models.training.poker_cnn import (
    Config,
    accuracy_by_round,
    majority_baseline,
    split,
    targets,
    train,
    whole_hands,
)
from acpc_arena.models.training.poker_cnn_data import Records, decision_records, play_in_process, read_hands
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game
from tests.helpers.processes import check_log, play, program, run_in_process

LIMIT = load_game("holdem.limit.2p.reverse_blinds")

# Two hands of limit hold'em (blinds 10 by position 0, 5 by position 1; position 1 acts first
# before the flop, position 0 after; bets 10, 10, 20, 20), values worked out by hand:
# hand 0: bob (position 1, small blind) folds at once: alice wins his 5.
# hand 1: alice calls, bob checks; bob bets the flop, alice calls; bob checks the turn, alice
#   bets 20, bob calls; both check the river. Each put in 10 + 10 + 20 = 40; bob's aces win.
HAND_LOG = """\
# name/game/hands/seed handmade holdem.limit.2p.reverse_blinds 2 1
STATE:0:f:AsKs|7c2d:5|-5:alice|bob
STATE:1:cc/rc/crc/cc:AhAd|7c2d/KsQs3h/9c/4d:40|-40:bob|alice
SCORE:-35|35:alice|bob
"""


def write_log(folder: Path, text: str = HAND_LOG) -> Path:
    path = folder / "handmade.log"
    path.write_text(text)
    return path


def card(text: str) -> int:
    return parse_cards(text)[0]


def test_network_shape_and_parameter_count() -> None:
    # conv 32@5x5 over 16 planes, 64@3x3 over 32, 64@2x2 over 64 (weights + biases), then 17 -> 7 -> 3 -> 2
    # cells, so 64 * 2 * 2 = 256 features; fully connected 256 -> 256 and 256 -> 3
    expected = (16 * 32 * 25 + 32) + (32 * 64 * 9 + 64) + (64 * 64 * 4 + 64) + (256 * 256 + 256) + (256 * 3 + 3)
    network = PokerCNN(planes=16)
    assert sum(p.numel() for p in network.parameters()) == expected == 114_339  # "about 114k"
    probabilities, memory = network(torch.rand(5, 1, 16, 17, 17))
    assert probabilities.shape == (5, 1, 3) and memory is None
    assert torch.allclose(probabilities.sum(dim=-1), torch.ones(5, 1))


def test_records_and_targets_of_a_handmade_log(tmp_path: Path) -> None:
    records = decision_records(read_hands([write_log(tmp_path)]), ["bob"])
    # bob: the fold of hand 0; in hand 1 check, bet, check, call, check
    assert records.actions.tolist() == [0, 1, 2, 1, 1, 1]
    assert records.rounds.tolist() == [0, 0, 1, 2, 2, 3]
    assert records.hands.tolist() == [0, 1, 1, 1, 1, 1]
    assert records.later.tolist() == [0, 4, 3, 2, 1, 0]
    assert records.won.tolist() == [False, True, True, True, True, True]
    # his call on the turn: hole cards, flop and turn, round 2, pot 20 + 20 + 0 + 20 = 60 chips = 6 big
    # blinds, alice's last action a raise of 20 = 2 big blinds
    turn_call = records.observations[4].tolist()
    assert turn_call == [card("Ah"), card("Ad"), card("Ks"), card("Qs"), card("3h"), card("9c"), -1, 2, 6, 2]
    onehot, weights = targets(records, alpha=0.5, gamma=0.9)
    assert onehot.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0], [0, 1, 0], [0, 1, 0]]
    # lost hand: 1 - alpha; won: 1 - alpha + alpha * 0.9 ** later
    assert weights == pytest.approx([0.5, 0.5 + 0.5 * 0.6561, 0.5 + 0.5 * 0.729, 0.5 + 0.5 * 0.81, 0.95, 1.0])
    alice = decision_records(read_hands([write_log(tmp_path)]), ["alice"])
    assert alice.actions.tolist() == [1, 1, 2, 1] and alice.later.tolist() == [3, 2, 1, 0] and not alice.won.any()


def test_a_damaged_log_is_an_error_naming_the_line(tmp_path: Path) -> None:
    damaged = HAND_LOG.replace(":40|-40:", ":50|-50:")
    with pytest.raises(ProtocolError, match="line 3"):
        decision_records(read_hands([write_log(tmp_path, damaged)]), ["bob"])
    command = [program("python"), "-m", "acpc_arena.models.training.poker_cnn_data", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [*command, "--logs", str(tmp_path / "handmade.log"), "--imitate", "bob"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ") and "line 3" in done.stderr
    assert not (tmp_path / "out" / "records.npz").exists()


def fake_records(actions: list[int], rounds: list[int], hands: list[int]) -> Records:
    n = len(actions)
    return Records(
        observations=np.zeros((n, 10), dtype=np.int16),
        actions=np.array(actions, dtype=np.int8),
        rounds=np.array(rounds, dtype=np.int8),
        hands=np.array(hands, dtype=np.int32),
        later=np.zeros(n, dtype=np.int8),
        won=np.zeros(n, dtype=bool),
    )


def test_split_keeps_hands_whole_and_baselines_count_by_round() -> None:
    hands = [h for h in range(100) for _ in range(h % 4 + 1)]
    records = fake_records([0] * len(hands), [0] * len(hands), hands)
    test, folds = split(records, test_records=40, folds=4, seed=3)
    parts = [test, *folds]
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(hands)))
    owner: dict[int, int] = {}
    for i, rows in enumerate(parts):
        for hand in records.hands[rows].tolist():
            assert owner.setdefault(hand, i) == i
    assert len(test) >= 40 and len(test) - 4 < 40
    chosen = whole_hands(records, 50, seed=2)
    assert 50 - 4 < len(chosen) <= 50
    assert np.isin(records.hands, records.hands[chosen]).sum() == len(chosen)  # whole hands only
    train = fake_records([1, 1, 2, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1])
    held = fake_records([1, 2, 0, 1], [0, 0, 1, 1], [0, 0, 1, 1])
    # most common in training: fold and call twice each, the tie to the first (fold); preflop call, flop fold
    assert majority_baseline(train, held) == {"all": 0.25, "preflop": 0.5, "flop": 0.5}
    assert accuracy_by_round(np.array([1, 1, 0, 0]), held) == {"all": 0.5, "preflop": 0.5, "flop": 0.5}


def test_in_process_matches_write_the_logs_acpc_match_writes(tmp_path: Path) -> None:
    hands = 60
    command = [program("acpc-match"), "--a", "rule", "--b", "random", "--seeds", "5", "--hands", str(hands)]
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "tcp"), "--no-plots", "--quiet", "--concurrency", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for a_seat in (1, 2):
        path = play_in_process(tmp_path / "in", LIMIT_FILE, 5, a_seat, hands, ("rule", ""), ("random", ""))
        assert path.read_bytes() == (tmp_path / "tcp" / path.name).read_bytes()


LIMIT_FILE = "holdem.limit.2p.reverse_blinds"


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A network trained for one epoch on a few hundred decisions of ``rule`` against ``random``."""
    folder = tmp_path_factory.mktemp("poker_cnn")
    log = play_in_process(folder / "logs", LIMIT_FILE, 9, 1, 150, ("rule", ""), ("random", ""))
    decision_records(read_hands([log]), ["a-rule"]).save(folder / "records.npz")
    config = Config(data=str(folder / "records.npz"), epochs=1, test_records=60, folds=2, batch_size=32, jobs=1)
    path, summary = train(config, folder / "tiny.pt")
    assert len(summary["folds"]) == 2
    return path


def test_training_saves_a_checkpoint_with_its_figures(tiny_checkpoint: Path) -> None:
    network, meta = load_network(tiny_checkpoint, torch.device("cpu"))
    assert isinstance(network, PokerCNN)
    figures = meta["training"]
    assert figures["records"] == figures["test_records"] + sum(f["held_out_records"] for f in figures["folds"])
    for fold in figures["folds"]:
        assert 0 <= fold["held_out_accuracy"]["all"] <= 1 and "preflop" in fold["held_out_majority"]
    assert meta["config"]["alpha"] == 0.5 and meta["network"] == "poker_cnn"


@pytest.mark.parametrize(
    ("game", "opponent"),
    [("holdem.limit.2p.reverse_blinds", "random"), ("holdem.nolimit.2p.reverse_blinds", "random")],
)
def test_poker_cnn_plays_valid_actions_through_the_dealer(tmp_path: Path, game: str, opponent: str) -> None:
    agents: list[tuple[str, list[str]]] = [("poker_cnn", []), (opponent, ["--seed", "4"])]
    status, _, err = play(tmp_path, game, 150, 5, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err  # never an invalid action (no-limit raises are pot-size, clamped)
    check_log(tmp_path / "match.log", load_game(game), 150)


def test_the_sampling_option_plays_too(tmp_path: Path, tiny_checkpoint: Path) -> None:
    agents: list[tuple[str, list[str]]] = [
        ("poker_cnn", ["--sample", "--checkpoint", str(tiny_checkpoint)]),
        ("call", []),
    ]
    status, _, err = play(tmp_path, LIMIT_FILE, 100, 5, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err
    check_log(tmp_path / "match.log", LIMIT, 100)


def test_a_damaged_checkpoint_is_a_one_line_error(tmp_path: Path, tiny_checkpoint: Path) -> None:
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(tiny_checkpoint.read_bytes()[:5000])
    damaged.with_suffix(".json").write_text(tiny_checkpoint.with_suffix(".json").read_text())
    done = run_in_process("acpc-agent", "poker_cnn", "127.0.0.1", "9", "--checkpoint", str(damaged))
    assert done.returncode == 2  # a file named on the command line that cannot be used
    assert done.stderr.count("\n") == 1 and "damaged checkpoint" in done.stderr, done.stderr
    meta = json.loads(damaged.with_suffix(".json").read_text())
    damaged.with_suffix(".json").write_text(json.dumps(meta | {"planes": 9}))
    done = run_in_process("acpc-agent", "poker_cnn", "127.0.0.1", "9", "--checkpoint", str(damaged))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
