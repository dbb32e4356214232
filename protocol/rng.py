"""MT19937, seeded with ``init_genrand`` exactly as the ACPC server's ``rng.c``.

The words come from the standard library's Mersenne Twister (``random.Random``, the
same generator in C): the seeded state is computed here as ``init_genrand`` computes
it and handed to it with ``setstate``; ``getrandbits(32)`` is then ``genrand_int32``.
"""

from __future__ import annotations

import random
from functools import partial

_N = 624
_STATE_VERSION = 3
"""The version of ``random.Random.getstate()``'s tuple: (3, 624 words and the index, None)."""


class MT19937:
    """The reference Mersenne Twister with 32-bit ``init_genrand`` seeding."""

    __slots__ = ("genrand_int32", "_random")

    def __init__(self, seed: int) -> None:
        mt = [0] * _N
        mt[0] = seed & 0xFFFFFFFF
        for i in range(1, _N):
            prev = mt[i - 1]
            mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        self._random = random.Random()
        self._random.setstate((_STATE_VERSION, (*mt, _N), None))  # index N: the first draw twists
        self.genrand_int32 = partial(self._random.getrandbits, 32)
        """The next 32-bit output."""

    def genrand_real2(self) -> float:
        """A float in [0, 1), as ``genrand_real2`` (the ACPC example player's draw)."""
        return self.genrand_int32() * (1.0 / 4294967296.0)
