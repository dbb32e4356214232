"""Seed 000's agents: ``lstm_dqn`` (CNN + LSTM Q-network) and ``dqn`` (the same without the LSTM).

Each decision encodes the view as the 16x17x17 card image and takes the legal
action with the highest Q value: fold is never chosen with nothing owed, nor
raise when raising is not allowed. The LSTM's memory is a function of the hand's
decisions so far: every decision replays them (the viewer's card images at each
of its earlier decisions, then the current one) from an empty memory, which is
also how ``policy`` gives the choice for any hole cards without an agent state.
The seed learns no bet sizes: in no-limit games a raise is a pot-size raise
(clamped to the legal range). Checkpoints load onto the GPU when there is one.

Every network pass goes through ``models.row_passes``, so a decision comes out
the same alone (over TCP) and batched with other tables' (``act_batch``, which
the in-process runner calls with the views of many matches at once; see
``batch_key``), and ``act`` never parts from ``policy`` on a near tie.

``--checkpoint`` takes a ``.pt`` file or a shipped checkpoint's name: ``lstm_dqn``
and ``dqn`` (the defaults) or ``lstm_dqn-v1`` and ``dqn-v1`` (the first networks,
trained against the ``v1`` pool of bettors without cards). The default
``lstm_dqn`` is trained on 120,000 hands of the ``sound`` pool
(``models/dqn_training.py``; it folds, and beats ``equity``); the default ``dqn``
is still ``dqn-v1``, since its ``sound``-pool retraining did not improve it (README).
"""

from __future__ import annotations

import argparse
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent, Policy, pot_size_raise_to, valid_or_call
from acpc_arena.models.cfr.checkpoint import CheckpointError
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.encoding import IMAGE_SIZE, images, num_planes, observe
from acpc_arena.models.networks import NUM_ACTIONS
from acpc_arena.models.q_checkpoint import default_device, load_network
from acpc_arena.models.row_passes import MAX_ROWS, checked_batch_key, forward_rows
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
        self.path = resolve_checkpoint(options.get("checkpoint")) or FOLDER / f"{self.network}.pt"
        self.device = default_device()
        try:
            self.net, self.meta = load_network(self.path, self.device)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None  # acpc-agent prints it as one line
        if self.meta["planes"] != num_planes(game):
            raise ValueError(
                f"{self.path} was trained on {self.meta['planes']} planes; this game has {num_planes(game)}"
            )

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--checkpoint", type=Path, default=None, help="a Q-network checkpoint (.pt), or a shipped one's name"
        )
        parser.add_argument("--threads", type=int, default=1, help="torch threads (1 suits one decision at a time)")

    def act(self, view: MatchState) -> Action:
        return self.act_batch([view])[0]

    def batch_key(self) -> Hashable | None:
        """The same for agents that choose alike at any view: the same network file on the same device, whose
        passes give a row the same bits alone or batched (``models.row_passes``)."""
        key = (self.network, str(self.path), str(self.device))
        return checked_batch_key(key, self._last_outputs, self._probe_samples)

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        """``act`` at each view (views of any hands, of this agent or of one with the same ``batch_key``)."""
        return [self._best_action(v.state, row) for v, row in zip(views, self.outputs(views), strict=True)]

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        return [{action: 1.0} for action in self.act_batch(views)]

    @torch.no_grad()
    def outputs(self, views: Sequence[MatchState]) -> np.ndarray:
        """(views, 3) network outputs at each view's current decision, the hand's decisions so far replayed
        from an empty memory: passes of one sequence length, each view's row the same bits as alone."""
        sequences = self._observations(views)
        out = np.empty((len(views), NUM_ACTIONS), dtype=np.float32)
        by_length: dict[int, list[int]] = {}
        for i, sequence in enumerate(sequences):
            by_length.setdefault(len(sequence), []).append(i)
        for steps, indices in by_length.items():
            observations = np.stack([sequences[i] for i in indices])
            planes = images(self.game, observations.reshape(-1, observations.shape[-1]))
            batch = torch.from_numpy(planes.reshape(len(indices), steps, *planes.shape[1:])).to(self.device)
            if steps <= BATCHED_STEPS:
                q = forward_rows(self._last_outputs, batch)
            else:  # lengths the check does not cover: each view alone, as over TCP
                q = torch.cat([forward_rows(self._last_outputs, batch[j : j + 1]) for j in range(len(indices))])
            out[indices] = q.cpu().numpy()
        return out

    def _last_outputs(self, batch: torch.Tensor) -> torch.Tensor:
        return self.net(batch, None)[0][:, -1]

    def _observations(self, views: Sequence[MatchState]) -> list[np.ndarray]:
        """Each view's (steps, fields) observations at its viewer's decisions so far, the current one last (only
        that one for a network without memory); replayed once for views of the same betting and board."""
        replayed: dict[tuple[Any, ...], np.ndarray] = {}
        out = []
        for view in views:
            state = view.state
            key = (view.viewer, tuple(tuple(actions) for actions in state.actions), tuple(state.visible_board()))
            if key not in replayed:
                steps = _decision_states(view) if self.net.recurrent else [state]
                replayed[key] = np.stack([observe(s, view.viewer) for s in steps])
            observations = replayed[key].copy()
            observations[:, : self.game.num_hole_cards] = state.hole_cards[view.viewer]  # the hole cards come first
            out.append(observations)
        return out

    def _probe_samples(self) -> Iterator[torch.Tensor]:
        """``MAX_ROWS`` sequences of random images with a real image's few cards and counts, of every length
        batched (one step for a network without memory)."""
        for steps in range(1, (BATCHED_STEPS if self.net.recurrent else 1) + 1):
            generator = torch.Generator().manual_seed(steps)
            shape = (MAX_ROWS, steps, self.meta["planes"], IMAGE_SIZE, IMAGE_SIZE)
            yield (torch.rand(shape, generator=generator) < 0.05).float().to(self.device)

    def _best_action(self, state: State, q: np.ndarray) -> Action:
        """The legal action with the highest Q value (a raise sized as the module docstring says)."""
        legal = state.legal_actions()
        allowed = np.array([legal.can_fold, True, legal.can_raise])
        kind = int(np.argmax(np.where(allowed, q, -np.inf)))
        if kind == RAISE:
            size = pot_size_raise_to(state) if self.game.no_limit else 0
            return valid_or_call(state, Action(RAISE, size))
        return Action(ActionKind(kind))


BATCHED_STEPS = 8
"""Replayed sequences of up to this many decisions are batched (the lengths ``batch_key`` checks)."""


class LSTMDQNAgent(QAgent):
    name = "lstm_dqn"
    network = "lstm_dqn"


class DQNAgent(QAgent):
    name = "dqn"
    network = "dqn"


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
