"""``models.q_networks.row_passes``: passes of at least MIN_ROWS and at most MAX_ROWS rows, and the check that rows
come out the same whatever else is in the pass."""

from __future__ import annotations

import torch

from acpc_arena.models.q_networks.row_passes import MAX_ROWS, MIN_ROWS, forward_rows, rows_independent


def test_forward_rows_pads_short_passes_splits_long_ones_and_keeps_row_order() -> None:
    seen: list[int] = []

    def doubled(rows: torch.Tensor) -> torch.Tensor:
        seen.append(rows.shape[0])
        return rows * 2

    for count in (1, MIN_ROWS - 1, MIN_ROWS, MAX_ROWS, MAX_ROWS + 1, 3 * MAX_ROWS + 2):
        seen.clear()
        rows = torch.arange(count * 3, dtype=torch.float32).reshape(count, 3)
        assert torch.equal(forward_rows(doubled, rows), rows * 2)
        assert all(MIN_ROWS <= size <= MAX_ROWS for size in seen)
        assert len(seen) == -(-count // MAX_ROWS)


def test_rows_independent_tells_a_row_wise_pass_from_one_that_mixes_rows() -> None:
    sample = torch.rand(MAX_ROWS, 5, generator=torch.Generator().manual_seed(1))
    assert rows_independent(lambda rows: torch.tanh(rows * 3 + 1), sample)
    assert not rows_independent(lambda rows: rows - rows.mean(dim=0), sample)  # a batch statistic
    assert not rows_independent(lambda rows: rows * (1 + 1e-7 * (rows.shape[0] % 4)), sample)  # rounds by size
