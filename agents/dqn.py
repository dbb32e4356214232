"""Seed 000's agents: ``lstm_dqn`` (CNN + LSTM Q-network) and ``dqn`` (the same without the LSTM).

Each decision encodes the view as the 16x17x17 card image, runs the network (the
LSTM continuing from this hand's earlier decisions; its memory is emptied when a
hand starts) and takes the legal action with the highest Q value: fold is never
chosen with nothing owed, nor raise when raising is not allowed. The seed learns
no bet sizes: in no-limit games a raise is a pot-size raise (clamped to the
legal range). Checkpoints load onto the GPU when there is one.

``policy`` is that argmax (probability 1), for any hole cards: it runs the
network over the viewer's decisions of the hand so far replayed with those
cards, from an empty memory, and leaves the agent's own memory alone.

``--checkpoint`` takes a ``.pt`` file or a shipped checkpoint's name: ``lstm_dqn``
and ``dqn`` (the defaults) or ``lstm_dqn-v1`` and ``dqn-v1`` (the first networks,
trained against the ``v1`` pool of bettors without cards). The default
``lstm_dqn`` is trained on 120,000 hands of the ``sound`` pool
(``models/dqn_training.py``; it folds, and beats ``equity``); the default ``dqn``
is still ``dqn-v1``, since its ``sound``-pool retraining did not improve it (README).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent, Policy, pot_size_raise_to, valid_or_call
from acpc_arena.models.cfr.checkpoint import CheckpointError
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.encoding import encode, images, num_planes, observe
from acpc_arena.models.q_checkpoint import default_device, load_network
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, Action, ActionKind, State
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
        try:
            self.net, self.meta = load_network(path, self.device)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None  # acpc-agent prints it as one line
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
        """The policy's one action: the hand's decisions replayed from an empty memory, as ``policies``
        does, so that ``act`` and ``policy`` never part on a near tie (one LSTM step at a time and the
        whole sequence at once round differently)."""
        (action,) = self.policies([view])[0]
        return action

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    @torch.no_grad()
    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """One network pass over every view's replayed decisions (the views share the betting)."""
        if not views:
            return []
        first = views[0]
        steps = _decision_states(first) if self.net.recurrent else [first.state]
        shared = np.stack([observe(s, first.viewer) for s in steps])  # (T, fields); the hole cards come first
        observations = np.repeat(shared[None], len(views), axis=0)
        for i, view in enumerate(views):
            _check_same_betting(first, view)
            observations[i, :, : self.game.num_hole_cards] = view.state.hole_cards[view.viewer]
        planes = images(self.game, observations.reshape(-1, shared.shape[1]))
        batch = torch.from_numpy(planes.reshape(len(views), len(steps), *planes.shape[1:])).to(self.device)
        q, _ = self.net(batch, None)
        q_last = q[:, -1].cpu().numpy()
        return [{self._best_action(view.state, row): 1.0} for view, row in zip(views, q_last, strict=True)]

    def _best_action(self, state: State, q: np.ndarray) -> Action:
        """The legal action with the highest Q value (a raise sized as the module docstring says)."""
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


def _check_same_betting(first: MatchState, view: MatchState) -> None:
    """``policies`` batches views that differ only in the viewer's hole cards."""
    a, b = first.state, view.state
    if view.viewer != first.viewer or a.actions != b.actions or a.visible_board() != b.visible_board():
        raise ValueError("policies: the views must share the viewer, the betting and the board")


def _decision_states(view: MatchState) -> list[State]:
    """The states of the hand at each of the viewer's decisions so far, the current one last, replayed
    from the view's cards (the LSTM's memory is a function of these)."""
    real = view.state
    replay = State(real.game, real.hand_id, [list(cards) for cards in real.hole_cards], list(real.board_cards))
    out = []
    for round_ in range(real.round + 1):
        for action in real.actions[round_]:
            if replay.current_player == view.viewer:
                out.append(replay.copy())
            replay.apply(action)
    out.append(replay)
    return out
