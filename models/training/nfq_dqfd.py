"""Seed 003's ``nfq`` trained by Deep Q-learning from Demonstrations (DQfD, Hester et al., AAAI 2018).

    python -m acpc_arena.models.training.nfq_dqfd [--hands N] [--pretrain-steps N] [--out FILE.pt] [--work DIR]

The defaults rebuild the shipped default ``nfq`` (into ``runs/train/nfq.pt``): the demonstrations
(300,000 hands, some 6 minutes on one core), then 150,000 pre-training steps (some 9
minutes) and no phase 3 (``--hands 0``, below).

The network, its features, its window and its checkpoint format are the seed's
(``NFQNetwork``, ``models.nfq.features``, n = 3; ``agents/nfq.py`` plays the result
unchanged). What changes is where the experience comes
from and one more loss.

1. Demonstrations (``nfq_demonstrations``): the default limit ``cfr --argmax``
   against seed 000's DQfD pairings (itself, ``cfr --sample``, ``random``,
   ``call``, ``raise``; no sparring bot, no ``equity``), each decision's NFQ window,
   legal moves, the demonstrator's action and the hand's result. Recorded first
   when missing.
2. Pre-training on them alone, ``pretrain_steps`` Adam steps of ``batch`` decisions:
   J_1 + J_R + ``lambda_e`` J_E, all in NFQ's reward scale (chips over the most a
   hand can lose, the tanh range). J_1 is the one-step Q-learning loss
   (Q(s, a_E) - y)^2, y the hand's result at the seat's last decision and the best
   legal Q of a target network at the next one otherwise (gamma = 1, the seed's);
   J_R is the return loss (Q(s, a_E) - R)^2 with R the hand's result (the paper's
   n-step return: a hand is a few decisions, so n = 10 reaches its end); J_E is the
   large-margin loss of ``dqn_demonstrations.margin_loss``.
3. Then the seed's own online training (``nfq.Trainer``: Q(lambda) with traces, the
   UCT-fused target, epsilon-greedy) from the pre-trained weights, against the
   ``dqfd`` pool (the default ``cfr``, snapshots, ``rule`` and a little of
   ``call``, ``raise``, ``random``: no sparring bot, no ``equity``), with one
   Adam step of the phase-2 loss on ``demo_batch`` demonstrations every
   ``demo_every`` hands.

Choices where the paper or the seed is silent:

- ``margin`` 0.05, not the paper's 0.8. The paper's margin is of the order of its
  clipped rewards; here a reward of 1 is 240 chips (24 big blinds), and the
  demonstrator's alternatives differ by a few chips: a small bet is 10/240 = 0.04.
  0.8 would push every other action's Q towards the tanh's flat end (-1), where
  its gradient vanishes and the values the Q(lambda) of phase 3 builds on mean
  nothing. 0.05, about a small bet, keeps them values while making the
  demonstrator's action win.
- ``lambda_e`` 1 (the paper's): with a margin of 0.05 J_E is of the order of the
  TD losses (squared errors of some 0.05 on this scale).
- J_1 and J_R are on the demonstrator's action only (the paper's); the target
  network is refreshed every ``target_every`` steps; Adam with the paper's L2
  weight decay 1e-5; decisions drawn uniformly (the paper's prioritised replay is
  left out, as seed 000's DQfD does).
- The last ``held_out_shards`` shards of demonstrations (one of each pairing) are
  never trained on; the share of their decisions where argmax Q over the legal
  actions is the demonstrator's action is logged and recorded in the sidecar.
- Phase 3 keeps the seed's Q(lambda) settings but for alpha 0.002 (the seed's 0.01
  from scratch; lower here not to wash out the pre-training) and epsilon 0.05 to
  0.01 (DQfD plays almost greedily).
- The default is the phase-2 network (``--hands 0``): phase 3 as configured lowers the
  held-out accuracy and the learner's result against ``cfr`` (the UCT-fused target, its
  opponent the ACPC example player, pulls the values away from the demonstrator's play
  faster than a demonstration step every 4 hands pulls them back). 150,000 pre-training
  steps were chosen on deal seeds 8201 to 8203, which no results page uses.

Resumable: the state (the networks, Adam, the position, the generators) is saved
beside the output under ``--work`` every ``SAVE_SECONDS`` of pre-training and every
``SAVE_HANDS`` hands of play; the same command again goes on from there (phase 3 then
deals new hands from a generator seeded anew). The phase-2 network is saved there too
(``<name>-pretrained.pt``); ``--hands 0`` makes it the result.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.models.training.dqn_demonstrations import margin_loss
from acpc_arena.models.training.nfq import NFQConfig, Table, Trainer, config_for
from acpc_arena.models.training.nfq_demonstrations import DEFAULT_OUT, HANDS, SHARDS, load_columns, make_demonstrations
from acpc_arena.models.training.shipped import NFQ_LAMBDA_E, NFQ_PRETRAIN_STEPS
from acpc_arena.protocol.rng import MT19937

DEMONSTRATIONS = str(DEFAULT_OUT / "demonstrations.npz")
DEFAULT_CHECKPOINT = Path("runs/train/nfq.pt")
DEFAULT_WORK = Path("runs/nfq-dqfd")
SAVE_SECONDS = 120
"""Seconds of pre-training between two saves of the state."""
SAVE_HANDS = 5000
"""Hands of play between two saves of the checkpoint and the state."""


@dataclass(frozen=True)
class DQfDConfig:
    demonstrations: str = DEMONSTRATIONS
    pretrain_steps: int = NFQ_PRETRAIN_STEPS
    batch: int = 256
    """Demonstration decisions of a pre-training step."""
    margin: float = 0.05
    lambda_e: float = NFQ_LAMBDA_E
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    target_every: int = 500
    """Adam steps between two refreshes of the target network."""
    held_out_shards: int = 5
    demo_every: int = 4
    """Hands of phase 3 between two steps on the demonstrations."""
    demo_batch: int = 64


def phase3_config(hands: int = 0, **overrides: Any) -> NFQConfig:
    """The seed's training settings for phase 3 (see the module docstring)."""
    settings: dict[str, Any] = {"hands": hands, "alpha": 0.002, "epsilon_start": 0.05, "epsilon_end": 0.01}
    return config_for("dqfd", **(settings | overrides))


