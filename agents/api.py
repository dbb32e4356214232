"""The agent API: everything a bot written outside this project imports, from one module.

    from acpc_arena.agents.api import CALL_ACTION, Agent, MatchState, Action

    class MyBot(Agent):
        name = "mybot"

        def act(self, view: MatchState) -> Action:
            return CALL_ACTION

The names here are a versioned contract (``API_VERSION``): within one major version they keep their
meaning, and what ``Agent``'s methods promise (``agents.base`` says it in full) is what ``acpc-agent
--check`` verifies on every shipped game the bot claims (``Agent.games``): ``act`` returns a legal
action, ``policy`` sums to 1 over legal actions and sampling it draws ``act``, no view is changed, and a
seed makes the play repeatable. ``docs/reference/agent-api.md`` is the page.
"""

from __future__ import annotations

from acpc_arena.agents.base import Agent, Policy, has_policy
from acpc_arena.agents.options import AgentOptions
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import (
    CALL,
    CALL_ACTION,
    FOLD,
    FOLD_ACTION,
    LIMIT_RAISE_ACTION,
    RAISE,
    Action,
    ActionKind,
    LegalActions,
    State,
)
from acpc_arena.protocol.wire import MatchState

API_VERSION = (1, 0)
"""The agent API's version (major, minor): a new minor adds names, a new major may change them."""

__all__ = [
    "API_VERSION",
    "CALL",
    "CALL_ACTION",
    "FOLD",
    "FOLD_ACTION",
    "LIMIT_RAISE_ACTION",
    "RAISE",
    "Action",
    "ActionKind",
    "Agent",
    "AgentOptions",
    "Game",
    "LegalActions",
    "MatchState",
    "Policy",
    "State",
    "has_policy",
    "load_game",
]
