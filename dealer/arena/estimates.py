"""The statistics of every report and page: a mean per hand with its 95% confidence interval (``estimate``
over the results, ``Running`` as they come), duplicate samples (``duplicate_pair``), and how a figure is
written.

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


class DuplicateOrPerHand:
    """Figures with a duplicate and a per-hand estimate (the fields of the dataclasses that take this in):
    the duplicate one is the main one where seeds were played in both seatings."""

    duplicate: Estimate
    per_hand: Estimate
    duplicate_pairs: int

    @property
    def main(self) -> Estimate:
        """The duplicate estimate where seeds were played in both seatings, else the per-hand one."""
        return self.duplicate if self.duplicate_pairs else self.per_hand

    @property
    def estimate_kind(self) -> str:
        """``duplicate`` or ``per hand``: which estimate ``main`` is."""
        return "duplicate" if self.duplicate_pairs else "per hand"

    def main_json(self) -> dict[str, Any]:
        """Which estimate is the main one, its mbb/h and its interval, as the reports' JSON gives them."""
        main = self.main
        return {
            "estimate": "duplicate" if self.duplicate_pairs else "per-hand",
            "mbb_per_hand": main.mbb_per_hand,
            "ci95": list(main.ci95),
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
        return _estimate(0, 0.0, 0.0, big_blind)
    mean = math.fsum(float(np.sum(part)) for part in parts) / n if len(parts) > 1 else float(np.mean(parts[0]))
    return _estimate(n, mean, _standard_deviation(parts, mean) if n > 1 else 0.0, big_blind)


def _estimate(n: int, mean: float, deviation: float, big_blind: int) -> Estimate:
    """The estimate of ``n`` samples of mean ``mean`` and sample standard deviation ``deviation`` (NaN
    without samples, an infinite interval with one)."""
    if n == 0:
        nan = float("nan")
        return Estimate(0, nan, (nan, nan), nan, (nan, nan))
    half = Z95 * deviation / math.sqrt(n) if n > 1 else float("inf")
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


@dataclass
class Running:
    """The count, mean and sum of squared deviations of results taken in as they come (what ``estimate``
    needs, in memory that does not grow): one at a time (``add``, Welford) or a batch at a time
    (``add_all``, the two sets' figures merged, Chan et al.)."""

    count: int = 0
    mean: float = 0.0
    squares: float = 0.0

    @staticmethod
    def of_sums(count: int, total: float, sum_of_squares: float) -> Running:
        """The figures of ``count`` results whose sum is ``total`` and sum of squares ``sum_of_squares``."""
        mean = total / count if count else 0.0
        return Running(count, mean, sum_of_squares - total * mean)

    def add(self, value: float) -> None:
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.squares += delta * (value - self.mean)

    def add_all(self, values: np.ndarray) -> None:
        if not len(values):
            return
        mean = float(np.mean(values))
        squares = float(np.sum((values - mean) ** 2))
        count = self.count + len(values)
        delta = mean - self.mean
        self.mean += delta * len(values) / count
        self.squares += squares + delta**2 * self.count * len(values) / count
        self.count = count

    def estimate(self, big_blind: int) -> Estimate:
        """``estimate`` of the results taken in (their figures to about 1e-15)."""
        deviation = math.sqrt(max(0.0, self.squares) / (self.count - 1)) if self.count > 1 else 0.0
        return _estimate(self.count, self.mean, deviation, big_blind)


def duplicate_pair(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Duplicate samples: the mean of a player's results in hand *i* of the two seatings of a seed (``first``
    and ``second``), as far as both went."""
    n = min(len(first), len(second))
    return (first[:n] + second[:n]) / 2


def signed(value: float, digits: int = 1) -> str:
    """``+1.5``, ``-0.3``, ``+0.0`` (a value that rounds to zero is never ``-0.0``), ``nan``."""
    return "nan" if math.isnan(value) else f"{round(value, digits) + 0.0:+.{digits}f}"


def excludes_zero(ci95: tuple[float, float]) -> bool:
    """Whether a 95% interval lies wholly above or wholly below 0 (a NaN interval does not)."""
    return ci95[0] > 0 or ci95[1] < 0
