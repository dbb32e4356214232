"""A known agent for AIVAT whose policy at the cards it was dealt is the one recorded as it played in
this process (``policy_record.PolicyRecord``), so AIVAT does not ask it again for those.

AIVAT asks a known agent for its policy at every holding of the player's range, the dealt
one among them; the record answers for that one, and the agent, told each hand's start and
end as in a replay, for the others. The estimate is the one a replay of the logs gives
(``acpc-report --aivat``) wherever the agent's policy depends on its view and earlier hands
alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.arena.policy_record import PolicyRecord, decision_of
from acpc_arena.protocol.wire import MatchState


class RecordedAgent(Agent):
    """``agent`` whose policy at the cards it was dealt comes from ``record``; AIVAT asks ``agent`` for the
    other holdings of a range (it is told each hand's start and end, as in a replay)."""

    def __init__(self, agent: Agent, record: PolicyRecord) -> None:
        super().__init__(agent.game, agent.seed)
        self.agent = agent
        self.record = record
        self.name = agent.name  # type: ignore[misc]  # the messages name the agent, not the wrapper

    def begin_hand(self, view: MatchState) -> None:
        self.agent.begin_hand(view)

    def end_hand(self, view: MatchState) -> None:
        self.agent.end_hand(view)

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        out: list[Policy | None] = []
        for view in views:
            recorded = self.record.policies.get(decision_of(view.state))
            held = tuple(view.state.hole_cards[view.viewer])
            out.append(recorded[1] if recorded is not None and recorded[0] == held else None)
        asked = [i for i, policy in enumerate(out) if policy is None]
        for i, policy in zip(asked, self.agent.policies([views[i] for i in asked]) if asked else [], strict=True):
            out[i] = policy
        return [policy for policy in out if policy is not None]

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]
