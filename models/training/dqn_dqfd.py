"""Seed 000's Q-networks trained by Deep Q-learning from Demonstrations (DQfD, Hester et al., AAAI 2018).

    acpc-train lstm_dqn|dqn --preset dqfd [--pretrain-steps N] [--hands N] [--out FILE.pt]

The networks and their checkpoints are the seed's (``agents/dqn.py`` plays them
unchanged); what changes is where the experience comes from and one more loss, and
for the DQN its input planes (``shipped.DQFD_ENCODING``: the seed's and the betting
history, ``q_networks.history_encoding``; the sidecar names them).

What is the seed's (``models/training/dqn.py``, ``Trainer``): whole hands as
episodes of the replay memory, replayed through the network (back-propagation
through time for the LSTM); the Q-learning targets and the reward (``mcts``: the
hand's result in big blinds less the UCT value of the starting hand), and the
shipped networks' choices of targets (``Q_DOUBLE``, ``Q_MC_MIX``); a target network
synced every 250 steps; learning from the learner's own play against a weighted
pool, epsilon-greedy; argmax Q played.

What is DQfD's:

1. Demonstrations: the hands of ``dqn_demonstrations`` (the default limit ``cfr
   --argmax`` against ``shards.PAIRINGS``), a replay memory of their
   own that is never overwritten.
2. Pre-training on the demonstrations alone, ``pretrain_steps`` gradient steps of
   ``pretrain_batch`` episodes: the Q-learning loss above plus ``lambda_e`` times
   the large-margin supervised loss J_E = max_a [Q(s, a) + l(a_E, a)] - Q(s, a_E)
   over the legal actions (``dqn_demonstrations.margin_loss``), l = ``margin``
   (0.8, the paper's) for every action but the demonstrator's a_E.
3. Then ``hands`` hands (none by default, see below) of the learner's own play against the ``dqfd`` pool
   (``dqn.POOLS``: the default ``cfr``, snapshots of the learner, ``rule``, and a
   little of ``call``, ``raise`` and ``random``; no sparring bot and no
   ``equity``), each minibatch of ``batch_size`` episodes ``demo_share`` of them
   drawn from the demonstrations, J_E applied to those only.

Where the paper is silent or does not fit, the choices made here:

- The paper's prioritised replay is a fixed share of demonstrations in each
  minibatch, drawn uniformly, as the seed's replay is; its n-step return loss is
  left to the targets the trainer already has: the ``dqn`` preset's mixed Monte
  Carlo targets (beta 0.5) are a return to the hand's end, which a 10-step return
  is on hands of at most a dozen decisions; the LSTM keeps the seed's one-step targets.
- ``lambda_e`` 10, not the paper's 1: the Q-learning loss is in squared big blinds (``--lambda-e`` sets
  another).
- Adam (``learning_rate``, L2 weight decay 1e-5, the paper's) in both phases,
  instead of the seed's Adagrad; ``lr_decay`` (``--lr-decay``) halves the pre-training rate every
  half-life steps after a start, and ``TrainConfig.dropout`` (``--dropout``) sets the training dropout
  (the seed's 0.5 unless given; the played network has none either way).
- Exploration in phase 3 falls from ``epsilon`` to 0 (DQfD plays almost
  greedily; the seed's 0.9 would throw the demonstrator's play away).
- The auxiliary strength loss of the shipped networks is off (the demonstrations
  carry no strength labels).
- ``held_out`` demonstration episodes (the last ones) are never trained on: the
  share of their decisions where argmax Q is the demonstrator's action is logged
  and recorded in the sidecar.

Phase 3 is off in ``acpc-train``'s defaults (``DQFD_HANDS``): as configured it lowers both the share of
held-out demonstrations the network copies and its results on the selection seeds (8101 to 8103); the
shipped ``-dqfd`` networks are the phase-2 ones.

The run is resumable: its state (networks, optimiser, replay memories, position)
is saved beside ``--out`` (``.state.pt``) every ``SAVE_SECONDS`` of pre-training
and every ``SAVE_HANDS`` hands of play, and the same command run again goes on from
there (with other ``pretrain_steps`` too: the steps before are the same whatever their number). A
resumed phase 3 starts new hands where the stopped one had hands under way, and deals from
a generator seeded anew, so its deals differ from an unbroken run's. The phase-2 network is
saved beside ``--out`` too (``-pretrained.pt``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.models.q_networks.checkpoint import save_network
from acpc_arena.models.training.dqn import TrainConfig, Trainer
from acpc_arena.models.training.dqn_demonstrations import DEFAULT_OUT, load_replay, margin_loss
from acpc_arena.models.training.shipped import DQFD_LAMBDA_E
from acpc_arena.protocol.rng import MT19937

DEMONSTRATIONS = str(DEFAULT_OUT / "demonstrations.npz")
SAVE_SECONDS = 300
"""Seconds of pre-training between two saves of the state."""
SAVE_HANDS = 5000
"""Hands of play between two saves of the checkpoint and the state."""


@dataclass(frozen=True)
class DQfDConfig:
    demonstrations: str = DEMONSTRATIONS
    pretrain_steps: int = 20_000
    pretrain_batch: int = 64
    """Demonstration episodes of a pre-training step."""
    margin: float = 0.8
    lambda_e: float = DQFD_LAMBDA_E
    """Weight of J_E (``shipped.DQFD_LAMBDA_E``)."""
    demo_share: float = 0.25
    """Share of each phase-3 minibatch drawn from the demonstrations."""
    learning_rate: float = 5e-4
    lr_decay: tuple[int, int] | None = None
    """(start, half-life) in steps: after step ``start`` of pre-training the learning rate halves every
    half-life steps (``shipped.DQFD_LR_DECAY``); None keeps it constant."""
    weight_decay: float = 1e-5
    held_out: int = 20_000
    """Demonstration episodes never trained on (the last ones), on which the imitation is scored."""


class DQfDTrainer(Trainer):
    """The seed's trainer with demonstrations: ``pretrain`` on them alone, then ``run`` (phase 3)."""

    config_key = "dqfd"
    """The sidecar's key of ``dqfd`` (what ``acpc-train --from-sidecar`` reads)."""

    def __init__(self, config: TrainConfig, dqfd: DQfDConfig, log: Callable[[str], None] = print) -> None:
        super().__init__(config, show_progress=False)
        self.dqfd, self.log = dqfd, log
        self.demos = load_replay(dqfd.demonstrations, self.values, self.encoding.fields(self.game))
        if self.demos.size <= dqfd.held_out:
            raise ValueError(f"{dqfd.demonstrations}: {self.demos.size} episodes, not over {dqfd.held_out} held out")
        self.trainable = self.demos.size - dqfd.held_out
        self.optimizer = torch.optim.Adam(
            self.net.parameters(), lr=dqfd.learning_rate, weight_decay=dqfd.weight_decay, foreach=True
        )
        self.pretrained = 0
        self.margin_losses: list[float] = []
        self.curve: list[dict[str, float]] = []
        self.seconds = 0.0
        self.started = time.monotonic()
        self.state_path: Path | None = None

    def dqfd_step(self, own: int, demo: int) -> float:
        """One gradient step on ``own`` episodes of the learner's replay and ``demo`` demonstrations: the
        Q-learning loss on all of them plus ``lambda_e`` J_E on the demonstrations. Returns the Q-learning loss."""
        parts = [(self.replay, self.replay.sample(own, self.rng))] if own else []
        parts.append((self.demos, self.rng.integers(0, self.trainable, size=demo)))
        batch = self.batch(parts)
        loss, q, _ = self.td_loss(batch)
        j_e = margin_loss(q[own:], batch.actions[own:], batch.legal[own:], batch.valid[own:], self.dqfd.margin)
        self.step(loss + self.dqfd.lambda_e * j_e)
        self.margin_losses.append(j_e.item())
        return loss.item()

    def learn(self) -> float:
        demo = round(self.config.batch_size * self.dqfd.demo_share)
        return self.dqfd_step(self.config.batch_size - demo, demo)

    @torch.no_grad()
    def held_out_accuracy(self, episodes: int = 5000) -> float:
        """Share of the first ``episodes`` held-out demonstrations' decisions where argmax Q is the demonstrator's."""
        index = np.arange(self.trainable, min(self.demos.size, self.trainable + episodes))
        right = total = 0
        self.net.eval()
        for chunk in np.array_split(index, max(1, len(index) // 500)):
            batch = self.batch([(self.demos, chunk)])
            q = self.net(batch.images, None, batch.valid)[0]
            chosen = torch.where(batch.legal, q, torch.full_like(q, -1e9)).argmax(dim=-1)
            right += int(((chosen == batch.actions) & batch.valid).sum())
            total += int(batch.valid.sum())
        return right / max(1, total)

    def pretrain(self) -> None:
        """Phase 2: ``pretrain_steps`` steps on the demonstrations alone, from the saved position on."""
        saved, losses = time.monotonic(), []
        while self.pretrained < self.dqfd.pretrain_steps:
            self.set_learning_rate(self.pretrained)
            losses.append(self.dqfd_step(0, self.dqfd.pretrain_batch))
            self.pretrained += 1
            if self.pretrained % 2000 == 0 or self.pretrained == self.dqfd.pretrain_steps:
                point = {"steps": self.pretrained} | self.losses_of(losses[-500:], self.margin_losses[-500:])
                point |= {"held_out_accuracy": self.held_out_accuracy(), "seconds": round(self.elapsed())}
                self.curve.append(point)
                self.log(f"{time.strftime('%H:%M:%S')} pre-training {point}")
            if time.monotonic() - saved > SAVE_SECONDS:
                self.save_state()
                saved = time.monotonic()
        self.snapshot.load_state_dict(self.net.state_dict())
        self.save_state()

    def losses_of(self, losses: list[float], supervised: list[float]) -> dict[str, float]:
        """A curve point's mean losses of the latest steps: ``dqfd_step``'s return values and J_E's."""
        return {"td_loss": float(np.mean(losses)), "margin_loss": float(np.mean(supervised))}

    def set_learning_rate(self, step: int) -> None:
        """The learning rate of pre-training step ``step``: ``learning_rate``, halving after ``lr_decay``'s start."""
        rate = self.dqfd.learning_rate
        if self.dqfd.lr_decay is not None:
            start, half_life = self.dqfd.lr_decay
            rate *= 0.5 ** (max(0, step - start) / half_life)
        for group in self.optimizer.param_groups:
            group["lr"] = rate

    def elapsed(self) -> float:
        """Seconds of training so far, over every run that went on from a saved state."""
        return self.seconds + time.monotonic() - self.started

    def save(self, path: str | Path, stats: dict[str, Any]) -> Path:
        """The checkpoint and its sidecar (the seed's, with the DQfD settings, data and curve), and the state."""
        config = asdict(self.config)
        config["opponents"] = [list(o) for o in self.config.opponents]
        if not self.hands_done:  # the phase-2 network: what a run of no hands of play makes
            config["hands"] = 0
        manifest = Path(self.dqfd.demonstrations).with_name("manifest.json")
        meta = {
            "config": config,
            "encoding": self.encoding.name,
            self.config_key: self.recorded_settings(),
            "data": json.loads(manifest.read_text()) if manifest.exists() else {},
            "pretraining": self.curve,
            "hands_trained": self.hands_done,
            "opponents": self.pool.names,
            "opponent_agents": self.pool.agents(),
            "stats": stats | {"held_out_accuracy": self.held_out_accuracy(), "seconds_all": round(self.elapsed())},
        } | self.sidecar_extra()
        written = save_network(path, self.net, self.config.network, self.planes, meta)
        self.save_state()
        self.log(f"{time.strftime('%H:%M:%S')} saved {written} after {self.hands_done} hands: {meta['stats']}")
        return written

    def recorded_settings(self) -> dict[str, Any]:
        """``dqfd`` as the sidecar records it (under ``config_key``)."""
        return asdict(self.dqfd)

    def sidecar_extra(self) -> dict[str, Any]:
        """What else the sidecar says (none here)."""
        return {}

    def save_state(self) -> None:
        if self.state_path is None:
            return
        size = self.replay.size
        replay = {name: getattr(self.replay, name)[:size] for name in ("observations", "actions", "legal", "steps")}
        state = {
            "configs": [asdict(self.config), asdict(self.dqfd)],
            "networks": [m.state_dict() for m in (self.net, self.snapshot, self.target) if m is not None],
            "optimizer": self.optimizer.state_dict(),
            "position": [self.pretrained, self.steps, self.hands_done, self.replay.next],
            "replay": replay | {"reward": self.replay.reward[:size]},
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "results": self.results,
            "curve": self.curve,
            "seconds": self.elapsed(),
        }
        torch.save(state, self.state_path.with_suffix(".tmp"))
        self.state_path.with_suffix(".tmp").replace(self.state_path)

    def load_state(self, path: Path) -> None:
        """Go on from the state saved at ``path``, if any (of the same configurations)."""
        self.state_path = path
        if not path.exists():
            return
        state = torch.load(path, weights_only=False)  # our own file: numpy arrays and the generator's state
        steps = state["position"][0]
        saved, dqfd = state["configs"], asdict(self.dqfd)
        free = {"pretrain_steps": 0, "lr_decay": None}  # may change between runs (below for the decay)
        # a state saved before TrainConfig had ``dropout`` trained with the seed's (None)
        if {"dropout": None} | saved[0] != asdict(self.config) or saved[1] | free != dqfd | free:
            raise ValueError(f"{path} is the state of another run: delete it or give another --out")
        if not _same_rates_so_far(saved[1].get("lr_decay"), self.dqfd.lr_decay, steps):
            raise ValueError(f"{path} was trained with another learning-rate decay: delete it or give another --out")
        if steps > self.dqfd.pretrain_steps:
            raise ValueError(f"{path} is {steps} pre-training steps in, past the {self.dqfd.pretrain_steps} asked")
        for module, weights in zip((self.net, self.snapshot, self.target), state["networks"], strict=False):
            if module is not None:
                module.load_state_dict(weights)
        self.optimizer.load_state_dict(state["optimizer"])
        self.pretrained, self.steps, self.hands_done, self.replay.next = state["position"]
        for name, values in state["replay"].items():
            getattr(self.replay, name)[: len(values)] = values
        self.replay.size = len(state["replay"]["steps"])
        self.rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        self.results, self.curve = state["results"], state["curve"]
        self.seconds, self.started = float(state["seconds"]), time.monotonic()
        if self.hands_done:  # hands under way when it stopped are not kept: new deals from here
            self.deal_rng = MT19937(self.config.seed * 1_000_003 + self.hands_done)
        self.log(f"going on from {path}: {self.pretrained} pre-training steps, {self.hands_done} hands")


def train(
    config: TrainConfig, dqfd: DQfDConfig, out: str | Path, log: Callable[[str], None] = print
) -> tuple[Path, dict[str, Any]]:
    """Pre-train on the demonstrations, save the phase-2 network (``-pretrained.pt`` beside ``out``), play
    ``config.hands`` hands (phase 3, none: the phase-2 network is the result) and save at ``out``."""
    out = Path(out).with_suffix(".pt")
    trainer = DQfDTrainer(config, dqfd, log)
    trainer.load_state(out.with_suffix(".state.pt"))
    started = time.perf_counter()
    trainer.pretrain()
    pretrained = out.with_name(f"{out.stem}-pretrained.pt")
    if trainer.hands_done == 0:
        trainer.save(pretrained, trainer.stats(started))
        log(f"{time.strftime('%H:%M:%S')} phase 2 done: {pretrained}")
    if not config.hands:  # phase 2 alone: no hands dealt, so that more steps later go on from the same state
        return trainer.save(out, trainer.stats(started)), trainer.stats(started)
    stats = trainer.run(save_every=SAVE_HANDS, out=out)
    return trainer.save(out, stats), stats


def _same_rates_so_far(saved: tuple[int, int] | None, asked: tuple[int, int] | None, steps: int) -> bool:
    """Whether two ``lr_decay`` settings gave the same learning rates over the first ``steps`` steps."""
    if saved is not None and asked is not None and tuple(saved) == tuple(asked):
        return True
    return all(decay is None or decay[0] >= steps for decay in (saved, asked))
