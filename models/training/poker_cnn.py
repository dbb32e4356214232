"""Training Poker-CNN on decision records: imitation weighted by the discounted outcome, 4-fold cross-validation.

    acpc-train poker_cnn [--data runs/poker_cnn/records.npz] [--epochs N] [--out FILE.pt]

Targets. Seed 004 values the end of a hand E(S_n) = 1 if won, 0 if lost, and
each earlier state E(S_{t-1}) = gamma E(S_t); its reported figure is the
accuracy of the predicted action against the recorded one. Read literally
(outcome as the target of every output) the three outputs would not be actions
at all, and weighting the imitation by E alone (0 in a lost hand) would never
learn a fold, since a fold always loses. So the target of a decision is the
recorded action, one-hot, and its weight in the MSE on the softmax outputs is

    w = (1 - ALPHA) + ALPHA * GAMMA ** later * won

``later`` the decisions the same player still made in the hand, ``won`` 1 if it
won chips. ALPHA = 0.5 and GAMMA = 0.9: a decision of a won hand counts up to
twice one of a lost hand, the more so the nearer the end of the hand.

Splits as the seed's: 240,000 records (whole hands drawn at random from the
data set), of which the test set is 40,000 (whole hands, at random) and the
rest is cut into 4 folds (whole hands). Fold k's network trains
on the other three and is scored on fold k (held out) and on the test set; the
shipped network is the fold network with the best held-out accuracy. Accuracy is
argmax(output) == recorded action, given per betting round beside the accuracy
of always predicting the most common action (of that round, in the training
folds). Adagrad, Kaiming initial weights (``models.q_networks.networks.PokerCNN``).
"""

from __future__ import annotations

import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.models.q_networks.checkpoint import default_device, save_network
from acpc_arena.models.q_networks.encoding import images, num_planes
from acpc_arena.models.q_networks.networks import PokerCNN
from acpc_arena.models.training.poker_cnn_data import GAME, Records
from acpc_arena.protocol.game import Game, load_game

ALPHA = 0.5
GAMMA = 0.9
RECORDS = 240_000
TEST_RECORDS = 40_000
FOLDS = 4
ROUNDS = ("preflop", "flop", "turn", "river")


@dataclass
class Config:
    data: str = "runs/poker_cnn/records.npz"
    game: str = GAME
    epochs: int = 12
    """Epochs per fold (the shipped network's)."""
    batch_size: int = 256
    learning_rate: float = 0.01
    alpha: float = ALPHA
    gamma: float = GAMMA
    records: int = RECORDS
    """Records used (whole hands drawn at random, as many as fit); 0: all of them."""
    test_records: int = TEST_RECORDS
    folds: int = FOLDS
    seed: int = 1
    jobs: int = 2
    """Folds trained at once, each in its own process."""


def targets(records: Records, alpha: float = ALPHA, gamma: float = GAMMA) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3) one-hot recorded actions and (N,) weights ``(1 - alpha) + alpha * gamma**later * won``."""
    onehot = np.zeros((len(records), 3), dtype=np.float32)
    onehot[np.arange(len(records)), records.actions.astype(np.int64)] = 1.0
    value = gamma ** records.later.astype(np.float64) * records.won
    return onehot, ((1 - alpha) + alpha * value).astype(np.float32)


def whole_hands(records: Records, count: int, seed: int) -> np.ndarray:
    """Rows of hands drawn at random until ``count`` rows (all rows if ``count`` is 0 or more than there are)."""
    if not count or count >= len(records):
        return np.arange(len(records))
    hands, first, counts = np.unique(records.hands, return_index=True, return_counts=True)
    order = np.random.default_rng(seed).permutation(len(hands))
    take = int(np.searchsorted(np.cumsum(counts[order]), count, side="right"))
    return np.sort(np.concatenate([np.arange(first[h], first[h] + counts[h]) for h in order[:take]]))


def split(records: Records, test_records: int, folds: int, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Row indices of the test set (whole hands, at least ``test_records`` rows) and of ``folds`` folds."""
    hands, first = np.unique(records.hands, return_index=True)
    counts = np.diff(np.append(first, len(records.hands)))
    order = np.random.default_rng(seed).permutation(len(hands))
    take = int(np.searchsorted(np.cumsum(counts[order]), test_records)) + 1
    rows_of = [np.arange(start, start + count) for start, count in zip(first, counts, strict=True)]
    test = np.concatenate([rows_of[h] for h in order[:take]]) if take else np.zeros(0, dtype=np.int64)
    rest = order[take:]
    fold_rows = [np.concatenate([rows_of[h] for h in rest[k::folds]]) for k in range(folds)]
    return test, fold_rows


def accuracy_by_round(predicted: np.ndarray, records: Records) -> dict[str, float]:
    """Share of records whose predicted action is the recorded one, overall and per round."""
    right = predicted == records.actions
    out = {"all": float(right.mean())}
    for r, name in enumerate(ROUNDS):
        mask = records.rounds == r
        if mask.any():
            out[name] = float(right[mask].mean())
    return out


def majority_baseline(train: Records, held_out: Records) -> dict[str, float]:
    """Accuracy on ``held_out`` of always predicting ``train``'s most common action
    (overall; in each round, that round's most common)."""
    common = int(np.bincount(train.actions, minlength=3).argmax())
    out = {"all": float((held_out.actions == common).mean())}
    for r, name in enumerate(ROUNDS):
        mask, train_mask = held_out.rounds == r, train.rounds == r
        if mask.any() and train_mask.any():
            common_r = int(np.bincount(train.actions[train_mask], minlength=3).argmax())
            out[name] = float((held_out.actions[mask] == common_r).mean())
    return out


