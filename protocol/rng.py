"""MT19937, seeded with ``init_genrand`` exactly as the ACPC server's ``rng.c``.

The words come from the standard library's Mersenne Twister (``random.Random``, the
same generator in C): the seeded state is computed here as ``init_genrand`` computes
it and handed to it with ``setstate``. ``getrandbits(32 * 624)`` holds the next 624
``genrand_int32`` outputs, the first in its lowest 32 bits (CPython fills its words
from the least significant up); they are drawn 624 at a time (one twist of the
generator) and handed out one by one. Compiled with the engine (``protocol.native``).
"""

from __future__ import annotations

import random
import struct
from typing import Final

_N: Final = 624
_STATE_VERSION: Final = 3
"""The version of ``random.Random.getstate()``'s tuple: (3, 624 words and the index, None)."""
_WORDS: Final = struct.Struct(f"<{_N}I")
"""624 little-endian 32-bit words: one ``getrandbits(32 * 624)``'s bytes as its outputs, in order."""


class MT19937:
    """The reference Mersenne Twister with 32-bit ``init_genrand`` seeding."""

    __slots__ = ("_random", "_words", "_next")

    def __init__(self, seed: int) -> None:
        mt = [0] * _N
        mt[0] = seed & 0xFFFFFFFF
        for i in range(1, _N):
            prev = mt[i - 1]
            mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        self._random = random.Random()
        self._random.setstate((_STATE_VERSION, (*mt, _N), None))  # index N: the first draw twists
        self._words: tuple[int, ...] = ()
        """The outputs drawn from ``_random`` and not yet handed out, from ``_next`` on."""
        self._next = 0

    def genrand_int32(self) -> int:
        """The next 32-bit output."""
        i = self._next
        if i >= len(self._words):
            self._words = _WORDS.unpack(self._random.getrandbits(32 * _N).to_bytes(4 * _N, "little"))
            i = 0
        self._next = i + 1
        return self._words[i]

    def genrand_real2(self) -> float:
        """A float in [0, 1), as ``genrand_real2`` (the ACPC example player's draw)."""
        return self.genrand_int32() * (1.0 / 4294967296.0)
