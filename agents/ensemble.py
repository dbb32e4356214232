"""Seed 001's ensemble exploiter (``ensemble``): counter networks integrated by opponent similarity.

The agent grows an opponent-model tree of the opponent it plays
(``models/ensemble/opponent_model.py``) from every hand's final ``MATCHSTATE``
(cards shown at a showdown included), and at each decision runs its nine
networks (the counters of O1 .. O8 and the base network) in one batched pass
on the last 5 steps of the hand (``models/ensemble/features.py``). Each
network's policy is the softmax of its scores over the legal outputs; the
action is the legal output of highest combined probability (deterministic),
its raise size clamped into the legal range, so it is always valid.
``policy`` is that choice with probability 1, for any hole cards in the view:
``policies`` runs the networks on all the views at once, and neither changes
the opponent model (it grows only at the end of a hand).

``--mode`` selects the paper's rows (table 3):

- ``a_star`` (default, A*): ``a_int`` where the model is confident, else
  ``a_base``. Confident (the paper gives no threshold): the current node (the
  betting history where the agent acts, seen from its seat) was reached in at
  least ``--min-visits`` earlier hands of this match. The default, 1 (the base
  network plays a betting line the model has never seen), was chosen by measurement
  on deal seed 42, which no results table uses.
- ``a_int``: the counters weighted by ``softmax(-d)``, ``d`` the style distance
  to each library entry along the current path.
- ``a_ave``: the counters' uniform average.
- ``a_base``: the base network alone.
- ``a_tar``: the counter of ``--style oN`` alone.
- ``clone``: the network evolution started from (the ``cfr-nl`` teacher
  cloned, ``ensemble-clone.pt``) alone: what evolution adds is A_base or A*
  against it.

Facing a large bet (1.5 pots or more: every all-in into a pot under two thirds of the stack
behind) the all-in guard (``agents/allin_guard.py``) decides, in every mode, between folding and
going on: the styles the counters were trained against never bet more than a pot (no library tree
has an opponent raise of 1.25 pots or more), so such a line lies outside what the networks were
trained on, whatever support the match has given it. It folds unless the hand's equity
against the opponent's implied range beats the price by 0.02; going on, the action is the
networks' choice among the outputs other than fold. Smaller bets are the networks' alone.
``--allin-guard off`` leaves every decision to the networks, as the seed's system has it.

Checkpoints: ``models/checkpoints/ensemble-networks.pt`` (+ ``.json``) and
``ensemble-library.json`` (``ensemble-clone.pt`` in ``clone`` mode), loaded onto
the GPU when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, get_args

import numpy as np
import torch

from acpc_arena.agents.allin_guard import AllInGuard, large_bet
from acpc_arena.agents.base import Agent, Policy
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.models.checkpoints import CheckpointError
from acpc_arena.models.ensemble.checkpoint import (
    CLONE,
    CLONE_PATH,
    LIBRARY_PATH,
    NETWORKS,
    NETWORKS_PATH,
    STYLE_NAMES,
    load_library,
    load_networks,
)
from acpc_arena.models.ensemble.features import step_features
from acpc_arena.models.ensemble.network import FOLD_OUTPUT, forward, legal_outputs, output_action, probabilities
from acpc_arena.models.ensemble.opponent_model import OpponentModel, shown_strength, similarity_weights
from acpc_arena.models.q_networks.checkpoint import default_device
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState

Mode = Literal["a_star", "a_int", "a_ave", "a_base", "a_tar", "clone"]
MODES: tuple[Mode, ...] = get_args(Mode)
StyleName = Literal["o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"]
"""The styles of the counter networks (``STYLE_NAMES``)."""
MIN_VISITS = 1
BASE = NETWORKS.index("base")


@dataclass(frozen=True)
class EnsembleOptions(AgentOptions):
    mode: Annotated[Mode, "A*, or an ablation of table 3"] = "a_star"
    style: Annotated[StyleName | None, "the counter network of a_tar"] = None
    min_visits: Annotated[int, "A* trusts the model at nodes seen this often"] = MIN_VISITS
    checkpoint: Annotated[Path | None, "the networks (ensemble-networks.pt; in clone mode ensemble-clone.pt)"] = None
    library: Annotated[Path | None, "the feature library (ensemble-library.json)"] = None
    threads: Annotated[int, "torch threads"] = 1
    allin_guard: Annotated[
        Literal["on", "off"], "facing 1.5 pots or more, fold unless the equity beats the price (off: the seed's system)"
    ] = "on"


class EnsembleAgent(Agent):
    name = "ensemble"
    default_game = "holdem.nolimit.2p.reverse_blinds"
    Options = EnsembleOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        if game.num_players != 2 or game.num_hole_cards != 2 or len(game.deck) != 52 or not game.no_limit:
            raise ValueError("the ensemble plays heads-up no-limit hold'em")
        given = options_from(EnsembleOptions, options)
        self.mode = given.mode
        style = given.style
        if self.mode == "a_tar" and style is None:
            raise ValueError(f"--mode a_tar needs --style, one of {', '.join(STYLE_NAMES)}")
        self.target = STYLE_NAMES.index(style) if style is not None else -1
        self.min_visits = given.min_visits
        torch.set_num_threads(given.threads or 1)
        self.device = default_device()
        try:
            if self.mode == "clone":
                params, self.config = load_networks(given.checkpoint or CLONE_PATH, self.device, CLONE)
            else:
                params, self.config = load_networks(given.checkpoint or NETWORKS_PATH, self.device)
            self.library = load_library(given.library or LIBRARY_PATH)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None
        self.params = {name: t.to(self.device) for name, t in params.items()}
        self.model = OpponentModel()
        self.guard = AllInGuard() if given.allin_guard == "on" else None
        self.last_weights: np.ndarray | None = None
        """The similarity weights of the last ``a_int`` decision (None when another policy decided)."""

    def network_outputs(self, view: MatchState) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(probabilities (N, 10) of the networks, legal outputs, path keys) for this decision."""
        probs, legal, keys = self.batch_outputs([view])
        return probs[:, 0], legal, keys

    @torch.no_grad()
    def batch_outputs(self, views: Sequence[MatchState]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(probabilities (N, B, 10), legal outputs, path keys) of B views with the same betting and seat: N is
        nine networks, or one in ``clone`` mode."""
        features = [step_features(view.state, view.viewer, self.model) for view in views]
        count = len(CLONE) if self.mode == "clone" else len(NETWORKS)
        opponent = torch.from_numpy(np.stack([f[0] for f in features])).to(self.device)
        game = torch.from_numpy(np.stack([f[1] for f in features])).to(self.device)
        x_opponent = opponent.expand(count, *opponent.shape)
        x_game = game.expand(count, *game.shape)
        scores = forward(self.params, self.config, x_opponent, x_game).cpu().numpy()
        legal = legal_outputs(views[0].state)
        return probabilities(scores, legal), legal, features[0][2]

    def combined(self, probs: np.ndarray, keys: list[str]) -> np.ndarray:
        """The mode's combination of the networks' probabilities (N, ..., 10) -> (..., 10)."""
        self.last_weights = None
        if self.mode == "a_tar":
            return probs[self.target]
        if self.mode == "clone":
            return probs[0]
        if self.mode == "a_base":
            return probs[BASE]
        if self.mode == "a_ave":
            return probs[: len(STYLE_NAMES)].mean(axis=0)
        if self.mode == "a_star" and self.model.visits(keys[-1]) < self.min_visits:
            return probs[BASE]
        distances = [self.model.distance(self.library[s], keys) for s in STYLE_NAMES]
        self.last_weights = similarity_weights(distances)
        return np.tensordot(self.last_weights, probs[: len(STYLE_NAMES)], axes=1)

    def act(self, view: MatchState) -> Action:
        probs, legal, keys = self.network_outputs(view)
        policy = self.combined(probs, keys)
        output = int(np.argmax(np.where(self.guarded(view, legal), policy, -np.inf)))
        return output_action(view.state, output)

    def guarded(self, view: MatchState, legal: np.ndarray) -> np.ndarray:
        """The outputs left at ``view`` by the all-in guard: facing a large bet, fold alone or all but fold."""
        if self.guard is None or not large_bet(view.state):
            return legal
        folds = self.guard.folds(view.state, view.viewer)
        kept = np.zeros_like(legal) if folds else legal.copy()
        kept[FOLD_OUTPUT] = folds
        return kept

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """The deterministic choice of ``act`` at each view (the same betting, any hole cards)."""
        if not views:
            return []
        probs, legal, keys = self.batch_outputs(views)
        kept = self.last_weights
        combined = self.combined(probs, keys)
        self.last_weights = kept
        allowed = np.stack([self.guarded(view, legal) for view in views])
        outputs = np.argmax(np.where(allowed, combined, -np.inf), axis=-1)
        return [{output_action(view.state, int(output)): 1.0} for view, output in zip(views, outputs, strict=True)]

    def end_hand(self, view: MatchState) -> None:
        state = view.state
        self.model.observe(state, view.viewer, shown_strength(state, view.viewer))
        if self.guard is not None:
            self.guard.end_hand(state, view.viewer)
