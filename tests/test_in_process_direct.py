"""In-process matches played without lines (``in_process.play_agents``, which ``play_seats`` picks where every
seat is an in-process agent).

The references: the TCP path (``acpc-agent`` processes over real sockets) for the logs, and the line path
(``play_match`` sending ``MATCHSTATE`` lines to ``AgentChannel``s, whose agents read them parsed) for what each
agent is told: the same calls, with views equal field by field to the parsed lines.
"""

from __future__ import annotations

import io
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from acpc_arena.agents.baselines import CallAgent, RandomAgent
from acpc_arena.dealer.arena import in_process
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.in_process import AgentChannel, DecisionBatcher, play_agents, play_seats
from acpc_arena.dealer.arena.runner import RunSpec, run_matches
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult
from acpc_arena.dealer.server.seat import SeatFailure
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.state import Action, State
from acpc_arena.protocol.wire import MatchState
from tests.helpers.agents import SlowOnFifthDecision

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"


def _spec(a: str, b: str, out: Path, in_process: bool, hands: int) -> RunSpec:
    return RunSpec(
        a=Contestant("a", agent=a), b=Contestant("b", agent=b), game_file=LIMIT, game=load_game(LIMIT),
        game_path=resolve_game_path(LIMIT).resolve(), seeds=(11,), hands=hands, out_dir=out, concurrency=2,
        in_process=in_process,
    )  # fmt: skip


def _logs(out: Path) -> dict[str, list[str]]:
    logs = {path.name: path.read_text().splitlines() for path in sorted(out.glob("*.log"))}
    assert len(logs) == 2 and all(lines[-1].startswith("SCORE:") for lines in logs.values()), logs
    return logs


@pytest.mark.parametrize(
    ("a", "b", "hands"),
    [
        ("random", "call", 400),
        # a network's seat directly: test_in_process.py plays every shipped agent in process and over TCP
        pytest.param("cfr", "lstm_dqn", 200, marks=pytest.mark.slow),
    ],
)
def test_a_run_of_agents_in_process_logs_as_over_tcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, a: str, b: str, hands: int
) -> None:
    played: list[str] = []
    original = in_process.play_agents

    async def counting(engine: MatchEngine, *args: Any) -> MatchResult:
        played.append(engine.config.name)
        return await original(engine, *args)

    monkeypatch.setattr(in_process, "play_agents", counting)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for kind in ("tcp", "inproc"):
                nursery.start_soon(run_matches, _spec(a, b, tmp_path / kind, kind == "inproc", hands))

    trio.run(main)
    tcp = _logs(tmp_path / "tcp")
    assert all(sum(line.startswith("STATE:") for line in lines) == hands for lines in tcp.values())
    assert _logs(tmp_path / "inproc") == tcp
    assert sorted(played) == ["seed11-a1", "seed11-a2"]  # the in-process run alone, without lines


FIELDS = (
    "hand_id", "max_spent", "min_no_limit_raise_to", "spent", "actions", "acting_players", "round", "finished",
    "folded", "hole_cards", "board_cards", "num_folded", "num_all_in", "round_raises", "current_player",
)  # fmt: skip
"""Every field of a ``State``."""


def _fields(state: State) -> dict[str, Any]:
    return {name: getattr(state, name) for name in FIELDS}


class _Told(RandomAgent):
    """The example player (folds, calls, raises of every size), keeping every call made to it and its view."""

    def __init__(self, game: Game, seed: int) -> None:
        super().__init__(game, seed)
        self.told: list[tuple[str, int, dict[str, Any]]] = []

    def begin_hand(self, view: MatchState) -> None:
        self.told.append(("begin", view.viewer, _fields(view.state)))

    def act(self, view: MatchState) -> Action:
        self.told.append(("act", view.viewer, _fields(view.state)))
        return super().act(view)

    def end_hand(self, view: MatchState) -> None:
        self.told.append(("end", view.viewer, _fields(view.state)))


class _Log(io.StringIO):
    """A log that keeps its text when the channel closes it."""

    text = ""

    def close(self) -> None:
        self.text = self.getvalue()
        super().close()


def _config(game_file: str, hands: int, t_response_ms: int = 600_000) -> MatchConfig:
    game = load_game(game_file)
    return MatchConfig(
        name="m", game=game, game_file=game_file, hands=hands, seed=3, players=("A", "B"), t_response_ms=t_response_ms
    )


