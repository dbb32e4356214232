"""The environments' discrete actions and their legal mask: ``ActionSet``.

Limit games: ``0`` fold, ``1`` call (or check), ``2`` raise. No-limit games: ``0`` fold, ``1`` call,
then one raise for each pot fraction ``f`` of ``raise_fractions`` (default ``DEFAULT_FRACTIONS``),
then ``all-in``. A pot-fraction raise is to::

    raise_to = clamp(max_spent + floor(f * (pot + to_call) + 1/2), min_raise_to, max_raise_to)

where ``pot`` is every chip the players have put in so far (this round's bets included),
``max_spent`` the largest of them (the bet to call), ``to_call`` what the player still owes of it
(``f = 1`` is the pot-sized raise, ``agents.base.pot_size_raise_to``), and ``min_raise_to`` and
``max_raise_to`` the ACPC rules' bounds (``State.legal_actions``): the last raise's size at least
again (at least the big blind), and the player's stack, which is ``all-in``'s size; a player whose
stack is short of the minimum may only go all in, so every raise is then all in. Two raises may
come to the same size once clamped.

The mask marks the legal actions at the player's turn: fold only when the player owes chips, call
always, the raises when the rules allow a raise (fewer than ``maxRaises`` this round, another player
still able to act, the player's stack above the bet). An illegal action (fold with nothing owed, a
raise that is not allowed) is an ``IllegalActionError`` with ``illegal_actions="error"``; with
``"fix"`` it is played as the dealer plays such a reply from a bot: as a call, counted among the
seat's invalid actions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from acpc_arena.agents.base import pot_size_raise_to
from acpc_arena.dealer.envs.table import IllegalActionError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State

DEFAULT_FRACTIONS = (0.5, 1.0, 2.0)
"""The no-limit raises by default: half the pot, the pot, twice the pot (and all-in)."""

FOLD_INDEX, CALL_INDEX, RAISE_INDEX = 0, 1, 2


class ActionSet:
    """The discrete actions of ``game`` (see the module's docstring); ``names`` says what each index is."""

    def __init__(self, game: Game, raise_fractions: Sequence[float] | None = None) -> None:
        self.game = game
        if raise_fractions is not None and not game.no_limit:
            raise ValueError("raise_fractions are for no-limit games: a limit game's raise has one size")
        fractions = tuple(DEFAULT_FRACTIONS if raise_fractions is None else raise_fractions)
        if not all(isinstance(f, int | float) and math.isfinite(f) and f > 0 for f in fractions):  # type: ignore[redundant-expr]  # a caller's list may hold anything
            raise ValueError(f"raise_fractions must be positive finite numbers, not {fractions!r}")
        self.fractions = fractions if game.no_limit else ()
        raises = [f"raise {f:g} pot" for f in self.fractions] + ["all-in"] if game.no_limit else ["raise"]
        self.names = ("fold", "call", *raises)
        self.size = len(self.names)

    def mask(self, state: State, acting: bool) -> npt.NDArray[np.int8]:
        """1 for each legal action of the player to act at ``state`` (all 0 if ``acting`` is False)."""
        mask = np.zeros(self.size, dtype=np.int8)
        if acting and not state.finished:
            mask[CALL_INDEX] = 1
            if state.can_fold():
                mask[FOLD_INDEX] = 1
            if state.raise_range() is not None:
                mask[RAISE_INDEX:] = 1
        return mask

    def index(self, action: object) -> int:
        """``action`` as an index of this set; IllegalActionError if it is none."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalActionError(f"an action is an index 0 to {self.size - 1}, not {action!r}")
        if not 0 <= action < self.size:
            raise IllegalActionError(f"no action {action}: the actions are 0 to {self.size - 1} ({self.describe()})")
        return int(action)

    def describe(self) -> str:
        """``0 fold, 1 call, 2 raise``."""
        return ", ".join(f"{i} {name}" for i, name in enumerate(self.names))

    def action(self, state: State, index: int) -> Action:
        """The action index ``index`` stands for at ``state`` (the player to act's): a fold or raise the rules
        do not allow there stays as it is (the engine plays it as a call and counts it)."""
        if index == FOLD_INDEX:
            return FOLD_ACTION
        if index == CALL_INDEX:
            return CALL_ACTION
        if not self.game.no_limit:
            return LIMIT_RAISE_ACTION
        legal = state.legal_actions()
        if not legal.can_raise:
            return Action(RAISE, 0)
        if index - RAISE_INDEX == len(self.fractions):
            return Action(RAISE, legal.max_raise_to)
        fraction = self.fractions[index - RAISE_INDEX]
        pot_raise = pot_size_raise_to(state) - state.max_spent  # the pot once the player has called
        wanted = state.max_spent + math.floor(fraction * pot_raise + 0.5)
        return Action(RAISE, min(max(wanted, legal.min_raise_to), legal.max_raise_to))

    def is_legal(self, state: State, index: int) -> bool:
        """Whether the rules allow action ``index`` at ``state``."""
        return bool(self.mask(state, True)[index])

    def illegal(self, state: State, index: int, where: str) -> IllegalActionError:
        """The error for illegal action ``index`` at ``state`` (``where``: the line the player was sent)."""
        name = self.names[index]
        why = "nothing is owed" if index == FOLD_INDEX else "no raise is allowed"
        legal = ", ".join(n for n, ok in zip(self.names, self.mask(state, True), strict=True) if ok)
        return IllegalActionError(f"{name} is illegal at {where}: {why} (legal: {legal})")
