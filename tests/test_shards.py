"""``models/training/shards.py``: shards recorded once each, a folder of another plan refused, and the
recorders' command line answering a bad folder in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from acpc_arena.models.training.shards import record_shards, recorder_main


def save(shard: dict[str, Any], path: Path) -> None:
    np.savez_compressed(path, **shard)


def test_only_the_missing_shards_are_played_and_another_plan_is_refused(tmp_path: Path) -> None:
    played: list[int] = []

    def play(index: int) -> dict[str, np.ndarray]:
        played.append(index)
        return {"x": np.full(3, index)}

    plan = {"hands": 10}
    paths, seconds = record_shards(tmp_path, plan, 3, play, save, lambda shard: "3 rows", log=lambda _: None)
    assert played == [0, 1, 2] and [p.name for p in paths] == ["0000.npz", "0001.npz", "0002.npz"]
    assert sorted(seconds) == ["0", "1", "2"] and all(value >= 0 for value in seconds.values())
    paths[1].unlink()
    record_shards(tmp_path, plan, 4, play, save, lambda shard: "3 rows", log=lambda _: None)
    assert played == [0, 1, 2, 1, 3]  # shard 1 again (deleted) and the new shard 3; 0 and 2 kept
    assert np.load(paths[1])["x"].tolist() == [1, 1, 1]
    assert json.loads((tmp_path / "plan.json").read_text()) == plan
    assert not list((tmp_path / "shards").glob("*.tmp.npz"))
    assert set(json.loads((tmp_path / "shards" / "seconds.json").read_text())) == {"0", "1", "2", "3"}
    with pytest.raises(ValueError, match="holds shards of another plan"):
        record_shards(tmp_path, {"hands": 20}, 3, play, save, lambda shard: "", log=lambda _: None)
    assert played == [0, 1, 2, 1, 3]  # nothing played for the refused plan


def test_the_command_line_says_a_refused_folder_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text(json.dumps({"hands": 1}))

    def make(out: Path, shards: int, hands: int, log: object) -> Path:
        record_shards(out, {"hands": hands}, shards, lambda i: {}, save, lambda s: "", log=lambda _: None)
        return out

    with pytest.raises(SystemExit) as exit_:
        recorder_main("m", "doc", make, tmp_path, 2, 5, ["--out", str(tmp_path)])
    assert str(exit_.value.code).startswith(f"error: {tmp_path} holds shards of another plan")
    assert recorder_main("m", "doc", make, tmp_path, 2, 5, ["--hands", "1"]) == (tmp_path, tmp_path)
