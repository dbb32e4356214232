"""DQfD for seed 000's Q-networks: the demonstrations, the large-margin loss, the resumable run and its command."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from acpc_arena.agents.dqn import QAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.nfq.features import hand_strength
from acpc_arena.models.q_networks import history_encoding
from acpc_arena.models.q_networks.checkpoint import load_network, weights_digest
from acpc_arena.models.q_networks.history_encoding import observe_strength, strength_columns
from acpc_arena.models.training import dqn_dqfd
from acpc_arena.models.training.dqn import TrainConfig
from acpc_arena.models.training.dqn_demonstrations import (
    SEED_BASE,
    load_columns,
    load_replay,
    make_demonstrations,
    margin_loss,
    record_shard,
)
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action, ActionKind
from acpc_arena.protocol.views import agent_view
from tests.helpers.demonstrations import tiny_run

LIMIT = "holdem.limit.2p.reverse_blinds"


def test_margin_loss_is_the_hand_computed_large_margin() -> None:
    q = torch.tensor([[[1.0, 2.0, 0.5], [5.0, 1.0, 0.1], [9.0, 9.0, 9.0]]])
    expert = torch.tensor([[0, 1, 2]])
    legal = torch.tensor([[[True, True, True], [False, True, True], [True, True, True]]])
    valid = torch.tensor([[True, True, False]])
    # step 0: max(1 + 0, 2 + 0.8, 0.5 + 0.8) - 1 = 1.8; step 1 (fold illegal): max(1 + 0, 0.1 + 0.8) - 1 = 0;
    # step 2 is padding: left out of the mean
    assert margin_loss(q, expert, legal, valid, 0.8).item() == pytest.approx(0.9)
    # a margin of 0 and the expert's action the best: no loss
    assert margin_loss(q[:, 1:2], expert[:, 1:2], legal[:, 1:2], valid[:, 1:2], 0.0).item() == 0.0


def test_recorded_episodes_are_the_demonstrators_actions() -> None:
    """Shard 3 (the demonstrator against ``call``): each hand played again, the ``cfr`` agent called directly
    (``argmax``) at the demonstrator's seat and the opponent calling, gives the recorded actions, legal moves and
    result; each observation's history fields are the seat and, per round, the raises the demonstrator and the
    caller had made when it chose (counted here as the hand is played)."""
    game = load_game(LIMIT)
    hands = 12
    columns = record_shard(game, 3, hands)
    cfr = agent_class("cfr")(game, seed=5, argmax=True)
    for number, state in enumerate(deal_hands(game, SEED_BASE + 3, hands)):
        seat = number % 2
        actions, legal, history = [], [], []
        raises = [0] * 8  # per round: the demonstrator's raises, then the caller's (none)
        while not state.finished:
            p = state.current_player
            if p == seat:
                history.append([seat, *raises])
                action = cfr.act(agent_view(state, p, state.hole_cards[p]))
                allowed = state.legal_actions()
                legal.append([allowed.can_fold, True, allowed.can_raise])
                actions.append(int(action.kind))
                raises[2 * state.round] += action.kind == ActionKind.RAISE
            else:
                action = Action(ActionKind.CALL, 0)
            state.apply(action)
        steps = int(columns["steps"][number])
        assert steps == len(actions) and columns["actions"][number, :steps].tolist() == actions
        assert columns["legal"][number, :steps].tolist() == legal
        assert columns["observations"][number, :steps, 10:19].tolist() == history
        assert columns["seat"][number] == seat
        assert columns["chips"][number] == state.value(seat) / game.big_blind
    assert len(columns["steps"]) == hands  # the demonstrator acts in every hand against a caller


def test_demonstrations_resume_and_load_as_a_replay(tmp_path: Path) -> None:
    """A stopped recording picks up at its first missing shard; the replay's reward is the chips won less
    the values given, by seat and starting hand."""
    tiny_run(tmp_path)
    folder = tmp_path / "demos"
    whole = load_columns(folder / "demonstrations.npz")
    (folder / "shards" / "0001.npz").unlink()
    kept = (folder / "shards" / "0000.npz").stat().st_mtime_ns
    make_demonstrations(folder, shards=2, hands=30, log=lambda _: None)
    assert (folder / "shards" / "0000.npz").stat().st_mtime_ns == kept
    again = load_columns(folder / "demonstrations.npz")
    assert all(np.array_equal(whole[name], again[name]) for name in whole)
    values = np.arange(2 * 169, dtype=np.float64).reshape(2, 169)
    replay = load_replay(folder / "demonstrations.npz", values, 19)
    expected = whole["chips"] - values[whole["seat"].astype(int), whole["hand_class"].astype(int)]
    assert replay.size == len(whole["steps"]) and np.allclose(replay.reward, expected)
    # 21 numbers an observation: 2 hole cards, 5 board cards, round, pot, last raise, the seat, 2 x 4 rounds of
    # raises, E[HS] and E[HS^2]; the seed's encoding reads the first 10, the history's the first 19
    assert whole["observations"].shape[-1] == 21
    seed = load_replay(folder / "demonstrations.npz", None, 10)
    assert np.array_equal(seed.observations, whole["observations"][:, :, :10])
    with pytest.raises(ValueError, match="older recording"):
        load_replay(folder / "demonstrations.npz", None, 22)
    # the strength fields are nfq's E[HS] and E[HS^2] of the hole cards on the board seen, in parts of 10,000,
    # and those a history recording is given afterwards
    game = load_game(LIMIT)
    valid = np.arange(whole["observations"].shape[1])[None, :] < whole["steps"][:, None]
    for observation in whole["observations"][valid][:40]:
        board = tuple(int(card) for card in observation[2:7] if card >= 0)
        mean, square = hand_strength(game, tuple(int(card) for card in observation[:2]), board)
        assert tuple(observation[19:]) == (round(mean * 10_000), round(square * 10_000))
    added = strength_columns(game, whole["observations"][..., :19], valid)
    assert np.array_equal(added[valid], whole["observations"][valid][:, 19:])
    assert json.loads((folder / "manifest.json").read_text())["episodes"] == len(whole["steps"])


def test_strength_prefetched_for_many_views_is_each_pairs_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The strength fields computed for many views at once (``prefetch_view_strength``: pairs on different boards,
    pairs on one board, every round) are nfq's ``hand_strength`` of each pair alone, in parts of 10,000."""
    monkeypatch.setattr(history_encoding, "_MOMENTS", {})
    game = load_game(LIMIT)
    views = []
    for number, state in enumerate(deal_hands(game, 41, 12)):
        while state.round < number % 4:  # checked down to the flop, turn or river
            state.apply(Action(ActionKind.CALL))
        views += [agent_view(state, seat, state.hole_cards[seat]) for seat in range(2)]
    history_encoding.prefetch_view_strength(game, views)  # two holdings a board: the shared-board computation too
    # every round's board so far: 24 views, hands checked down to the pre-flop, flop, turn and river in turn
    assert len(history_encoding._MOMENTS) == 2 * (3 * 1 + 3 * 2 + 3 * 3 + 3 * 4)
    known = dict(history_encoding._MOMENTS)
    for (_, hole, board), moments in history_encoding._MOMENTS.items():
        mean, square = hand_strength(game, hole, board)
        assert moments == (round(mean * 10_000), round(square * 10_000))
    for view in views:  # the observations find them all
        key = (game, tuple(view.state.hole_cards[view.viewer]), tuple(view.state.visible_board()))
        assert tuple(observe_strength(view.state, view.viewer)[19:]) == known[key]
    assert known == history_encoding._MOMENTS


