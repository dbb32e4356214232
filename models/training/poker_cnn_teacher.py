"""The default Poker-CNN's training data: the teacher's decisions, recorded while it plays in this process.

    python -m acpc_arena.models.training.poker_cnn_teacher [--shards N] [--out runs/poker_cnn-default]

The teacher is the default limit ``cfr`` (``cfr-ehs2-exact``) taking its most
likely action at every decision (``--argmax``). It plays ``shards.PAIRINGS`` in turn,
shard after shard of ``HANDS`` hands (shard ``i``: pairing ``i`` mod 5, deal seed
``SEED_BASE + i``), sitting in position ``hand mod 2``: itself (both players are
the teacher, argmax, and both players' decisions are kept), ``cfr --sample`` (the
same equilibrium drawn at random: other lines of play), ``random``, ``call`` and
``raise`` (lines an equilibrium never plays, as weak bots do). The sparring bots
and ``equity``, on which the agent is measured, are not among them.

No ACPC log is written or read: each decision of the teacher is recorded as it is
made, its observation the ``history`` encoding's (``models.q_networks.history_encoding``),
in the columns of ``poker_cnn_data.Records`` (the log-reading path there stays for
real ACPC logs). Each shard is saved on its own (``models.training.shards``: ``shards/NNNN.npz``, its
seconds of play in ``shards/seconds.json``), so a stopped run picks up at the first shard missing;
``records.npz`` joins them and ``manifest.json`` says how they were made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.models.q_networks.history_encoding import observe_history
from acpc_arena.models.training.poker_cnn_data import GAME, Records, action_counts, later_decisions
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

DEFAULT_OUT = Path("runs/poker_cnn-default")
HANDS = 5000
"""Hands a shard."""
SHARDS = 140
"""Shards of the default data set (700,000 hands)."""
SEED_BASE = 20_000


def play_shard(game: Game, index: int, hands: int) -> Records:
    """Shard ``index``: the teacher against ``PAIRINGS[index % len(PAIRINGS)]`` over ``hands`` hands."""
    rows: list[tuple[np.ndarray, int, int, int, int, bool]] = []
    for number, state, agents, recorded in shard_hands(game, index, hands, SEED_BASE):
        first = len(rows)

        def seen(state: State, p: int, action: Action, number: int = number) -> None:
            rows.append((observe_history(state, p), int(action.kind), state.round, number, p, False))

        values = play_recorded(state, agents, recorded, seen).values()
        for i in range(first, len(rows)):
            rows[i] = (*rows[i][:5], values[rows[i][4]] > 0)
    observations, actions, rounds, numbers, players, won = zip(*rows, strict=True)
    hands_column = np.array(numbers, dtype=np.int32) + index * hands
    return Records(
        observations=np.stack(observations).astype(np.int16),
        actions=np.array(actions, dtype=np.int8),
        rounds=np.array(rounds, dtype=np.int8),
        hands=hands_column,
        later=later_decisions(hands_column, np.array(players, dtype=np.int32)),
        won=np.array(won, dtype=bool),
    )


def join(paths: list[Path]) -> Records:
    """The shards' records, one after another."""
    parts = [Records.load(path) for path in paths]
    return Records(*(np.concatenate([getattr(part, name) for part in parts]) for name in _COLUMNS))


_COLUMNS = ("observations", "actions", "rounds", "hands", "later", "won")


def make_data(out: Path, shards: int, hands: int, log: Any = print) -> Records:
    """Play every shard not saved yet under ``out/shards``, then join them into ``out/records.npz``."""
    game = load_game(GAME)
    plan = {"teacher": list(TEACHER), "pairings": [list(p) for p in PAIRINGS], "hands": hands, "game": GAME}
    paths, seconds = record_shards(
        out, plan, shards, lambda index: play_shard(game, index, hands), Records.save,
        lambda records: f"{len(records)} decisions", log,
    )  # fmt: skip
    records = join(paths)
    records.save(out / "records.npz")
    source = "the teacher's decisions recorded while it played in-process (models/training/poker_cnn_teacher.py)"
    manifest = manifest_base(plan, source, SEED_BASE, shards, seconds) | {
        "encoding": "history",
        "records": len(records),
        "actions": action_counts(records),
        "records_per_round": np.bincount(records.rounds).tolist(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return records


def main(argv: list[str] | None = None) -> None:
    result, out = recorder_main(
        "acpc_arena.models.training.poker_cnn_teacher", __doc__ or "", make_data, DEFAULT_OUT, SHARDS, HANDS, argv
    )
    print(f"{len(result)} decisions of the teacher in {out / 'records.npz'}: {action_counts(result)}")


if __name__ == "__main__":
    main()
