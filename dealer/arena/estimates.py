"""A mean per hand with its 95% confidence interval (``estimate``), and how a figure is written.

Intervals are mean ± 1.96 standard errors (normal approximation, sample standard
deviation); mbb/h is 1000 × chips per hand / big blind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Z95 = 1.959963984540054
"""The standard normal distribution's 97.5% quantile: a 95% interval is the mean ± Z95 standard errors."""


@dataclass
class Estimate:
    """A mean per hand with its 95% interval, in chips and in mbb/h."""

    samples: int
    chips_per_hand: float
    chips_ci95: tuple[float, float]
    mbb_per_hand: float
    ci95: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "mbb_per_hand": self.mbb_per_hand,
            "ci95": list(self.ci95),
            "chips_per_hand": self.chips_per_hand,
            "chips_ci95": list(self.chips_ci95),
            "samples": self.samples,
        }


def estimate(samples: np.ndarray, big_blind: int) -> Estimate:
    """Mean ± 1.96 standard errors of per-hand chip results, also in mbb/h."""
    n = len(samples)
    if n == 0:
        nan = float("nan")
        return Estimate(0, nan, (nan, nan), nan, (nan, nan))
    mean = float(np.mean(samples))
    half = Z95 * float(np.std(samples, ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    scale = 1000.0 / big_blind
    return Estimate(n, mean, (mean - half, mean + half), mean * scale, ((mean - half) * scale, (mean + half) * scale))


def signed(value: float, digits: int = 1) -> str:
    """``+1.5``, ``-0.3``, ``+0.0`` (a value that rounds to zero is never ``-0.0``), ``nan``."""
    return "nan" if math.isnan(value) else f"{round(value, digits) + 0.0:+.{digits}f}"


def excludes_zero(ci95: tuple[float, float]) -> bool:
    """Whether a 95% interval lies wholly above or wholly below 0 (a NaN interval does not)."""
    return ci95[0] > 0 or ci95[1] < 0