def test_a_stopped_run_goes_on_from_its_saved_state(tmp_path: Path) -> None:
    """Stopped during pre-training, the same run again ends with the weights of an unbroken run; stopped during
    its own play, it goes on from the hands it had played."""
    config, dqfd = tiny_run(tmp_path)
    unbroken, _ = dqn_dqfd.train(config, dqfd, tmp_path / "unbroken.pt", log=lambda _: None)
    real_step = dqn_dqfd.DQfDTrainer.dqfd_step
    calls = {"n": 0}

    def stop_at(limit: int) -> Any:
        def step(self: dqn_dqfd.DQfDTrainer, own: int, demo: int) -> float:
            calls["n"] += 1
            if calls["n"] > limit:
                raise KeyboardInterrupt
            return real_step(self, own, demo)

        return step

    logs: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "SAVE_SECONDS", -1)  # the state saved after every pre-training step
        patch.setattr(dqn_dqfd.DQfDTrainer, "dqfd_step", stop_at(4))
        with pytest.raises(KeyboardInterrupt):
            dqn_dqfd.train(config, dqfd, tmp_path / "stopped.pt", log=logs.append)
    resumed, _ = dqn_dqfd.train(config, dqfd, tmp_path / "stopped.pt", log=logs.append)
    assert any("going on from" in line and "4 pre-training steps, 0 hands" in line for line in logs)
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (unbroken, resumed)]
    assert digests[0] == digests[1]

    calls["n"] = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "SAVE_HANDS", 16)
        patch.setattr(dqn_dqfd.DQfDTrainer, "dqfd_step", stop_at(dqfd.pretrain_steps + 6))  # 24 hands in
        with pytest.raises(KeyboardInterrupt):
            dqn_dqfd.train(config, dqfd, tmp_path / "played.pt", log=logs.append)
    logs.clear()
    done, _ = dqn_dqfd.train(config, dqfd, tmp_path / "played.pt", log=logs.append)
    (line,) = [line for line in logs if "going on from" in line]
    assert "6 pre-training steps" in line and 16 <= int(line.split(", ")[-1].split()[0]) < config.hands
    sidecar = json.loads(done.with_suffix(".json").read_text())
    assert sidecar["hands_trained"] >= config.hands and sidecar["dqfd"]["pretrain_steps"] == 6
    assert [point["steps"] for point in sidecar["pretraining"]] == [6]
    # 16 card planes + 2 position planes + 2 x 4 rounds of raises; the agent plays the encoding the sidecar names
    assert (sidecar["encoding"], sidecar["planes"]) == ("history", 26)
    agent = agent_class("dqn")(load_game(LIMIT), checkpoint=str(done), seed=1)
    assert isinstance(agent, QAgent) and agent.encoding.name == "history"


