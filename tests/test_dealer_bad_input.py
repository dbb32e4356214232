"""Every kind of bad input a player can send, and what the dealer does about it.

The dealer core runs in-process with scripted players, so each case is exact and fast:
each case on both loops, trio's ``play_match`` over memory streams and the blocking
``play_match_sync`` (``acpc-dealer``'s default) over socket pairs in a thread (the time
limit cases, on trio's virtual clock, on the first only); ``test_dealer_cli.py`` checks
the same classes through the real ``acpc-dealer`` process over TCP.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult
from acpc_arena.dealer.server.seat import SeatChannel, StreamChannel
from acpc_arena.dealer.server.sync_match import play_match_sync
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import LogHand, parse_log_line, parse_match_state
from tests.helpers.processes import Player

Script = Callable[[Player], Awaitable[None]]

LOOPS = ["trio", "sync"]
_loop = {"name": "trio"}
"""The loop the test in progress plays on (the ``loop`` fixture sets it)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "autojump_clock" not in metafunc.fixturenames:  # virtual time: trio's loop only
        metafunc.parametrize("loop", LOOPS, indirect=True)


@pytest.fixture(autouse=True)
def loop(request: pytest.FixtureRequest) -> str:
    name: str = getattr(request, "param", "trio")
    _loop["name"] = name
    return name


async def calls(player: Player) -> None:
    """A well-behaved player that always calls."""
    await player.send("VERSION:2.0.0\r\n")
    while (line := await player.next_turn()) is not None:
        await player.send(f"{line}:c\r\n")


class Recorder(MatchObserver):
    def __init__(self) -> None:
        self.warnings: list[tuple[int | None, str, str]] = []
        self.actions: list[tuple[int, object]] = []

    def warning(self, seat: int | None, kind: str, text: str) -> None:
        self.warnings.append((seat, kind, text))

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        self.actions.append((seat, action))


async def run(
    tmp_path: Path, game_name: str, hands: int, scripts: list[Script], **overrides: Any
) -> tuple[MatchResult, Recorder, list[str]]:
    game = load_game(game_name)
    config = MatchConfig(
        name="t", game=game, game_file=game_name, hands=hands, seed=3,
        players=tuple(f"p{i + 1}" for i in range(len(scripts))), **overrides,
    )  # fmt: skip
    recorder = Recorder()
    log = MatchLog(tmp_path / "t.log")
    sync = _loop["name"] == "sync"
    channels: list[SeatChannel] = []
    sockets: list[BlockingChannel] = []
    async with trio.open_nursery() as nursery:
        for seat, script in enumerate(scripts):
            theirs: trio.abc.Stream
            if sync:
                mine, other = socket.socketpair()
                sockets.append(BlockingChannel(seat, mine))
                theirs = trio.SocketStream(trio.socket.from_stdlib_socket(other))
            else:
                ours, theirs = trio.testing.memory_stream_pair()
                channels.append(StreamChannel(seat, ours))
            player = Player(theirs, game_name)

            async def drive(script: Script = script, player: Player = player, theirs: trio.abc.Stream = theirs) -> None:
                try:
                    await script(player)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                finally:
                    await theirs.aclose()

            nursery.start_soon(drive)
        if sync:
            result = await trio.to_thread.run_sync(play_match_sync, MatchEngine(config, recorder, log), sockets)
            for channel in sockets:
                channel.close()
        else:
            result = await play_match(MatchEngine(config, recorder, log), channels)
            for seat_channel in channels:
                await seat_channel.aclose()
    log.close()
    return result, recorder, (tmp_path / "t.log").read_text().splitlines()


def states_in(log: list[str], game_name: str) -> list[LogHand]:
    return [parse_log_line(line, load_game(game_name)) for line in log if line.startswith("STATE")]


async def test_well_behaved_players_finish_the_match(tmp_path: Path) -> None:
    result, recorder, log = await run(tmp_path, "holdem.limit.2p.reverse_blinds", 10, [calls, calls])
    assert result.ok and result.hands_played == 10
    assert recorder.warnings == []
    assert len(states_in(log, "holdem.limit.2p.reverse_blinds")) == 10
    assert log[-1].startswith("SCORE:")


