"""A tiny DQfD run of seed 000's DQN: two shards of 30 recorded hands and a few steps."""

from __future__ import annotations

from pathlib import Path

from acpc_arena.models.training import dqn_dqfd
from acpc_arena.models.training.dqn import TrainConfig, config_for
from acpc_arena.models.training.dqn_demonstrations import make_demonstrations


def tiny_run(folder: Path) -> tuple[TrainConfig, dqn_dqfd.DQfDConfig]:
    """A DQN configuration on the history planes and DQfD settings of 6 steps of 8 hands, the demonstrations
    recorded into ``folder / "demos"``."""
    data = make_demonstrations(folder / "demos", shards=2, hands=30, log=lambda _: None)
    config = config_for(
        "dqn",
        "tuned",
        hands=40,
        tables=4,
        threads=1,
        batch_size=8,
        reward="chips",
        opponents=(("random", 1.0), ("self", 1.0)),
        encoding="history",
    )
    return config, dqn_dqfd.DQfDConfig(str(data), pretrain_steps=6, pretrain_batch=8, held_out=10)
