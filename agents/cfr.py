"""The CFR agent (seed 002): plays a CFR average strategy from a checkpoint.

It finds its decision node from the betting so far and its information set key
from its cards (the checkpoint's card abstraction: for hold'em seed 002's
improved or traditional nine buckets, or 169 starting hands and E[HS^2]
buckets), then samples an action from the average
strategy, or, with ``--argmax``, takes the most likely one (the seed's table 3.3,
"without the roulette wheel"). Actions the position does not allow never come
out: the probabilities are restricted to the legal actions.

Shipped checkpoints (``models/checkpoints``): ``cfr-improved`` (the default),
``cfr-traditional`` and ``cfr-ehs2`` (not yet trained enough to be the default:
see the README) for ``holdem.limit.2p.reverse_blinds``, ``cfr-kuhn``,
``cfr-kuhn3p`` and ``cfr-leduc`` (exact CFR+). ``--checkpoint``
takes a file or the name of a shipped checkpoint (``--checkpoint cfr-improved``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.base import Agent
from acpc_arena.models.cfr.checkpoint import CheckpointError, load_policy
from acpc_arena.models.checkpoints import checkpoint_path
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action
from acpc_arena.protocol.wire import MatchState

DEFAULT_CHECKPOINTS = {
    "holdem.limit.2p.reverse_blinds": "cfr-improved",
    "leduc.limit.2p": "cfr-leduc",
    "kuhn.limit.2p": "cfr-kuhn",
    "kuhn.limit.3p": "cfr-kuhn3p",
}


def default_checkpoint(game: Game) -> Path:
    for stem, name in DEFAULT_CHECKPOINTS.items():
        if load_game(stem) == game:
            return checkpoint_path(name)
    raise ValueError("no shipped CFR checkpoint for this game: train one (acpc-cfr solve) and pass --checkpoint")


def resolve_checkpoint(given: str | Path | None) -> Path | None:
    """A checkpoint file, or the shipped checkpoint of that name (``cfr-improved``) when no such file exists."""
    if given is None:
        return None
    path = Path(given)
    shipped = checkpoint_path(str(given))
    if not path.with_suffix(".npz").exists() and path.name == str(given) and shipped.exists():
        return shipped
    return path


class CFRAgent(Agent):
    name = "cfr"

    def __init__(self, game: Game, seed: int | None = None, **options: Any) -> None:
        super().__init__(game, seed, **options)
        path = resolve_checkpoint(options.get("checkpoint")) or default_checkpoint(game)
        try:
            self.policy = load_policy(path)
        except CheckpointError as exc:
            shipped = ", ".join(sorted(p.stem for p in checkpoint_path("cfr").parent.glob("cfr-*.npz")))
            raise ValueError(f"{exc} (shipped checkpoints: {shipped})") from None
        if self.policy.game != game:
            raise ValueError(f"{path} was trained for another game than the one being played")
        self.argmax = bool(options.get("argmax", False))
        self.rng = np.random.default_rng(seed)

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--checkpoint", type=Path, default=None, help="a CFR checkpoint (.npz), or a shipped one's name"
        )
        parser.add_argument("--argmax", action="store_true", help="always take the most likely action")

    def act(self, view: MatchState) -> Action:
        state = view.state
        probabilities = self.policy.probabilities(view).copy()
        legal = state.legal_actions()
        probabilities[0] *= legal.can_fold
        probabilities[2] *= legal.can_raise
        total = probabilities.sum()
        if total <= 0:
            return CALL_ACTION
        kind = int(np.argmax(probabilities)) if self.argmax else int(self.rng.choice(3, p=probabilities / total))
        return (FOLD_ACTION, CALL_ACTION, Action(RAISE))[kind]
