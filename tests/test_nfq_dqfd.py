"""DQfD for seed 003's ``nfq``: the demonstrations (the demonstrator's actions, ``agents/nfq.py``'s windows) and a
resumable run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from acpc_arena.agents.nfq import NFQAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.nfq.network import NFQNetwork
from acpc_arena.models.q_networks.checkpoint import load_module
from acpc_arena.models.training import cli, nfq_dqfd
from acpc_arena.models.training.nfq import NFQConfig, config_for
from acpc_arena.models.training.nfq_demonstrations import SEED_BASE, make_demonstrations, record_shard
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action, ActionKind
from acpc_arena.protocol.views import agent_view

LIMIT = "holdem.limit.2p.reverse_blinds"
MOST_LOST = 240
"""Chips one player can lose in a hand of limit hold'em: 10 in blinds, 3 raises of 10, 4 of 10, 4 and 4 of 20."""


@pytest.mark.parametrize(("shard", "opponent"), [(3, ActionKind.CALL), (4, ActionKind.RAISE)])
def test_recorded_rows_are_the_demonstrators_actions_and_the_agents_windows(shard: int, opponent: ActionKind) -> None:
    """Shards 3 and 4 (the demonstrator against ``call``, ``raise``): each hand played again, the ``cfr`` agent
    called directly (``argmax``) at the demonstrator's seat gives the recorded actions, and ``NFQAgent.state_vector``
    (which replays the hand from the view) the recorded windows; the return is the chips won over 240."""
    game = load_game(LIMIT)
    hands = 12
    columns = record_shard(game, shard, hands)
    cfr = agent_class("cfr")(game, seed=5, argmax=True)
    nfq = NFQAgent(game, checkpoint="nfq")
    row = 0
    for number, state in enumerate(deal_hands(game, SEED_BASE + shard, hands)):
        seat = number % 2
        first = row
        while not state.finished:
            p = state.current_player
            if p == seat:
                view = agent_view(state, p, state.hole_cards[p])
                action = cfr.act(view)
                allowed = state.legal_actions()
                assert columns["hand"][row] == number and columns["seat"][row] == seat
                assert columns["actions"][row] == int(action.kind)
                assert columns["legal"][row].tolist() == [allowed.can_fold, True, allowed.can_raise]
                np.testing.assert_array_equal(columns["windows"][row], nfq.state_vector(view))
                row += 1
            else:
                action = state.validate_action(Action(opponent, 0), try_fixing=True) or Action(ActionKind.CALL, 0)
            state.apply(action)
        assert columns["returns"][first:row].tolist() == [np.float32(state.value(seat) / MOST_LOST)] * (row - first)
        assert columns["last"][first:row].tolist() == [False] * (row - first - 1) + [True]
    assert row == len(columns["actions"])


def tiny_run(folder: Path) -> tuple[NFQConfig, nfq_dqfd.DQfDConfig]:
    data = make_demonstrations(folder / "demos", shards=2, hands=30, log=lambda _: None)
    config = config_for("dqfd", hands=24, tables=4, uct_worlds=2, opponents=(("call", 1.0), ("self", 1.0)))
    dqfd = nfq_dqfd.DQfDConfig(demonstrations=str(data), pretrain_steps=12, batch=16, held_out_shards=1)
    return config, dqfd


class Stop(Exception):
    pass


def test_a_stopped_run_goes_on_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pre-training stopped after 5 steps and run again ends with the weights of an unbroken run; phase 3 stopped
    after a save goes on from the hands it had played."""
    torch.set_num_threads(1)
    config, dqfd = tiny_run(tmp_path)
    whole, _ = nfq_dqfd.train(config, dqfd, tmp_path / "whole.pt", tmp_path / "whole", log=lambda _: None)
    unbroken = load_module(tmp_path / "whole" / "whole-pretrained.pt", {"nfq": NFQNetwork})[0]

    monkeypatch.setattr(nfq_dqfd, "SAVE_SECONDS", -1)  # the state saved after every step
    real_step, calls = nfq_dqfd.DQfDTrainer.demo_step, []

    def stopping(self: nfq_dqfd.DQfDTrainer, size: int) -> tuple[float, float]:
        calls.append(size)
        if len(calls) == 6:
            raise Stop
        return real_step(self, size)

    monkeypatch.setattr(nfq_dqfd.DQfDTrainer, "demo_step", stopping)
    with pytest.raises(Stop):
        nfq_dqfd.train(config, dqfd, tmp_path / "split.pt", tmp_path / "split", log=lambda _: None)
    monkeypatch.setattr(nfq_dqfd.DQfDTrainer, "demo_step", real_step)
    monkeypatch.setattr(nfq_dqfd, "SAVE_HANDS", 8)
    logged: list[str] = []
    real_save = nfq_dqfd.DQfDTrainer.save

    def stop_after_a_save(self: nfq_dqfd.DQfDTrainer, path: str | Path, stats: dict[str, object]) -> Path:
        written = real_save(self, path, stats)
        if self.hands_done:  # the first save of phase 3 (every 8 hands of 24)
            raise Stop
        return written

    monkeypatch.setattr(nfq_dqfd.DQfDTrainer, "save", stop_after_a_save)
    with pytest.raises(Stop):
        nfq_dqfd.train(config, dqfd, tmp_path / "split.pt", tmp_path / "split", log=logged.append)
    resumed = load_module(tmp_path / "split" / "split-pretrained.pt", {"nfq": NFQNetwork})[0]
    for a, b in zip(unbroken.parameters(), resumed.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert any("going on from" in line and "5 pre-training steps, 0 hands" in line for line in logged)

    monkeypatch.setattr(nfq_dqfd.DQfDTrainer, "save", real_save)
    logged.clear()
    path, stats = nfq_dqfd.train(config, dqfd, tmp_path / "split.pt", tmp_path / "split", log=logged.append)
    started = [line for line in logged if "going on from" in line]
    assert len(started) == 1 and "12 pre-training steps" in started[0] and ", 0 hands" not in started[0]
    assert stats["hands"] >= config.hands and path.exists() and whole.exists()
    NFQAgent(load_game(LIMIT), checkpoint=str(path))  # the agent plays the result unchanged


@pytest.mark.parametrize("option", [["--reward", "chips"], ["--lam", "0"], ["--window", "1"]])
def test_an_ablations_option_without_the_seeds_preset_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    """The default ``nfq`` is DQfD's, which these options do not change: without ``--preset faithful`` the
    command says so instead of writing the default under an ablation's name."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(["nfq", *option, "--out", str(tmp_path / "nfq-chips.pt")])
    assert exit_.value.code == 2 and "add --preset faithful" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
