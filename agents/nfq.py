"""Seed 003's agent ``nfq``: the NFQ Q-network over the window of the player's last n observations.

Each decision replays the viewer's decisions of the hand so far (``agents.dqn``'s
``decision_states``), builds the observation at each (``models.nfq.features``: round,
pot, chips to call, hand strength, raises and calls per player, position, raises left),
feeds the window of the last n to the network and takes the legal action with the
highest Q value (fold is never chosen with nothing owed, nor raise when no raise is
left). No search at play time: the UCT of training is not run here. Hand strengths
are cached by cards, so a decision costs one strength computation and one small
network pass.

``policy`` is that argmax (probability 1) for any hole cards; it changes nothing
(``act`` keeps no state between decisions but the strength cache, a pure function of
the cards). ``--checkpoint`` takes a ``.pt`` file or a shipped checkpoint's name
(``nfq``, the default; ``nfq-seed``, seed 003's configuration; or its ablations ``nfq-chips``,
``nfq-lambda0``, ``nfq-n1``). The default is the seed's network trained from the default limit ``cfr``'s
demonstrations (``models/training/nfq_dqfd.py``); ``nfq-seed`` and the ablations learned by the seed's
Q(lambda) alone (``models/training/nfq.py``).
The network loads onto the GPU when there is one. Its passes go through
``models.q_networks.row_passes``: a decision is the same alone (over TCP) and batched with
other matches' in the in-process runner (``batch_key``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated

import numpy as np
import torch

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.agents.dqn import decision_states
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.models.checkpoints import FOLDER, CheckpointError, resolve_checkpoint
from acpc_arena.models.nfq.features import FEATURES, check_game, hand_strength, observation, window
from acpc_arena.models.nfq.network import NFQNetwork
from acpc_arena.models.q_networks.checkpoint import default_device, load_module, weights_digest
from acpc_arena.models.q_networks.row_passes import WHOLE_VECTORS, forward_rows
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action, ActionKind, State
from acpc_arena.protocol.wire import MatchState


@dataclass(frozen=True)
class NFQOptions(AgentOptions):
    checkpoint: Annotated[Path | None, "an NFQ checkpoint (.pt) or a shipped name"] = None
    threads: Annotated[int, "torch threads (1 suits one decision at a time)"] = 1


class NFQAgent(Agent):
    name = "nfq"
    Options = NFQOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        given = options_from(NFQOptions, options)
        check_game(game)
        torch.set_num_threads(given.threads or 1)
        path = resolve_checkpoint(given.checkpoint, ".pt") or FOLDER / "nfq.pt"
        self.device = default_device()
        try:
            self.net, self.meta = load_module(path, {"nfq": NFQNetwork}, self.device)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None  # acpc-agent prints it as one line
        self.window = int(self.meta.get("window", 0))
        if self.meta.get("features") != FEATURES or self.window * FEATURES != self.net.inputs:
            raise ValueError(f"{path}: its inputs do not match this version's observation ({FEATURES} features)")
        if self.meta.get("game_definition") != game.to_text():
            raise ValueError(f"{path} was trained on another game ({self.meta.get('game')})")
        self._strength = lru_cache(maxsize=65536)(self._compute_strength)

    def _compute_strength(self, hole: tuple[int, ...], board: tuple[int, ...]) -> tuple[float, float]:
        return hand_strength(self.game, hole, board)

    def state_vector(self, view: MatchState) -> np.ndarray:
        """The network's input at ``view``: the window of the viewer's observations this hand."""
        hole = tuple(view.state.hole_cards[view.viewer])
        observations = [
            observation(s, view.viewer, self._strength(hole, tuple(s.visible_board()))) for s in decision_states(view)
        ]
        return window(observations, self.window)

    @torch.no_grad()
    def q_values(self, views: Sequence[MatchState]) -> np.ndarray:
        """(views, 3) Q values, each view's row the same bits alone or batched (``models.q_networks.row_passes``)."""
        x = torch.from_numpy(np.stack([self.state_vector(v) for v in views])).to(self.device)
        return forward_rows(self.net, x, WHOLE_VECTORS).cpu().numpy()  # its rows are narrow (row_passes)

    def act(self, view: MatchState) -> Action:
        return self.act_batch([view])[0]

    def batch_key(self) -> Hashable | None:
        """The same for agents of the same weights on the same device (a row's bits are the same alone or
        batched, ``models.q_networks.row_passes``)."""
        return ("nfq", weights_digest(self.net), str(self.device))

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        """``act`` at each view (this agent's or others' of the same ``batch_key``: the strength cache aside, an
        agent keeps no state)."""
        if not views:
            return []
        return [best_action(v.state, q) for v, q in zip(views, self.q_values(views), strict=True)]

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        return [{action: 1.0} for action in self.act_batch(views)]


def best_action(state: State, q: np.ndarray) -> Action:
    """The legal action with the highest Q value (limit games: a raise has no size)."""
    legal = state.legal_actions()
    allowed = np.array([legal.can_fold, True, legal.can_raise])
    return Action(ActionKind(int(np.argmax(np.where(allowed, q, -np.inf)))))
