"""Seed 000's networks as NFSP-style average-policy networks: the loss, the resumable run, its sidecar and command."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from acpc_arena.agents.dqn import QAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.nfq.features import hand_strength
from acpc_arena.models.q_networks.checkpoint import load_network, weights_digest
from acpc_arena.models.training import dqn_average_policy, dqn_dqfd
from acpc_arena.models.training.dqn import TrainConfig
from acpc_arena.models.training.dqn_average_policy import AveragePolicyTrainer, imitation_loss
from acpc_arena.models.training.shipped import AVERAGE_POLICY_STEPS
from acpc_arena.protocol.cards import parse_card
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action, ActionKind
from acpc_arena.protocol.views import agent_view
from tests.helpers.demonstrations import tiny_run

LIMIT = "holdem.limit.2p.reverse_blinds"


def quiet(_: str) -> None:
    pass


def test_imitation_loss_is_the_hand_computed_cross_entropy_over_the_legal_actions() -> None:
    logits = torch.tensor([[[1.0, 2.0, 0.5], [5.0, 1.0, 0.0], [9.0, 0.0, 0.0]]])
    expert = torch.tensor([[0, 1, 2]])
    legal = torch.tensor([[[True, True, True], [False, True, True], [True, True, True]]])
    valid = torch.tensor([[True, True, False]])
    # step 0: -log(e^1 / (e^1 + e^2 + e^0.5)); step 1, fold illegal: -log(e^1 / (e^1 + e^0)); step 2 is padding
    step0 = -math.log(math.e / (math.e + math.e**2 + math.e**0.5))
    step1 = -math.log(math.e / (math.e + 1.0))
    assert imitation_loss(logits, expert, legal, valid).item() == pytest.approx((step0 + step1) / 2, rel=1e-6)


def test_the_average_policy_learns_its_demonstrations(tmp_path: Path) -> None:
    """Its cross-entropy on the hands it trains on falls, and its most likely legal action is the demonstrator's
    more often than before."""
    config, settings = tiny_run(tmp_path)
    settings = dqn_average_policy.average_policy_config(settings.demonstrations, 60)
    settings = replace(settings, pretrain_batch=8, held_out=10, learning_rate=1e-2)
    config = replace(config, hands=0, target_every=0, dropout=0.0)
    trainer = AveragePolicyTrainer(config, settings, "dqn-dqfd", quiet)
    trained = np.arange(trainer.trainable)

    def scored() -> tuple[float, float]:
        batch = trainer.batch([(trainer.demos, trained)])
        trainer.net.eval()
        with torch.no_grad():
            logits = trainer.net(batch.images, None, batch.valid)[0]
        chosen = torch.where(batch.legal, logits, torch.full_like(logits, -1e9)).argmax(dim=-1)
        right = ((chosen == batch.actions) & batch.valid).sum() / batch.valid.sum()
        return imitation_loss(logits, batch.actions, batch.legal, batch.valid).item(), float(right)

    loss_before, right_before = scored()
    trainer.pretrain()
    loss_after, right_after = scored()
    assert loss_after < 0.8 * loss_before and right_after > right_before


def test_a_stopped_run_goes_on_and_its_sidecar_says_what_it_is(tmp_path: Path) -> None:
    """Stopped after 3 of 6 steps, the same command ends with an unbroken run's weights; the sidecar names the
    outputs and the Q-network beside it, and ``dqn --checkpoint`` plays it on the history planes."""
    config, dqfd = tiny_run(tmp_path)
    settings = replace(dqn_average_policy.average_policy_config(dqfd.demonstrations, 6), pretrain_batch=8, held_out=10)
    unbroken, _ = dqn_average_policy.train(config, settings, tmp_path / "unbroken.pt", "dqn-dqfd", quiet)
    real_step = AveragePolicyTrainer.dqfd_step
    calls = {"n": 0}

    def step(self: AveragePolicyTrainer, own: int, demo: int) -> float:
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt
        return real_step(self, own, demo)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "SAVE_SECONDS", -1)
        patch.setattr(AveragePolicyTrainer, "dqfd_step", step)
        with pytest.raises(KeyboardInterrupt):
            dqn_average_policy.train(config, settings, tmp_path / "stopped.pt", "dqn-dqfd", quiet)
    logs: list[str] = []
    resumed, _ = dqn_average_policy.train(config, settings, tmp_path / "stopped.pt", "dqn-dqfd", logs.append)
    assert any("going on from" in line and "3 pre-training steps" in line for line in logs)
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (unbroken, resumed)]
    assert digests[0] == digests[1]
    sidecar = json.loads(resumed.with_suffix(".json").read_text())
    assert (sidecar["outputs"], sidecar["q_network"], sidecar["encoding"]) == ("average-policy", "dqn-dqfd", "history")
    assert "dqfd" not in sidecar and "margin" not in sidecar["average_policy"]
    assert sidecar["average_policy"]["pretrain_steps"] == 6 and sidecar["config"]["dropout"] == 0.0
    assert set(sidecar["pretraining"][-1]) == {"steps", "cross_entropy", "held_out_accuracy", "seconds"}
    agent = agent_class("dqn")(load_game(LIMIT), checkpoint=str(resumed), seed=1)
    assert isinstance(agent, QAgent) and agent.encoding.name == "history"


def test_train_command_runs_the_average_policy_with_its_defaults(tmp_path: Path) -> None:
    """``acpc-train lstm_dqn|dqn`` with no preset trains the average-policy network, saved as the default."""
    from acpc_arena.models.training import cli

    runs: list[tuple[TrainConfig, dqn_dqfd.DQfDConfig, Path, str]] = []

    def record(
        config: TrainConfig, settings: dqn_dqfd.DQfDConfig, out: Path, q_network: str, **_: Any
    ) -> tuple[Path, dict[str, Any]]:
        runs.append((config, settings, Path(out), q_network))
        return Path(out), {}

    data = str(tmp_path / "d.npz")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_average_policy, "train", record)
        cli.main(["lstm_dqn", "--data", data, "--out-dir", str(tmp_path)])  # the default preset
        cli.main(
            ["dqn", "--preset", "average-policy", "--data", data, "--pretrain-steps", "9", "--out-dir", str(tmp_path)]
        )
    (config, settings, out, q_network), (_, nine, _, _) = runs
    assert (config.network, config.encoding, settings.demonstrations) == ("lstm_dqn", "strength", data)
    assert settings.pretrain_steps == AVERAGE_POLICY_STEPS["lstm_dqn"] and nine.pretrain_steps == 9
    assert (out, q_network) == (tmp_path / "lstm_dqn.pt", "lstm_dqn-dqfd")


def test_from_sidecar_rebuilds_an_average_policy_network(tmp_path: Path) -> None:
    from acpc_arena.models.training import cli

    config, dqfd = tiny_run(tmp_path)
    settings = replace(dqn_average_policy.average_policy_config(dqfd.demonstrations, 4), pretrain_batch=8, held_out=10)
    first, _ = dqn_average_policy.train(config, settings, tmp_path / "first.pt", "dqn-dqfd", quiet)
    cli.main(["--from-sidecar", str(first.with_suffix(".json")), "--out", str(tmp_path / "again.pt")])
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (first, tmp_path / "again.pt")]
    assert digests[0] == digests[1]
    assert json.loads((tmp_path / "again.json").read_text())["q_network"] == "dqn-dqfd"


def test_the_strength_encoding_reads_each_viewers_own_hole_cards(tmp_path: Path) -> None:
    """A network on the ``strength`` encoding sees, at the same betting and board, the E[HS] and E[HS^2] of the
    hole cards of each view it is asked about (``nfq``'s hand strength), not those of the first view replayed."""
    config, dqfd = tiny_run(tmp_path)
    settings = replace(dqn_average_policy.average_policy_config(dqfd.demonstrations, 2), pretrain_batch=8, held_out=10)
    trained, _ = dqn_average_policy.train(replace(config, encoding="strength"), settings, tmp_path / "s.pt", "-", quiet)
    game = load_game(LIMIT)
    agent = agent_class("dqn")(game, checkpoint=str(trained), seed=1)
    assert isinstance(agent, QAgent) and agent.encoding.name == "strength"
    state = next(iter(deal_hands(game, 7, 1)))
    state.apply(Action(ActionKind.CALL, 0))  # the small blind calls: the big blind to act
    holes = [(parse_card("Ah"), parse_card("Kd")), (parse_card("7c"), parse_card("2s"))]
    views = []
    for hole in holes:
        hand = state.copy()
        hand.hole_cards[0] = list(hole)
        views.append(agent_view(hand, 0, hand.hole_cards[0]))
    for view, observations in zip(views, agent._observations(views), strict=True):
        mean, square = hand_strength(game, tuple(view.state.hole_cards[0]), ())
        assert tuple(observations[-1, -2:]) == (round(mean * 10_000), round(square * 10_000))
    assert agent._observations(views[:1])[0][-1, -2] > agent._observations(views[1:])[0][-1, -2]  # AK over 72


@pytest.mark.parametrize("network", ["lstm_dqn", "dqn"])
def test_train_command_defaults_are_the_shipped_defaults_runs(tmp_path: Path, network: str) -> None:
    """``make train AGENT=lstm_dqn|dqn`` runs what the shipped default's sidecar records it was trained with
    (``AVERAGE_POLICY_STEPS``, ``AVERAGE_POLICY_ENCODING``, ``Q_SEED``, the module's rates), its demonstrations
    recorded where ``acpc-train`` records them."""
    from acpc_arena.models.checkpoints import FOLDER
    from acpc_arena.models.training import cli

    runs: list[tuple[TrainConfig, dqn_dqfd.DQfDConfig]] = []

    def record(config: TrainConfig, settings: dqn_dqfd.DQfDConfig, out: Path, *_: Any) -> tuple[Path, dict[str, Any]]:
        runs.append((config, settings))
        return Path(out), {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_average_policy, "train", record)
        cli.main([network, "--data", str(tmp_path / "d.npz"), "--out", str(tmp_path / "n.pt")])
    ((config, settings),) = runs
    shipped = json.loads((FOLDER / f"{network}.json").read_text())
    assert shipped["outputs"] == "average-policy" and shipped["encoding"] == config.encoding
    recorded = {key: value for key, value in shipped["average_policy"].items() if key != "demonstrations"}
    asked = json.loads(json.dumps(asdict(settings)))  # tuples as the sidecar's lists
    assert {key: asked[key] for key in recorded} == recorded
    run = json.loads(json.dumps(asdict(replace(config, hands=0, target_every=0, dropout=0.0))))
    assert {key: run[key] for key in shipped["config"]} == shipped["config"]
