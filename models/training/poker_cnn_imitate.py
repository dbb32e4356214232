"""Training the default Poker-CNN: the teacher's argmax imitated over millions of decisions, one network.

    acpc-train poker_cnn [--data runs/poker_cnn-default/records.npz] [--epochs N] [--out FILE.pt]

The records are ``poker_cnn_teacher``'s (the ``history`` encoding, 26 planes for
heads-up hold'em). The network is seed 004's Poker-CNN (``models.q_networks.networks.PokerCNN``,
the seed's widths) on those planes. Choices where this departs from the seed's
configuration (``models/training/poker_cnn.py``), and why:

- The target is the teacher's action and nothing else: cross-entropy on the
  softmax, every decision weighted alike. The seed's outcome weighting would pull
  the network away from the teacher's argmax, which is what it is scored on.
- Adam (learning rate ``LEARNING_RATE``, halved after each epoch) instead of
  Adagrad: fewer passes over the data for the same accuracy on one CPU core.
- One network, no cross-validation: ``TEST_RECORDS`` records (whole hands drawn
  at random) are held out and never trained on; the rest is trained on, its hands
  in one random order. During the first epoch the network has seen each of the
  first N training records once, and its held-out accuracy at each N of
  ``CURVE`` is the accuracy curve against data size; the last point is after
  ``EPOCHS`` epochs over all of them.

The run saves its state (network, optimiser, position, curve) every
``SAVE_SECONDS`` beside ``--out`` (``.state.pt``), so the same command run again
after a stop goes on from there; the order of the records is a function of the
seed, so a resumed run trains on the same batches as an unbroken one would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.models.q_networks.checkpoint import save_network
from acpc_arena.models.q_networks.history_encoding import history_images, history_planes, seed_fields
from acpc_arena.models.q_networks.networks import PokerCNN
from acpc_arena.models.training.poker_cnn import accuracy_by_round, majority_baseline
from acpc_arena.models.training.poker_cnn_data import GAME, Records
from acpc_arena.protocol.game import Game, load_game

DATA = "runs/poker_cnn-default/records.npz"
EPOCHS = 3
LEARNING_RATE = 1e-3
BATCH = 256
TEST_RECORDS = 100_000
CURVE = (60_000, 240_000, 1_000_000, 2_000_000)
"""Training records seen once (first epoch) at which the held-out accuracy is measured."""
SAVE_SECONDS = 300


@dataclass
class ImitateConfig:
    data: str = DATA
    game: str = GAME
    epochs: int = EPOCHS
    batch_size: int = BATCH
    learning_rate: float = LEARNING_RATE
    test_records: int = TEST_RECORDS
    curve: list[int] = field(default_factory=lambda: list(CURVE))
    seed: int = 1


def hand_order(records: Records, test_records: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the held-out set (whole hands drawn at random, at least ``test_records`` rows) and the
    training rows, the rest of the hands in one random order (each hand's rows together)."""
    _, first, counts = np.unique(records.hands, return_index=True, return_counts=True)
    order = np.random.default_rng(seed).permutation(len(first))
    take = int(np.searchsorted(np.cumsum(counts[order]), test_records)) + 1

    def rows(hands: np.ndarray) -> np.ndarray:
        if not len(hands):
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.arange(first[h], first[h] + counts[h]) for h in hands])

    return np.sort(rows(order[:take])), rows(order[take:])


