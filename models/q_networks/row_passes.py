"""Network passes whose every row comes out the same, alone or batched with other rows, on any CPU.

An agent's decision taken alone (an ``acpc-agent`` process over TCP) and the same
decision taken in one pass with other tables' (the in-process runner batching
across matches) must be the same action, so the same bits: a near tie must not
part them. A matrix product does not promise that across batch sizes: the kernel and
its order of summation are chosen by shape (on an Intel Xeon with AVX-512 a row comes
out with other last bits in passes of 1, of 2 to 10 and of 11 or more rows; on an AMD
EPYC in passes of fewer than 4 rows).

So every pass has one shape: ``forward_rows`` runs ``rows`` in passes of exactly
``size`` rows (``ROWS`` unless said), the last one padded with copies of its first row,
and a single view (``act``) is such a pass too, its row first. Whatever the batch, the
kernels see the same shapes and choose alike; within a pass, rows are computed alike:

- matrix products sum each output over the same blocks of the inner dimension, in the
  same order, for every row, and convolutions run image by image;
- element-wise functions (``tanh``, ``sigmoid``) run whole SIMD vectors and a scalar loop
  over the tensor's last elements (torch's CPU loops, two vectors at a time: 32 floats
  with AVX-512), which can round otherwise: a row must not fall there in one place of the
  pass and not in another. The Q-networks' are 256 wide a row, so a pass of any size has
  no such tail; NFQ's are 3 and 64 wide, so its passes have ``WHOLE_VECTORS`` rows;
- the softmax is taken row by row.

``tests/test_network_rows.py`` checks it for every shipped network: each row of a batch of
any size, at any place, has the bits of the row passed alone. The in-process runner
therefore batches these agents on any machine (``agents.dqn.QAgent.batch_key``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

ROWS = 8
"""The rows of every pass of the Q-networks: the in-process runner's batches at ``--concurrency 8`` fit one pass,
and a single view costs 1.9x a pass of its own row (0.74 against 0.40 ms for ``lstm_dqn``, Intel Xeon)."""
WHOLE_VECTORS = 32
"""Rows of a pass whose any element-wise function runs whole SIMD vectors, however narrow its rows (NFQ's)."""

Pass = Callable[[torch.Tensor], torch.Tensor]
"""A network pass: rows in (first dimension), one output row per input row."""


def forward_rows(run: Pass, rows: torch.Tensor, size: int = ROWS) -> torch.Tensor:
    """``run(rows)`` computed in passes of exactly ``size`` rows (the last padded with copies of its first row)."""
    out = []
    for start in range(0, rows.shape[0], size):
        chunk = rows[start : start + size]
        count = chunk.shape[0]
        if count < size:
            chunk = torch.cat([chunk, chunk[:1].expand(size - count, *chunk.shape[1:])])
        out.append(run(chunk)[:count])
    return torch.cat(out)
