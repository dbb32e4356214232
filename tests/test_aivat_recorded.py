"""AIVAT with the policies the agents recorded as they played in process (``RunSpec.record_policies``,
``aivat.recorded``): the record holds one policy for each of an agent's actions in the logs (counted
from the logs), each giving the logged action a positive probability, and the estimate is the one a
replay of the same logs gives (``aivat_estimates`` with the shipped agents rebuilt), hand by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import trio

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.arena.aivat import Settings, aivat_estimates, shipped_agent
from acpc_arena.dealer.arena.aivat.logs import AgentSource
from acpc_arena.dealer.arena.aivat.recorded import RecordedAgent
from acpc_arena.dealer.arena.aivat.reporting import DEFAULT_DECOYS, add_to_run
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.policy_record import PolicyRecord
from acpc_arena.dealer.arena.reports import Report
from acpc_arena.dealer.arena.runner import RunSpec, run_matches
from acpc_arena.dealer.arena.scoring import score_run
from acpc_arena.protocol.game import load_game, resolve_game_path
from acpc_arena.protocol.match_log import LoggedMatch
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, State
from acpc_arena.protocol.views import range_views
from acpc_arena.protocol.wire import MatchState

LIMIT = "holdem.limit.2p.reverse_blinds"


class _Calls(Agent):
    """Always calls; counts the views it is asked about."""

    name = "calls"

    def __init__(self) -> None:
        super().__init__(load_game(LIMIT))
        self.asked = 0

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        self.asked += len(views)
        return [{CALL_ACTION: 1.0} for _ in views]


def test_the_record_answers_for_the_cards_dealt_and_the_agent_for_the_others() -> None:
    game = load_game(LIMIT)
    state = State(game, 3, [[0, 1], [2, 3]], [4, 5, 6, 7, 8])
    record = PolicyRecord()
    record.add(MatchState(0, state), {FOLD_ACTION: 1.0})  # not what _Calls gives: tells the two apart
    agent = _Calls()
    recorded = RecordedAgent(agent, record)
    views = range_views(state, 0, [[0, 1], [9, 10], [1, 0]])
    assert recorded.policies(views) == [{FOLD_ACTION: 1.0}, {CALL_ACTION: 1.0}, {CALL_ACTION: 1.0}]
    assert agent.asked == 2  # [1, 0] is another order of the cards: not the view recorded
    state.apply(CALL_ACTION)  # the next decision has no record: the agent answers
    assert recorded.policies(range_views(state, 1, [[0, 1]])) == [{CALL_ACTION: 1.0}]


def _run(out: Path) -> tuple[Report, dict[Path, dict[str, PolicyRecord]]]:
    game = load_game(LIMIT)
    spec = RunSpec(
        a=Contestant("a", agent="cfr"), b=Contestant("b", agent="equity"), game_file=LIMIT, game=game,
        game_path=resolve_game_path(LIMIT), seeds=(5,), hands=25, out_dir=out, in_process=True,
        record_policies=True,
    )  # fmt: skip
    outcomes = trio.run(run_matches, spec)
    report = score_run(spec, outcomes, [])
    assert isinstance(report, Report)
    return report, {outcome.log: outcome.policies for outcome in outcomes}


def test_recorded_policies_give_the_replays_estimate_in_limit_holdem(tmp_path: Path) -> None:
    report, records = _run(tmp_path)
    for figure in report.matches:
        match = figure.match
        for name in ("a-cfr", "b-equity"):
            record = records[match.path][name]
            taken = [
                (hand.state.hand_id, round_, i, action)
                for hand in match.hands
                for round_, actors in enumerate(hand.state.acting_players)
                for i, (action, actor) in enumerate(zip(hand.state.actions[round_], actors, strict=True))
                if hand.names[actor] == name
            ]
            assert len(record.policies) == len(taken) > 0
            assert all(record.policies[(hand_id, r, i)][1].get(action, 0.0) > 0 for hand_id, r, i, action in taken)
    contestants = (Contestant("a", agent="cfr"), Contestant("b", agent="equity"))
    assert add_to_run(report, contestants, True, records=records) is None
    settings = Settings(decoys=DEFAULT_DECOYS)  # acpc-match's in hold'em
    matches = [f.match for f in report.matches]
    known: dict[str | int, AgentSource] = {name: shipped_agent(name) for name in ("a-cfr", "b-equity")}
    replayed = aivat_estimates(matches, known, player="a-cfr", settings=settings)

    def recorded(name: str) -> Callable[[LoggedMatch], Agent]:
        return lambda match: RecordedAgent(shipped_agent(name)(match), records[match.path][name])

    by_record: dict[str | int, AgentSource] = {name: recorded(name) for name in ("a-cfr", "b-equity")}
    from_records = aivat_estimates(matches, by_record, player="a-cfr", settings=settings)
    values = np.concatenate([f.values for f in replayed.matches])
    assert np.abs(np.concatenate([f.values for f in from_records.matches]) - values).max() < 1e-9
    assert report.extra["aivat"]["per_hand"]["samples"] == len(values) == 50
    assert abs(report.extra["aivat"]["mbb_per_hand"] - replayed.main.mbb_per_hand) < 1e-9
    assert abs(report.extra["aivat"]["ci95"][0] - replayed.main.ci95[0]) < 1e-9
