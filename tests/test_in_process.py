"""In-process play (``acpc-match --in-process``, ``play``): the shipped agents inside the runner.

The reference is the TCP path: the same run with ``acpc-agent`` processes over real
sockets (itself checked against the C dealer elsewhere). For every shipped agent that
plays hold'em, the in-process logs equal its logs line for line; a run mixing an
in-process seat with a bot over TCP does too; each agent sees only its own view.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from collections.abc import Hashable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest
import trio

from acpc_arena.agents.base import Agent
from acpc_arena.agents.baselines import CallAgent
from acpc_arena.agents.client import ClientSession
from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.in_process import AgentChannel, DecisionBatcher
from acpc_arena.dealer.arena.runner import MatchSpec, RunSpec
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult
from acpc_arena.dealer.server.seat import SeatFailure
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState, format_match_state, parse_match_state
from tests.helpers.agents import SlowOnFifthDecision
from tests.helpers.matches import run_all
from tests.helpers.processes import program

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"

PAIRS: list[tuple[str, str, str]] = [
    (LIMIT, "lstm_dqn", "cfr"),
    (LIMIT, "dqn", "nfq"),
    (LIMIT, "poker_cnn", "rule"),
    (LIMIT, "equity", "random"),
    (LIMIT, "call", "raise"),
    (NOLIMIT, "ensemble", "o_random"),
    (NOLIMIT, "cfr", "random"),
    (NOLIMIT, "o1", "o2"),
    (NOLIMIT, "o3", "o4"),
    (NOLIMIT, "o5", "o6"),
    (NOLIMIT, "o7", "o8"),
    (LIMIT, "spar_equity", "spar_tag"),
    (LIMIT, "spar_lag", "spar_station"),
    (LIMIT, "spar_rock", "spar_bluffer"),
    (NOLIMIT, "spar_shove10", "spar_shove30"),
    (NOLIMIT, "spar_shove60", "spar_overbet"),
    (NOLIMIT, "spar_minraise", "spar_limper"),
    (NOLIMIT, "spar_fractions", "spar_oddsize"),
]
"""Every shipped agent that plays heads-up hold'em, each at least once: but ``human`` (a person), ``cfr_exploit``
(tests/test_cfr_exploit.py) and ``spar_fuzz``, whose invalid actions tests/test_sparring_matches.py sends the dealer."""

SEED = 7
HANDS = 30


class _OneSeating(RunSpec):
    """A run of the first seating alone (A in seat 1): half the agent processes to start."""

    def matches(self) -> list[MatchSpec]:
        return super().matches()[:1]


def _spec(game_file: str, a: Contestant, b: Contestant, out: Path, in_process: bool, cls: type = RunSpec) -> RunSpec:
    return cls(
        a=a, b=b, game_file=game_file, game=load_game(game_file), game_path=resolve_game_path(game_file).resolve(),
        seeds=(SEED,), hands=HANDS, out_dir=out, concurrency=2, in_process=in_process,
    )  # fmt: skip


def _logs(out: Path, matches: int = 2) -> dict[str, list[str]]:
    logs = {path.name: path.read_text().splitlines() for path in sorted(out.glob("*.log"))}
    assert len(logs) == matches and all(any(line.startswith("SCORE:") for line in lines) for lines in logs.values()), (
        logs
    )
    return logs


def test_every_shipped_holdem_agent_logs_the_same_in_process_as_over_tcp(tmp_path: Path) -> None:
    specs = []
    for index, (game_file, a, b) in enumerate(PAIRS):
        for kind in ("tcp", "inproc"):
            out = tmp_path / f"{index}-{a}-{b}-{kind}"
            a_side, b_side = Contestant("a", agent=a), Contestant("b", agent=b)
            specs.append(_spec(game_file, a_side, b_side, out, kind == "inproc", _OneSeating))
    run_all(specs)
    for index, (_, a, b) in enumerate(PAIRS):
        tcp, inproc = _logs(tmp_path / f"{index}-{a}-{b}-tcp", 1), _logs(tmp_path / f"{index}-{a}-{b}-inproc", 1)
        assert sum(line.startswith("STATE:") for line in tcp["seed7-a1.log"]) == HANDS
        assert inproc == tcp, f"{a} vs {b}"


def test_a_seat_in_process_against_a_bot_over_tcp(tmp_path: Path) -> None:
    """rule in this process, random as a command over TCP (its seed as the TCP path gives B: 7 * 100 + 2)."""
    command = f"{program('acpc-agent')} random {{host}} {{port}} --game {{game}} --seed {SEED * 100 + 2}"
    both_tcp = _spec(LIMIT, Contestant("a", agent="rule"), Contestant("b", agent="random"), tmp_path / "tcp", False)
    mixed = _spec(
        LIMIT, Contestant("a", agent="rule"), Contestant("b", command=command, title="random"), tmp_path / "mixed", True
    )
    run_all([both_tcp, mixed])
    assert _logs(tmp_path / "mixed") == _logs(tmp_path / "tcp")


def test_neural_agents_decide_across_matches_in_batches_and_log_as_over_tcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six matches at once, every seat a network: each decision goes through the batcher, several at a time,
    and the logs are the TCP run's."""
    batchers: list[DecisionBatcher] = []
    original = DecisionBatcher.__init__

    def recording(self: DecisionBatcher) -> None:
        original(self)
        batchers.append(self)

    monkeypatch.setattr(DecisionBatcher, "__init__", recording)
    specs = []
    for kind in ("tcp", "inproc"):
        spec = _spec(
            LIMIT, Contestant("a", agent="lstm_dqn"), Contestant("b", agent="poker_cnn"), tmp_path / kind, False
        )
        specs.append(replace(spec, seeds=(7, 8, 9), concurrency=6, in_process=kind == "inproc"))
    run_all(specs)
    tcp, inproc = _logs(tmp_path / "tcp", 6), _logs(tmp_path / "inproc", 6)
    assert inproc == tcp
    (batcher,) = batchers
    actions = sum(len(re.sub(r"[^fcr]", "", line.split(":")[2])) for lines in tcp.values() for line in lines
                  if line.startswith("STATE:"))  # fmt: skip
    assert sum(batcher.sizes) == actions > 6 * HANDS
    assert max(batcher.sizes) >= 3