def test_train_command_runs_dqfd_with_its_defaults(tmp_path: Path) -> None:
    """``acpc-train dqn --preset dqfd``: the dqfd pool, no strength loss, the shipped network's targets, saved
    as ``dqn-dqfd``."""
    from acpc_arena.models.training import cli

    runs: list[tuple[TrainConfig, dqn_dqfd.DQfDConfig, Path]] = []

    def record(config: TrainConfig, dqfd: dqn_dqfd.DQfDConfig, out: Path, **_: Any) -> tuple[Path, dict[str, Any]]:
        runs.append((config, dqfd, Path(out)))
        return Path(out), {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "train", record)
        cli.main(["dqn", "--preset", "dqfd", "--data", str(tmp_path / "d.npz"), "--out-dir", str(tmp_path)])
    ((config, dqfd, out),) = runs
    assert (config.pool, config.strength_weight, config.double, config.monte_carlo_mix) == ("dqfd", 0.0, True, 0.5)
    assert (config.epsilon_start, config.network, dqfd.demonstrations) == (0.05, "dqn", str(tmp_path / "d.npz"))
    assert (config.hands, dqfd.pretrain_steps, dqfd.lambda_e) == (0, 18_000, 10.0)  # phase 2 alone, the shipped run
    assert config.encoding == "history"
    assert out == tmp_path / "dqn-dqfd.pt"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "train", record)
        cli.main(["dqn", "--preset", "dqfd", "--lambda-e", "100", "--data", str(tmp_path / "d.npz")])
    assert runs[-1][1].lambda_e == 100.0


def test_a_dqfd_weight_not_above_zero_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from acpc_arena.models.training import cli

    for argv in (["dqn", "--preset", "dqfd", "--lambda-e", "0"], ["nfq", "--lambda-e", "-1"]):
        with pytest.raises(SystemExit) as stopped:
            cli.main(argv)
        assert stopped.value.code == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("acpc-train: error: --lambda-e must be above 0")


def test_from_sidecar_rebuilds_a_dqfd_network(tmp_path: Path) -> None:
    """``acpc-train --from-sidecar`` of a DQfD checkpoint runs DQfD again with its recorded settings: the same
    weights."""
    from acpc_arena.models.training import cli

    config, dqfd = tiny_run(tmp_path)
    first, _ = dqn_dqfd.train(replace(config, hands=12), dqfd, tmp_path / "first.pt", log=lambda _: None)
    cli.main(["--from-sidecar", str(first.with_suffix(".json")), "--out", str(tmp_path / "again.pt")])
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (first, tmp_path / "again.pt")]
    assert digests[0] == digests[1]


def test_more_pretraining_steps_go_on_from_a_finished_run(tmp_path: Path) -> None:
    """A run of phase 2 alone asked again for more steps goes on from its state, to the weights of a run asked for
    that many at once; asked for fewer than it took, it refuses."""
    config, dqfd = tiny_run(tmp_path)
    config = replace(config, hands=0)
    whole, _ = dqn_dqfd.train(config, dqfd, tmp_path / "whole.pt", log=lambda _: None)
    logs: list[str] = []
    dqn_dqfd.train(config, replace(dqfd, pretrain_steps=2), tmp_path / "grown.pt", log=logs.append)
    grown, _ = dqn_dqfd.train(config, dqfd, tmp_path / "grown.pt", log=logs.append)
    assert any("going on from" in line and "2 pre-training steps" in line for line in logs)
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (whole, grown)]
    assert digests[0] == digests[1]
    assert json.loads(grown.with_suffix(".json").read_text())["config"]["hands"] == 0
    with pytest.raises(ValueError, match="6 pre-training steps in, past the 2 asked"):
        dqn_dqfd.train(config, replace(dqfd, pretrain_steps=2), tmp_path / "grown.pt", log=logs.append)