@pytest.mark.parametrize("version", ["", "VERSION:2.0", "VERSION:x.0.0", "HELLO", "VERSION:3.0.0", "VERSION:1.9.9"])
async def test_a_bad_version_line_ends_the_match(tmp_path: Path, version: str) -> None:
    async def bad(player: Player) -> None:
        await player.send(version + "\r\n")
        while await player.line() is not None:
            pass

    result, _, log = await run(tmp_path, "kuhn", 5, [calls, bad])
    assert result.error is not None and result.error.seat == 1 and result.error.kind == "version"
    assert result.hands_played == 0 and not [line for line in log if line.startswith("STATE")]


async def test_a_newer_minor_version_only_warns(tmp_path: Path) -> None:
    async def newer(player: Player) -> None:
        await player.send("# hello\r\nVERSION:2.1.0\r\n")
        while (line := await player.next_turn()) is not None:
            await player.send(f"{line}:c\r\n")

    result, recorder, _ = await run(tmp_path, "kuhn", 5, [calls, newer])
    assert result.ok
    assert [kind for _, kind, _ in recorder.warnings] == ["version"]


def misbehaving_once(before: Callable[[str], list[str]], then: str = "c") -> Script:
    """Calls, except at its first decision, where it first sends ``before(state)`` lines."""

    async def script(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        first = True
        while (line := await player.next_turn()) is not None:
            if first:
                for text in before(line):
                    await player.send(text + "\r\n")
                first = False
                await player.send(f"{line}:{then}\r\n")
            else:
                await player.send(f"{line}:c\r\n")

    return script


async def test_comments_are_ignored(tmp_path: Path) -> None:
    script = misbehaving_once(lambda state: ["# thinking", "; still thinking"])
    result, recorder, _ = await run(tmp_path, "kuhn", 3, [calls, script])
    assert result.ok and recorder.warnings == []


async def test_an_unreadable_reply_is_ignored_with_a_warning(tmp_path: Path) -> None:
    script = misbehaving_once(lambda state: ["garbage", "MATCHSTATE:9:9:zz:", state.replace("MATCHSTATE", "MATCH")])
    result, recorder, _ = await run(tmp_path, "kuhn", 3, [calls, script])
    assert result.ok
    assert [(seat, kind) for seat, kind, _ in recorder.warnings] == [(1, "bad_state")] * 3
    assert recorder.warnings[0][2] == "bad state format in response"


async def test_a_reply_to_another_state_is_ignored_with_a_warning(tmp_path: Path) -> None:
    def other_states(state: str) -> list[str]:
        head, hand, rest = state.split(":", 3)[1], state.split(":", 3)[2], state.split(":", 3)[3]
        return [f"MATCHSTATE:{head}:{int(hand) + 1}:{rest}:c"]

    result, recorder, _ = await run(tmp_path, "kuhn", 3, [calls, misbehaving_once(other_states)])
    assert result.ok
    assert [(seat, kind, text) for seat, kind, text in recorder.warnings] == [
        (1, "unrequested", "ignoring un-requested response")
    ]


async def test_an_echo_that_differs_only_in_case_is_accepted(tmp_path: Path) -> None:
    async def shouting(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            head, _, cards = line.rpartition(":")
            await player.send(f"{head}:{cards.lower()}:K\r\n")  # ranks lower-case, check as 'K'

    result, recorder, _ = await run(tmp_path, "holdem.limit.2p.reverse_blinds", 5, [calls, shouting])
    assert result.ok and recorder.warnings == []


async def test_an_unparsable_action_becomes_a_call(tmp_path: Path) -> None:
    async def script(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            await player.send(f"{line}:x\r\n")

    result, recorder, log = await run(tmp_path, "kuhn", 4, [calls, script])
    assert result.ok and result.invalid_actions == [0, 4]
    assert {kind for _, kind, _ in recorder.warnings} == {"bad_action"}
    assert recorder.warnings[0][2] == "bad action format in response, changed to call"
    assert all(
        hand.state.actions[0] and all(a.kind == 1 for a in hand.state.actions[0]) for hand in states_in(log, "kuhn")
    )


async def test_invalid_actions_become_calls_and_are_counted(tmp_path: Path) -> None:
    async def folds_and_raises(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            state = parse_match_state(line, player.game).state
            # fold with nothing owed, or raise when the cap is reached: both invalid
            action = "f" if not state.can_fold() else ("r" if state.raise_range() is None else "c")
            await player.send(f"{line}:{action}\r\n")

    result, recorder, log = await run(tmp_path, "kuhn", 6, [calls, folds_and_raises])
    assert result.ok
    invalid = [w for w in recorder.warnings if w[1] == "invalid_action"]
    assert invalid and invalid[0] == (1, "invalid_action", "invalid action, changed to call")
    assert result.invalid_actions[1] == len(invalid)
    assert not any(a.kind == 0 for hand in states_in(log, "kuhn") for a in hand.state.actions[0])


async def test_nolimit_raise_sizes_are_clamped(tmp_path: Path) -> None:
    sizes = iter(["r150", "r99999", "r-3"])

    async def script(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            await player.send(f"{line}:{next(sizes, 'c')}\r\n")

    result, recorder, _log = await run(tmp_path, "holdem.nolimit.2p.reverse_blinds", 3, [calls, script])
    assert result.ok
    texts = [text for _, kind, text in recorder.warnings if kind == "raise_fixed"]
    assert texts[0] == "raise of 150 increased to 200"
    assert texts[1] == "raise of 99999 decreased to 20000"
    assert texts[2].startswith("raise of -3 increased to ")
    assert result.invalid_actions == [0, 0] and result.fixed_actions == [0, 3]  # each of the three resized


async def test_max_invalid_ends_the_match(tmp_path: Path) -> None:
    async def script(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            await player.send(f"{line}:?\r\n")

    result, _, log = await run(tmp_path, "kuhn", 50, [calls, script], max_invalid_actions=3)
    assert result.error is not None and result.error.kind == "invalid_actions" and result.error.seat == 1
    assert result.invalid_actions[1] == 4
    assert "SCORE" not in log[-1]


async def test_a_line_over_4096_bytes_ends_the_match(tmp_path: Path) -> None:
    script = misbehaving_once(lambda state: ["#" + "x" * 5000])
    result, _, _log = await run(tmp_path, "kuhn", 3, [calls, script])
    assert result.error is not None and result.error.kind == "line_too_long" and result.error.seat == 1
    assert "longer than 4096 bytes" in str(result.error)


def slow_after(hands: int, delay: float) -> Script:
    """Calls, taking ``delay`` seconds (of trio's clock: the tests run on a mock clock) per
    decision from hand ``hands`` on."""

    async def script(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            if parse_match_state(line, player.game).state.hand_id >= hands:
                await trio.sleep(delay)
            await player.send(f"{line}:c\r\n")

    return script


async def test_a_slow_response_ends_the_match_with_every_finished_hand_logged(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    result, _, log = await run(tmp_path, "kuhn", 10, [calls, slow_after(4, 1.0)], t_response_ms=200)
    assert result.error is not None and result.error.kind == "timeout" and result.error.seat == 1
    assert result.hands_played == 4
    assert [hand.state.hand_id for hand in states_in(log, "kuhn")] == [0, 1, 2, 3]


async def test_the_per_hand_time_limit(tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    # 0.12 s per action is under t_response but two actions in one hand pass t_hand.
    result, _, _ = await run(
        tmp_path, "holdem.limit.2p.reverse_blinds", 5, [calls, slow_after(0, 0.12)], t_response_ms=1000, t_hand_ms=200
    )
    assert result.error is not None and result.error.kind == "timeout" and result.error.seat == 1


async def test_the_whole_match_time_limit(tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    # 0.05 s per hand on average over 8 hands is 0.4 s for the match.
    result, _, _ = await run(tmp_path, "kuhn", 8, [calls, slow_after(0, 0.1)], t_per_hand_ms=50)
    assert result.error is not None and result.error.kind == "timeout"
    assert result.hands_played < 8


async def test_a_disconnect_ends_the_match_cleanly(tmp_path: Path) -> None:
    async def leaves(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            if parse_match_state(line, player.game).state.hand_id == 3:
                return
            await player.send(f"{line}:c\r\n")

    result, _, log = await run(tmp_path, "holdem.limit.2p.reverse_blinds", 10, [calls, leaves])
    assert result.error is not None and result.error.kind == "disconnect" and result.error.seat == 1
    assert str(result.error) == "seat 2: disconnected"
    assert [hand.state.hand_id for hand in states_in(log, "holdem.limit.2p.reverse_blinds")] == [0, 1, 2]
    assert result.hands_played == 3


async def test_a_reply_cut_off_by_the_end_of_the_connection_still_counts(tmp_path: Path) -> None:
    async def last_words(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        line = await player.next_turn()
        await player.send(f"{line}:f")  # no newline, then gone

    result, recorder, _log = await run(tmp_path, "kuhn", 3, [calls, last_words])
    assert result.error is not None and result.error.kind == "disconnect"
    assert recorder.actions and recorder.actions[-1][0] == 1
