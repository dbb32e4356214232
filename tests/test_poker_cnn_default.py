"""The default Poker-CNN: the history encoding, the teacher's recorded decisions, resumable training, both
shipped checkpoints (the default and the seed's configuration) seeing their encodings."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest
import torch

from acpc_arena.agents.dqn import LSTMDQNAgent
from acpc_arena.agents.poker_cnn import PokerCNNAgent
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.q_networks import history_encoding
from acpc_arena.models.q_networks.checkpoint import load_network, save_network, weights_digest
from acpc_arena.models.q_networks.encoding import encode
from acpc_arena.models.q_networks.history_encoding import ENCODINGS, history_planes, observe_history
from acpc_arena.models.q_networks.networks import LSTMDQN
from acpc_arena.models.training import cli, poker_cnn, poker_cnn_imitate, poker_cnn_teacher
from acpc_arena.models.training.poker_cnn_data import play_in_process, read_hands
from acpc_arena.models.training.poker_cnn_imitate import ImitateConfig, train_default
from acpc_arena.models.training.poker_cnn_teacher import join, play_shard
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action, ActionKind, State
from acpc_arena.protocol.views import agent_view
from acpc_arena.protocol.wire import parse_match_state

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
CHECK, RAISE = Action(ActionKind.CALL), Action(ActionKind.RAISE)


def hand(betting: list[list[Action]]) -> State:
    """Bob (position 0, big blind: acts second before the flop, first after) AhAd, Alice (position 1) 7c2d,
    board KsQs3h 9c 4d, with ``betting`` applied round by round."""
    state = State(LIMIT, 1, [parse_cards("AhAd"), parse_cards("7c2d")], parse_cards("KsQs3h9c4d"))
    for actions in betting:
        for action in actions:
            state.apply(action)
    return state


def test_history_planes_of_a_handwritten_betting_sequence() -> None:
    # pre-flop: alice calls, bob checks; flop: bob bets, alice calls; turn: bob checks, alice bets: bob to act
    state = hand([[CHECK, CHECK], [RAISE, CHECK], [CHECK, RAISE]])
    assert state.current_player == 0 and state.round == 2
    planes = ENCODINGS["history"].images(LIMIT, observe_history(state, 0)[None])[0]
    assert planes.shape == (26, 17, 17) == (history_planes(LIMIT), 17, 17)
    assert np.array_equal(planes[:16], encode(state, 0))  # the seed's 16 planes first, unchanged
    # position 0 (one plane a position), then per round (bob's raises, alice's raises): flop 1, 0; turn 0, 1
    expected_values = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    for plane, value in zip(planes[16:], expected_values, strict=True):
        assert np.all(plane == value)
    # the river after bob checks: alice's view; she is position 1, bob raised the flop, she the turn
    river = hand([[CHECK, CHECK], [RAISE, CHECK], [CHECK, RAISE, CHECK], [CHECK]])
    assert river.current_player == 1 and river.round == 3
    planes = ENCODINGS["history"].images(LIMIT, observe_history(river, 1)[None])[0]
    for plane, value in zip(planes[16:], [0, 1, 0, 0, 0, 1, 1, 0, 0, 0], strict=True):
        assert np.all(plane == value)
    # re-raises pre-flop: alice raises, bob re-raises, alice caps (3 raises): bob's view, 1 of his, 2 of hers
    capped = hand([[RAISE, RAISE, RAISE]])
    values = observe_history(capped, 0)[-9:].tolist()
    assert values == [0, 1, 2, 0, 0, 0, 0, 0, 0]


def test_a_sidecar_names_its_encoding() -> None:
    assert history_encoding.encoding_of({}).name == "seed"
    assert history_encoding.encoding_of({"encoding": "history"}).planes(LIMIT) == 16 + 2 + 2 * 4
    with pytest.raises(ValueError, match="unknown encoding 'cards'"):
        history_encoding.encoding_of({"encoding": "cards"}, "x.pt")


def test_the_teacher_shards_record_the_teachers_decisions() -> None:
    selfplay, against_random = play_shard(LIMIT, 0, 12), play_shard(LIMIT, 2, 12)
    # self-play: both positions of a hand are the teacher (a hand of two decisions or more has both, since
    # the players take turns); against random, the teacher's position is the hand number mod 2
    position = selfplay.observations[:, 10]
    for number in np.unique(selfplay.hands):
        mine = position[selfplay.hands == number].tolist()
        assert set(mine) == ({0, 1} if len(mine) > 1 else {1})  # one decision: position 1's fold before the flop
    local = against_random.hands - 2 * 12  # shard 2's hands are numbered from 2 x 12
    assert np.array_equal(against_random.observations[:, 10], local % 2)
    assert selfplay.observations.shape[1] == 7 + 3 + 1 + 8  # cards, round, pot, raise; position; 4 x 2 raises


@pytest.fixture(scope="module")
def small_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("poker_cnn_default")
    shards = [play_shard(LIMIT, index, 40) for index in range(2)]
    for index, shard in enumerate(shards):
        shard.save(folder / "shards" / f"{index:04d}.npz")
    joined = join([folder / "shards" / f"{index:04d}.npz" for index in range(2)])
    assert np.array_equal(joined.actions, np.concatenate([shard.actions for shard in shards]))
    joined.save(folder / "records.npz")
    return folder / "records.npz"


def test_a_stopped_training_goes_on_to_the_same_network(
    small_records: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ImitateConfig(data=str(small_records), epochs=2, batch_size=16, test_records=60, curve=[50])
    whole, summary = train_default(config, tmp_path / "whole.pt", log=lambda _: None)
    assert summary["curve"][0]["records"] == 64  # the end of the first batch of 16 past 50 records
    assert summary["curve"][-1]["epochs"] == 2 and summary["held_out_records"] >= 60

    class Stop(Exception):
        pass

    def stop_after_the_first_epoch(text: str) -> None:
        if "epoch 1 of 2 done" in text:
            raise Stop

    monkeypatch.setattr(poker_cnn_imitate, "SAVE_SECONDS", 0)  # the state saved after every batch
    with pytest.raises(Stop):
        train_default(config, tmp_path / "again.pt", log=stop_after_the_first_epoch)
    again, _ = train_default(config, tmp_path / "again.pt", log=lambda _: None)
    first, meta = load_network(whole, torch.device("cpu"))
    second, _ = load_network(again, torch.device("cpu"))
    assert weights_digest(first) == weights_digest(second)
    assert meta["encoding"] == "history" and meta["planes"] == 26
    with pytest.raises(ValueError, match="another run"):
        train_default(replace(config, epochs=3), tmp_path / "again.pt", log=lambda _: None)


@pytest.mark.parametrize("checkpoint", ["poker_cnn", "poker_cnn-seed"])
def test_both_shipped_checkpoints_see_their_encoding_and_play(tmp_path: Path, checkpoint: str) -> None:
    agent = PokerCNNAgent(LIMIT, 1, checkpoint=Path(checkpoint))
    # bob's turn decision of the handwritten hand: the seed's 16 planes, then (default only) the planes worked
    # out by hand in the first test: position 0; bob's and alice's raises: pre-flop 0, 0; flop 1, 0; turn 0, 1
    state = hand([[CHECK, CHECK], [RAISE, CHECK], [CHECK, RAISE]])
    planes = encode(state, 0)
    if checkpoint == "poker_cnn":
        extra = np.ones((10, 17, 17), dtype=np.float32) * np.array([1, 0, 0, 0, 1, 0, 0, 1, 0, 0])[:, None, None]
        planes = np.concatenate([planes, extra.astype(np.float32)])
    assert agent.meta["planes"] == len(planes)
    with torch.no_grad():
        expected = agent.net.step(torch.from_numpy(planes[None]), None)[0][0].numpy()
    view = agent_view(state, 0, state.hole_cards[0])
    assert agent.outputs([view])[0] == pytest.approx(expected, abs=1e-6)
    a = ("poker_cnn", f"--checkpoint {checkpoint}")
    log = play_in_process(tmp_path, "holdem.limit.2p.reverse_blinds", 3, 1, 20, a, ("call", ""))
    assert len(list(read_hands([log]))) == 20


@pytest.mark.parametrize("preset", ["tuned", "faithful"])
def test_train_command_defaults_are_the_shipped_checkpoints_runs(tmp_path: Path, preset: str) -> None:
    """``make train AGENT=poker_cnn`` (``--preset faithful``) with no other option runs what the shipped
    ``poker_cnn`` (``poker_cnn-seed``) sidecar records it was trained with."""
    runs: list[dict[str, object]] = []

    def record(config: object, out: Path, *_: object) -> tuple[Path, dict[str, object]]:
        runs.append(json.loads(json.dumps(asdict(config))))  # type: ignore[call-overload]
        return Path(out), {"held_out_accuracy": {"all": 0.0}, "mean_held_out_accuracy": 0.0}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(poker_cnn_imitate, "train_default", record)
        patch.setattr(poker_cnn, "train", record)
        patch.setattr(poker_cnn_teacher, "make_data", lambda *_: None)  # no data here: not made either
        cli.main(["poker_cnn", "--preset", preset, "--out", str(tmp_path / "p.pt")])
    name = "poker_cnn" if preset == "tuned" else "poker_cnn-seed"
    shipped = json.loads((FOLDER / f"{name}.json").read_text())["config"]
    (run,) = runs
    assert run == shipped


def test_a_checkpoint_of_the_history_encoding_plays_on_its_planes(tmp_path: Path) -> None:
    """An LSTM-DQN whose sidecar names the ``history`` encoding: the seed's 16 planes of each decision, then
    the viewer's position (plane of position 0 all ones: the big blind) and each round's raises of the viewer
    and of the other (here the opponent's one pre-flop raise at both decisions), built here by hand."""
    torch.manual_seed(3)
    net = LSTMDQN(planes=26).eval()
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0.0, 0.1)
    save_network(tmp_path / "h", net, "lstm_dqn", 26, {"hands_trained": 0, "encoding": "history"})
    agent = LSTMDQNAgent(LIMIT, checkpoint=tmp_path / "h.pt")
    preflop = parse_match_state("MATCHSTATE:0:0:r:AsKd|", LIMIT)
    flop = parse_match_state("MATCHSTATE:0:0:rc/:AsKd|/2c3d4h", LIMIT)
    extra = np.zeros((10, 17, 17), dtype=np.float32)
    extra[0] = 1.0  # position 0
    extra[3] = 1.0  # pre-flop: the other player's raises, 1
    with torch.no_grad():
        first = np.concatenate([encode(preflop.state, 0), extra])
        second = np.concatenate([encode(flop.state, 0), extra])
        _, memory = net(torch.from_numpy(first)[None, None], None)
        q, _ = net(torch.from_numpy(second)[None, None], memory)
    np.testing.assert_allclose(agent.outputs([flop])[0], q[0, 0].numpy(), rtol=1e-4, atol=1e-5)
    save_network(tmp_path / "bad", net, "lstm_dqn", 26, {"hands_trained": 0})  # 26 planes, no encoding named
    with pytest.raises(ValueError, match="26 planes; its seed encoding of this game has 16"):
        LSTMDQNAgent(LIMIT, checkpoint=tmp_path / "bad.pt")