def test_the_learning_rate_decay_halves_after_its_start_and_resumes_only_where_rates_agree(tmp_path: Path) -> None:
    """``lr_decay=(2, 2)``: steps 0 to 2 at the base rate, then halving every 2 steps (hand-computed); a run
    stopped at step 2 without the decay goes on with it to an unbroken decayed run's weights; a state past a
    decay's start is refused another one."""
    config, dqfd = tiny_run(tmp_path)
    config, decayed = replace(config, hands=0), replace(dqfd, lr_decay=(2, 2))
    rates: list[float] = []
    real_step = dqn_dqfd.DQfDTrainer.dqfd_step

    def step(self: dqn_dqfd.DQfDTrainer, own: int, demo: int) -> float:
        rates.append(self.optimizer.param_groups[0]["lr"])
        return real_step(self, own, demo)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd.DQfDTrainer, "dqfd_step", step)
        whole, _ = dqn_dqfd.train(config, decayed, tmp_path / "whole.pt", log=lambda _: None)
    base = dqfd.learning_rate
    assert rates == pytest.approx([base, base, base, base / 2**0.5, base / 2, base / 2**1.5])
    dqn_dqfd.train(config, replace(dqfd, pretrain_steps=2), tmp_path / "grown.pt", log=lambda _: None)
    grown, _ = dqn_dqfd.train(config, decayed, tmp_path / "grown.pt", log=lambda _: None)
    digests = [weights_digest(load_network(path, torch.device("cpu"))[0]) for path in (whole, grown)]
    assert digests[0] == digests[1]
    with pytest.raises(ValueError, match="another learning-rate decay"):
        dqn_dqfd.train(config, replace(decayed, lr_decay=(3, 2), pretrain_steps=8), whole, log=lambda _: None)


def recorded_run(argv: list[str]) -> tuple[TrainConfig, dqn_dqfd.DQfDConfig]:
    """The configurations ``acpc-train ARGV`` would train DQfD with (the training itself not run)."""
    from acpc_arena.models.training import cli

    runs: list[tuple[TrainConfig, dqn_dqfd.DQfDConfig]] = []

    def record(config: TrainConfig, dqfd: dqn_dqfd.DQfDConfig, out: Path, **_: Any) -> tuple[Path, dict[str, Any]]:
        runs.append((config, dqfd))
        return Path(out), {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn_dqfd, "train", record)
        cli.main([*argv, "--out", "unused.pt"])
    (run,) = runs
    return run


def test_the_learning_rate_decay_option_is_read_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    """``--lr-decay START:HALF_LIFE`` reaches the run; a half-life of 0 or a malformed value is refused in one line."""
    from acpc_arena.models.training import cli

    _, dqfd = recorded_run(["dqn", "--preset", "dqfd", "--lr-decay", "22000:4000", "--data", "d.npz"])
    assert dqfd.lr_decay == (22_000, 4_000)
    for value in ("22000:0", "22000", "a:b"):
        with pytest.raises(SystemExit) as stopped:
            cli.main(["dqn", "--preset", "dqfd", "--lr-decay", value])
        assert stopped.value.code == 2
        assert "--lr-decay" in capsys.readouterr().err.strip().splitlines()[-1]


def test_the_dropout_option_reaches_the_trained_network_and_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--dropout 0`` trains without dropout (the seed's 0.5 otherwise); 1 or more is refused in one line."""
    from acpc_arena.models.training import cli

    config, dqfd = tiny_run(tmp_path)
    assert dqn_dqfd.DQfDTrainer(config, dqfd).net.dropout.p == 0.5
    assert dqn_dqfd.DQfDTrainer(replace(config, dropout=0.0), dqfd).net.dropout.p == 0.0
    config, _ = recorded_run(["dqn", "--preset", "dqfd", "--dropout", "0", "--data", "d.npz"])
    assert config.dropout == 0.0
    with pytest.raises(SystemExit) as stopped:
        cli.main(["dqn", "--preset", "dqfd", "--dropout", "1"])
    assert stopped.value.code == 2 and "--dropout" in capsys.readouterr().err.strip().splitlines()[-1]
