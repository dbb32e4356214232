"""Network passes whose every row comes out the same, alone or batched with other rows.

An agent's decision taken alone (an ``acpc-agent`` process over TCP) and the same
decision taken in one pass with other tables' (the in-process runner batching
across matches) must be the same action, so the same bits: a near tie must not
part them. A matrix product does not promise that: on x86 CPUs torch computes a
pass of fewer than 4 rows with other kernels (another order of summation) than a
pass of 4 or more, and rows then differ in the last bit (measured with the
shipped Q-networks: 1e-6 apart). Passes of ``MIN_ROWS`` to ``MAX_ROWS`` rows agree
row by row there. On an H100 a plain matrix product (``@``) and cuDNN's TF32
convolutions depend on the batch at any size; ``F.linear`` and float32
convolutions did not (``models.q_networks.networks``, ``agents.dqn``).

``forward_rows`` makes every pass such a pass (fewer rows are padded with copies
of the first, more are split); ``rows_independent`` checks, on this machine and
device, that passes of every size from ``MIN_ROWS`` to ``MAX_ROWS`` give each row
the bits of a full pass. A decision is batched with others only where it does
(``agents.dqn.QAgent.batch_key``); otherwise every decision is its own padded pass,
as over TCP.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

import torch

MIN_ROWS = 4
MAX_ROWS = 16

Pass = Callable[[torch.Tensor], torch.Tensor]
"""A network pass: rows in (first dimension), one output row per input row."""


def forward_rows(run: Pass, rows: torch.Tensor) -> torch.Tensor:
    """``run(rows)`` computed in passes of ``MIN_ROWS`` to ``MAX_ROWS`` rows."""
    out = []
    for start in range(0, rows.shape[0], MAX_ROWS):
        chunk = rows[start : start + MAX_ROWS]
        count = chunk.shape[0]
        if count < MIN_ROWS:
            chunk = torch.cat([chunk, chunk[:1].expand(MIN_ROWS - count, *chunk.shape[1:])])
        out.append(run(chunk)[:count])
    return torch.cat(out)


def rows_independent(run: Pass, sample: torch.Tensor) -> bool:
    """Whether every pass of ``MIN_ROWS`` to ``MAX_ROWS`` rows of ``sample`` (``MAX_ROWS`` rows, values
    like the real inputs') gives each row exactly the output of the pass over all of them, at the start
    and at the end of the pass."""
    if sample.shape[0] != MAX_ROWS:
        raise ValueError(f"the sample must have {MAX_ROWS} rows")
    whole = run(sample)
    for size in range(MIN_ROWS, MAX_ROWS):
        head, tail = run(sample[:size]), run(sample[MAX_ROWS - size :])
        if not (torch.equal(head, whole[:size]) and torch.equal(tail, whole[MAX_ROWS - size :])):
            return False
    return True


_CHECKED: dict[Hashable, bool] = {}
"""``checked_batch_key``'s answers this process, by key."""


def checked_batch_key(key: Hashable, run: Pass, samples: Callable[[], Iterable[torch.Tensor]]) -> Hashable | None:
    """``key`` if ``run`` is row-independent on each of ``samples()`` (checked once a process for a key), else
    None: an agent's ``batch_key`` (``agents.base``)."""
    if key not in _CHECKED:
        with torch.no_grad():
            _CHECKED[key] = all(rows_independent(run, sample) for sample in samples())
    return key if _CHECKED[key] else None
