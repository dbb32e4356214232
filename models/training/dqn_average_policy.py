"""Seed 000's networks as NFSP-style average-policy networks (Heinrich and Silver, 2016), the defaults played.

    acpc-train lstm_dqn|dqn [--preset average-policy] [--pretrain-steps N] [--out FILE.pt]

Neural Fictitious Self-Play keeps two networks a player: a Q-network learning a best
response by reinforcement learning from one memory, and an average-policy network
learning, by supervised classification, the behaviour recorded in another; the
average policy is what the player plays when it is evaluated, not the greedy Q's.
Here the Q-network is the DQfD one (``dqn_dqfd``, ``acpc-train lstm_dqn|dqn --preset
dqfd``, checkpoints ``lstm_dqn-dqfd``, ``dqn-dqfd``), and the behaviour both learn from
is the same memory: the demonstrations of ``dqn_demonstrations`` (the default limit
``cfr --argmax``'s hands). The average-policy network is the seed's own network
(``LSTMDQN`` or ``DQN``, the same layers, its outputs read as the logits of a softmax
over fold, call, raise), trained by cross-entropy on the demonstrator's action at
each decision, the illegal actions left out of the softmax; ``agents/dqn.py`` plays
its most likely legal action, as it plays a Q-network's highest value. The sidecar
says ``"outputs": "average-policy"`` and names the Q-network trained beside it
(``q_network``).

Where NFSP is silent or does not fit, the choices made here:

- The behaviour memory is the demonstrations, not the agent's own best-response
  play: NFSP's anticipatory mixing of the two networks while learning is left
  out (the two networks learn from one fixed memory, so training them one after
  the other is the same as training them together).
- The network sees the ``strength`` encoding (``q_networks.history_encoding``: the
  seed's planes, the betting history, which the demonstrator's strategy depends on,
  and two planes of the hand's E[HS] and E[HS^2] on the board seen, which the
  demonstrator's card abstraction is made of and which the seed's network would
  otherwise have to learn to compute from the card planes); the LSTM still runs over
  the hand's decisions.
- No dropout (the seed's 0.5 is for its Q-learning), Adam with L2 weight decay,
  the learning rate halving every ``LR_HALF_LIFE`` steps; minibatches of
  ``pretrain_batch`` whole hands drawn at random, as the DQfD pre-training's.
- The last ``held_out`` demonstration hands are never trained on: the share of
  the decisions of the first 5,000 of them where the network's most likely legal
  action is the demonstrator's is the held-out accuracy logged every 2,000 steps
  (``DQfDTrainer.held_out_accuracy``; the sidecar's ``pretraining`` curve).

The run saves its state beside ``--out`` (``.state.pt``) as DQfD's does, and the same
command run again goes on from there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.models.training.dqn import TrainConfig
from acpc_arena.models.training.dqn_dqfd import DQfDConfig, DQfDTrainer

LEARNING_RATE = 1e-3
LR_HALF_LIFE = 6_000
"""Steps in which the learning rate halves, from the first."""
UNUSED = ("margin", "lambda_e", "demo_share")
"""``DQfDConfig``'s fields this training has no use for (left out of the sidecar)."""


def average_policy_config(demonstrations: str, steps: int) -> DQfDConfig:
    """The training's settings: ``DQfDConfig``'s, but for ``UNUSED``."""
    return DQfDConfig(
        demonstrations=demonstrations,
        pretrain_steps=steps,
        learning_rate=LEARNING_RATE,
        lr_decay=(0, LR_HALF_LIFE),
    )


def imitation_loss(
    logits: torch.Tensor, expert: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy of the demonstrator's actions ``expert`` (batch, time) under the softmax of ``logits`` (batch,
    time, actions) over the ``legal`` actions, the mean over the ``valid`` steps."""
    masked = torch.where(legal, logits, torch.full_like(logits, -1e9))
    log_p = torch.log_softmax(masked, dim=-1).gather(-1, expert[..., None])[..., 0]
    weight = valid.to(logits.dtype)
    return -(log_p * weight).sum() / weight.sum().clamp(min=1.0)


class AveragePolicyTrainer(DQfDTrainer):
    """DQfD's trainer, its pre-training step replaced by a step of ``imitation_loss`` on the demonstrations."""

    config_key = "average_policy"

    def __init__(self, config: TrainConfig, settings: DQfDConfig, q_network: str, log: Callable[[str], None] = print):
        super().__init__(config, settings, log)
        self.q_network = q_network

    def dqfd_step(self, own: int, demo: int) -> float:
        if own:
            raise ValueError("the average-policy network learns from the demonstrations alone")
        batch = self.batch([(self.demos, self.rng.integers(0, self.trainable, size=demo))])
        self.net.train()
        hidden, _ = self.net.hidden(batch.images, None, batch.valid)
        loss = imitation_loss(self.net.q_values(hidden), batch.actions, batch.legal, batch.valid)
        self.step(loss)
        self.margin_losses.append(loss.item())
        return loss.item()

    def losses_of(self, losses: list[float], supervised: list[float]) -> dict[str, float]:
        return {"cross_entropy": float(np.mean(supervised))}

    def recorded_settings(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self.dqfd).items() if k not in UNUSED}

    def sidecar_extra(self) -> dict[str, Any]:
        return {"outputs": "average-policy", "q_network": self.q_network}


def train(
    config: TrainConfig, settings: DQfDConfig, out: str | Path, q_network: str, log: Callable[[str], None] = print
) -> tuple[Path, dict[str, Any]]:
    """Train the average-policy network of ``config.network`` on ``settings.demonstrations`` for
    ``settings.pretrain_steps`` steps, going on from the state saved beside ``out``; save it at ``out``."""
    out = Path(out).with_suffix(".pt")
    config = replace(config, hands=0, target_every=0, dropout=0.0)
    trainer = AveragePolicyTrainer(config, settings, q_network, log)
    trainer.load_state(out.with_suffix(".state.pt"))
    started = time.perf_counter()
    trainer.pretrain()
    stats = trainer.stats(started)
    return trainer.save(out, stats), stats