def _match(
    play: Any, config: MatchConfig, agents: Sequence[CallAgent | RandomAgent], batcher: DecisionBatcher | None = None
) -> tuple[MatchResult, list[_Log]]:
    """``play`` (``play_match`` or ``play_agents``) of ``agents`` on ``AgentChannel``s; the result, the agents' logs."""
    logs = [_Log(), _Log()]
    channels = [AgentChannel(seat, agent, logs[seat], batcher) for seat, agent in enumerate(agents)]

    async def main() -> MatchResult:
        async with trio.open_nursery() as helpers:
            if batcher is not None:
                helpers.start_soon(batcher.run)
            try:
                result: MatchResult = await play(MatchEngine(config), channels)
                return result
            finally:
                for channel in channels:
                    await channel.aclose()
                helpers.cancel_scope.cancel()

    return trio.run(main), logs


@pytest.mark.parametrize("game_file", [LIMIT, NOLIMIT])
def test_each_agent_is_told_what_its_parsed_lines_tell_it(game_file: str) -> None:
    """begin_hand, act and end_hand called in the same order with views equal in every field to those
    ``ClientSession`` parses from the dealer's lines (own cards, the board so far, a showdown's cards)."""
    config = _config(game_file, 60)
    told = {}
    for name, play in (("lines", play_match), ("direct", play_agents)):
        agents = [_Told(config.game, 1), _Told(config.game, 2)]
        result, _ = _match(play, config, agents)
        assert result.ok and result.hands_played == 60
        told[name] = (result.totals, [agent.told for agent in agents])
    assert told["direct"] == told["lines"]
    calls = told["lines"][1][0]
    assert sum(kind == "end" for kind, _, _ in calls) == 60
    assert any(kind == "end" and all(seen["hole_cards"]) for kind, _, seen in calls)  # a showdown, both hands shown
    assert any(kind == "act" and seen["round"] == 3 and len(seen["board_cards"]) == 5 for kind, _, seen in calls)


class _Sent(MatchObserver):
    wants_messages = True


def test_play_seats_plays_with_lines_where_an_observer_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("played without lines")

    monkeypatch.setattr(in_process, "play_agents", refused)
    config = _config(LIMIT, 5)
    channels = [AgentChannel(seat, CallAgent(config.game, seat), _Log()) for seat in range(2)]
    result = trio.run(play_seats, MatchEngine(config, _Sent()), channels)
    assert result.ok and result.hands_played == 5


class _Broken(CallAgent):
    def end_hand(self, view: MatchState) -> None:
        if view.state.hand_id == 2:
            raise RuntimeError("out of memory")


def test_an_agent_out_of_time_loses_its_seat_as_with_lines() -> None:
    config = _config(LIMIT, 50, t_response_ms=200)
    result, _ = _match(play_agents, config, [CallAgent(config.game, 1), SlowOnFifthDecision(config.game, 2)])
    assert result.error is not None and result.error.seat == 1 and result.error.kind == SeatFailure.TIMEOUT
    assert result.error.cause == "timed out waiting for a response"
    assert 0 < result.hands_played < 50 and result.seconds_used[1] < 0.2


def test_an_agent_that_fails_when_told_a_hand_ended_loses_its_seat_at_its_next_answer() -> None:
    """The end of hand 2 is told before the agent's first answer in hand 3, as ``follow`` tells it: the
    failure ends the match then, hands 0 to 2 logged, as on the line path."""
    config = _config(LIMIT, 50)
    outcomes = {}
    for name, play in (("lines", play_match), ("direct", play_agents)):
        result, logs = _match(play, config, [CallAgent(config.game, 1), _Broken(config.game, 2)])
        assert result.error is not None
        outcomes[name] = (result.error.seat, result.error.kind, str(result.error), result.hands_played, result.totals)
        assert "Traceback" in logs[1].text and "out of memory" in logs[1].text
    assert outcomes["direct"] == outcomes["lines"]
    assert outcomes["direct"][:2] == (1, SeatFailure.DISCONNECT) and outcomes["direct"][3] == 3


class _Batched(CallAgent):
    """A call agent that batches, its batches' sizes kept."""

    sizes: list[int] = []  # noqa: RUF012 (the test's record)

    def batch_key(self) -> Hashable | None:
        return "call"

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        self.sizes.append(len(views))
        return [self.act(view) for view in views]


def test_batched_agents_decide_through_the_batcher_without_lines() -> None:
    config = _config(LIMIT, 30)
    direct, _ = _match(play_agents, config, [_Batched(config.game, 1), RandomAgent(config.game, 2)], DecisionBatcher())
    lines, _ = _match(play_match, config, [CallAgent(config.game, 1), RandomAgent(config.game, 2)])
    assert direct.ok and direct.totals == lines.totals and direct.hands_played == 30
    assert sum(_Batched.sizes) > 30
