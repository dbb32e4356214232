"""The agent interface: one class per agent, one method to choose an action.

An agent sees the hand as its player sees it, a ``MatchState`` (``view.viewer``
is its position in this hand, ``view.state`` the hand with the others' cards
unknown until a showdown), and returns an ``Action``. ``begin_hand`` and
``end_hand`` are called at the first and the last message of each hand.

    class MyAgent(Agent):
        name = "mine"

        def act(self, view: MatchState) -> Action:
            legal = view.state.legal_actions()   # can_fold, can_raise, min/max raise-to, to_call
            return Action(CALL)

Register it in ``agents/registry.py`` and ``acpc-agent mine HOST PORT`` plays it.
Options: override ``add_arguments`` (argparse) and read them from ``options``.
"""

from __future__ import annotations

import argparse
from typing import Any, ClassVar

from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, Action, State
from acpc_arena.protocol.wire import MatchState


class Agent:
    """Base class of every agent."""

    name: ClassVar[str] = "agent"
    default_game: ClassVar[str] = "holdem.limit.2p.reverse_blinds"
    """The game file used when ``--game`` is not given."""

    def __init__(self, game: Game, seed: int | None = None, **options: Any) -> None:
        self.game = game
        self.seed = seed
        self.options = options

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        """Declare the agent's own command-line options on ``parser`` (a parser or an argument group)."""

    def begin_hand(self, view: MatchState) -> None:
        """Called with the first state of each hand."""

    def act(self, view: MatchState) -> Action:
        """The action to take; called only when ``view.viewer`` is to act."""
        raise NotImplementedError

    def end_hand(self, view: MatchState) -> None:
        """Called with the final state of each hand (others' cards shown if there was a showdown)."""


def valid_or_call(state: State, action: Action) -> Action:
    """``action`` made valid as the dealer would (raise sizes clamped); call if it cannot be."""
    fixed = state.validate_action(action, try_fixing=True)
    return fixed if fixed is not None else CALL_ACTION


def pot_size_raise_to(state: State) -> int:
    """The raise-to amount of a pot-sized raise for the player to act (no-limit)."""
    player = state.current_player
    to_call = state.max_spent - state.spent[player]
    return state.max_spent + sum(state.spent) + to_call
