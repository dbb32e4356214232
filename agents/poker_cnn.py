"""Seed 004's agent: ``poker_cnn`` plays the action policy Poker-CNN learned from ACPC logs.

Each decision encodes the view as the 16x17x17 card image, runs the network and
takes the legal action with the highest probability (``--sample``: draws one
from the probabilities of the legal actions, renormalised). Fold is never
chosen with nothing owed, nor raise when raising is not allowed. The network
predicts fold, call or raise, not sizes: on no-limit games a raise is
pot-sized (the raise-to that puts the pot's size on top of the call), clamped
to the legal range, as the Q-network agents do. Checkpoints load onto the GPU
when there is one.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Policy, pot_size_raise_to, valid_or_call
from acpc_arena.agents.dqn import QAgent
from acpc_arena.models.encoding import encode
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, Action, ActionKind, State
from acpc_arena.protocol.wire import MatchState


class PokerCNNAgent(QAgent):
    name = "poker_cnn"
    network = "poker_cnn"
    default_game = "holdem.limit.2p.reverse_blinds"

    def __init__(self, game: Game, seed: int | None = None, **options: Any) -> None:
        super().__init__(game, seed, **options)
        self.sample = bool(options.get("sample"))
        self.rng = np.random.default_rng(seed)

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        super().add_arguments(parser)
        parser.add_argument("--sample", action="store_true", help="draw the action from the policy instead of argmax")

    def act(self, view: MatchState) -> Action:
        state = view.state
        probabilities = self.q_values(view).astype(np.float64)
        legal = state.legal_actions()
        allowed = np.array([legal.can_fold, True, legal.can_raise])
        if self.sample:
            weights = np.where(allowed, probabilities, 0.0)
            kind = int(self.rng.choice(3, p=weights / weights.sum())) if weights.sum() > 0 else int(ActionKind.CALL)
        else:
            kind = int(np.argmax(np.where(allowed, probabilities, -np.inf)))
        return self._action_of(state, kind)

    def _action_of(self, state: State, kind: int) -> Action:
        if kind == RAISE:
            size = pot_size_raise_to(state) if self.game.no_limit else 0
            return valid_or_call(state, Action(RAISE, size))
        return Action(ActionKind(kind))

    @torch.no_grad()
    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """Argmax: the Q-agents' (probability 1 on the best legal output); with ``--sample``, the
        network's probabilities over the legal actions, renormalised, as ``act`` draws them."""
        if not self.sample:
            return super().policies(views)
        out: list[Policy] = []
        for view in views:
            image = torch.from_numpy(encode(view.state, view.viewer))[None, None].to(self.device)
            probabilities = self.net(image, None)[0][0, 0].cpu().numpy().astype(np.float64)
            legal = view.state.legal_actions()
            weights = np.where([legal.can_fold, True, legal.can_raise], probabilities, 0.0)
            if weights.sum() <= 0:
                out.append({Action(ActionKind.CALL): 1.0})
                continue
            policy: Policy = {}
            for kind in np.flatnonzero(weights):
                action = self._action_of(view.state, int(kind))
                policy[action] = policy.get(action, 0.0) + float(weights[kind] / weights.sum())
            out.append(policy)
        return out
