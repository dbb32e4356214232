"""``disk_cache.cached_view``: a cached table mapped without numpy, and the rebuild when it cannot be."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.protocol.disk_cache import cached_view


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACPC_ARENA_CACHE", str(tmp_path))
    return tmp_path


def never() -> np.ndarray:
    raise AssertionError("the table was built although its file is there")


@pytest.mark.parametrize(("item", "dtype"), [("H", np.uint16), ("i", np.int32)])
def test_a_table_numpy_saved_is_read_back_without_building(cache: Path, item: str, dtype: type) -> None:
    values: np.ndarray = np.array([0, 1, 7, 65535 if dtype is np.uint16 else -1, 300], dtype=dtype)
    np.save(cache / "t.npy", values)
    view = cached_view("t", never, item)  # type: ignore[arg-type]
    assert view.format == item and view.readonly
    assert view.tolist() == values.tolist()


def test_a_missing_table_is_built_and_saved_then_mapped(cache: Path) -> None:
    built = []

    def build() -> np.ndarray:
        built.append(1)
        return np.arange(10, dtype=np.uint16)

    assert cached_view("t", build, "H").tolist() == list(range(10))
    assert cached_view("t", build, "H").tolist() == list(range(10))
    assert built == [1]
    assert np.load(cache / "t.npy").tolist() == list(range(10))


@pytest.mark.parametrize("content", [b"", b"\x93NUMPY", b"garbage" * 10, b"\x93NUMPY\x01\x00\xff\xff{'descr'"])
def test_a_damaged_table_is_rebuilt(cache: Path, content: bytes) -> None:
    (cache / "t.npy").write_bytes(content)
    assert cached_view("t", lambda: np.arange(4, dtype=np.int32), "i").tolist() == [0, 1, 2, 3]


def test_a_table_of_another_type_is_not_mapped_as_this_one(cache: Path) -> None:
    np.save(cache / "t.npy", np.arange(4, dtype=np.uint32))  # the same bytes would read as 8 uint16
    view = cached_view("t", never, "H")
    assert view.tolist() == [0, 1, 2, 3]  # numpy's array, not the file's bytes taken as uint16


def test_ranking_one_hand_with_the_tables_cached_starts_no_numpy(cache: Path) -> None:
    code = (
        "import sys\n"
        "from acpc_arena.protocol.rank_lookup import rank_hand\n"
        "from acpc_arena.protocol.rank_rules import rank_hand_by_rules\n"
        "hand = [0, 5, 10, 20, 33, 40, 51]\n"
        "print(rank_hand(hand) == rank_hand_by_rules(hand), 'numpy' in sys.modules)\n"
    )
    environment = {**os.environ, "ACPC_ARENA_CACHE": str(cache)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert first.stdout.split() == ["True", "True"]  # the tables built with numpy and saved
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert second.stdout.split() == ["True", "False"]
