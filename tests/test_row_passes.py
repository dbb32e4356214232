"""``models.q_networks.row_passes.forward_rows``: every pass has exactly the rows asked, whatever the batch."""

from __future__ import annotations

import torch

from acpc_arena.models.q_networks.row_passes import ROWS, WHOLE_VECTORS, forward_rows


def test_forward_rows_runs_passes_of_one_size_padded_with_the_first_row_in_row_order() -> None:
    seen: list[torch.Tensor] = []

    def doubled(rows: torch.Tensor) -> torch.Tensor:
        seen.append(rows.clone())
        return rows * 2

    for size in (ROWS, WHOLE_VECTORS, 3):
        for count in (1, size - 1, size, size + 1, 3 * size + 2):
            seen.clear()
            rows = torch.arange(count * 3, dtype=torch.float32).reshape(count, 3)
            assert torch.equal(forward_rows(doubled, rows, size), rows * 2)
            assert [len(chunk) for chunk in seen] == [size] * -(-count // size)
            last = seen[-1]
            real = count - size * (len(seen) - 1)
            assert torch.equal(last[real:], last[:1].expand(size - real, 3))  # padding: copies of its first row


def test_forward_rows_passes_rows_by_default() -> None:
    seen: list[int] = []

    def counted(rows: torch.Tensor) -> torch.Tensor:
        seen.append(len(rows))
        return rows

    forward_rows(counted, torch.zeros(1, 2))
    assert seen == [ROWS]
