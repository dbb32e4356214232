"""DQfD's demonstrations for seed 000's Q-networks, and its large-margin supervised loss.

    python -m acpc_arena.models.training.dqn_demonstrations [--shards N] [--hands N] [--out runs/dqfd/demonstrations]

The demonstrator is ``shards.TEACHER``, the default limit ``cfr``
taking its most likely action (``cfr --argmax``), against the teacher's pairings
(``shards.PAIRINGS``: itself, ``cfr --sample``, ``random``, ``call``,
``raise``; not the sparring bots nor ``equity``, on which the networks are
measured), shard ``i`` against pairing ``i`` mod 5 on deal seed ``SEED_BASE + i``,
the demonstrator in position ``hand mod 2``. Each hand is one episode of the
demonstrator's seat in the replay memory's own format (``EpisodeReplay``): its
observations (``q_networks.history_encoding.observe_strength``, whose first fields are
the seed's ``observe``, then the betting history's, then the hand's strength, so one recording serves any of
the three encodings), legal moves and actions, and the
hand's result; against itself both seats are episodes. The reward is not stored,
only what it is made of (the chips won, the seat, the starting hand's class), so
``load_replay`` makes either of the trainer's rewards.

Each shard is saved on its own (``shards/NNNN.npz``), so a stopped run picks up at
the first shard missing; ``demonstrations.npz`` joins them and ``manifest.json``
says how they were made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent
from acpc_arena.models.hand_strength.classes import hand_class
from acpc_arena.models.q_networks.history_encoding import observe_strength, strength_fields
from acpc_arena.models.training.dqn_replay import MAX_STEPS, EpisodeReplay, legal_mask
from acpc_arena.models.training.poker_cnn_data import GAME
from acpc_arena.models.training.shards import (
    PAIRINGS,
    TEACHER,
    manifest_base,
    play_recorded,
    record_shards,
    recorder_main,
    shard_hands,
)
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import Action, State

DEFAULT_OUT = Path("runs/dqfd/demonstrations")
HANDS = 5000
"""Hands a shard."""
SHARDS = 100
"""Shards of the default demonstrations (500,000 hands)."""
SEED_BASE = 30_000
COLUMNS = ("observations", "actions", "legal", "steps", "chips", "seat", "hand_class")
"""The arrays of a shard: per episode, (MAX_STEPS, fields) observations, actions and (MAX_STEPS, 3) legal moves,
the decisions kept, the chips won in big blinds, the seat, the starting hand's class."""

Episode = tuple[list[np.ndarray], list[int], list[np.ndarray], float, int, int]


def play_hand(state: State, agents: list[Agent], recorded: tuple[int, ...]) -> list[Episode]:
    """Play one dealt hand between ``agents`` (by seat); the episodes of the seats in ``recorded``."""
    kept: dict[int, tuple[list[np.ndarray], list[int], list[np.ndarray]]] = {p: ([], [], []) for p in recorded}

    def seen(state: State, p: int, action: Action) -> None:
        kept[p][0].append(observe_strength(state, p))
        kept[p][1].append(int(action.kind))
        kept[p][2].append(legal_mask(state))

    state = play_recorded(state, agents, recorded, seen)
    big = state.game.big_blind or 1
    return [
        (obs, acts, legal, state.value(p) / big, p, hand_class(state.hole_cards[p]))
        for p, (obs, acts, legal) in kept.items()
        if acts
    ]


def pack(episodes: list[Episode], fields: int) -> dict[str, np.ndarray]:
    """The episodes as ``COLUMNS`` arrays (decisions past ``MAX_STEPS`` dropped, as the replay memory does)."""
    n = len(episodes)
    columns: dict[str, np.ndarray] = {
        "observations": np.zeros((n, MAX_STEPS, fields), dtype=np.int16),
        "actions": np.zeros((n, MAX_STEPS), dtype=np.int8),
        "legal": np.zeros((n, MAX_STEPS, 3), dtype=bool),
        "steps": np.zeros(n, dtype=np.int8),
        "chips": np.zeros(n, dtype=np.float32),
        "seat": np.zeros(n, dtype=np.int8),
        "hand_class": np.zeros(n, dtype=np.int16),
    }
    for i, (obs, acts, legal, chips, seat, klass) in enumerate(episodes):
        steps = min(len(acts), MAX_STEPS)
        columns["observations"][i, :steps] = np.stack(obs[:steps])
        columns["actions"][i, :steps] = acts[:steps]
        columns["legal"][i, :steps] = np.stack(legal[:steps])
        columns["steps"][i] = steps
        columns["chips"][i], columns["seat"][i], columns["hand_class"][i] = chips, seat, klass
    return columns


