"""Algorithm 1 of seed 001: fitness, survivors, fitness-proportional crossover, scheduled Gaussian mutation.

- Fitness: ``f(i) = (1/m) sum_j e_ij / n_j`` with ``n_j = max(BB, max_i e_ij)``,
  ``e_ij`` individual i's mean winnings per hand (chips) against opponent j.
- Survivors: the best ``SURVIVAL_RATE`` (0.25) of the population, kept as they are.
- Parents: the survivors whose fitness is at least the survivors' mean.
- Crossover: each child has two parents drawn (with replacement, so a parent may
  be cloned) with probability proportional to fitness; each *segment* (the
  weights into one unit: the last axis of every parameter tensor) comes from
  one parent, parent a with probability ``w_a / (w_a + w_b)``. Fitness can be
  negative: the weights are ``w = f - min_population f + 0.01``.
- Mutation: each segment of a child is chosen with probability ``rate`` and
  gets Gaussian noise of standard deviation ``strength`` times the tensor's
  initialisation bound (1/sqrt(fan-in)): the paper's strengths are relative.
  ``rate`` goes linearly 0.25 -> 0.05 and ``strength`` 0.5 -> 0.1 from the first
  generation to the last.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from acpc_arena.models.ensemble.network import NetConfig, Params, init_scale

SURVIVAL_RATE = 0.25
RATE = (0.25, 0.05)
STRENGTH = (0.5, 0.1)
FITNESS_FLOOR = 0.01


def fitness(e: np.ndarray, big_blind: float) -> np.ndarray:
    """f(i) from the (individuals x opponents) matrix of winnings per hand."""
    n = np.maximum(big_blind, e.max(axis=0))
    return (e / n).mean(axis=1)


def schedule(generation: int, generations: int) -> tuple[float, float]:
    """(mutation rate, mutation strength) of ``generation`` (0-based) of ``generations``."""
    t = generation / (generations - 1) if generations > 1 else 1.0
    return RATE[0] + (RATE[1] - RATE[0]) * t, STRENGTH[0] + (STRENGTH[1] - STRENGTH[0]) * t


def survivors(f: np.ndarray) -> np.ndarray:
    """Indices of the best ``ceil(0.25 P)`` individuals, best first."""
    count = max(1, math.ceil(SURVIVAL_RATE * len(f)))
    return np.argsort(-f, kind="stable")[:count]


def parents(f: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The survivors at least as fit as the survivors' mean."""
    return kept[f[kept] >= f[kept].mean()]


def crossover(a: Params, b: Params, pick_a: dict[str, torch.Tensor]) -> Params:
    """A child of individuals ``a`` and ``b`` (parameters without the population axis).

    ``pick_a[name]`` is a boolean per segment (the tensor's last axis): True takes it from ``a``.
    """
    return {name: torch.where(pick_a[name], a[name], b[name]) for name in a}


def mutate(child: Params, config: NetConfig, rate: float, strength: float, rng: np.random.Generator) -> Params:
    """``child`` with Gaussian noise on a ``rate`` share of its segments."""
    out = {}
    for name, tensor in child.items():
        units = tensor.shape[-1]
        chosen = torch.from_numpy(rng.random(units) < rate)
        sigma = strength * init_scale(name, tuple(tensor.shape), config)
        noise = torch.from_numpy(rng.normal(0.0, sigma, size=tuple(tensor.shape)).astype(np.float32))
        out[name] = tensor + noise * chosen
    return out


def next_generation(
    population: Params,
    f: np.ndarray,
    config: NetConfig,
    generation: int,
    generations: int,
    rng: np.random.Generator,
) -> Params:
    """Survivors kept (best first), the rest children of fitness-proportional crossover plus mutation."""
    size = len(f)
    kept = survivors(f)
    breeders = parents(f, kept)
    weights = f[breeders] - f.min() + FITNESS_FLOOR
    rate, strength = schedule(generation, generations)
    individuals = [{name: t[i] for name, t in population.items()} for i in kept]
    while len(individuals) < size:
        ia, ib = rng.choice(len(breeders), size=2, p=weights / weights.sum())
        a = {name: t[breeders[ia]] for name, t in population.items()}
        b = {name: t[breeders[ib]] for name, t in population.items()}
        share = weights[ia] / (weights[ia] + weights[ib])
        pick = {name: torch.from_numpy(rng.random(t.shape[-1]) < share) for name, t in a.items()}
        individuals.append(mutate(crossover(a, b, pick), config, rate, strength, rng))
    return {name: torch.stack([ind[name] for ind in individuals]) for name in population}
