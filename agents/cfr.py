"""The CFR agent (seed 002): plays a CFR average strategy from a checkpoint.

It finds its decision node from the betting so far and its information set key
from its cards (the checkpoint's card abstraction: for hold'em seed 002's
improved or traditional nine buckets, or 169 starting hands and E[HS^2]
buckets), then samples an action from the average
strategy, or, with ``--argmax``, takes the most likely one (the seed's table 3.3,
"without the roulette wheel"). Actions the position does not allow never come
out: the probabilities are restricted to the legal actions.

No-limit games (``models/cfr/nolimit.py``): the betting so far is followed
through the checkpoint's abstract tree, the opponent's raise sizes translated by
the pseudo-harmonic mapping (one draw per raise, kept for the rest of the hand);
the agent's own pot-fraction raises are sized on the real pot and clamped into
the legal range, all-in is the whole stack. Where the real hand goes on past the
abstract one (a bet the tree took for all-in was called short of the stack) the
agent puts the rest in, as the abstract game assumed; where the abstract tree has
no decision for it in this round it checks or calls.

Shipped checkpoints (``models/checkpoints``): ``cfr-ehs2`` (the default: 169
starting hands and 50 E[HS^2] buckets a round) and seed 002's ``cfr-improved``
and ``cfr-traditional`` for ``holdem.limit.2p.reverse_blinds``, ``cfr-nl`` for
``holdem.nolimit.2p.reverse_blinds``, ``cfr-kuhn``, ``cfr-kuhn3p`` and
``cfr-leduc`` (exact CFR+). ``--checkpoint`` takes a file or the name of a
shipped checkpoint (``--checkpoint cfr-improved``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.base import Agent
from acpc_arena.models.cfr.checkpoint import CheckpointError, load_policy
from acpc_arena.models.cfr.nolimit import CALL_SLOT, FOLD_SLOT, NoLimitTree, fraction_raise_to, locate
from acpc_arena.models.checkpoints import checkpoint_path
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

DEFAULT_CHECKPOINTS = {
    "holdem.limit.2p.reverse_blinds": "cfr-ehs2",
    "holdem.nolimit.2p.reverse_blinds": "cfr-nl",
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
        self.translations: dict[tuple[int, int], int] = {}
        """The current hand's translated opponent raises, by (round, action index)."""
        self.keys: dict[int, int] = {}
        """The current hand's card keys by round (E[HS^2] costs a few thousand showdowns)."""
        self.hand_id: int | None = None

    def begin_hand(self, view: MatchState) -> None:
        self._start_hand(view.state.hand_id)

    def _start_hand(self, hand_id: int) -> None:
        self.hand_id = hand_id
        self.translations.clear()
        self.keys.clear()

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        parser.add_argument(
            "--checkpoint", type=Path, default=None, help="a CFR checkpoint (.npz), or a shipped one's name"
        )
        parser.add_argument("--argmax", action="store_true", help="always take the most likely action")

    def act(self, view: MatchState) -> Action:
        if isinstance(self.policy.tree, NoLimitTree):
            return self._act_nolimit(view)
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

    def _act_nolimit(self, view: MatchState) -> Action:
        state, policy = view.state, self.policy
        if state.hand_id != self.hand_id:
            self._start_hand(state.hand_id)
        tree = policy.tree
        assert isinstance(tree, NoLimitTree)
        legal = state.legal_actions()
        node = locate(tree, state, self.rng, self.translations).node
        if tree.player[node] < 0:  # the abstract hand ended all in: put the rest in
            return Action(RAISE, legal.max_raise_to) if legal.can_raise else CALL_ACTION
        if tree.player[node] != view.viewer or tree.round[node] != state.round:
            return CALL_ACTION
        key = self.keys.get(state.round)
        if key is None:
            key = self.keys[state.round] = policy.abstraction.key(
                state.hole_cards[view.viewer], state.visible_board(), state.round
            )
        probabilities = policy.strategy[policy.base[policy.decision_row[node]] + key].copy()
        probabilities[FOLD_SLOT] *= legal.can_fold
        probabilities[2:] *= legal.can_raise
        total = probabilities.sum()
        if total <= 0:
            return CALL_ACTION
        slot = (
            int(np.argmax(probabilities))
            if self.argmax
            else int(self.rng.choice(len(probabilities), p=probabilities / total))
        )
        return self._real_action(state, slot, int(tree.round[node]))

    def _real_action(self, state: State, slot: int, round_: int) -> Action:
        """The legal action of the real game that abstract ``slot`` stands for."""
        tree = self.policy.tree
        assert isinstance(tree, NoLimitTree)
        bets = tree.bets
        legal = state.legal_actions()
        if slot == FOLD_SLOT:
            return FOLD_ACTION
        if slot == CALL_SLOT:
            return CALL_ACTION
        if slot == bets.all_in_slot:
            return Action(RAISE, legal.max_raise_to)
        size = fraction_raise_to(state, bets.fractions[round_][slot - 2])
        return Action(RAISE, min(max(size, legal.min_raise_to), legal.max_raise_to))
