"""Seed 000's pieces: the card-image encoding, the networks, MCTS values, training and checkpoints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from acpc_arena.models.checkpoints import FOLDER, CheckpointError
from acpc_arena.models.hand_strength.classes import class_representative, hand_class
from acpc_arena.models.q_networks.checkpoint import load_network, save_network
from acpc_arena.models.q_networks.encoding import encode, images, num_planes, observe
from acpc_arena.models.q_networks.networks import DQN, LSTMDQN
from acpc_arena.models.search import mcts
from acpc_arena.models.search.mcts import uct_value
from acpc_arena.models.training.dqn import POOLS, TrainConfig, Trainer, config_for
from acpc_arena.models.training.dqn_replay import EpisodeReplay, bootstrap_values, mix_monte_carlo, td_targets
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION
from acpc_arena.protocol.wire import MatchState, parse_match_state
from tests.helpers.processes import check_log, play

LIMIT = load_game("holdem.limit.2p.reverse_blinds")


def cells(plane: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(plane), strict=True)}


def at(card: str) -> tuple[int, int]:
    return ("cdhs".index(card[1]), "23456789TJQKA".index(card[0]))  # suit row, rank column, as the seed draws them


def test_flop_state_plane_by_plane() -> None:
    view = parse_match_state("MATCHSTATE:1:0:rrc/r:|AsKd/2c8c3h", LIMIT)
    planes = encode(view.state, view.viewer)
    assert planes.shape == (16, 17, 17) and set(np.unique(planes)) <= {0.0, 1.0}
    assert cells(planes[0]) == {at("As")} and cells(planes[1]) == {at("Kd")}
    assert [cells(planes[i]) for i in (2, 3, 4)] == [{at("2c")}, {at("8c")}, {at("3h")}]
    assert cells(planes[5]) == cells(planes[6]) == set()
    assert cells(planes[7]) == {at(c) for c in ("2c", "8c", "3h")}
    assert cells(planes[8]) == {at(c) for c in ("As", "Kd", "2c", "8c", "3h")}
    assert [planes[9 + r].sum() for r in range(4)] == [0, 289, 0, 0]  # the flop's plane is all ones
    # pot 70 chips = 7 big blinds: the first seven cells in card order 2c 2d 2h 2s 3c 3d 3h
    assert cells(planes[13]) == {(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1)}
    assert planes[14].sum() == 289  # the opponent's last action this round was a raise ...
    assert cells(planes[15]) == {(0, 0)}  # ... of one big blind


def test_preflop_and_river_states() -> None:
    view = parse_match_state("MATCHSTATE:0:3::7c2d|", LIMIT)
    planes = encode(view.state, view.viewer)
    assert planes[9].sum() == 289 and planes[2:8].sum() == 0
    assert len(cells(planes[13])) == 1  # 15 chips: one big blind (rounded down)
    assert planes[14].sum() == 0  # nobody has raised
    view = parse_match_state("MATCHSTATE:0:3:cc/cc/cc/cr:7c2d|/2c8c3h/Td/Js", LIMIT)
    planes = encode(view.state, view.viewer)
    assert cells(planes[5]) == {at("Td")} and cells(planes[6]) == {at("Js")}
    assert planes[12].sum() == 289 and planes[14].sum() == 289 and len(cells(planes[15])) == 2  # river bets 20
    view = parse_match_state("MATCHSTATE:1:3:cc/cc/cc/cr:|7c2d/2c8c3h/Td/Js", LIMIT)
    assert encode(view.state, view.viewer)[14].sum() == 0  # its own raise is not the opponent's


def test_batched_images_equal_single_encodes() -> None:
    lines = [
        "MATCHSTATE:1:0:rrc/r:|AsKd/2c8c3h",
        "MATCHSTATE:0:3::7c2d|",
        "MATCHSTATE:0:3:cc/cc/cc/cr:7c2d|/2c8c3h/Td/Js",
    ]
    views = [parse_match_state(line, LIMIT) for line in lines]
    batch = images(LIMIT, np.stack([observe(v.state, v.viewer) for v in views]))
    for i, view in enumerate(views):
        assert np.array_equal(batch[i], encode(view.state, view.viewer))
    leduc = load_game("leduc")
    assert num_planes(leduc) == 9
    assert encode(parse_match_state("MATCHSTATE:0:0::Ks|", leduc).state, 0).shape == (9, 17, 17)


def test_network_shapes_and_memory() -> None:
    torch.manual_seed(0)
    net = LSTMDQN().eval()
    for parameter in net.lstm.parameters():  # weights large enough for every gate to matter
        torch.nn.init.normal_(parameter, 0.0, 0.3)
    sequence = torch.rand(2, 4, 16, 17, 17)
    whole, _ = net(sequence)
    assert whole.shape == (2, 4, 3)
    memory = None
    for t in range(4):  # one decision at a time (the written-out step), carrying the memory: the same Q values
        step, memory = net(sequence[:, t : t + 1], memory)
        assert torch.allclose(step[:, 0], whole[:, t], atol=1e-5)
    valid = torch.tensor([[True, True, False, False], [True, True, True, True]])
    masked, _ = net(sequence, None, valid)
    assert torch.allclose(masked[valid], whole[valid], atol=1e-5)  # padding never leaks backwards
    dqn = DQN().eval()
    assert dqn(sequence)[0].shape == (2, 4, 3)
    assert sum(p.numel() for p in net.parameters()) * 4 < 4_000_000  # a few MB on disk


def test_checkpoints_round_trip_and_refuse_damage(tmp_path: Path) -> None:
    net = LSTMDQN()
    path = save_network(tmp_path / "q", net, "lstm_dqn", 16, {"hands_trained": 0})
    loaded, meta = load_network(path, torch.device("cpu"))
    assert meta["network"] == "lstm_dqn" and not loaded.training
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), loaded.state_dict().values(), strict=True))
    (tmp_path / "bad.pt").write_bytes(path.read_bytes()[:500])
    (tmp_path / "bad.json").write_text(path.with_suffix(".json").read_text())
    with pytest.raises(CheckpointError, match="damaged checkpoint"):
        load_network(tmp_path / "bad.pt")
    other = json.loads(path.with_suffix(".json").read_text()) | {"network": "dqn"}
    path.with_suffix(".json").write_text(json.dumps(other))
    with pytest.raises(CheckpointError, match="do not fit a dqn network"):
        load_network(path)
    with pytest.raises(CheckpointError, match=r"missing\.pt: no such checkpoint file"):
        load_network(tmp_path / "missing.pt")
    (tmp_path / "alone.pt").write_bytes(path.read_bytes())
    with pytest.raises(CheckpointError, match=r"alone\.json: no description beside the checkpoint"):
        load_network(tmp_path / "alone.pt")


def test_loading_a_checkpoint_leaves_torchs_compiler_unimported(tmp_path: Path) -> None:
    """The size check builds the network on the meta device; drawing initial weights there would import
    ``torch._dynamo`` (over a second of every agent's start) for values nobody reads. Both networks, loaded in
    one fresh process."""
    built = (("lstm_dqn", LSTMDQN()), ("dqn", DQN()))
    paths = [save_network(tmp_path / name, network, name, 16, {"hands_trained": 0}) for name, network in built]
    code = (
        "import sys\n"
        "from acpc_arena.models.q_networks.checkpoint import load_network\n"
        + "".join(f"load_network({str(path)!r})\n" for path in paths)
        + "print('torch._dynamo' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False"


def test_hand_classes_and_uct_values() -> None:
    classes = {hand_class([a, b]) for a in range(52) for b in range(52) if a != b}
    assert classes == set(range(169))
    for index in range(169):
        assert hand_class(class_representative(index)) == index
    rng = np.random.default_rng(0)
    aces = uct_value(LIMIT, parse_cards("AsAh"), 0, 400, 1.4, rng)
    trash = uct_value(LIMIT, parse_cards("7c2d"), 0, 400, 1.4, rng)
    assert aces > 1.0 > trash


def test_uct_value_table_is_computed_anew_when_the_code_behind_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACPC_ARENA_CACHE", str(tmp_path / "cache"))
    copies = []
    for source in mcts.VALUE_SOURCES:  # copies of the rollout code, the rules and the evaluator, to edit
        copy = tmp_path / source.name
        copy.write_bytes(source.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(mcts, "VALUE_SOURCES", tuple(copies))
    table = mcts.value_table(LIMIT, rollouts=1)
    (cached,) = (tmp_path / "cache").glob("uct-values-*.npy")
    np.save(cached, np.full_like(table, 12345.0))  # stands for what an older version computed
    assert (mcts.value_table(LIMIT, rollouts=1) == 12345.0).all()  # same code: the cached table is used
    copies[0].write_text(
        copies[0].read_text().replace("return root.total / root.visits", "return root.total / root.visits + 0.0")
    )
    assert not (mcts.value_table(LIMIT, rollouts=1) == 12345.0).any()
    keys = {mcts.value_table_key(LIMIT, 1, 1.4, 0)}
    for copy in copies[1:]:
        copy.write_text(copy.read_text() + "\n# changed\n")
        keys.add(mcts.value_table_key(LIMIT, 1, 1.4, 0))
    monkeypatch.setattr(mcts, "EXAMPLE_PLAYER_PROBABILITIES", (0.1, 0.45, 0.45))
    keys.add(mcts.value_table_key(LIMIT, 1, 1.4, 0))
    assert len(keys) == 2 + len(copies[1:])


def test_replay_keeps_whole_hands() -> None:
    replay = EpisodeReplay(3, fields=10)
    for steps in (1, 2, 3, 4):
        replay.add([np.full(10, steps, dtype=np.int16)] * steps, [1] * steps, [np.ones(3, bool)] * steps, float(steps))
    assert replay.size == 3 and sorted(replay.steps.tolist()) == [2, 3, 4]  # the oldest was replaced
    assert replay.reward[replay.steps == 4][0] == 4.0


@pytest.mark.parametrize(
    ("network", "reward"), [pytest.param("lstm_dqn", "chips", marks=pytest.mark.slow), ("dqn", "mcts")]
)
def test_training_runs_and_learns_a_fixed_batch(network: str, reward: str) -> None:
    config = config_for(
        network, "tuned", hands=120, reward=reward, tables=8, mcts_rollouts=20,
        opponents=(("call", 1.0), ("random", 1.0), ("self", 1.0)),
    )  # fmt: skip
    trainer = Trainer(config, show_progress=False)
    stats = trainer.run()
    assert stats["hands"] >= 120 and trainer.replay.size > 50 and stats["gradient_steps"] > 10
    assert (trainer.replay.steps[: trainer.replay.size] >= 1).all()
    # the same minibatch again and again: the loss must fall
    trainer.rng = np.random.default_rng(1)
    first = trainer.learn()
    for _ in range(30):
        trainer.rng = np.random.default_rng(1)
        last = trainer.learn()
    assert last < first


def test_strength_loss_labels_and_head(tmp_path: Path) -> None:
    """The auxiliary labels are hand strengths worked out by hand; the head learns and is not saved."""
    config = config_for(
        "dqn", "tuned", hands=64, reward="chips", tables=8, strength_weight=50.0, opponents=(("call", 1.0),)
    )
    trainer = Trainer(config, show_progress=False)
    state = trainer._new_hand()
    state.state.hole_cards[0] = parse_cards("AhAs")
    state.state.board_cards = parse_cards("AdAcKh2s3d")  # quads, and no straight flush can be made: beats all
    assert trainer._strength(state.state, 0) == 1.0
    state.state.board_cards = parse_cards("AcKcQcJcTc")  # a royal flush on the board: every hand ties
    assert trainer._strength(state.state, 0) == 0.5
    state.state.hole_cards[0] = parse_cards("2h3d")
    state.state.board_cards = parse_cards("AcAdKhKs9c")
    # Aces and kings with a nine: 2-3 never wins; it ties every hand of two cards from 2 to 9 but 9-9 (a full
    # house), since the board plays for both: 29 such cards are unseen (three 2s, 3s and 9s, four of 4 to 8),
    # C(29, 2) - 3 = 403 hands of the C(45, 2) = 990.
    assert trainer._strength(state.state, 0) == pytest.approx(0.5 * 403 / 990)
    stats = trainer.run()
    assert trainer.replay.size > 20 and len(trainer.strength_losses) == stats["gradient_steps"] > 0
    labels = trainer.replay.strength[: trainer.replay.size]
    assert ((labels >= 0) & (labels <= 1)).all() and len(set(labels.tolist())) > 5
    trainer.rng = np.random.default_rng(1)
    trainer.learn()
    first = trainer.strength_losses[-1]
    for _ in range(30):
        trainer.rng = np.random.default_rng(1)
        trainer.learn()
    assert trainer.strength_losses[-1] < first
    network, meta = load_network(trainer.save(tmp_path / "q", stats))
    assert isinstance(network, DQN) and meta["config"]["strength_weight"] == 50.0


def test_double_dqn_targets() -> None:
    """The next decision's value: the seed's max over legal actions, or (double DQN) the target network's
    Q at the online network's best legal action; worked out by hand."""
    target_q = torch.tensor([[[3.0, 0.0, 4.0], [1.0, 2.0, 9.0]]])
    online_q = torch.tensor([[[1.0, 5.0, 2.0], [7.0, 1.0, 8.0]]])
    legal = torch.tensor([[[True, True, True], [True, True, False]]])  # no raise at the second decision
    assert bootstrap_values(target_q, legal).tolist() == [[4.0, 2.0]]  # max 4; max of 1, 2 (9 illegal)
    assert bootstrap_values(target_q, legal, online_q).tolist() == [[0.0, 1.0]]  # online picks call, then fold
    config = config_for("dqn", "tuned", hands=64, reward="chips", tables=8, double=True, opponents=(("call", 1.0),))
    trainer = Trainer(config, show_progress=False)
    stats = trainer.run()
    assert stats["gradient_steps"] > 0 and all(np.isfinite(trainer.losses))


def test_q_learning_targets_of_padded_hands() -> None:
    """The reward at a hand's last decision, gamma times the next decision's best legal Q before it, 0 past it;
    with a Monte Carlo mix, the discounted reward mixed in before the last; worked out by hand."""
    next_q = torch.tensor([[[1.0, 2.0, 3.0], [0.0, 1.0, 5.0], [7.0, 6.0, 6.5]], [[9.0, 9.0, 9.0]] * 3])
    legal = torch.tensor([[[True, True, True], [True, True, False], [True, True, True]], [[True] * 3] * 3])
    steps, reward = torch.tensor([3, 1]), torch.tensor([4.0, -2.0])
    # hand 1, gamma 0.5: 0.5 * max(0, 1) (5 illegal), 0.5 * max(7, 6, 6.5), R; hand 2: R, then padding
    assert td_targets(next_q, legal, steps, reward, 0.5).tolist() == [[0.5, 3.5, 4.0], [-2.0, 0.0, 0.0]]
    # beta 0.5: discounted rewards 1, 2 before the last: 0.5 * 0.5 + 0.5 * 1, 0.5 * 3.5 + 0.5 * 2
    mixed = td_targets(next_q, legal, steps, reward, 0.5, mix=0.5).tolist()
    assert mixed == [[0.75, 2.75, 4.0], [-2.0, 0.0, 0.0]]


def test_mixed_monte_carlo_targets() -> None:
    """(1 - beta) times the Q-learning target plus beta times gamma^(T - t) R before each hand's last decision;
    the last decision's target (R) and the padding past it unchanged; worked out by hand."""
    target = torch.tensor([[3.0, -1.0, 4.0], [-2.0, 0.0, 0.0]])  # hand 1: 3 decisions, R = 4; hand 2: 1, R = -2
    reward, last = torch.tensor([4.0, -2.0]), torch.tensor([2, 0])
    # hand 1, gamma 0.5: discounted rewards 1, 2, 4; 0.75 * 3 + 0.25 * 1 = 2.5, 0.75 * -1 + 0.25 * 2 = -0.25
    assert mix_monte_carlo(target, reward, last, 0.5, 0.25).tolist() == [[2.5, -0.25, 4.0], [-2.0, 0.0, 0.0]]
    assert mix_monte_carlo(target, reward, last, 0.5, 1.0).tolist() == [[1.0, 2.0, 4.0], [-2.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="the replay memory must hold at least one hand"):
        config_for("dqn", "tuned", replay_capacity=0)
    for beta in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="Monte Carlo mix must be a number from 0 to 1"):
            config_for("dqn", "tuned", monte_carlo_mix=beta)
    with pytest.raises(ValueError, match="encoding must be one of seed, history, strength, not 'planes'"):
        config_for("dqn", "tuned", encoding="planes")
    config = config_for(
        "dqn", "tuned", hands=64, reward="chips", tables=8, monte_carlo_mix=0.5, opponents=(("call", 1.0),)
    )
    trainer = Trainer(config, show_progress=False)
    stats = trainer.run()
    assert stats["gradient_steps"] > 0 and all(np.isfinite(trainer.losses))


@pytest.mark.parametrize(
    ("game", "agents"),
    [
        ("holdem.limit.2p.reverse_blinds", [("lstm_dqn", []), ("dqn", [])]),
        pytest.param(
            "holdem.limit.2p.reverse_blinds",
            [("lstm_dqn", ["--checkpoint", "lstm_dqn-v1"]), ("dqn", ["--checkpoint", "dqn-v1"])],
            marks=pytest.mark.slow,  # the seed's checkpoints; the defaults above play the same code
        ),
        ("holdem.nolimit.2p.reverse_blinds", [("lstm_dqn", []), ("call", [])]),
    ],
)
def test_q_agents_play_through_the_dealer(tmp_path: Path, game: str, agents: list[tuple[str, list[str]]]) -> None:
    status, _, err = play(tmp_path, game, 120, 5, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err  # never an invalid action (no-limit raises are pot-size, clamped)
    check_log(tmp_path / "match.log", load_game(game), 120)


def test_lstm_output_is_the_hands_decisions_run_step_by_step_from_an_empty_memory() -> None:
    """The reference: the network's own memory argument, one image at a time, over the viewer's decisions
    of the hand (pre-flop facing a raise, then first on the flop); the agent keeps no memory between calls."""
    from acpc_arena.agents.dqn import LSTMDQNAgent

    agent = LSTMDQNAgent(LIMIT)
    preflop = parse_match_state("MATCHSTATE:0:0:r:AsKd|", LIMIT)
    flop = parse_match_state("MATCHSTATE:0:0:rc/:AsKd|/2c3d4h", LIMIT)

    def image(view: MatchState) -> torch.Tensor:  # the agent's encoding (the default's: the strength planes)
        planes = agent.encoding.images(agent.game, agent.encoding.observe(view.state, 0)[None])
        return torch.from_numpy(planes)[None].to(agent.device)

    with torch.no_grad():  # on the agent's device (a GPU where there is one)
        q_first, memory = agent.net(image(preflop), None)
        q_second, _ = agent.net(image(flop), memory)
    np.testing.assert_allclose(agent.outputs([flop])[0], q_second[0, 0].cpu().numpy(), atol=1e-5)
    np.testing.assert_allclose(agent.outputs([preflop])[0], q_first[0, 0].cpu().numpy(), atol=1e-5)
    next_hand = parse_match_state("MATCHSTATE:0:1:r:AsKd|", LIMIT)
    assert np.array_equal(agent.outputs([next_hand])[0], agent.outputs([preflop])[0])


def test_the_observations_of_a_hands_decisions_are_counted_by_hand() -> None:
    """Position 0 (the big blind, 10) calls a raise to 20, bets the flop (to 30) and faces a raise (to 40):
    hole cards, board (-1 not dealt), round, pot in big blinds, the opponent's last raise this round."""
    from acpc_arena.agents.dqn import decision_observations, decision_states

    view = parse_match_state("MATCHSTATE:0:0:rc/rr:AsKd|/2c3d4h", LIMIT)
    hole, flop = parse_cards("AsKd"), parse_cards("2c3d4h")
    expected = [
        [*hole, -1, -1, -1, -1, -1, 0, 3, 1],
        [*hole, *flop, -1, -1, 1, 4, -1],
        [*hole, *flop, -1, -1, 1, 7, 1],
    ]
    assert decision_observations(view).tolist() == expected
    assert [observe(s, 0).tolist() for s in decision_states(view)] == expected


def test_outputs_are_kept_for_one_networks_weights_not_for_its_file(tmp_path: Path) -> None:
    """Two networks saved in turn at one path, in one process: each agent gives its own network's output
    (the reference: the network called directly), not the other's kept one."""
    from acpc_arena.agents.dqn import LSTMDQNAgent

    view = parse_match_state("MATCHSTATE:0:0:r:AsKd|", LIMIT)
    image = torch.from_numpy(encode(view.state, 0))[None, None]
    outputs = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        net = LSTMDQN(planes=num_planes(LIMIT)).eval()
        with torch.no_grad():
            for parameter in net.parameters():
                parameter.normal_(0.0, 0.1)  # outputs of the order of 1, not 1e-7 as from the seed's 0.01
        save_network(tmp_path / "q", net, "lstm_dqn", num_planes(LIMIT), {"hands_trained": 0})
        agent = LSTMDQNAgent(LIMIT, checkpoint=tmp_path / "q.pt")
        with torch.no_grad():
            reference = net(image, None)[0][0, 0].numpy()
        outputs.append(agent.outputs([view])[0])
        np.testing.assert_allclose(outputs[-1], reference, rtol=1e-4, atol=1e-5)
    assert np.abs(outputs[0] - outputs[1]).max() > 0.01


def test_q_agents_act_alone_as_in_a_batch_of_other_tables_views() -> None:
    """``act_batch`` over views of many hands (other agents' in the runner) gives each view the action ``act``
    gives it alone, as an agent process would."""
    from acpc_arena.agents.dqn import _KNOWN, DQNAgent, LSTMDQNAgent
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937

    rng = np.random.default_rng(5)
    views = []
    deal = MT19937(3)
    for hand in range(60):
        state = deal_hand(LIMIT, hand, deal)
        while not state.finished:
            views.append(MatchState(state.current_player, state.copy()))
            legal = state.legal_actions()
            kinds = [k for k, ok in zip(("f", "c", "r"), (legal.can_fold, True, legal.can_raise), strict=True) if ok]
            state.apply({"f": FOLD_ACTION, "c": CALL_ACTION, "r": LIMIT_RAISE_ACTION}[kinds[rng.integers(len(kinds))]])
    for agent in (LSTMDQNAgent(LIMIT), DQNAgent(LIMIT)):
        assert agent.batch_key() is not None
        alone = []
        for view in views:
            _KNOWN.clear()  # every step of the hand run again, one view at a time
            alone.append(agent.act(view))
        _KNOWN.clear()
        assert agent.act_batch(views) == alone
        _KNOWN.clear()
        assert agent.act_batch(views[::-1]) == alone[::-1]
        assert agent.act_batch(views) == alone  # from the outputs kept
        assert len(set(alone)) > 1


def test_sound_pool_is_honoured_and_recorded(tmp_path: Path) -> None:
    from acpc_arena.agents.baselines import EquityAgent
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.models.cfr.checkpoint import load_policy

    config = config_for("dqn", "tuned", "sound", hands=100, reward="chips", tables=8)
    trainer = Trainer(config, show_progress=False)
    cfr, equity = trainer.opponents["cfr-ehs2"], trainer.opponents["equity"]
    assert isinstance(cfr, CFRAgent) and isinstance(equity, EquityAgent) and equity.samples == 200
    assert np.array_equal(cfr.checkpoint.strategy, load_policy(FOLDER / "cfr-ehs2.npz").strategy)
    stats = trainer.run()
    played = {name: len(results) for name, results in trainer.results.items()}
    assert sum(played.values()) == stats["hands"] and played["cfr-ehs2"] + played["equity"] > stats["hands"] / 2
    meta = json.loads(trainer.save(tmp_path / "q", stats).with_suffix(".json").read_text())
    assert meta["config"]["pool"] == "sound"
    assert meta["opponent_agents"]["cfr-ehs2"] == ["cfr", {"checkpoint": "cfr-ehs2"}]
    assert {name for name, _ in meta["config"]["opponents"]} == {
        "cfr-ehs2", "equity", "self", "rule", "call", "raise", "random"
    }  # fmt: skip
    custom = config_for("dqn", "tuned", "v1", opponents=(("call", 1.0),))
    assert custom.pool == "custom" and custom.opponents == (("call", 1.0),)
    with pytest.raises(ValueError, match="pool must be one of"):
        config_for("dqn", "tuned", "nonsense")
    for weight in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="strength weight must be a number >= 0"):
            config_for("dqn", "tuned", strength_weight=weight)


@pytest.mark.parametrize("network", ["lstm_dqn", "dqn"])
def test_first_checkpoints_load_by_name(tmp_path: Path, network: str) -> None:
    from acpc_arena.agents.dqn import DQNAgent, LSTMDQNAgent
    from acpc_arena.models.checkpoints import resolve_checkpoint

    agent_type = LSTMDQNAgent if network == "lstm_dqn" else DQNAgent
    old = agent_type(LIMIT, checkpoint=f"{network}-v1")
    assert resolve_checkpoint(f"{network}-v1", ".pt") == FOLDER / f"{network}-v1.pt"
    assert old.meta["network"] == network and old.meta["hands_trained"] >= 120_000  # the sidecar: 120,000 hands
    # trained against rule, random, call, raise, cfr and itself: the seed's own pool (v1)
    assert sorted(old.meta["opponents"]) == sorted(n.replace("cfr-improved", "cfr") for n, _ in POOLS["v1"])
    (tmp_path / "mine.pt").write_bytes((FOLDER / f"{network}-v1.pt").read_bytes())
    assert resolve_checkpoint(tmp_path / "mine.pt", ".pt") == tmp_path / "mine.pt"  # a file is taken as given
    with pytest.raises(ValueError, match=rf"{network}-v9\.pt: no such checkpoint file"):
        agent_type(LIMIT, checkpoint=f"{network}-v9")  # neither a file nor a shipped name (one line for acpc-agent)


def test_train_command_passes_the_q_options_to_the_run(tmp_path: Path) -> None:
    """``acpc-train dqn --mc-mix --replay-hands --no-double --strength-weight`` reach the run: the sidecar records them
    and the replay memory held no more hands than asked."""
    from acpc_arena.models.training import cli, dqn

    held: list[int] = []
    real_save = dqn.Trainer.save

    def save(self: Trainer, path: Path, stats: dict[str, Any]) -> Path:
        held.append(self.replay.size)
        return real_save(self, path, stats)

    out = tmp_path / "q.pt"
    argv = ["dqn", "--preset", "tuned", "--hands", "96", "--mc-mix", "0.25", "--replay-hands", "20", "--no-double"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn.Trainer, "save", save)
        cli.main([*argv, "--strength-weight", "0", "--out", str(out)])
    config = json.loads(out.with_suffix(".json").read_text())["config"]
    assert (config["monte_carlo_mix"], config["replay_capacity"], config["double"], config["hands"]) == (
        0.25, 20, False, 96
    )  # fmt: skip
    assert config["strength_weight"] == 0 and held and max(held) == 20


@pytest.mark.parametrize("network", ["lstm_dqn", "dqn"])
def test_train_command_defaults_are_the_shipped_networks_runs(tmp_path: Path, network: str) -> None:
    """``acpc-train lstm_dqn|dqn --preset tuned`` with no other option runs what the ``-sound`` checkpoint's
    sidecar records it was trained with (``Q_SEED``, ``Q_MC_MIX``, ``Q_REPLAY_HANDS``, ... kept in step with the
    shipped files)."""
    from dataclasses import asdict

    from acpc_arena.models.training import cli, dqn

    runs: list[dict[str, Any]] = []

    def record(config: TrainConfig, out: Path, **_: Any) -> tuple[Path, dict[str, Any]]:
        runs.append(json.loads(json.dumps(asdict(config))))  # tuples as the sidecar's lists
        return Path(out), {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dqn, "train", record)
        cli.main([network, "--preset", "tuned", "--out", str(tmp_path / "q.pt")])
    shipped = json.loads((FOLDER / f"{network}-sound.json").read_text())["config"]
    (run,) = runs
    assert {key: run[key] for key in shipped} == shipped
    # options added after a shipped network was trained are off in its run, as the trainer was then
    newer = {key: off for key, off in {"double": False, "monte_carlo_mix": 0.0}.items() if key not in shipped}
    assert {key: run[key] for key in newer} == newer
