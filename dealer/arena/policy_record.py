"""The policies of an in-process agent, recorded as it plays (``PolicyRecord``): an
``in_process.AgentChannel`` with a record asks its agent for ``policy`` at each of its
decisions, before ``act`` (the distribution the action is drawn from), so that AIVAT
(``aivat.recorded``) need not ask the agent again for the cards it was dealt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acpc_arena.agents.base import Policy
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState

Decision = tuple[int, int, int]
"""A decision of a hand: the hand's number, the round and the actions taken in that round before it."""


def decision_of(state: State) -> Decision:
    """The decision at ``state``."""
    return state.hand_id, state.round, len(state.actions[state.round])


@dataclass
class PolicyRecord:
    """One agent's policies in one match, by decision, each with the hole cards it held."""

    policies: dict[Decision, tuple[tuple[int, ...], Policy]] = field(default_factory=dict)

    def add(self, view: MatchState, policy: Policy) -> None:
        self.policies[decision_of(view.state)] = (tuple(view.state.hole_cards[view.viewer]), policy)