class Demonstrations:
    """The recorded decisions as tensors, split into trained and held-out rows."""

    def __init__(self, path: str | Path, held_out_shards: int) -> None:
        columns = load_columns(path)
        self.windows = torch.from_numpy(columns["windows"])
        self.legal = torch.from_numpy(columns["legal"])
        self.actions = torch.from_numpy(columns["actions"].astype(np.int64))
        self.returns = torch.from_numpy(columns["returns"])
        self.last = torch.from_numpy(columns["last"])
        shard = columns["shard"].astype(np.int64)
        cut = int(shard.max()) + 1 - held_out_shards
        if cut < 1:
            raise ValueError(f"{path}: {cut + held_out_shards} shards, not over {held_out_shards} held out")
        self.trained = np.flatnonzero(shard < cut)
        self.held_out = np.flatnonzero(shard >= cut)


class DQfDTrainer(Trainer):
    """The seed's trainer with demonstrations: ``pretrain`` on them alone, then ``run`` (phase 3)."""

    def __init__(self, config: NFQConfig, dqfd: DQfDConfig, log_every: int = 5000, log: Any = print) -> None:
        super().__init__(config, log_every)
        self.dqfd, self.log = dqfd, log
        self.demos = Demonstrations(dqfd.demonstrations, dqfd.held_out_shards)
        self.target = copy.deepcopy(self.net).eval()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=dqfd.learning_rate, weight_decay=dqfd.weight_decay)
        self.demo_steps = 0
        self.pretrained = 0
        self.curve: list[dict[str, float]] = []
        self.seconds, self.started = 0.0, time.monotonic()
        self.state_path: Path | None = None
        self.out: Path | None = None

    def demo_step(self, size: int) -> tuple[float, float]:
        """One Adam step of J_1 + J_R + lambda_e J_E on ``size`` demonstrations; (J_1 + J_R, J_E)."""
        d = self.demos
        rows = torch.from_numpy(d.trained[self.rng.integers(0, len(d.trained), size=size)])
        q = self.net(d.windows[rows])
        taken = q.gather(1, d.actions[rows, None])[:, 0]
        returns, last = d.returns[rows], d.last[rows]
        with torch.no_grad():
            following = torch.clamp(rows + 1, max=len(d.actions) - 1)  # a row's next state, unless it is the last
            later = self.target(d.windows[following]).masked_fill(~d.legal[following], -torch.inf).max(dim=1).values
            one_step = torch.where(last, returns, later)
        td = ((taken - one_step) ** 2).mean() + ((taken - returns) ** 2).mean()
        ones = torch.ones(size, 1, dtype=torch.bool)
        j_e = margin_loss(q[:, None], d.actions[rows, None], d.legal[rows, None], ones, self.dqfd.margin)
        self.optimizer.zero_grad()
        (td + self.dqfd.lambda_e * j_e).backward()
        self.optimizer.step()
        self.demo_steps += 1
        if self.demo_steps % self.dqfd.target_every == 0:
            self.target.load_state_dict(self.net.state_dict())
        return td.item(), j_e.item()

    @torch.no_grad()
    def held_out_accuracy(self) -> float:
        """Share of the held-out decisions where argmax Q over the legal actions is the demonstrator's."""
        d, right = self.demos, 0
        for chunk in np.array_split(d.held_out, max(1, len(d.held_out) // 50_000)):
            rows = torch.from_numpy(chunk)
            chosen = self.net(d.windows[rows]).masked_fill(~d.legal[rows], -torch.inf).argmax(dim=1)
            right += int((chosen == d.actions[rows]).sum())
        return right / max(1, len(d.held_out))

    def pretrain(self) -> None:
        """Phase 2: ``pretrain_steps`` steps on the demonstrations alone, from the saved position on."""
        saved, losses = time.monotonic(), []
        while self.pretrained < self.dqfd.pretrain_steps:
            losses.append(self.demo_step(self.dqfd.batch))
            self.pretrained += 1
            if self.pretrained % 5000 == 0 or self.pretrained == self.dqfd.pretrain_steps:
                td, j_e = np.mean(losses[-1000:], axis=0)
                point = {"steps": self.pretrained, "td_loss": round(float(td), 5), "margin_loss": round(float(j_e), 5)}
                point |= {"held_out_accuracy": round(self.held_out_accuracy(), 4), "seconds": round(self.elapsed())}
                self.curve.append(point)
                self.log(f"{time.strftime('%H:%M:%S')} pre-training {point}")
            if time.monotonic() - saved > SAVE_SECONDS:
                self.save_state()
                saved = time.monotonic()
        self.snapshot.load_state_dict(self.net.state_dict())
        self.save_state()

    def _finish(self, table: Table) -> None:
        super()._finish(table)
        if self.hands_done % self.dqfd.demo_every == 0:
            self.demo_step(self.dqfd.demo_batch)

    def elapsed(self) -> float:
        """Seconds of training so far, over every run that went on from a saved state."""
        return self.seconds + time.monotonic() - self.started

    def save(self, path: str | Path, stats: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
        """The checkpoint and its sidecar (the seed's, with the DQfD settings, data and curve), and the state."""
        manifest = Path(self.dqfd.demonstrations).with_name("manifest.json")
        extra = (extra or {}) | {
            "dqfd": asdict(self.dqfd),
            "data": json.loads(manifest.read_text()) if manifest.exists() else {},
            "pretraining": self.curve,
        }
        stats = stats | {"held_out_accuracy": round(self.held_out_accuracy(), 4), "seconds_all": round(self.elapsed())}
        written = super().save(path, stats, extra)
        self.save_state()
        self.log(f"{time.strftime('%H:%M:%S')} saved {written} after {self.hands_done} hands: {stats}")
        return written

    def save_state(self) -> None:
        if self.state_path is None:
            return
        state = {
            "configs": [asdict(self.config), asdict(self.dqfd)],
            "networks": [m.state_dict() for m in (self.net, self.snapshot, self.target)],
            "optimizer": self.optimizer.state_dict(),
            "position": [self.pretrained, self.demo_steps, self.hands_done, self.updates],
            "rng": self.rng.bit_generator.state,
            "search_rng": self.search_rng.getstate(),
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
        state = torch.load(path, weights_only=False)  # our own file: the generators' states are not tensors
        if state["configs"] != [asdict(self.config), asdict(self.dqfd)]:
            raise ValueError(f"{path} is the state of another run: delete it or give another --work")
        for module, weights in zip((self.net, self.snapshot, self.target), state["networks"], strict=True):
            module.load_state_dict(weights)
        self.optimizer.load_state_dict(state["optimizer"])
        self.pretrained, self.demo_steps, self.hands_done, self.updates = state["position"]
        self.rng.bit_generator.state = state["rng"]
        self.search_rng = random.Random()
        self.search_rng.setstate(state["search_rng"])
        torch.set_rng_state(state["torch_rng"])
        self.results, self.curve = state["results"], state["curve"]
        self.seconds, self.started = float(state["seconds"]), time.monotonic()
        if self.hands_done:  # hands under way when it stopped are not kept: new deals from here
            self.deal_rng = MT19937(self.config.seed * 1_000_003 + self.hands_done)
        self.log(f"going on from {path}: {self.pretrained} pre-training steps, {self.hands_done} hands")


def train(
    config: NFQConfig, dqfd: DQfDConfig, out: str | Path = DEFAULT_CHECKPOINT, work: str | Path = DEFAULT_WORK,
    log: Any = print,
) -> tuple[Path, dict[str, Any]]:  # fmt: skip
    """Record the demonstrations if missing, pre-train (the phase-2 network saved as ``<work>/<name>-pretrained.pt``),
    play ``config.hands`` hands (phase 3; none: the phase-2 network is the result) and save at ``out``. The state
    is ``<work>/<name>.state.pt``: the same call again goes on from it."""
    out, work = Path(out).with_suffix(".pt"), Path(work)
    if not Path(dqfd.demonstrations).exists():
        make_demonstrations(Path(dqfd.demonstrations).parent, SHARDS, HANDS, log)
    trainer = DQfDTrainer(config, dqfd, log=log)
    work.mkdir(parents=True, exist_ok=True)
    trainer.load_state(work / f"{out.stem}.state.pt")
    started = time.perf_counter()
    trainer.pretrain()
    pretrained = work / f"{out.stem}-pretrained.pt"
    if trainer.hands_done == 0:
        trainer.save(pretrained, trainer.stats(started))
    stats = trainer.run(save_every=SAVE_HANDS, out=out)
    return trainer.save(out, stats), stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m acpc_arena.models.training.nfq_dqfd", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_CHECKPOINT, help=f"checkpoint (default {DEFAULT_CHECKPOINT})"
    )
    parser.add_argument(
        "--work", type=Path, default=DEFAULT_WORK, help=f"state and phase-2 network (default {DEFAULT_WORK})"
    )
    parser.add_argument(
        "--demonstrations", default=DEMONSTRATIONS, help=f"recorded if missing (default {DEMONSTRATIONS})"
    )
    parser.add_argument("--hands", type=int, default=0, help="hands of phase 3 (0, the default: the phase-2 network)")
    parser.add_argument("--pretrain-steps", type=int, default=DQfDConfig.pretrain_steps)
    parser.add_argument("--margin", type=float, default=DQfDConfig.margin)
    parser.add_argument("--lambda-e", type=float, default=DQfDConfig.lambda_e)
    parser.add_argument("--held-out-shards", type=int, default=DQfDConfig.held_out_shards)
    parser.add_argument("--tables", type=int, default=NFQConfig.tables)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    dqfd = replace(
        DQfDConfig(), demonstrations=args.demonstrations, pretrain_steps=args.pretrain_steps, margin=args.margin,
        lambda_e=args.lambda_e, held_out_shards=args.held_out_shards,
    )  # fmt: skip
    config = phase3_config(args.hands, tables=args.tables, seed=args.seed)
    try:
        path, _ = train(config, dqfd, args.out, args.work, log=lambda text: print(text, flush=True))
    except (ValueError, OSError) as exc:
        sys.exit(f"error: {exc}")
    print(f"checkpoint in {path}")


if __name__ == "__main__":
    main()