def record_shard(game: Game, index: int, hands: int) -> dict[str, np.ndarray]:
    """Shard ``index``: the demonstrator against ``PAIRINGS[index % len(PAIRINGS)]`` over ``hands`` hands."""
    episodes: list[Episode] = []
    for _, state, agents, recorded in shard_hands(game, index, hands, SEED_BASE):
        episodes += play_hand(state, agents, recorded)
    return pack(episodes, strength_fields(game))


def load_columns(path: str | Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in COLUMNS}


def make_demonstrations(out: Path, shards: int, hands: int, log: Any = print) -> Path:
    """Record every shard not saved yet under ``out/shards``, join them into ``out/demonstrations.npz``."""
    game = load_game(GAME)
    plan = {"teacher": list(TEACHER), "pairings": [list(p) for p in PAIRINGS], "hands": hands, "game": GAME}
    paths, seconds = record_shards(
        out, plan, shards, lambda index: record_shard(game, index, hands), _save_columns,
        lambda columns: f"{len(columns['steps'])} episodes", log,
    )  # fmt: skip
    parts = [load_columns(path) for path in paths]
    joined: dict[str, Any] = {name: np.concatenate([part[name] for part in parts]) for name in COLUMNS}
    np.savez(out / "demonstrations.npz", **joined)
    valid = np.arange(MAX_STEPS)[None, :] < joined["steps"][:, None]
    source = "the demonstrator's hands recorded while it played in-process (models/training/dqn_demonstrations.py)"
    manifest = manifest_base(plan, source, SEED_BASE, shards, seconds) | {
        "encoding": "strength",
        "episodes": len(joined["steps"]),
        "decisions": int(valid.sum()),
        "actions": np.bincount(joined["actions"][valid], minlength=3).tolist(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return out / "demonstrations.npz"


def _save_columns(columns: dict[str, Any], path: Path) -> None:
    np.savez_compressed(path, **columns)


def load_replay(path: str | Path, values: np.ndarray | None, fields: int) -> EpisodeReplay:
    """The demonstrations at ``path`` as a full replay memory of observations of ``fields`` numbers (the first
    ones of each recorded: the seed's encoding or the history's); the reward is the chips won in big blinds, less
    ``values[seat, hand class]`` (the trainer's ``mcts`` reward) when ``values`` is given."""
    columns = load_columns(path)
    n, _, recorded = columns["observations"].shape
    if recorded < fields:
        raise ValueError(
            f"{path}: observations of {recorded} numbers, not the {fields} of this encoding: an older recording;"
            " delete its folder and record again"
        )
    replay = EpisodeReplay(n, fields)
    replay.observations[:] = columns["observations"][:, :, :fields]
    replay.actions[:] = columns["actions"]
    replay.legal[:] = columns["legal"]
    replay.steps[:] = columns["steps"]
    reward = columns["chips"].astype(np.float64)
    if values is not None:
        reward -= values[columns["seat"].astype(np.int64), columns["hand_class"].astype(np.int64)]
    replay.reward[:] = reward
    replay.size, replay.next = n, 0
    return replay


def margin_loss(
    q: torch.Tensor, expert: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor, margin: float
) -> torch.Tensor:
    """DQfD's large-margin supervised loss J_E = max_a [Q(s, a) + l(a_E, a)] - Q(s, a_E), the max over the legal
    actions a, l(a_E, a) = ``margin`` for a != a_E and 0 for a_E; the mean over the ``valid`` steps.

    ``q``: (batch, time, actions); ``expert``: (batch, time) the demonstrator's actions; ``legal``: (batch, time,
    actions); ``valid``: (batch, time) the real decisions."""
    penalty = margin * (1.0 - torch.nn.functional.one_hot(expert, q.shape[-1]).to(q.dtype))
    best = torch.where(legal, q + penalty, torch.full_like(q, -1e9)).max(dim=-1).values
    j_e = best - q.gather(-1, expert[..., None])[..., 0]
    weight = valid.to(q.dtype)
    return (j_e * weight).sum() / weight.sum().clamp(min=1.0)


def main(argv: list[str] | None = None) -> None:
    result, _ = recorder_main(
        "acpc_arena.models.training.dqn_demonstrations",
        __doc__ or "",
        make_demonstrations,
        DEFAULT_OUT,
        SHARDS,
        HANDS,
        argv,
    )
    print(f"demonstrations in {result}")


if __name__ == "__main__":
    main()
