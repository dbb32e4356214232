"""``acpc-train --from-sidecar``: a checkpoint rebuilt from the settings its JSON sidecar recorded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from acpc_arena.models import checkpoints
from acpc_arena.models.cfr.nolimit import BetAbstraction
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.training import dqn, nfq, nfq_dqfd
from acpc_arena.models.training.from_sidecar import cfr_arguments, read_recorded, recorded_config
from acpc_arena.models.training.network_runs import rebuild_network
from tests.helpers.processes import run_in_process


def test_cfr_leduc_rebuilt_from_its_shipped_sidecar_is_the_shipped_strategy_bit_for_bit(tmp_path: Path) -> None:
    done = run_in_process("acpc-train", "--from-sidecar", "cfr-leduc", "--out-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"saved {tmp_path / 'cfr-leduc.npz'}" in done.stdout
    rebuilt = np.load(tmp_path / "cfr-leduc.npz")["strategy"]
    shipped = np.load(FOLDER / "cfr-leduc.npz")["strategy"]
    assert rebuilt.dtype == shipped.dtype == np.float32
    assert rebuilt.tobytes() == shipped.tobytes()


def test_an_nfq_network_rebuilt_from_its_sidecar_has_the_same_weights(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    first, _ = nfq.train(nfq.config_for(hands=40, reward="chips"), tmp_path / "first.pt", log_every=0)
    sidecar = first.with_suffix(".json")
    again = rebuild_network(read_recorded(sidecar), sidecar, tmp_path / "again.pt")
    a, b = (torch.load(path, weights_only=True) for path in (first, again))
    assert list(a) == list(b) and all(torch.equal(a[name], b[name]) for name in a)


# The commands docs/agents/index.md gives for the superseded Q-networks, as acpc-train's defaults make them.
DOCUMENTED = {
    "dqn-v3": ("dqn", {"seed": 1, "monte_carlo_mix": 0.0, "replay_capacity": 500_000}),
    "dqn-v2": ("dqn", {"seed": 1, "monte_carlo_mix": 0.0, "replay_capacity": 500_000, "double": False}),
    "lstm_dqn-v2": ("lstm_dqn", {"strength_weight": 0.0, "seed": 1}),
}
Q_DEFAULTS = {
    "dqn": {"hands": 200_000, "seed": 2, "strength_weight": 50.0, "double": True, "monte_carlo_mix": 0.5,
            "replay_capacity": 50_000},
    "lstm_dqn": {"hands": 120_000, "seed": 3, "strength_weight": 50.0, "double": False, "monte_carlo_mix": 0.0,
                 "replay_capacity": 500_000},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_a_superseded_q_network_sidecar_gives_the_documented_run(name: str) -> None:
    network, changes = DOCUMENTED[name]
    expected = dqn.config_for(network, "tuned", "sound", reward="mcts", threads=1, **{**Q_DEFAULTS[network], **changes})
    path = FOLDER / f"{name}.json"
    assert recorded_config(dqn.TrainConfig, read_recorded(path)["config"], dqn.POOLS, path) == expected


@pytest.mark.parametrize(("name", "changes"), [("nfq-chips", {"reward": "chips"}), ("nfq-n1", {"window": 1})])
def test_an_nfq_ablation_sidecar_gives_the_documented_run(name: str, changes: dict[str, object]) -> None:
    path = FOLDER / f"{name}.json"
    expected = nfq.config_for("sound", hands=200_000, seed=1, **changes)
    assert recorded_config(nfq.NFQConfig, read_recorded(path)["config"], dqn.POOLS, path) == expected


def test_the_default_nfq_sidecar_gives_the_train_commands_defaults() -> None:
    """The shipped default ``nfq`` (DQfD) is what ``acpc-train nfq`` makes with no option: its sidecar's run is the
    seed's settings with no hands of phase 3, training seed 1, and DQfD's defaults."""
    path = FOLDER / "nfq.json"
    recorded = read_recorded(path)
    assert recorded_config(nfq.NFQConfig, recorded["config"], dqn.POOLS, path) == nfq_dqfd.phase3_config(0, seed=1)
    assert recorded_config(nfq_dqfd.DQfDConfig, recorded["dqfd"], {}, path) == nfq_dqfd.DQfDConfig()
    assert recorded["hands_trained"] == 0 and read_recorded(FOLDER / "nfq-seed.json")["config"]["hands"] == 200_000


def test_a_missing_shipped_checkpoint_names_the_command_that_rebuilds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an installation whose checkpoint folder has dqn-v2's sidecar and not its weights, as the wheel
    (tmp_path / "dqn-v2.json").write_bytes((FOLDER / "dqn-v2.json").read_bytes())
    monkeypatch.setattr(checkpoints, "FOLDER", tmp_path)
    with pytest.raises(checkpoints.CheckpointError) as missing:
        checkpoints.read_sidecar(Path("dqn-v2.pt"))
    assert str(missing.value) == (
        "dqn-v2.pt: no such checkpoint file (dqn-v2 is not installed with this package: "
        "`acpc-train --from-sidecar dqn-v2 --install` rebuilds it here)"
    )
    with pytest.raises(checkpoints.CheckpointError) as unknown:
        checkpoints.read_sidecar(Path("dqn-v9.pt"))
    assert str(unknown.value) == "dqn-v9.pt: no such checkpoint file"


def test_from_sidecar_refuses_what_it_cannot_rebuild_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for given, words in [
        ("no-such-checkpoint", "no-such-checkpoint.json: no such checkpoint description"),
        (str(bad), "bad.json, line 1: unreadable checkpoint description (not JSON"),
        ("poker_cnn", "poker_cnn.json: --from-sidecar rebuilds CFR, lstm_dqn, dqn and nfq checkpoints"),
    ]:
        done = run_in_process("acpc-train", "--from-sidecar", given, "--out-dir", str(tmp_path))
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


# docs/agents/seed-002-cfr.md's tables: how each shipped CFR checkpoint was solved.
CFR_RUNS = {
    "cfr-ehs2-exact": ("holdem.limit.2p.reverse_blinds", "pcs-dcfr", "ehs2-exact-200-150-100", 1450, None, 1),
    "cfr-ehs2": ("holdem.limit.2p.reverse_blinds", "mccfr", "ehs2-50-50-50", 8000, 64, 1),
    "cfr-improved": ("holdem.limit.2p.reverse_blinds", "mccfr", "improved", 8000, 64, 1),
    "cfr-traditional": ("holdem.limit.2p.reverse_blinds", "mccfr", "traditional", 8000, 64, 1),
    "cfr-nl": ("holdem.nolimit.2p.reverse_blinds", "mcdcfr", "ehs2-50-50-50", 12000, 256, 1),
    "cfr-leduc": ("leduc", "cfr+", "exact", 3000, None, 0),
    "cfr-kuhn": ("kuhn", "cfr+", "exact", 2000, None, 0),
}


@pytest.mark.parametrize("name", sorted(CFR_RUNS))
def test_a_cfr_sidecar_gives_the_documented_run(name: str) -> None:
    game, algorithm, abstraction, iterations, deals, seed = CFR_RUNS[name]
    arguments = cfr_arguments(read_recorded(FOLDER / f"{name}.json"))
    assert (arguments["game_name"], arguments["algorithm"], arguments["abstraction_name"]) == (
        game,
        algorithm,
        abstraction,
    )
    assert (arguments["iterations"], arguments["seed"]) == (iterations, seed)
    if deals is not None:
        assert arguments["deals"] == deals
    if name == "cfr-nl":  # bets 1,3/1/1/1 with a raise cap of 2, deals drawn from a pool of 20,000
        assert BetAbstraction.parse(arguments["bets"], 2, 4) == BetAbstraction.parse("1,3/1/1/1", 2, 4)
        assert (arguments["raise_cap"], arguments["pool"]) == (2, 20000)
    else:
        assert (arguments["bets"], arguments["raise_cap"], arguments["pool"]) == (None, None, 0)
