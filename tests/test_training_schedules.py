"""The online trainers' schedules by the hand count (``models.training.schedules``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from acpc_arena.models.training.schedules import Every, falling, seeded


def test_every_is_due_once_at_each_mark_passed() -> None:
    every = Every(10)
    counts = [0, 9, 10, 10, 15, 19, 20, 35, 39, 40]
    assert [every.due(n) for n in counts] == [False, False, True, False, False, False, True, True, False, True]


def test_every_zero_is_due_every_time() -> None:
    every = Every(0)
    assert all(every.due(n) for n in (0, 0, 5))


@pytest.mark.parametrize(("done", "expected"), [(0, 0.2), (50, 0.11), (100, 0.02), (250, 0.02)])
def test_falling_is_linear_then_flat(done: int, expected: float) -> None:
    assert falling(0.2, 0.02, done, 100) == pytest.approx(expected)


def test_falling_over_no_steps_is_its_end_once_started() -> None:
    assert falling(1.0, 0.5, 0, 0) == 1.0
    assert falling(1.0, 0.5, 1, 0) == 0.5


def test_seeded_seeds_torch_and_numpy_alike() -> None:
    threads = torch.get_num_threads()
    try:
        rng = seeded(0, 7)
        assert torch.get_num_threads() == threads  # 0: left as it was
        assert torch.initial_seed() == 7
        assert rng.integers(1 << 30) == np.random.default_rng(7).integers(1 << 30)
        seeded(1, 7)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
