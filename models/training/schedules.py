"""What the online trainers (``dqn``, ``nfq``) do by the hand count: start seeded, explore less, act every N hands."""

from __future__ import annotations

import numpy as np
import torch


def seeded(threads: int, seed: int) -> np.random.Generator:
    """Torch on ``threads`` threads (0: its default) with its generator seeded by ``seed``; the
    trainer's numpy generator from the same seed."""
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def falling(start: float, end: float, done: int, total: int) -> float:
    """``start`` falling linearly to ``end`` over ``total`` steps (``done`` of them taken), then ``end``."""
    progress = min(1.0, done / max(1, total))
    return start + (end - start) * progress


class Every:
    """A count of hands reaching ``step``, ``2 * step``, ... (with ``step`` 0, every time it is asked)."""

    def __init__(self, step: int) -> None:
        self.step = step
        self.next = step

    def due(self, hands: int) -> bool:
        """``hands`` has reached the next mark (which then moves on by ``step``)."""
        if hands < self.next:
            return False
        self.next += self.step
        return True
