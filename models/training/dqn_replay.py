"""Seed 000's replay memory of whole hands (algorithm 3-3) and the Q-learning targets computed from it:
the best legal value of the next decision (the seed's max, or double DQN's), and mixed Monte Carlo targets.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from acpc_arena.models.q_networks.networks import NUM_ACTIONS
from acpc_arena.protocol.state import State

MAX_STEPS = 16
"""The learner's decisions kept of one hand."""


class EpisodeReplay:
    """Whole hands of the learner: observations, actions, legal moves and the final reward."""

    def __init__(self, capacity: int, fields: int) -> None:
        self.capacity = capacity
        self.observations = np.zeros((capacity, MAX_STEPS, fields), dtype=np.int16)
        self.actions = np.zeros((capacity, MAX_STEPS), dtype=np.int64)
        self.legal = np.zeros((capacity, MAX_STEPS, NUM_ACTIONS), dtype=bool)
        self.steps = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.strength = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0

    def add(
        self,
        observations: list[np.ndarray],
        actions: list[int],
        legal: list[np.ndarray],
        reward: float,
        strength: float = 0.0,
    ) -> None:
        steps = min(len(actions), MAX_STEPS)
        slot = self.next
        self.observations[slot, :steps] = np.stack(observations[:steps])
        self.actions[slot, :steps] = actions[:steps]
        self.legal[slot] = False
        self.legal[slot, :steps] = np.stack(legal[:steps])
        self.steps[slot] = steps
        self.reward[slot] = reward
        self.strength[slot] = strength
        self.next = (slot + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, count: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self.size, size=count)


class Batch(NamedTuple):
    """Episodes of a replay memory as tensors, padded to the longest: images (batch, time, planes, 17, 17),
    actions and legal moves, the real decisions (``valid``), the reward and the decisions of each episode."""

    images: torch.Tensor
    actions: torch.Tensor
    legal: torch.Tensor
    valid: torch.Tensor
    reward: torch.Tensor
    steps: torch.Tensor


def legal_mask(state: State) -> np.ndarray:
    legal = state.legal_actions()
    return np.array([legal.can_fold, True, legal.can_raise])


def masked_argmax(q: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    return torch.where(legal, q, torch.tensor(-1e9, dtype=q.dtype, device=q.device)).argmax(dim=-1)


def bootstrap_values(next_q: torch.Tensor, legal: torch.Tensor, chooser: torch.Tensor | None = None) -> torch.Tensor:
    """The value of each next decision: ``next_q`` at its best legal action, the best by ``chooser`` when
    given (double DQN: the online network chooses, the target network values) and by ``next_q`` itself
    otherwise (the seed's max)."""
    best = masked_argmax(next_q if chooser is None else chooser, legal)
    return next_q.gather(-1, best[..., None])[..., 0]


def mix_monte_carlo(
    target: torch.Tensor, reward: torch.Tensor, last: torch.Tensor, gamma: float, mix: float
) -> torch.Tensor:
    """Mixed Monte Carlo targets: at each decision t before its hand's ``last`` (index), (1 - mix) times ``target``
    plus mix times the hand's ``reward`` discounted to t, gamma^(last - t) reward; the other entries as they are."""
    t = torch.arange(target.shape[1])[None, :]
    before_last = t < last[:, None]
    discounted = reward[:, None] * gamma ** (last[:, None] - t).clamp(min=0).float()
    return torch.where(before_last, (1 - mix) * target + mix * discounted, target)


def td_targets(
    next_q: torch.Tensor,
    legal: torch.Tensor,
    steps: torch.Tensor,
    reward: torch.Tensor,
    gamma: float,
    chooser: torch.Tensor | None = None,
    mix: float = 0.0,
) -> torch.Tensor:
    """The seed's Q-learning targets of padded episodes: at an episode's last decision (``steps`` - 1) its
    ``reward``, before it gamma times the next decision's best legal value (``bootstrap_values`` of ``next_q``,
    ``chooser`` choosing for double DQN), mixed with Monte Carlo returns when ``mix`` > 0; 0 past the end."""
    best_next = bootstrap_values(next_q, legal, chooser)
    target = torch.zeros_like(best_next)
    target[:, :-1] = gamma * best_next[:, 1:]
    last = steps - 1
    not_last = torch.arange(target.shape[1])[None, :] < last[:, None]
    target = torch.where(not_last, target, torch.zeros_like(target))
    target[torch.arange(len(steps)), last] = reward
    return mix_monte_carlo(target, reward, last, gamma, mix) if mix else target