class Trainer:
    """Trains and scores Poker-CNN networks on one records file."""

    def __init__(self, config: Config, device: torch.device | None = None, log: Any = print) -> None:
        self.config = config
        self.game: Game = load_game(config.game)
        every = Records.load(config.data)
        self.records = every.subset(whole_hands(every, config.records, config.seed + 1000))
        width = self.game.num_hole_cards + self.game.total_board_cards + 3  # q_networks.encoding.observe's fields
        if self.records.observations.shape[1] != width:
            raise ValueError(
                f"{config.data}: records of {self.records.observations.shape[1]} fields, {config.game} has {width}"
            )
        self.onehot, self.weights = targets(self.records, config.alpha, config.gamma)
        self.device = device or default_device()
        self.log = log

    def _batch(self, rows: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(images(self.game, self.records.observations[rows])).to(self.device)

    def train(self, rows: np.ndarray, seed: int) -> PokerCNN:
        config = self.config
        torch.manual_seed(seed)
        network = PokerCNN(num_planes(self.game)).to(self.device)
        optimizer = torch.optim.Adagrad(network.parameters(), lr=config.learning_rate)
        rng = np.random.default_rng(seed)
        onehot, weights = torch.from_numpy(self.onehot), torch.from_numpy(self.weights)
        start = time.perf_counter()
        for epoch in range(config.epochs):
            order = rng.permutation(rows)
            total = 0.0
            for i in range(0, len(order), config.batch_size):
                batch = order[i : i + config.batch_size]
                probabilities, _ = network(self._batch(batch)[:, None])
                y, w = onehot[batch].to(self.device), weights[batch].to(self.device)
                loss = (w * ((probabilities[:, 0] - y) ** 2).sum(dim=1)).sum() / w.sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(batch)
            self.log(f"  epoch {epoch + 1}: loss {total / len(order):.4f} ({time.perf_counter() - start:.0f} s)")
        return network.eval()

    @torch.no_grad()
    def predict(self, network: PokerCNN, rows: np.ndarray) -> np.ndarray:
        out = [
            network(self._batch(rows[i : i + 4096])[:, None])[0][:, 0].argmax(dim=1).cpu().numpy()
            for i in range(0, len(rows), 4096)
        ]
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def fold(self, k: int) -> tuple[PokerCNN, dict[str, Any]]:
        """Fold ``k``'s network (trained on the other folds) and its figures."""
        config = self.config
        test, folds = split(self.records, config.test_records, config.folds, config.seed)
        train_rows = np.concatenate([folds[j] for j in range(config.folds) if j != k])
        self.log(f"fold {k + 1} of {config.folds}: {len(train_rows)} training records, {len(folds[k])} held out")
        network = self.train(train_rows, config.seed + k)
        train_records, held, tested = (self.records.subset(rows) for rows in (train_rows, folds[k], test))
        result: dict[str, Any] = {
            "fold": k + 1,
            "train_records": len(train_rows),
            "held_out_records": len(folds[k]),
            "test_records": len(test),
            "held_out_accuracy": accuracy_by_round(self.predict(network, folds[k]), held),
            "held_out_majority": majority_baseline(train_records, held),
            "test_accuracy": accuracy_by_round(self.predict(network, test), tested),
            "test_majority": majority_baseline(train_records, tested),
        }
        held_figures, majority = _shown(result["held_out_accuracy"]), _shown(result["held_out_majority"])
        self.log(f"fold {k + 1}: held out {held_figures}; most common action {majority}")
        return network, result


def _train_fold(config: Config, k: int) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """``Trainer(config).fold(k)`` in a worker process, one torch thread (threads contend on a shared machine)."""
    torch.set_num_threads(1)
    network, result = Trainer(config, torch.device("cpu"), log=lambda text: print(text, flush=True)).fold(k)
    return network.state_dict(), result


def cross_validate(config: Config) -> tuple[PokerCNN, dict[str, Any]]:
    """One network per fold, ``config.jobs`` at once; the best on its held-out fold, and every fold's figures."""
    # Fresh interpreters, not forks: a fork of a process that has run autograd on a GPU cannot run it.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=config.jobs, mp_context=context) as pool:
        outcomes = list(pool.map(_train_fold, [config] * config.folds, range(config.folds)))
    results = [result for _, result in outcomes]
    accuracies = [result["held_out_accuracy"]["all"] for result in results]
    best = int(np.argmax(accuracies))
    network = PokerCNN(num_planes(load_game(config.game)))
    network.load_state_dict(outcomes[best][0])
    summary = {
        "records": results[0]["test_records"] + sum(r["held_out_records"] for r in results),
        "test_records": results[0]["test_records"],
        "folds": results,
        "mean_held_out_accuracy": float(np.mean(accuracies)),
        "shipped_fold": best + 1,
    }
    return network.eval(), summary


def _shown(figures: dict[str, float]) -> str:
    return ", ".join(f"{name} {100 * value:.1f}%" for name, value in figures.items())


def train(config: Config, out: str | Path) -> tuple[Path, dict[str, Any]]:
    """Cross-validate, save the best fold's network as a checkpoint at ``out``; its path and the figures.

    The sidecar holds the configuration, the data's manifest (``manifest.json`` beside
    the records, when there is one) and every fold's figures."""
    start = time.perf_counter()
    Records.load(config.data)  # a missing or unreadable file: one error here, not one a worker
    network, summary = cross_validate(config)
    summary["seconds"] = round(time.perf_counter() - start)
    manifest_path = Path(config.data).with_name("manifest.json")
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    meta = {"config": asdict(config), "data": manifest, "training": summary}
    path = save_network(out, network, "poker_cnn", num_planes(load_game(config.game)), meta)
    return path, summary
