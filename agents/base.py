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

``acpc-agent path/to/mine.py:MyAgent HOST PORT`` plays it (a spec, ``agents.registry``), and
``acpc-agent --check path/to/mine.py:MyAgent`` verifies the promises below (``agents.checking``).
Options: a frozen dataclass, the class's ``Options`` (``agents.options``: its fields are the
command-line options), taken by the constructor as ``options`` or as keywords.

What an agent promises (the contract of ``agents.api``, version ``API_VERSION``):

- ``act`` returns a legal action of the state it is shown, exactly (a no-limit raise by its raise-to
  within ``[min_raise_to, max_raise_to]``, no size on anything else, no fold when nothing is owed);
- ``policy(view)`` gives the probability of every action ``act`` could take at ``view`` (a
  ``Policy``): legal actions only, no-limit raises by their raise-to size, probabilities not negative
  and summing to 1, for any hole cards in ``view``, not only the ones dealt, and without changing the
  agent's state: sampling it is drawing ``act``. Local best response (``acpc-lbr``) and AIVAT need
  nothing else; ``policies`` asks for many views at once (the same betting, different hole cards) and
  is the place to batch. An agent without ``policy`` plays everywhere but gets no LBR and no AIVAT;
- no method changes a view it is given: views share their lists (``protocol.views.range_views``);
- an agent built with a seed (and the same options) makes the same choices when shown the same views;
- it plays the shipped games ``games`` names (``None``, the default: every shipped game its constructor
  accepts; a constructor refuses a game with a ``ValueError`` saying why).

An agent whose choice is a function of the view alone (a network's argmax) may
give a ``batch_key``: the in-process runner then decides the views of every agent
of that key waiting at once, across matches, in one ``act_batch`` (``agents.dqn``).
"""

from __future__ import annotations

import argparse
from collections.abc import Hashable, Sequence
from typing import ClassVar

from acpc_arena.agents.options import AgentOptions, add_options, options_from
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, Action, State
from acpc_arena.protocol.wire import MatchState

Policy = dict[Action, float]
"""Probability of each action an agent may take (actions left out have probability 0)."""


class Agent:
    """Base class of every agent."""

    name: ClassVar[str] = "agent"
    default_game: ClassVar[str] = "holdem.limit.2p.reverse_blinds"
    """The game file used when ``--game`` is not given."""
    games: ClassVar[tuple[str, ...] | None] = None
    """The shipped games (``protocol.game.SHIPPED_GAMES`` names) the agent claims to play, which ``acpc-agent
    --check`` plays; None: every shipped game its constructor accepts (one it refuses raises ValueError)."""
    Options: ClassVar[type[AgentOptions]] = AgentOptions
    """The agent's options: their command-line options are its fields (``agents.options``)."""

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        """``options``: the fields of ``Options`` (an agent with options reads them itself); an unknown
        option, or a game the agent does not play, is a ValueError. ``seed``: the seed of all its random
        choices (two agents of one seed and options, shown the same views, choose alike)."""
        options_from(self.Options, options)
        self.game = game
        self.seed = seed

    @classmethod
    def add_arguments(cls, parser: argparse._ActionsContainer) -> None:
        """Declare the agent's own command-line options on ``parser`` (a parser or an argument group):
        the fields of ``Options``."""
        add_options(parser, cls.Options)

    def begin_hand(self, view: MatchState) -> None:
        """Called with the first state of each hand; ``view`` is read, never changed."""

    def act(self, view: MatchState) -> Action:
        """A legal action at ``view.state`` (exactly: no fixing is done for it), drawn from ``policy(view)``
        if the agent has one; called only when ``view.viewer`` is to act; ``view`` is never changed."""
        raise NotImplementedError

    def batch_key(self) -> Hashable | None:
        """None (the default), or a key that is the same for agents that choose alike at any view (no
        state of their own, no randomness: ``act`` a function of the view alone): the in-process runner
        then has ``act_batch`` of one of them decide the views of all of them that wait at once, across
        matches."""
        return None

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        """``act`` at each view; the place to batch the work (see ``batch_key``)."""
        return [self.act(view) for view in views]

    def end_hand(self, view: MatchState) -> None:
        """Called with the final state of each hand (others' cards shown if there was a showdown); ``view``
        is read, never changed."""

    def policy(self, view: MatchState) -> Policy:
        """The distribution ``act`` draws its action from at ``view``: legal actions only (no-limit raises by
        raise-to size), probabilities summing to 1 (within 1e-6), for any hole cards in ``view``; it changes
        neither the agent (``act`` chooses as if it had not been asked) nor ``view``."""
        raise NotImplementedError(f"agent {self.name!r} does not give its policy (no policy method)")

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """``policy`` of each view, in order (views of one betting, different hole cards, sharing their
        lists); override to batch the work."""
        return [self.policy(view) for view in views]


def has_policy(agent_type: type[Agent]) -> bool:
    """Whether the agent class answers ``policy``."""
    return agent_type.policy is not Agent.policy


def limit_policy(state: State, fold: float, call: float, raise_: float) -> Policy:
    """The policy of weights (fold, call, raise), renormalised over the legal actions at ``state``
    (a fold with nothing owed or an impossible raise drops out; all of it on call if nothing is left)."""
    legal = state.legal_actions()
    fold, raise_ = fold * legal.can_fold, raise_ * legal.can_raise
    total = fold + call + raise_
    if total <= 0:
        return {CALL_ACTION: 1.0}
    out = {FOLD_ACTION: fold / total, CALL_ACTION: call / total, LIMIT_RAISE_ACTION: raise_ / total}
    return {action: p for action, p in out.items() if p > 0}


def merge(pairs: Sequence[tuple[Action, float]]) -> Policy:
    """A policy from (action, probability) pairs, the same action's probabilities added."""
    out: Policy = {}
    for action, p in pairs:
        if p > 0:
            out[action] = out.get(action, 0.0) + p
    return out


def valid_or_call(state: State, action: Action) -> Action:
    """``action`` made valid as the dealer would (raise sizes clamped); call if it cannot be."""
    fixed = state.validate_action(action, try_fixing=True)
    return fixed if fixed is not None else CALL_ACTION


def pot_size_raise_to(state: State) -> int:
    """The raise-to amount of a pot-sized raise for the player to act (no-limit)."""
    player = state.current_player
    to_call = state.max_spent - state.spent[player]
    return state.max_spent + sum(state.spent) + to_call