class Imitation:
    """One network trained on the training rows, scored on the held-out rows."""

    def __init__(self, config: ImitateConfig, log: Callable[[str], None] = print) -> None:
        self.config, self.log = config, log
        self.game: Game = load_game(config.game)
        self.records = Records.load(config.data)
        width = seed_fields(self.game) + 1 + 2 * self.game.num_rounds
        if self.records.observations.shape[1] != width:
            raise ValueError(
                f"{config.data}: records of {self.records.observations.shape[1]} fields, the history encoding of "
                f"{config.game} has {width} (make them with poker_cnn_teacher)"
            )
        self.test, self.train_rows = hand_order(self.records, config.test_records, config.seed)
        torch.manual_seed(config.seed)
        self.network = PokerCNN(history_planes(self.game))
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate)
        self.position = {"epoch": 0, "batch": 0, "seen": 0}
        self.seconds = 0.0
        """Seconds of training before this process's (a resumed run's earlier ones)."""
        self.started = time.monotonic()
        self.curve: list[dict[str, Any]] = []

    def _images(self, rows: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(history_images(self.game, self.records.observations[rows]))

    @torch.no_grad()
    def predict(self, rows: np.ndarray) -> np.ndarray:
        self.network.eval()
        out = [
            self.network.logits(self.network.conv(self._images(rows[i : i + 4096]))).argmax(dim=1).numpy()
            for i in range(0, len(rows), 4096)
        ]
        self.network.train()
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def score(self, seen: int, epochs: float) -> dict[str, Any]:
        """A point of the curve: held-out accuracy (overall and by round) after ``seen`` distinct records."""
        held = self.records.subset(self.test)
        accuracy = accuracy_by_round(self.predict(self.test), held)
        point: dict[str, Any] = {
            "records": seen,
            "epochs": round(epochs, 3),
            "accuracy": accuracy,
        }
        self.curve.append(point)
        figures = ", ".join(f"{name} {100 * value:.1f}%" for name, value in accuracy.items())
        self.log(f"{time.strftime('%H:%M:%S')} {seen} records, {epochs:.2f} epochs: held out {figures}")
        return point

    def epoch_order(self, epoch: int) -> np.ndarray:
        """The training rows in epoch ``epoch``'s order: the hand order itself first, then shuffled rows."""
        if epoch == 0:
            return self.train_rows
        return np.random.default_rng(self.config.seed * 1000 + epoch).permutation(self.train_rows)

    def run(self, state_path: Path) -> None:
        """Train every epoch from the saved position on, saving the state every ``SAVE_SECONDS``."""
        config, size = self.config, self.config.batch_size
        targets = torch.from_numpy(self.records.actions.astype(np.int64))
        saved = time.monotonic()
        while self.position["epoch"] < config.epochs:
            epoch = self.position["epoch"]
            for group in self.optimizer.param_groups:
                group["lr"] = config.learning_rate * 0.5**epoch
            order = self.epoch_order(epoch)
            while (start := self.position["batch"] * size) < len(order):
                batch = order[start : start + size]
                loss = torch.nn.functional.cross_entropy(
                    self.network.logits(self.network.conv(self._images(batch))), targets[batch]
                )
                self.optimizer.zero_grad()
                torch.autograd.backward(loss)
                self.optimizer.step()
                self.position["batch"] += 1
                if epoch == 0:
                    before, self.position["seen"] = self.position["seen"], start + len(batch)
                    for mark in config.curve:
                        if before < mark <= self.position["seen"]:
                            self.score(self.position["seen"], self.position["seen"] / len(order))
                if time.monotonic() - saved > SAVE_SECONDS:
                    self.save_state(state_path)
                    saved = time.monotonic()
            self.position = {"epoch": epoch + 1, "batch": 0, "seen": self.position["seen"]}
            self.log(f"{time.strftime('%H:%M:%S')} epoch {epoch + 1} of {config.epochs} done")
            if epoch == 0:
                self.score(len(order), 1.0)
            self.save_state(state_path)
        if not self.curve or self.curve[-1]["epochs"] != config.epochs:
            self.score(len(self.train_rows), float(config.epochs))

    def save_state(self, path: Path) -> None:
        state = {
            "network": self.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "position": self.position,
            "curve": self.curve,
            "config": asdict(self.config),
            "seconds": self.elapsed(),
        }
        torch.save(state, path.with_suffix(".tmp"))
        path.with_suffix(".tmp").replace(path)

    def elapsed(self) -> float:
        """Seconds of training so far, over every run that went on from a saved state."""
        return self.seconds + time.monotonic() - self.started

    def load_state(self, path: Path) -> bool:
        """Go on from the state saved at ``path`` (of the same configuration); whether there was one."""
        if not path.exists():
            return False
        state = torch.load(path, weights_only=True)
        if state["config"] != json.loads(json.dumps(asdict(self.config))):
            raise ValueError(f"{path} is the state of another run ({state['config']}): delete it or give another --out")
        self.network.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.position, self.curve = dict(state["position"]), list(state["curve"])
        self.seconds, self.started = float(state["seconds"]), time.monotonic()
        self.log(f"going on from {path}: {self.position}")
        return True


def train_default(
    config: ImitateConfig, out: str | Path, log: Callable[[str], None] = print
) -> tuple[Path, dict[str, Any]]:
    """Train (or go on training) the default network; save it at ``out`` with the curve in its sidecar."""
    torch.set_num_threads(1)
    out = Path(out).with_suffix(".pt")
    state_path = out.with_suffix(".state.pt")
    out.parent.mkdir(parents=True, exist_ok=True)
    run = Imitation(config, log)
    run.load_state(state_path)
    run.run(state_path)
    held, train = run.records.subset(run.test), run.records.subset(run.train_rows)
    summary = {
        "records": len(run.records),
        "train_records": len(run.train_rows),
        "held_out_records": len(run.test),
        "held_out_accuracy": run.curve[-1]["accuracy"],
        "held_out_majority": majority_baseline(train, held),
        "curve": run.curve,
        "seconds": round(run.elapsed()),
    }
    manifest_path = Path(config.data).with_name("manifest.json")
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    meta = {"encoding": "history", "config": asdict(config), "data": manifest, "training": summary}
    path = save_network(out, run.network.eval(), "poker_cnn", history_planes(run.game), meta)
    return path, summary
