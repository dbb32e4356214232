"""Seed 000's agents: ``lstm_dqn`` (CNN + LSTM Q-network) and ``dqn`` (the same without the LSTM).

Each decision encodes the view as the 16x17x17 card image, runs the network (the
LSTM continuing from this hand's earlier decisions; its memory is emptied when a
hand starts) and takes the legal action with the highest Q value: fold is never
chosen with nothing owed, nor raise when raising is not allowed. The seed learns
no bet sizes: in no-limit games a raise is a pot-size raise (clamped to the
legal range). Checkpoints load onto the GPU when there is one.

``--checkpoint`` takes a ``.pt`` file or a shipped checkpoint's name: ``lstm_dqn``
and ``dqn`` (the defaults, trained against the ``sound`` pool of
``models/dqn_training.py``) or ``lstm_dqn-v1`` and ``dqn-v1`` (the first ones,
trained against the ``v1`` pool of bettors without cards).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent, pot_size_raise_to, valid_or_call
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.encoding import encode, num_planes
from acpc_arena.models.q_checkpoint import default_device, load_network
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, Action, ActionKind
from acpc_arena.protocol.wire import MatchState


def resolve_checkpoint(given: str | Path | None) -> Path | None:
    """A checkpoint file, or the shipped checkpoint of that name (``lstm_dqn-v1``) when no such file exists."""
    if given is None:
        return None
    path = Path(given)
    shipped = FOLDER / f"{given}.pt"
    if not path.with_suffix(".pt").exists() and path.name == str(given) and shipped.exists():
        return shipped
    return path


class QAgent(Agent):
    name = "q"
    network = "lstm_dqn"

    def __init__(self, game: Game, seed: int | None = None, **options: Any) -> None:
        super().__init__(game, seed, **options)
        torch.set_num_threads(int(options.get("threads") or 1))  # one decision at a time: threads only contend
        path = resolve_checkpoint(options.get("checkpoint")) or FOLDER / f"{self.network}.pt"
        self.device = default_device()
        self.net, self.meta = load_network(path, self.device)
        if self.meta["planes"] != num_planes(game):
            raise ValueError(f"{path} was trained on {self.meta['planes']} planes; this game has {num_planes(game)}")
        self.memory = None

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--checkpoint", type=Path, default=None, help="a Q-network checkpoint (.pt), or a shipped one's name"
        )
        parser.add_argument("--threads", type=int, default=1, help="torch threads (1 suits one decision at a time)")

    def begin_hand(self, view: MatchState) -> None:
        self.memory = None

    @torch.no_grad()
    def q_values(self, view: MatchState) -> np.ndarray:
        image = torch.from_numpy(encode(view.state, view.viewer))[None, None].to(self.device)
        q, self.memory = self.net(image, self.memory)
        return q[0, 0].cpu().numpy()

    def act(self, view: MatchState) -> Action:
        state = view.state
        q = self.q_values(view)
        legal = state.legal_actions()
        allowed = np.array([legal.can_fold, True, legal.can_raise])
        kind = int(np.argmax(np.where(allowed, q, -np.inf)))
        if kind == RAISE:
            size = pot_size_raise_to(state) if self.game.no_limit else 0
            return valid_or_call(state, Action(RAISE, size))
        return Action(ActionKind(kind))


class LSTMDQNAgent(QAgent):
    name = "lstm_dqn"
    network = "lstm_dqn"


class DQNAgent(QAgent):
    name = "dqn"
    network = "dqn"
