"""MT19937, seeded with ``init_genrand`` exactly as the ACPC server's ``rng.c``.

The twist runs vectorised over numpy (624 words at a time) and the tempered words
are kept in a Python list, so one ``genrand_int32`` call is a list index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where used: a command starts without it (make bench SECTIONS=startup)
    import numpy as np

_N = 624
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF


def _twist_block(mt: np.ndarray, lo: int, hi: int, partner: np.ndarray) -> None:
    """Regenerate ``mt[lo:hi]`` from the current words (the reference loop, vectorised)."""
    import numpy as np

    y = (mt[lo:hi] & np.uint32(_UPPER)) | (mt[lo + 1 : hi + 1] & np.uint32(_LOWER))
    mt[lo:hi] = partner ^ (y >> 1) ^ ((y & 1) * np.uint32(_MATRIX_A))


class MT19937:
    """The reference Mersenne Twister with 32-bit ``init_genrand`` seeding."""

    __slots__ = ("_mt", "_out", "_index")

    def __init__(self, seed: int) -> None:
        import numpy as np

        mt = [0] * _N
        mt[0] = seed & 0xFFFFFFFF
        for i in range(1, _N):
            prev = mt[i - 1]
            mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        self._mt = np.array(mt, dtype=np.uint32)
        self._out: list[int] = []
        self._index = _N

    def _generate(self) -> None:
        import numpy as np

        mt = self._mt
        # The reference loop updates mt[k] from mt[k + M] (old) for k < N - M, then from
        # mt[k + M - N] (already new); blocks of N - M words never read their own output.
        _twist_block(mt, 0, _N - _M, mt[_M:_N].copy())
        _twist_block(mt, _N - _M, 2 * (_N - _M), mt[0 : _N - _M].copy())
        _twist_block(mt, 2 * (_N - _M), _N - 1, mt[_N - _M : _M - 1].copy())
        y = (mt[_N - 1] & np.uint32(_UPPER)) | (mt[0] & np.uint32(_LOWER))
        mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ ((y & 1) * np.uint32(_MATRIX_A))
        y = mt.copy()
        y ^= y >> 11
        y ^= (y << 7) & np.uint32(0x9D2C5680)
        y ^= (y << 15) & np.uint32(0xEFC60000)
        y ^= y >> 18
        self._out = y.tolist()
        self._index = 0

    def genrand_int32(self) -> int:
        """The next 32-bit output."""
        if self._index == _N:
            self._generate()
        value = self._out[self._index]
        self._index += 1
        return value

    def genrand_real2(self) -> float:
        """A float in [0, 1), as ``genrand_real2`` (the ACPC example player's draw)."""
        return self.genrand_int32() * (1.0 / 4294967296.0)

    def randbelow(self, n: int) -> int:
        """``genrand_int32() % n``, the ACPC dealer's way of picking a card."""
        return self.genrand_int32() % n