class _BatchedCall(CallAgent):
    """A call agent that says it batches, and fails at hand 3 in ``act_batch``."""

    calls: ClassVar[list[int]] = []

    def batch_key(self) -> Hashable | None:
        return "call"

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        self.calls.append(len(views))
        if any(view.state.hand_id == 3 for view in views):
            raise RuntimeError("out of memory")
        return [self.act(view) for view in views]


def test_a_batch_that_fails_loses_the_seat_of_every_view_in_it() -> None:
    game = load_game(LIMIT)
    config = MatchConfig(name="m", game=game, game_file=LIMIT, hands=20, seed=SEED, players=("A", "B"))
    logs = [[_Log(), _Log()] for _ in range(2)]
    results: list[MatchResult] = []

    async def main() -> None:
        batcher = DecisionBatcher()
        async with trio.open_nursery() as helpers:
            helpers.start_soon(batcher.run)
            async with trio.open_nursery() as nursery:
                for match in range(2):
                    agents = [CallAgent(game, 1), _BatchedCall(game, 2)]
                    channels = [AgentChannel(seat, agents[seat], logs[match][seat], batcher) for seat in range(2)]
                    nursery.start_soon(_play_to_end, config, channels, results)
            helpers.cancel_scope.cancel()

    trio.run(main)
    assert len(results) == 2
    for result, seat_logs in zip(results, logs, strict=True):
        assert result.error is not None and result.error.seat == 1 and result.error.kind == SeatFailure.DISCONNECT
        assert "RuntimeError: out of memory" in str(result.error) and result.hands_played == 3
        assert "out of memory" in seat_logs[1].text
    assert max(_BatchedCall.calls) == 2


