"""The ensemble's checkpoint files and a tiny end-to-end training run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from acpc_arena.models.checkpoints import CheckpointError
from acpc_arena.models.ensemble.checkpoint import (
    CLONE,
    NETWORKS,
    STYLE_NAMES,
    load_library,
    load_networks,
    save_library,
    save_networks,
)
from acpc_arena.models.ensemble.network import SHIPPED, NetConfig, init_population
from acpc_arena.models.ensemble.opponent_model import OpponentModel
from acpc_arena.models.training.ensemble import Evolution, EvolutionConfig, train, train_clone
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state

GAME = load_game("holdem.nolimit.2p.reverse_blinds")


def test_networks_round_trip_and_damage(tmp_path: Path) -> None:
    params = init_population(SHIPPED, len(NETWORKS), torch.Generator().manual_seed(4))
    path = save_networks(tmp_path / "nets.pt", params, SHIPPED, {"note": "test"})
    loaded, config = load_networks(path, torch.device("cpu"))
    assert config == SHIPPED and all(torch.equal(loaded[k], params[k]) for k in params)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="damaged"):
        load_networks(path, torch.device("cpu"))
    save_networks(path, init_population(NetConfig(mlp=8), len(NETWORKS), torch.Generator()), NetConfig(mlp=8), {})
    meta = json.loads(path.with_suffix(".json").read_text())
    path.with_suffix(".json").write_text(json.dumps(meta | {"config": {**meta["config"], "mlp": 32}}))
    with pytest.raises(CheckpointError, match=r"damaged checkpoint .* describes have .* bytes of weights"):
        load_networks(path, torch.device("cpu"))  # more weights described than the file can hold
    path.with_suffix(".json").write_text(json.dumps(meta | {"config": {**meta["config"], "mlp": 4}}))
    with pytest.raises(CheckpointError, match="do not fit"):
        load_networks(path, torch.device("cpu"))  # fewer: the weights' shapes differ


def test_library_round_trip_and_damage(tmp_path: Path) -> None:
    state = parse_match_state("MATCHSTATE:0:0:r300c/cr600f:AsAh|/2c3d4h", GAME).state
    library = {}
    for style in STYLE_NAMES:
        library[style] = OpponentModel()
        for _ in range(2):  # nodes seen once are not stored
            library[style].observe(state, 0, None)
    path = save_library(tmp_path / "library.json", library, {})
    assert {k: m.to_json() for k, m in load_library(path).items()} == {k: m.to_json() for k, m in library.items()}
    data = json.loads(path.read_text())
    del data["styles"]["o8"]
    path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="o8"):
        load_library(path)


@pytest.mark.slow  # make test-slow: two training runs (~20 s)
def test_a_tiny_training_run_writes_everything_and_the_worker_count_changes_nothing(tmp_path: Path) -> None:
    config = EvolutionConfig(
        population=4, generations=3, deals=2, base_deals=1, library_hands=4, seed=3, teacher_hands=8, clone_epochs=2
    )
    meta = train(config, SHIPPED, tmp_path / "two", workers=2)
    # counters: 8 styles x 4 individuals x 2 x 2 deals x 3 generations = 384; base: 4 individuals x 2 x 1 deal
    # x (4 + 4 + 8 opponents over the three curriculum stages) = 128; library: 8 x 4 = 32
    assert meta["hands"] == 384 + 128 + 32
    assert meta["start"] == "cfr (cfr-nl) cloned" and meta["clone"]["records"] >= 8 * 4  # >= 1 decision a hand
    assert {len(meta["fitness"][name]) for name in NETWORKS} == {3}
    params, net = load_networks(tmp_path / "two" / "ensemble-networks.pt", torch.device("cpu"))
    assert net == SHIPPED and next(iter(params.values())).shape[0] == len(NETWORKS)
    assert sorted(load_library(tmp_path / "two" / "ensemble-library.json")) == list(STYLE_NAMES)
    assert (tmp_path / "two" / "ensemble-fitness.png").stat().st_size > 0
    assert "base gen 3/3 vs o1,o2,o3,o4,o5,o6,o7,o8" in (tmp_path / "two" / "ensemble-training.log").read_text()

    train(config, SHIPPED, tmp_path / "one", workers=1)
    alone, _ = load_networks(tmp_path / "one" / "ensemble-networks.pt", torch.device("cpu"))
    assert all(torch.equal(alone[k], params[k]) for k in params)
    assert (tmp_path / "one" / "ensemble-library.json").read_text() == (
        tmp_path / "two" / "ensemble-library.json"
    ).read_text()

    # the clone evolution started from is kept, and --clone-only makes the same network again
    clone, _ = load_networks(tmp_path / "two" / "ensemble-clone.pt", torch.device("cpu"), CLONE)
    assert next(iter(clone.values())).shape[0] == 1
    again, _ = load_networks(train_clone(config, SHIPPED, tmp_path / "clone", workers=1), torch.device("cpu"), CLONE)
    assert all(torch.equal(again[k], clone[k]) for k in clone)
    with pytest.raises(CheckpointError, match="not an ensemble-networks checkpoint"):
        load_networks(tmp_path / "two" / "ensemble-clone.pt", torch.device("cpu"))


def test_clone_only_needs_teacher_hands(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--teacher-hands above 0"):
        train_clone(EvolutionConfig(teacher_hands=0), SHIPPED, tmp_path)


def test_the_first_generation_is_the_start_and_its_mutations(tmp_path: Path) -> None:
    config = EvolutionConfig(population=5, seed=2)
    start = init_population(SHIPPED, 1, torch.Generator().manual_seed(7))
    first = Evolution(config, SHIPPED, None, index=0).first_generation(start)
    assert all(torch.equal(first[k][0], start[k][0]) for k in start)
    for member in range(1, 5):
        changed = sum(int((first[k][member] != start[k][0]).any()) for k in start)
        assert 0 < changed <= len(start)
    random_start = Evolution(config, SHIPPED, None, index=0).first_generation(None)
    assert next(iter(random_start.values())).shape[0] == 5


def test_the_shipped_clone_is_the_start_the_shipped_networks_recorded() -> None:
    """The clone's sidecar carries the figures of the fit the networks' training recorded for its start."""
    from acpc_arena.models.ensemble.checkpoint import CLONE_PATH, NETWORKS_PATH

    clone = json.loads(CLONE_PATH.with_suffix(".json").read_text())
    networks = json.loads(NETWORKS_PATH.with_suffix(".json").read_text())
    assert clone["clone"] == networks["clone"] and clone["teacher_hands"] == networks["evolution"]["teacher_hands"]
    params, net = load_networks(CLONE_PATH, torch.device("cpu"), CLONE)
    assert net == NetConfig(**networks["config"]) and next(iter(params.values())).shape[0] == 1
