"""DQfD's demonstrations for seed 003's ``nfq``: the default limit ``cfr --argmax``'s decisions as NFQ windows.

    python -m acpc_arena.models.training.nfq_demonstrations [--shards N] [--hands N] [--out DIR]

The demonstrator and its opponents are ``shards``' (those of ``dqn_demonstrations`` and
``poker_cnn_teacher`` too): ``TEACHER`` (``cfr --argmax``) against ``PAIRINGS``
(itself, ``cfr --sample``, ``random``, ``call``, ``raise``; not the sparring bots
nor ``equity``, on which ``nfq`` is measured), shard ``i`` against pairing ``i``
mod 5 on deal seed ``SEED_BASE + i``, the demonstrator in position ``hand mod 2``;
against itself both seats are recorded.

What is recorded differs: one row per decision of a recorded seat, with the
network's input as ``agents/nfq.py`` builds it (the window of the seat's last
``WINDOW`` observations of ``models.nfq.features`` this hand, the current one
last), the legal moves, the demonstrator's action, the hand's result in NFQ's
reward scale (chips over ``max_loss``, the most a hand can lose: in [-1, 1] as the
tanh outputs) and whether the row is the seat's last decision of the hand (the
rows of one seat's hand follow each other, so a row's next state is the next row).
``hand`` (the hand's number in its shard), ``seat`` and ``shard`` say where a row
comes from.

Each shard is saved on its own (``shards/NNNN.npz``), so a stopped run picks up at
the first shard missing; ``demonstrations.npz`` joins them and ``manifest.json``
says how they were made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.base import Agent
from acpc_arena.models.nfq.features import FEATURES, hand_strength, max_loss, observation, window
from acpc_arena.models.training.dqn_replay import legal_mask
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

DEFAULT_OUT = Path("runs/nfq-dqfd/demonstrations")
WINDOW = 3
"""Observations in a window (the shipped ``nfq``'s n)."""
HANDS = 5000
"""Hands a shard."""
SHARDS = 60
"""Shards of the default demonstrations (300,000 hands)."""
SEED_BASE = 40_000
COLUMNS = ("windows", "legal", "actions", "returns", "last", "hand", "seat", "shard")

Row = tuple[np.ndarray, np.ndarray, int, int, int]


class Windows:
    """Each seat's observations of one hand so far, as ``Trainer._state_vector`` keeps them."""

    def __init__(self, game: Game, n: int) -> None:
        self.game, self.n = game, n
        self.seen: dict[int, list[np.ndarray]] = {}
        self.strengths: dict[tuple[int, int], tuple[float, float]] = {}

    def at(self, state: State, viewer: int) -> np.ndarray:
        """``viewer``'s window at ``state`` (one of its decisions), its new observation appended."""
        key = (viewer, state.round)
        if key not in self.strengths:
            self.strengths[key] = hand_strength(self.game, state.hole_cards[viewer], state.visible_board())
        self.seen.setdefault(viewer, []).append(observation(state, viewer, self.strengths[key]))
        return window(self.seen[viewer], self.n)


def play_hand(state: State, agents: list[Agent], recorded: tuple[int, ...], n: int) -> tuple[list[Row], State]:
    """Play one dealt hand between ``agents`` (by seat): the rows (window, legal, action, seat, number of
    the seat's decision) of the seats in ``recorded``, in the order played, and the finished state."""
    windows = Windows(state.game, n)
    rows: list[Row] = []

    def seen(state: State, p: int, action: Action) -> None:
        rows.append((windows.at(state, p), legal_mask(state), int(action.kind), p, len(windows.seen[p]) - 1))

    return rows, play_recorded(state, agents, recorded, seen)


def record_shard(game: Game, index: int, hands: int, n: int = WINDOW) -> dict[str, np.ndarray]:
    """Shard ``index``: the demonstrator against ``PAIRINGS[index % len(PAIRINGS)]`` over ``hands`` hands."""
    scale = float(max_loss(game))
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for number, state, agents, recorded in shard_hands(game, index, hands, SEED_BASE):
        rows, state = play_hand(state, agents, recorded, n)
        rows.sort(key=lambda row: row[3])  # one seat's rows after the other's, each in the order played
        for i, (x, legal, action, p, _) in enumerate(rows):
            columns["windows"].append(x)
            columns["legal"].append(legal)
            columns["actions"].append(action)
            columns["returns"].append(state.value(p) / scale)
            columns["last"].append(i + 1 == len(rows) or rows[i + 1][3] != p)
            columns["hand"].append(number)
            columns["seat"].append(p)
    count = len(columns["actions"])
    return {
        "windows": np.stack(columns["windows"]).astype(np.float32).reshape(count, n * FEATURES),
        "legal": np.stack(columns["legal"]).astype(bool),
        "actions": np.array(columns["actions"], dtype=np.int8),
        "returns": np.array(columns["returns"], dtype=np.float32),
        "last": np.array(columns["last"], dtype=bool),
        "hand": np.array(columns["hand"], dtype=np.int32),
        "seat": np.array(columns["seat"], dtype=np.int8),
        "shard": np.full(count, index, dtype=np.int16),
    }


def load_columns(path: str | Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in COLUMNS}


def make_demonstrations(out: Path, shards: int, hands: int, log: Any = print) -> Path:
    """Record every shard not saved yet under ``out/shards``, join them into ``out/demonstrations.npz``."""
    game = load_game(GAME)
    plan = {"teacher": list(TEACHER), "pairings": [list(p) for p in PAIRINGS], "hands": hands, "game": GAME}
    plan |= {"window": WINDOW, "features": FEATURES}
    paths, seconds = record_shards(
        out, plan, shards, lambda index: record_shard(game, index, hands), _save_columns,
        lambda columns: f"{len(columns['actions'])} decisions", log,
    )  # fmt: skip
    parts = [load_columns(path) for path in paths]
    joined: dict[str, Any] = {name: np.concatenate([part[name] for part in parts]) for name in COLUMNS}
    np.savez(out / "demonstrations.npz", **joined)
    source = "the demonstrator's decisions recorded while it played in-process (models/training/nfq_demonstrations.py)"
    manifest = manifest_base(plan, source, SEED_BASE, shards, seconds) | {
        "encoding": "models.nfq.features windows",
        "decisions": len(joined["actions"]),
        "episodes": int(joined["last"].sum()),
        "actions": np.bincount(joined["actions"], minlength=3).tolist(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return out / "demonstrations.npz"


def _save_columns(columns: dict[str, Any], path: Path) -> None:
    np.savez_compressed(path, **columns)


def main(argv: list[str] | None = None) -> None:
    result, _ = recorder_main(
        "acpc_arena.models.training.nfq_demonstrations",
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