async def _play_to_end(config: MatchConfig, channels: list[AgentChannel], results: list[MatchResult]) -> None:
    try:
        results.append(await play_match(MatchEngine(config), channels))
    finally:
        for channel in channels:
            await channel.aclose()


def test_acpc_match_in_process_writes_the_logs_and_report_of_the_tcp_run(tmp_path: Path) -> None:
    args = ["--a", "random", "--b", "call", "--seeds", "3", "--hands", "40", "--no-plots", "--quiet"]
    reports = {}
    for kind, extra in (("tcp", []), ("inproc", ["--in-process"])):
        out = tmp_path / kind
        done = subprocess.run(
            [program("acpc-match"), *args, *extra, "--out", str(out)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        reports[kind] = json.loads((out / "report.json").read_text())
    assert _logs(tmp_path / "inproc") == _logs(tmp_path / "tcp")
    for key in ("mbb_per_hand", "ci95", "duplicate", "per_hand", "hands_played", "per_seed"):
        assert reports["inproc"][key] == reports["tcp"][key], key


class _Recorder(CallAgent):
    """Calls, and keeps every view it is given."""

    def __init__(self, game: Game, seed: int) -> None:
        super().__init__(game, seed)
        self.views: list[MatchState] = []

    def begin_hand(self, view: MatchState) -> None:
        self.views.append(view)

    def act(self, view: MatchState) -> Action:
        self.views.append(view)
        return super().act(view)

    def end_hand(self, view: MatchState) -> None:
        self.views.append(view)


class _Sent(MatchObserver):
    wants_messages = True

    def __init__(self) -> None:
        self.lines: dict[int, list[str]] = {0: [], 1: []}

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        self.lines[seat].append(line.rstrip("\r\n"))


class _Log(io.StringIO):
    """A log that keeps its text when the channel closes it."""

    text = ""

    def close(self) -> None:
        self.text = self.getvalue()
        super().close()


def _play(
    agents: Sequence[Agent], hands: int, t_response_ms: int = 600_000, observer: MatchObserver | None = None
) -> tuple[MatchResult, list[_Log]]:
    """A match of ``agents``, each in this process (``AgentChannel``); the result and each seat's log."""
    game = agents[0].game
    config = MatchConfig(
        name="m", game=game, game_file=LIMIT, hands=hands, seed=SEED, players=("A", "B"), t_response_ms=t_response_ms
    )
    logs = [_Log(), _Log()]
    channels = [AgentChannel(seat, agent, log) for seat, (agent, log) in enumerate(zip(agents, logs, strict=True))]

    async def main() -> MatchResult:
        try:
            return await play_match(MatchEngine(config, observer), channels)
        finally:
            for channel in channels:
                await channel.aclose()

    return trio.run(main), logs


def test_each_agent_sees_its_own_view_as_the_dealer_sent_it() -> None:
    game = load_game(LIMIT)
    agents = [_Recorder(game, 1), _Recorder(game, 2)]
    sent = _Sent()
    result, _ = _play(agents, 10, observer=sent)
    assert result.ok and result.hands_played == 10
    for seat, agent in enumerate(agents):
        # Printed back, the views given are the dealer's own messages to that seat, in order: the
        # first of each hand, those the seat acts on, and the last.
        printed = [format_match_state(view.state, view.viewer) for view in agent.views]
        printed = [line for i, line in enumerate(printed) if i == 0 or line != printed[i - 1]]
        lines = iter(sent.lines[seat])
        assert all(line in lines for line in printed)  # a subsequence
        assert len(printed) >= 2 * 10
        for view in agent.views:
            state = view.state
            shown = [p for p in range(2) if state.hole_cards[p]]
            showdown = state.finished and not any(state.folded)
            assert shown == ([0, 1] if showdown else [view.viewer]), printed


def test_following_lines_in_batches_tells_the_agent_what_line_by_line_does() -> None:
    """``ClientSession.follow`` skips the lines that are only betting steps; the agent's calls are
    those ``receive`` makes line by line (as ``acpc-agent``), with the same views."""
    game = load_game(NOLIMIT)
    sent = _Sent()
    result, _ = _play([_Recorder(game, 1), _Recorder(game, 2)], 30, observer=sent)
    assert result.ok
    for seat in (0, 1):
        one_by_one, batched = _Recorder(game, 3), _Recorder(game, 3)
        single, batches = ClientSession(one_by_one), ClientSession(batched)
        pending: list[str] = []
        for line in sent.lines[seat]:
            view = single.receive(line)
            replies = [single.reply(line, view)] if view is not None else []
            pending.append(line)
            if _asks(line, game):
                view = batches.follow(pending)
                assert view is not None and [batches.reply(line, view)] == replies
                pending = []
            else:
                assert replies == []
        assert batches.follow(pending) is None
        printed = [[format_match_state(v.state, v.viewer) for v in r.views] for r in (one_by_one, batched)]
        assert printed[0] == printed[1] and len(printed[0]) > 60


def _asks(line: str, game: Game) -> bool:
    view = parse_match_state(line, game)
    return not view.state.finished and view.state.current_player == view.viewer


class _Broken(CallAgent):
    def act(self, view: MatchState) -> Action:
        if view.state.hand_id == 3:
            raise RuntimeError("out of memory")
        return super().act(view)


def test_an_in_process_agent_out_of_time_loses_its_seat_as_over_tcp() -> None:
    game = load_game(LIMIT)
    result, _ = _play([CallAgent(game, 1), SlowOnFifthDecision(game, 2)], 50, t_response_ms=200)
    assert result.error is not None and result.error.seat == 1 and result.error.kind == SeatFailure.TIMEOUT
    assert 0 < result.hands_played < 50


def test_an_in_process_agent_that_raises_loses_its_seat_with_the_traceback_logged() -> None:
    game = load_game(LIMIT)
    result, logs = _play([CallAgent(game, 1), _Broken(game, 2)], 50)
    assert result.error is not None and result.error.seat == 1 and result.error.kind == SeatFailure.DISCONNECT
    assert "RuntimeError: out of memory" in str(result.error)
    assert result.hands_played == 3
    assert "Traceback" in logs[1].text and "out of memory" in logs[1].text


def test_play_returns_the_report_acpc_match_writes(tmp_path: Path) -> None:
    out = tmp_path / "tcp"
    done = subprocess.run(
        [program("acpc-match"), "--a", "rule", "--b", "random", "--seeds", "5,6", "--hands", "30", "--out", str(out),
         "--no-plots", "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = json.loads((out / "report.json").read_text())
    report = play(("rule", "random"), LIMIT, seeds=(5, 6), hands=30)
    got = report.to_json()
    for key in ("a", "b", "game", "seeds", "hands", "mbb_per_hand", "ci95", "duplicate", "per_seed", "hands_played"):
        assert got[key] == expected[key], key
    assert got["failed"] == [] and got["in_process"] is True


@pytest.mark.parametrize(
    ("agents", "game", "message"),
    [
        (("rule",), LIMIT, "has 2 seats"),
        (("rule", "nobody"), LIMIT, "agent 'nobody': not a shipped agent"),
        (("rule --threshold high", "call"), LIMIT, "cannot play"),
        (("human", "call"), LIMIT, "--a-external"),
    ],
)
def test_play_refuses_bad_arguments_in_one_line(agents: tuple[str, ...], game: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        play(agents, game, seeds=(1,), hands=10)
    assert "\n" not in str(info.value)
