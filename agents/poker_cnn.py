"""Seed 004's agent: ``poker_cnn`` plays the action policy Poker-CNN learned by imitating a teacher.

Each decision encodes the view as the checkpoint's sidecar says
(``models.q_networks.history_encoding``: the seed's 16 planes of 17x17, or those
and the betting history and position), runs the network and
takes the legal action with the highest probability (``--sample``: draws one
from the probabilities of the legal actions, renormalised). Fold is never
chosen with nothing owed, nor raise when raising is not allowed. The network
predicts fold, call or raise, not sizes: on no-limit games a raise is
pot-sized (the raise-to that puts the pot's size on top of the call), clamped
to the legal range, as the Q-network agents do. Checkpoints load onto the GPU
when there is one.

Checkpoints: ``poker_cnn`` (the default: the default limit ``cfr``'s argmax imitated
over millions of decisions, ``history`` encoding; ``models/training/poker_cnn_imitate.py``)
and ``poker_cnn-seed`` (the seed's configuration: 16 planes, 240,000 records of
``cfr-ehs2 --argmax``'s matches, 4-fold cross-validation; ``models/training/poker_cnn.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch

from acpc_arena.agents.base import Policy
from acpc_arena.agents.dqn import QAgent, QOptions
from acpc_arena.agents.options import options_from
from acpc_arena.models.q_networks.networks import NUM_ACTIONS
from acpc_arena.models.q_networks.row_passes import forward_rows
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action, ActionKind
from acpc_arena.protocol.wire import MatchState


@dataclass(frozen=True)
class PokerCNNOptions(QOptions):
    sample: Annotated[bool, "draw the action from the policy instead of argmax"] = False


class PokerCNNAgent(QAgent):
    name = "poker_cnn"
    network = "poker_cnn"
    default_game = "holdem.limit.2p.reverse_blinds"
    Options = PokerCNNOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        given = options_from(PokerCNNOptions, options)
        super().__init__(game, seed, checkpoint=given.checkpoint, threads=given.threads)
        self.sample = given.sample
        self.rng = np.random.default_rng(seed)

    @torch.no_grad()
    def outputs(self, views: Sequence[MatchState]) -> np.ndarray:
        """(views, 3) action probabilities at each view, the network run on the checkpoint's encoding of it
        (in passes of one shape: ``models.q_networks.row_passes``)."""
        observations = np.stack([self.encoding.observe(view.state, view.viewer) for view in views])
        planes = self.encoding.images(self.game, observations)
        rows = torch.from_numpy(planes.reshape(len(views), -1)).to(self.device)
        return forward_rows(self._step_rows, rows).cpu().numpy()

    def act(self, view: MatchState) -> Action:
        if not self.sample:
            return super().act(view)
        (policy,) = self.policies([view])
        actions = list(policy)
        return actions[int(self.rng.choice(len(actions), p=np.array(list(policy.values()))))]

    def batch_key(self) -> Hashable | None:
        """Batched like the Q-agents (argmax); ``--sample`` draws from each agent's own generator: never."""
        return None if self.sample else super().batch_key()

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """Argmax: the Q-agents' (probability 1 on the best legal output); with ``--sample``, the
        network's probabilities over the legal actions, renormalised, as ``act`` draws them."""
        if not self.sample:
            return super().policies(views)
        out: list[Policy] = []
        for view, probabilities in zip(views, self.outputs(views).astype(np.float64), strict=True):
            legal = view.state.legal_actions()
            weights = np.where([legal.can_fold, True, legal.can_raise], probabilities, 0.0)
            if weights.sum() <= 0:
                out.append({Action(ActionKind.CALL): 1.0})
                continue
            policy: Policy = {}
            for kind in np.flatnonzero(weights):
                action = self._best_action(view.state, np.eye(NUM_ACTIONS)[kind])
                policy[action] = policy.get(action, 0.0) + float(weights[kind] / weights.sum())
            out.append(policy)
        return out
