"""When the dealer sends each message, and how many: as the C dealer, every state to every
seat as it happens (``dealer.c``'s ``gameLoop`` writes each seat's line in seat order after
every action and at the end of each hand, and prints a ``TO`` line for each write).

The dealer core runs in-process over memory streams with trio's mock clock, so a
message that is held back shows as a deadlock that the clock ends at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import pytest
import trio
import trio.testing

from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.dealer.server.match import MatchConfig, MatchResult
from acpc_arena.dealer.server.seat import StreamChannel
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state
from tests.helpers.processes import play


class Seat:
    """A scripted player over a memory stream that keeps every byte it receives."""

    def __init__(self, stream: trio.abc.Stream, game_name: str) -> None:
        self.stream = stream
        self.game = load_game(game_name)
        self.received = bytearray()
        self._buffer = b""

    async def line(self) -> str | None:
        while b"\n" not in self._buffer:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.received += data
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode().rstrip("\r")

    def to_act(self, line: str) -> bool:
        view = parse_match_state(line, self.game)
        return not view.state.finished and view.state.current_player == view.viewer


Script = Callable[[Seat], Awaitable[None]]
"""A seat's player: sends its VERSION line, then plays until the dealer closes the stream."""


async def match(
    tmp_path: Path, game_name: str, hands: int, scripts: Sequence[Script], batch_messages: bool = False
) -> tuple[MatchResult, list[Seat]]:
    game = load_game(game_name)
    names = tuple(f"p{i + 1}" for i in range(len(scripts)))
    config = MatchConfig(name="t", game=game, game_file=game_name, hands=hands, seed=5, players=names)
    log = MatchLog(tmp_path / "t.log")
    seats: list[Seat] = []
    channels: list[StreamChannel] = []
    async with trio.open_nursery() as nursery:
        for index, script in enumerate(scripts):
            ours, theirs = trio.testing.memory_stream_pair()
            channels.append(StreamChannel(index, ours))
            seat = Seat(theirs, game_name)
            seats.append(seat)
            nursery.start_soon(script, seat)
        result = await play_match(MatchEngine(config, log=log, batch_messages=batch_messages), channels)
        for channel in channels:
            await channel.aclose()
    log.close()
    return result, seats


async def calls(seat: Seat) -> None:
    await seat.stream.send_all(b"VERSION:2.0.0\r\n")
    while (line := await seat.line()) is not None:
        if seat.to_act(line):
            await seat.stream.send_all(f"{line}:c\r\n".encode())


def waits_for(seen: trio.Event) -> Script:
    """Calls, but answers its first decision only once ``seen`` is set (or gives up after 5 s)."""

    async def script(seat: Seat) -> None:
        await seat.stream.send_all(b"VERSION:2.0.0\r\n")
        first = True
        while (line := await seat.line()) is not None:
            if seat.to_act(line):
                if first:
                    with trio.move_on_after(5):
                        await seen.wait()
                    first = False
                await seat.stream.send_all(f"{line}:c\r\n".encode())

    return script


def notes_first_state(seen: trio.Event, waited: list[bool]) -> Script:
    """Calls; sets ``seen`` when its first message arrives and notes whether it came in time."""

    async def script(seat: Seat) -> None:
        await seat.stream.send_all(b"VERSION:2.0.0\r\n")
        while (line := await seat.line()) is not None:
            if not seen.is_set():
                waited.append(trio.current_time() > 4)
                seen.set()
            if seat.to_act(line):
                await seat.stream.send_all(f"{line}:c\r\n".encode())

    return script


async def test_a_seat_gets_each_state_before_the_acting_seat_answers(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    # Kuhn: player 0 (seat 1 in hand 0) acts first; seat 2 must see the deal at once, as from the C dealer.
    seen = trio.Event()
    waited: list[bool] = []
    result, _ = await match(tmp_path, "kuhn", 3, [waits_for(seen), notes_first_state(seen, waited)])
    assert result.ok
    assert waited == [False]


async def test_batching_holds_messages_until_the_seat_must_act(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    seen = trio.Event()
    waited: list[bool] = []
    result, _ = await match(
        tmp_path, "kuhn", 3, [waits_for(seen), notes_first_state(seen, waited)], batch_messages=True
    )
    assert result.ok
    assert waited == [True]  # seat 2's first message came only after seat 1 gave up waiting and answered


@pytest.mark.parametrize("game_name", ["holdem.limit.3p", "holdem.nolimit.2p.reverse_blinds"])
async def test_batching_changes_when_not_what(tmp_path: Path, game_name: str) -> None:
    players = load_game(game_name).num_players
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, plain_seats = await match(tmp_path / "a", game_name, 40, [calls] * players)
    batched, batched_seats = await match(tmp_path / "b", game_name, 40, [calls] * players, batch_messages=True)
    assert plain.ok and batched.ok
    for one, other in zip(plain_seats, batched_seats, strict=True):
        assert one.received == other.received
    assert (tmp_path / "a" / "t.log").read_bytes() == (tmp_path / "b" / "t.log").read_bytes()


def actions_in(betting: str) -> int:
    """The number of actions in a log line's limit betting (``crc/rc/`` has 5)."""
    return sum(betting.count(kind) for kind in "fcr")


@pytest.mark.parametrize(
    ("game", "agents"),
    [
        ("holdem.limit.2p.reverse_blinds", [("random", ["--seed", "3"]), ("random", ["--seed", "4"])]),
        ("holdem.limit.3p", [("random", ["--seed", "1"]), ("call", []), ("raise", [])]),
    ],
)
def test_a_to_line_for_every_message_sent(
    tmp_path: Path, game: str, agents: Sequence[tuple[str, Sequence[str]]]
) -> None:
    """dealer.c prints ``TO`` for every message it writes: every seat gets the state before each
    action and the final state, so a hand of ``k`` actions makes ``k + 1`` lines per seat."""
    hands = 150
    status, _, err = play(tmp_path, game, hands, 8, agents)
    assert status == 0, err[-2000:]
    log = [line for line in (tmp_path / "match.log").read_text().splitlines() if line.startswith("STATE:")]
    assert len(log) == hands
    per_seat = sum(actions_in(line.split(":")[2]) + 1 for line in log)
    to_lines = [line for line in err.splitlines() if line.startswith("TO ")]
    for seat in range(1, len(agents) + 1):
        assert sum(line.startswith(f"TO {seat} at ") for line in to_lines) == per_seat
    assert len(to_lines) == per_seat * len(agents)
