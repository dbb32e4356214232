"""No-limit CFR: the betting abstraction, its tree, and action translation.

A no-limit game has thousands of legal raise sizes at every decision; CFR solves
a game where each player has a few (``BetAbstraction``):

- fold, call (check), a raise of each of the round's pot fractions, and all-in;
- a pot fraction ``f`` raises by ``f`` times the pot after calling: the raise-to
  is ``max_spent + f * (chips in the pot + chips to call)``, rounded, and raised
  to the minimum legal raise where it falls short; a size that reaches the stack
  is dropped (all-in is its own action), as is a size equal to a smaller
  fraction's (two fractions both clamped to the minimum raise);
- at most ``raise_cap`` pot-fraction raises per round; all-in stays available
  after the cap, so that a player can always answer a bet with everything.

The tree (``build_nolimit_tree``) is a ``BettingTree`` whose action slots are
fold, call, the pot fractions in increasing order and all-in (-1 where an action
is missing), built through the ``State`` engine, so every abstract action is a
legal ACPC action with exactly the dealer's rules.

Off-tree raises by the opponent are translated to the abstract raise sizes
around them with the pseudo-harmonic mapping of Ganzfried and Sandholm (2013,
"Action translation in extensive-form games with large action spaces"): with
sizes as fractions of the pot, a bet ``x`` between abstract sizes ``A < B`` maps
to ``A`` with probability ``(B - x)(1 + A) / ((B - A)(1 + x))`` and to ``B``
otherwise. A bet below the smallest abstract size maps to it, and one above the
largest non-all-in size is placed between it and all-in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from acpc_arena.models.cfr.tree import BettingTree, Move, walk_tree
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State

FOLD_SLOT = 0
CALL_SLOT = 1


@dataclass(frozen=True)
class BetAbstraction:
    """Which raises the abstract no-limit game has (see the module docstring)."""

    fractions: tuple[tuple[float, ...], ...]
    """Pot fractions of each betting round, increasing."""
    raise_cap: int
    """Pot-fraction raises allowed per round (all-in is always allowed)."""

    def __post_init__(self) -> None:
        if self.raise_cap < 0:
            raise ValueError(f"the raise cap must be 0 or more, not {self.raise_cap}")
        for sizes in self.fractions:
            if any(f <= 0 for f in sizes) or list(sizes) != sorted(set(sizes)):
                raise ValueError(f"pot fractions must be positive and increasing, not {','.join(map(str, sizes))}")

    @property
    def num_actions(self) -> int:
        """Action slots: fold, call, the most fractions any round has, all-in."""
        return 3 + max(len(sizes) for sizes in self.fractions)

    @property
    def all_in_slot(self) -> int:
        return self.num_actions - 1

    @classmethod
    def parse(cls, text: str, raise_cap: int, num_rounds: int) -> BetAbstraction:
        """``"1,3/0.5,1/1/1"``: each round's pot fractions, rounds separated by ``/``; one group is
        used for every round and the last group repeats for the missing rounds."""
        groups = text.split("/")
        if not text.strip() or len(groups) > num_rounds:
            raise ValueError(f"give up to {num_rounds} groups of pot fractions separated by '/': {text!r}")
        try:
            fractions = [tuple(float(f) for f in group.split(",") if f.strip()) for group in groups]
        except ValueError:
            raise ValueError(f"pot fractions must be numbers: {text!r}") from None
        fractions += [fractions[-1]] * (num_rounds - len(fractions))
        return cls(tuple(fractions), raise_cap)

    def text(self) -> str:
        return "/".join(",".join(f"{f:g}" for f in sizes) for sizes in self.fractions)

    def describe(self) -> dict[str, Any]:
        return {"fractions": [list(sizes) for sizes in self.fractions], "raise_cap": self.raise_cap}

    @classmethod
    def from_description(cls, description: dict[str, Any]) -> BetAbstraction:
        return cls(
            tuple(tuple(float(f) for f in sizes) for sizes in description["fractions"]), int(description["raise_cap"])
        )


DEFAULT_BETS = "1,3/1/1/1"
"""One and three pots before the flop, one pot after: the shipped cfr-nl."""
DEFAULT_RAISE_CAP = 2


def pot_after_call(state: State) -> int:
    """Chips in the pot once the player to act has called."""
    return sum(state.spent) + (
        min(state.max_spent, state.game.stack[state.current_player]) - state.spent[state.current_player]
    )


def fraction_raise_to(state: State, fraction: float) -> int:
    """The raise-to of a ``fraction``-of-the-pot raise, before clamping to the legal range."""
    return state.max_spent + round(fraction * pot_after_call(state))


def raise_fraction(state: State, raise_to: int) -> float:
    """A raise-to amount as the fraction of the pot (after calling) it raises by."""
    return (raise_to - state.max_spent) / pot_after_call(state)


def abstract_raises(state: State, bets: BetAbstraction, raises_this_round: int) -> dict[int, int]:
    """{action slot: raise-to} of every abstract raise allowed at ``state`` (all-in included)."""
    legal = state.legal_actions()
    if not legal.can_raise:
        return {}
    out: dict[int, int] = {}
    if raises_this_round < bets.raise_cap:
        taken = set()
        for i, fraction in enumerate(bets.fractions[state.round]):
            size = max(fraction_raise_to(state, fraction), legal.min_raise_to)
            if size < legal.max_raise_to and size not in taken:
                out[2 + i] = size
                taken.add(size)
    out[bets.all_in_slot] = legal.max_raise_to
    return out


@dataclass(frozen=True)
class NoLimitTree(BettingTree):
    """A ``BettingTree`` of an abstract no-limit game, with the raise-to of each raise edge."""

    bets: BetAbstraction
    raise_to: np.ndarray
    """(nodes, actions): the raise-to amount of each raise slot (0 where none)."""
    round_raises: np.ndarray
    """Pot-fraction raises made in the node's round so far (for the cap)."""


