"""The CFR agent (seed 002): plays a CFR average strategy from a checkpoint.

It finds its decision node from the betting so far and its information set key
from its cards (the checkpoint's card abstraction: for hold'em seed 002's
improved or traditional nine buckets, or 169 starting hands and E[HS^2]
buckets), then samples an action from the average strategy (``--sample``), or
takes the most likely one (``--argmax``: purification, the seed's table 3.3
"without the roulette wheel"); ``--threshold T`` samples without the actions the
strategy gives less than ``T`` of the legal actions' total, the rest renormalised
(Ganzfried, Sandholm and Waugh 2012, "Strategy purification and thresholding").
The default is ``--argmax`` for the limit hold'em default checkpoint
(``PURIFIED``: it wins more than the sampled strategy against every bot of the
sparring suite) and ``--sample`` for every other. Actions the position does not
allow never come out: the probabilities are restricted to the legal actions.

No-limit games (``models/cfr/nolimit.py``): the betting so far is followed
through the checkpoint's abstract tree, the opponent's raise sizes translated by
the pseudo-harmonic mapping (one draw per raise, kept for the rest of the hand);
the agent's own pot-fraction raises are sized on the real pot and clamped into
the legal range, all-in is the whole stack. Where the real hand goes on past the
abstract one (a bet the tree took for all-in was called short of the stack) the
agent puts the rest in, as the abstract game assumed, when the rest is at most a
pot-sized raise, and otherwise checks or calls; where the abstract tree has no
decision for it in this round it checks or calls. A raise the tree took for an
all-in that it is not (all-in was the only abstract raise left in the round, as
after two min-raises) is first put to the all-in guard; going on, the abstract
strategy's call of the all-in is the real all-in and its fold is a call.

The all-in guard (``agents/allin_guard.py``, heads-up no-limit hold'em of the
standard deck): facing a bet of 1.5 pots or more, or a raise taken for an all-in
as above, the agent folds unless its equity against the range the opponent's line
implies beats the price by 0.02; otherwise it plays the average strategy without
its fold.

Shipped checkpoints (``models/checkpoints``): ``cfr-ehs2-exact`` (the default:
public chance sampling, 169 starting hands and 200, 150 and 100 exact E[HS^2]
buckets on the flop, turn and river), ``cfr-ehs2`` (chance-sampled, 50 E[HS^2]
buckets a round) and seed 002's ``cfr-improved`` and ``cfr-traditional`` for
``holdem.limit.2p.reverse_blinds``, ``cfr-nl`` for
``holdem.nolimit.2p.reverse_blinds``, ``cfr-kuhn``, ``cfr-kuhn3p`` and
``cfr-leduc`` (exact CFR+). ``--checkpoint`` takes a file or the name of a
shipped checkpoint (``--checkpoint cfr-improved``).

With an ``ehs2-exact`` checkpoint (the limit default) the turn keys are looked up in the
checkpoint's turn table (``models/cfr/turn_table.py``) once ``acpc-cfr turn-table`` has
built it into the cache directory; until then they are computed, the same keys, slower (a
table that appears while the agent plays is used from the next turn on).

``--resolve-river`` (two-player limit hold'em only; ``models/cfr/river_resolve.py``): at the
agent's first decision on the river it takes both players' ranges from the average strategy (not
purified) over their actions before the river, solves the river's real betting between them at card
resolution with ``--resolve-iterations`` (default 200, about a second a river) iterations of
CFR+, and plays the rest of the river from that solution for its cards: the most likely action with
``--argmax`` (the default checkpoint's), else one drawn. Off by default: against ``spar_tag`` it did
not win more than the checkpoint's own river (``docs/agents/seed-002-cfr.md``).

``policy`` gives the restricted average strategy for any cards (``--argmax``:
its most likely action); in no-limit games an opponent raise not yet translated
in this hand weighs both pseudo-harmonic choices by their probabilities (the
translations already drawn are kept, as ``act`` keeps them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np

from acpc_arena.agents.allin_guard import AllInGuard, large_bet, supports
from acpc_arena.agents.base import Agent, Policy, merge
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.models.cfr.abstraction import Worlds
from acpc_arena.models.cfr.checkpoint import load_policy
from acpc_arena.models.cfr.nolimit import (
    CALL_SLOT,
    FOLD_SLOT,
    NoLimitTree,
    fraction_raise_to,
    locate,
    pot_after_call,
    translation_probabilities,
)
from acpc_arena.models.cfr.river_resolve import RiverResolver
from acpc_arena.models.checkpoints import CheckpointError, checkpoint_path, resolve_checkpoint
from acpc_arena.protocol.game import Game, game_name, load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

DEFAULT_CHECKPOINTS = {
    "holdem.limit.2p.reverse_blinds": "cfr-ehs2-exact",
    "holdem.nolimit.2p.reverse_blinds": "cfr-nl",
    "leduc.limit.2p": "cfr-leduc",
    "kuhn.limit.2p": "cfr-kuhn",
    "kuhn.limit.3p": "cfr-kuhn3p",
}
PURIFIED = frozenset({"cfr-ehs2-exact"})
"""Checkpoints (by file name) played by their most likely action unless ``--sample`` or ``--threshold`` is
given: purification (Ganzfried, Sandholm and Waugh 2012; ``docs/agents/seed-002-cfr.md`` says why)."""


def default_checkpoint(game: Game) -> Path:
    for stem, name in DEFAULT_CHECKPOINTS.items():
        if load_game(stem) == game:
            return checkpoint_path(name)
    raise ValueError("no shipped CFR checkpoint for this game: train one (acpc-cfr solve) and pass --checkpoint")


class _Undrawn(Exception):
    """A raise whose translation is not drawn yet: where it is and its possible slots."""

    def __init__(self, where: tuple[int, int], choices: list[tuple[int, float]]) -> None:
        self.where, self.choices = where, choices


_ARGMAX_HELP = f"always take the most likely action (the default of {', '.join(sorted(PURIFIED))})"


@dataclass(frozen=True)
class CFROptions(AgentOptions):
    checkpoint: Annotated[Path | None, "a CFR checkpoint (.npz), or a shipped one's name"] = None
    argmax: Annotated[bool, _ARGMAX_HELP] = False
    sample: Annotated[bool, "sample the average strategy (the default of the others)"] = False
    threshold: Annotated[
        float,
        "sample without the actions the strategy gives less than this probability, renormalising "
        "the rest (default 0: none dropped)",
    ] = 0.0
    resolve_river: Annotated[
        bool, "re-solve the river at card resolution against the ranges the average strategy implies (limit hold'em)"
    ] = False
    resolve_iterations: Annotated[int, "CFR+ iterations of each river re-solve (with --resolve-river)"] = 200


class CFRAgent(Agent):
    name = "cfr"
    Options = CFROptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        given = options_from(CFROptions, options)
        path = resolve_checkpoint(given.checkpoint, ".npz") or default_checkpoint(game)
        try:
            self.checkpoint = load_policy(path)
        except CheckpointError as exc:
            shipped = ", ".join(sorted(p.stem for p in checkpoint_path("cfr").parent.glob("cfr-*.npz")))
            raise ValueError(f"{exc} (shipped checkpoints: {shipped})") from None
        if self.checkpoint.game != game:
            trained = game_name(self.checkpoint.game)
            raise ValueError(f"checkpoint {path.stem} is for {trained}, not for {game_name(game)}")
        self.threshold = given.threshold
        if not 0.0 <= self.threshold < 1.0:
            raise ValueError(f"--threshold must be at least 0 and below 1, not {self.threshold}")
        argmax, sample = given.argmax, given.sample
        if argmax and (sample or self.threshold > 0):
            raise ValueError("--argmax plays one action: give it without --sample or --threshold")
        self.argmax = argmax or (path.stem in PURIFIED and not sample and self.threshold == 0)
        """Whether the agent plays the most likely action (else it samples the average strategy)."""
        self.rng = np.random.default_rng(seed)
        self.translations: dict[tuple[int, int], int] = {}
        """The current hand's translated opponent raises, by (round, action index)."""
        self.keys: tuple[tuple[int, ...], dict[tuple[int, ...], int]] = ((), {})
        """The board (round 0: none) and the card keys of the holdings seen with it (E[HS^2] costs a few
        thousand showdowns; LBR asks for the same holdings on one board many times)."""
        self.hand_id: int | None = None
        nolimit = isinstance(self.checkpoint.tree, NoLimitTree)
        self.guard = AllInGuard() if nolimit and supports(game) else None
        """The all-in guard (no-limit heads-up hold'em only)."""
        self.resolver = (
            RiverResolver(game, self._average_policies, given.resolve_iterations) if given.resolve_river else None
        )
        """The river re-solver (``--resolve-river``), else None."""

    def begin_hand(self, view: MatchState) -> None:
        self._start_hand(view.state.hand_id)

    def _start_hand(self, hand_id: int) -> None:
        self.hand_id = hand_id
        self.translations.clear()

    def act(self, view: MatchState) -> Action:
        if isinstance(self.checkpoint.tree, NoLimitTree):
            return self._act_nolimit(view)
        state = view.state
        if self.resolver is not None and state.round == state.game.num_rounds - 1:
            return self._played(self.resolver.policies([view])[0])
        probabilities = self._rows([view], self.checkpoint.node(view))[0].copy()  # the keys kept for the board
        legal = state.legal_actions()
        probabilities[0] *= legal.can_fold
        probabilities[2] *= legal.can_raise
        probabilities = self._thresholded(probabilities)
        total = probabilities.sum()
        if total <= 0:
            return CALL_ACTION
        kind = int(np.argmax(probabilities)) if self.argmax else int(self.rng.choice(3, p=probabilities / total))
        return (FOLD_ACTION, CALL_ACTION, Action(RAISE))[kind]

    def end_hand(self, view: MatchState) -> None:
        if self.guard is not None:
            self.guard.end_hand(view.state, view.viewer)

    def _guarded(self, state: State, node: int) -> bool:
        """Whether the all-in guard decides between fold and going on (see ``agents.allin_guard``): facing a
        large bet, or a bet that the tree took for an all-in (``_short_all_in``)."""
        return self.guard is not None and (large_bet(state) or self._short_all_in(state, node))

    def _short_all_in(self, state: State, node: int) -> bool:
        """Whether ``node`` has the player to act facing an all-in that the real bet is not (a raise translated
        to all-in because the abstract round had no other raise left)."""
        tree, game = self.checkpoint.tree, state.game
        me = state.current_player
        if state.finished or tree.player[node] != me or tree.round[node] != state.round:
            return False
        opponent = 1 - me
        return bool(tree.spent[node, opponent] >= game.stack[opponent] > state.spent[opponent])

    def _act_nolimit(self, view: MatchState) -> Action:
        state, policy = view.state, self.checkpoint
        if state.hand_id != self.hand_id:
            self._start_hand(state.hand_id)
        tree = policy.tree
        assert isinstance(tree, NoLimitTree)
        node = locate(tree, state, self.rng, self.translations).node
        guarded = self._guarded(state, node)
        if guarded and self.guard is not None and self.guard.folds(state, view.viewer):
            return FOLD_ACTION
        if self._off_tree(state, node):
            return self._off_tree_action(state, node)
        key = int(self._card_keys([state.hole_cards[view.viewer]], state.visible_board(), state.round)[0])
        probabilities = policy.strategy[policy.base[policy.decision_row[node]] + key].copy()
        probabilities = self._thresholded(probabilities * self._allowed(state, node, guarded))
        total = probabilities.sum()
        if total <= 0:
            return CALL_ACTION
        slot = (
            int(np.argmax(probabilities))
            if self.argmax
            else int(self.rng.choice(len(probabilities), p=probabilities / total))
        )
        return self._slot_action(state, node, slot)

    def _allowed(self, state: State, node: int, guarded: bool) -> np.ndarray:
        """The slots the agent may take at ``node``: the legal ones of the real game, without the fold where
        the guard goes on; facing a short all-in (``_short_all_in``), the tree's own (fold and call)."""
        tree = self.checkpoint.tree
        if self._short_all_in(state, node):
            return np.asarray(tree.children[node] >= 0)
        legal = state.legal_actions()
        allowed = np.ones(tree.children.shape[1], dtype=bool)
        allowed[FOLD_SLOT], allowed[2:] = legal.can_fold and not guarded, legal.can_raise
        return allowed

    def _slot_action(self, state: State, node: int, slot: int) -> Action:
        """The real action of abstract ``slot`` at ``node``; facing a short all-in, the abstract fold is a call
        and the abstract call of the all-in is the real all-in (a call where no raise is left)."""
        if self._short_all_in(state, node):
            legal = state.legal_actions()
            return Action(RAISE, legal.max_raise_to) if slot == CALL_SLOT and legal.can_raise else CALL_ACTION
        return self._real_action(state, slot, int(self.checkpoint.tree.round[node]))

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """Batched over the views' cards (one abstraction pass); the betting is taken from the first view."""
        if not views:
            return []
        state, viewer = views[0].state, views[0].viewer
        if self.resolver is not None and state.round == state.game.num_rounds - 1:
            resolved = self.resolver.policies(views)
            return [{self._played(p): 1.0} for p in resolved] if self.argmax else resolved
        if not isinstance(self.checkpoint.tree, NoLimitTree):
            rows = self._rows(views, self.checkpoint.node(views[0]))
            legal = state.legal_actions()
            kinds = (FOLD_ACTION, CALL_ACTION, Action(RAISE))
            allowed = np.array([legal.can_fold, True, legal.can_raise])
            return self._slot_policies(rows, allowed, kinds.__getitem__)
        mixed: list[list[tuple[Action, float]]] = [[] for _ in views]
        folds: dict[int, bool] = {}

        def guard_folds(i: int) -> bool:
            if i not in folds:
                assert self.guard is not None
                folds[i] = self.guard.folds(views[i].state, viewer)
            return folds[i]

        translated = self._translated_nodes(state)
        for weight, node in translated:
            guarded = self._guarded(state, node)
            going_on = [i for i in range(len(views)) if not (guarded and guard_folds(i))]
            for i in set(range(len(views))) - set(going_on):
                mixed[i].append((FOLD_ACTION, weight))
            if self._off_tree(state, node):
                action = self._off_tree_action(state, node)
                for i in going_on:
                    mixed[i].append((action, weight))
                continue
            if not going_on:
                continue
            allowed = self._allowed(state, node, guarded)
            real: dict[int, Action] = {}

            def action_of(slot: int, node: int = node, real: dict[int, Action] = real) -> Action:
                if slot not in real:
                    real[slot] = self._slot_action(state, node, slot)
                return real[slot]

            rows = self._rows([views[i] for i in going_on], node)
            policies = self._slot_policies(rows, allowed, action_of)
            if len(translated) == 1 and weight == 1.0 and len(going_on) == len(views):  # nothing to mix
                return policies
            for i, policy in zip(going_on, policies, strict=True):
                mixed[i].extend((action, weight * p) for action, p in policy.items())
        return [merge(pairs) for pairs in mixed]

    def _average_policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """``policies`` of the average strategy itself (no purification, no threshold): the river's ranges."""
        played = self.argmax, self.threshold
        self.argmax, self.threshold = False, 0.0
        try:
            return self.policies(views)
        finally:
            self.argmax, self.threshold = played

    def _played(self, policy: Policy) -> Action:
        """The action taken from ``policy``: its most likely with --argmax, else one drawn."""
        actions = list(policy)
        if self.argmax:
            return max(actions, key=policy.__getitem__)
        weights = np.array([policy[a] for a in actions])
        return actions[int(self.rng.choice(len(actions), p=weights / weights.sum()))]

    def _rows(self, views: Sequence[MatchState], node: int) -> np.ndarray:
        """The average strategy at ``node`` for each view's cards."""
        checkpoint, state = self.checkpoint, views[0].state
        keys = self._card_keys(
            [view.state.hole_cards[view.viewer] for view in views], state.visible_board(), state.round
        )
        return checkpoint.strategy[checkpoint.base[checkpoint.decision_row[node]] + keys]

    def _card_keys(self, holes: list[list[int]], board: list[int], round_: int) -> np.ndarray:
        """The abstraction's key of each hole on ``board`` in ``round_``, each holding computed once a board."""
        seen = (round_, *board)
        if self.keys[0] != seen:
            self.keys = (seen, {})
        known = self.keys[1]
        missing = list({tuple(hole) for hole in holes} - known.keys())
        if missing:
            cards = np.array(missing, dtype=np.uint8).reshape(len(missing), 1, -1)
            boards = np.array([board] * len(missing), dtype=np.uint8).reshape(len(missing), len(board))
            new = self.checkpoint.abstraction.keys(Worlds(cards, boards, np.ones(len(missing))), 0, round_)
            known.update(zip(missing, new.tolist(), strict=True))
        return np.array([known[tuple(hole)] for hole in holes], dtype=np.int64)

    def _slot_policies(self, rows: np.ndarray, allowed: np.ndarray, action_of: Callable[[int], Action]) -> list[Policy]:
        """For each row of ``rows`` (H, slots), the real actions of its slots restricted to ``allowed``
        (renormalised; argmax with --argmax), each the policy ``_thresholded`` gives the row alone: one pass
        over the rows (a range's holdings), rows alike answered once."""
        probabilities = np.where(allowed, rows, 0.0)
        if self.threshold > 0:
            kept = probabilities >= self.threshold * probabilities.sum(axis=1, keepdims=True)
            kept[np.arange(len(rows)), np.argmax(probabilities, axis=1)] = True
            probabilities = np.where(kept, probabilities, 0.0)
        totals, best = probabilities.sum(axis=1).tolist(), np.argmax(probabilities, axis=1).tolist()
        answered: dict[tuple[float, ...], Policy] = {}
        out = []
        for row, total, most in zip(probabilities.tolist(), totals, best, strict=True):
            key = tuple(row)
            policy = answered.get(key)
            if policy is None:
                if total <= 0:
                    policy = {CALL_ACTION: 1.0}
                elif self.argmax:
                    policy = {action_of(most): 1.0}
                else:
                    policy = merge([(action_of(slot), p / total) for slot, p in enumerate(row) if p > 0])
                answered[key] = policy
            out.append(policy)
        return out

    def _thresholded(self, probabilities: np.ndarray) -> np.ndarray:
        """``probabilities`` (restricted to the allowed actions) without those below ``--threshold`` of their
        total; the most likely action is always kept."""
        total = probabilities.sum()
        if self.threshold <= 0 or total <= 0:
            return probabilities
        kept = probabilities >= self.threshold * total
        kept[int(np.argmax(probabilities))] = True
        return np.where(kept, probabilities, 0.0)

    def _off_tree(self, state: State, node: int) -> bool:
        """Whether the abstract tree has no decision of the player to act at ``node`` in this round."""
        tree = self.checkpoint.tree
        return bool(tree.player[node] != state.current_player or tree.round[node] != state.round)

    def _off_tree_action(self, state: State, node: int) -> Action:
        """What the agent does where ``_off_tree``: all in where the abstract hand ended all in and the rest
        is at most a pot-sized raise, else a check or a call (see the module docstring)."""
        legal = state.legal_actions()
        if self.checkpoint.tree.player[node] < 0 and legal.can_raise:
            rest = legal.max_raise_to - state.max_spent
            if rest <= pot_after_call(state):
                return Action(RAISE, legal.max_raise_to)
        return CALL_ACTION

    def _translated_nodes(self, state: State) -> list[tuple[float, int]]:
        """(probability, abstract node) of each way the hand's raises may translate, the drawn ones kept."""
        tree = self.checkpoint.tree
        assert isinstance(tree, NoLimitTree)
        drawn = dict(self.translations) if state.hand_id == self.hand_id else {}
        out: list[tuple[float, int]] = []

        def follow(memo: dict[tuple[int, int], int], weight: float) -> None:
            def branch(where: tuple[int, int], fractions: dict[int, float], x: float) -> int:
                raise _Undrawn(where, translation_probabilities(fractions, x))

            try:
                out.append((weight, locate(tree, state, self.rng, dict(memo), branch).node))
            except _Undrawn as undrawn:
                for slot, p in undrawn.choices:
                    if p > 0:
                        follow({**memo, undrawn.where: slot}, weight * p)

        follow(drawn, 1.0)
        return out

    def _real_action(self, state: State, slot: int, round_: int) -> Action:
        """The legal action of the real game that abstract ``slot`` stands for."""
        tree = self.checkpoint.tree
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
