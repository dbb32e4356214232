"""Recording a demonstrator's play in shards that a stopped run picks up again (Poker-CNN's teacher, DQfD's
demonstrations for seed 000's networks and for NFQ).

A folder holds ``plan.json`` (what the shards are made of: a folder of another plan is refused),
``shards/NNNN.npz`` (each shard saved whole, under a temporary name first) and ``shards/seconds.json``
(each shard's seconds of play). ``record_shards`` plays the shards missing; the caller joins them and writes
its ``manifest.json`` with ``manifest_base``'s fields.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import torch

from acpc_arena.models.checkpoints import git_commit

Shard = TypeVar("Shard")


def record_shards(
    out: Path,
    plan: dict[str, Any],
    shards: int,
    play: Callable[[int], Shard],
    save: Callable[[Shard, Path], None],
    told: Callable[[Shard], str],
    log: Callable[[str], Any] = print,
) -> tuple[list[Path], dict[str, float]]:
    """Play shard ``i`` (``play(i)``) for every ``i`` below ``shards`` not saved yet, save it (``save``), and log
    ``told(shard)`` with its seconds. Returns the shards' paths in order and the seconds of each (by index)."""
    torch.set_num_threads(1)
    described = out / "plan.json"
    if described.exists() and json.loads(described.read_text()) != plan:
        raise ValueError(f"{out} holds shards of another plan (see {described}): delete it or give another --out")
    (out / "shards").mkdir(parents=True, exist_ok=True)
    described.write_text(json.dumps(plan, indent=2) + "\n")
    paths = [out / "shards" / f"{index:04d}.npz" for index in range(shards)]
    timings = out / "shards" / "seconds.json"
    seconds: dict[str, float] = json.loads(timings.read_text()) if timings.exists() else {}
    for index, path in enumerate(paths):
        if path.exists():
            continue
        start = time.perf_counter()
        shard = play(index)
        partial = path.with_suffix(".tmp.npz")
        save(shard, partial)
        partial.replace(path)
        seconds[str(index)] = round(time.perf_counter() - start, 2)
        timings.write_text(json.dumps(seconds) + "\n")
        log(f"{time.strftime('%H:%M:%S')} shard {index + 1}/{shards}: {told(shard)} ({seconds[str(index)]:.0f} s)")
    return paths, seconds


def manifest_base(plan: dict[str, Any], source: str, seed_base: int, shards: int, seconds: dict[str, float]) -> dict:
    """The manifest's fields every recording has: the plan, where the data comes from, the deal seeds, the
    seconds of play, when and at which commit."""
    return plan | {
        "source": source,
        "shards": shards,
        "seeds": [seed_base, seed_base + shards - 1],
        "seconds": round(sum(seconds.get(str(index), 0.0) for index in range(shards))),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git_commit": git_commit(),
    }