def build_nolimit_tree(game: Game, bets: BetAbstraction) -> NoLimitTree:
    """Every betting sequence of the abstract game, breadth first."""
    if not game.no_limit:
        raise ProtocolError("the no-limit tree is for no-limit games")
    if len(bets.fractions) != game.num_rounds:
        raise ValueError(f"the bet abstraction has {len(bets.fractions)} rounds, the game {game.num_rounds}")

    def moves(state: State, raises: int) -> list[Move]:
        found: list[Move] = [(FOLD_SLOT, Action(FOLD), raises)] if state.can_fold() else []
        found.append((CALL_SLOT, Action(CALL), raises))
        for slot, size in abstract_raises(state, bets, raises).items():
            found.append((slot, Action(RAISE, size), raises + (slot != bets.all_in_slot)))
        return found

    nodes = walk_tree(game, bets.num_actions, moves)
    return NoLimitTree(
        game=game,
        sequences=tuple(nodes.sequences),
        **nodes.arrays(),
        bets=bets,
        raise_to=np.array(nodes.raise_to, dtype=np.int64),
        round_raises=np.array(nodes.counts, dtype=np.int32),
    )


# -- action translation -------------------------------------------------------


def pseudo_harmonic(a: float, b: float, x: float) -> float:
    """Probability of mapping a bet of ``x`` (pot fractions) to the smaller abstract size ``a < b``.

    Ganzfried and Sandholm's pseudo-harmonic mapping ``(b - x)(1 + a) / ((b - a)(1 + x))``:
    1 at ``x = a``, 0 at ``x = b``, and from the smaller size's side it is scale invariant.
    """
    if not a < b:
        raise ValueError(f"the abstract sizes must be increasing: {a}, {b}")
    x = min(max(x, a), b)
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def translation_probabilities(sizes_by_slot: dict[int, float], x: float) -> list[tuple[int, float]]:
    """(slot, probability) of each abstract size (a pot fraction) a real bet of ``x`` pot may map to.

    Between two abstract sizes the pseudo-harmonic mapping picks one at random
    (the smaller first); below the smallest or above the largest, the nearest is taken.
    """
    slots = sorted(sizes_by_slot, key=lambda s: sizes_by_slot[s])
    sizes = [sizes_by_slot[s] for s in slots]
    if x <= sizes[0]:
        return [(slots[0], 1.0)]
    if x >= sizes[-1]:
        return [(slots[-1], 1.0)]
    i = int(np.searchsorted(sizes, x, side="right")) - 1
    smaller = pseudo_harmonic(sizes[i], sizes[i + 1], x)
    return [(slots[i], smaller), (slots[i + 1], 1.0 - smaller)]


def translate_fraction(sizes_by_slot: dict[int, float], x: float, rng: np.random.Generator) -> int:
    """The slot a real bet of ``x`` pot maps to, drawn by ``translation_probabilities``."""
    choices = translation_probabilities(sizes_by_slot, x)
    if len(choices) == 1:
        return choices[0][0]
    return choices[0][0] if rng.random() < choices[0][1] else choices[1][0]


@dataclass
class Located:
    """Where a real betting history is in the abstract tree."""

    node: int
    """The abstract node (a terminal when the abstract hand ended earlier than the real one)."""
    abstract: State
    """The abstract game's state at ``node``."""


def locate(
    tree: NoLimitTree,
    real: State,
    rng: np.random.Generator,
    memo: dict[tuple[int, int], int],
    translate: Callable[[tuple[int, int], dict[int, float], float], int] | None = None,
) -> Located:
    """Follow the real betting of ``real`` through the abstract tree.

    Calls and folds map to themselves; a real all-in to all-in; any other raise to
    an abstract raise by ``translate_fraction`` (fractions of each game's own pot).
    A raise where the abstract game has none left maps to a call. ``memo`` keeps
    each translation drawn for a (round, index) of the current hand, so the hand's
    history maps the same way at every later decision (clear it between hands).
    ``translate((round, index), fractions, x)``, when given, makes the choices
    instead of ``translate_fraction`` with ``rng``.
    """
    game = tree.game
    bets = tree.bets
    replay = State(game)
    abstract = State(game)
    node = 0
    for round_ in range(real.round + 1):
        for index, action in enumerate(real.actions[round_]):
            if tree.player[node] < 0:
                return Located(node, abstract)
            slot = CALL_SLOT if action.kind == CALL else FOLD_SLOT
            if action.kind == RAISE:
                raises = {
                    s: int(tree.raise_to[node, s]) for s in range(2, bets.num_actions) if tree.children[node, s] >= 0
                }
                if not raises:
                    slot = CALL_SLOT
                elif action.size >= game.stack[replay.current_player] and bets.all_in_slot in raises:
                    slot = bets.all_in_slot
                elif (round_, index) in memo:
                    slot = memo[(round_, index)]
                else:
                    fractions = {s: raise_fraction(abstract, size) for s, size in raises.items()}
                    x = raise_fraction(replay, action.size)
                    slot = memo[(round_, index)] = (
                        translate((round_, index), fractions, x) if translate else translate_fraction(fractions, x, rng)
                    )
            if tree.children[node, slot] < 0:
                slot = CALL_SLOT
            next_action = (
                Action(RAISE, int(tree.raise_to[node, slot]))
                if slot >= 2
                else Action(FOLD if slot == FOLD_SLOT else CALL)
            )
            abstract.apply(next_action)
            replay.apply(action)
            node = int(tree.children[node, slot])
    return Located(node, abstract)
