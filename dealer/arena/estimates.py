"""A mean per hand with its 95% confidence interval (``estimate``), and how a figure is written.

Intervals are mean ± 1.96 standard errors (normal approximation, sample standard
deviation); mbb/h is 1000 × chips per hand / big blind.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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


JOINED = 1 << 20
"""The most samples whose parts an estimate joins into one array (8 MB); beyond, it goes a ``CHUNK`` at a time."""
CHUNK = 1 << 16
"""Samples taken at a time where an estimate's parts are long (its temporaries stay this size)."""


def estimate(samples: np.ndarray | Sequence[np.ndarray], big_blind: int) -> Estimate:
    """Mean ± 1.96 standard errors of per-hand chip results, also in mbb/h.

    ``samples``: one array, or the parts of one in order: up to ``JOINED`` samples, numpy's mean and
    standard deviation of them joined; beyond, the mean is the parts' sums' sum over the count and the
    squared deviations are summed a ``CHUNK`` at a time (the same figures to about 1e-15, never joined).
    """
    parts = [samples] if isinstance(samples, np.ndarray) else list(samples)
    n = sum(len(part) for part in parts)
    if len(parts) > 1 and n <= JOINED:
        parts = [np.concatenate(parts)]
    if n == 0:
        nan = float("nan")
        return Estimate(0, nan, (nan, nan), nan, (nan, nan))
    mean = math.fsum(float(np.sum(part)) for part in parts) / n if len(parts) > 1 else float(np.mean(parts[0]))
    half = Z95 * _standard_deviation(parts, mean) / math.sqrt(n) if n > 1 else float("inf")
    scale = 1000.0 / big_blind
    return Estimate(n, mean, (mean - half, mean + half), mean * scale, ((mean - half) * scale, (mean + half) * scale))


def _standard_deviation(parts: list[np.ndarray], mean: float) -> float:
    """The sample standard deviation of ``parts`` joined, whose mean is ``mean``."""
    if len(parts) == 1 and len(parts[0]) <= JOINED:
        return float(np.std(parts[0], ddof=1))
    squares = 0.0
    for part in parts:
        for start in range(0, len(part), CHUNK):
            deviations = part[start : start + CHUNK] - mean
            squares += float(np.dot(deviations, deviations))
    return math.sqrt(squares / (sum(len(part) for part in parts) - 1))


def signed(value: float, digits: int = 1) -> str:
    """``+1.5``, ``-0.3``, ``+0.0`` (a value that rounds to zero is never ``-0.0``), ``nan``."""
    return "nan" if math.isnan(value) else f"{round(value, digits) + 0.0:+.{digits}f}"


def excludes_zero(ci95: tuple[float, float]) -> bool:
    """Whether a 95% interval lies wholly above or wholly below 0 (a NaN interval does not)."""
    return ci95[0] > 0 or ci95[1] < 0
