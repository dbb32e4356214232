"""Hostile players and hostile conditions against a real dealer: the match must end cleanly.

Each case checks that the dealer ends (in time, with a one-line error where the
match failed), that the log holds every finished hand and parses, and that the
``SCORE`` line, where there is one, is the sum of the log. The classes: floods of
junk on and off turn, over-long lines, a disconnect in the middle of a hand, a
dealer killed (``kill -9``, or a crash injected in-process) at every write and
resumed with ``-T -a``, and a disk that fills up.
"""

from __future__ import annotations

import errno
import io
import os
import resource
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing
from prometheus_client import CollectorRegistry

from acpc_arena.dealer.observers.metrics import DealerMetrics, MetricsObserver
from acpc_arena.dealer.server.console import ConsoleObserver
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.logfiles import MatchLog, TransactionLog, read_transactions
from acpc_arena.dealer.server.match import MatchConfig, MatchResult, Observers
from acpc_arena.dealer.server.seat import SocketChannel, StreamChannel, accept
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.dealer.server.warning_limit import WARNINGS_SHOWN
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state
from tests.helpers.processes import (
    Dealer,
    Player,
    ScriptedPlayer,
    check_log,
    dealer_args,
    read_ports,
    spawn,
    start_agent,
    start_dealer,
)

LIMIT = "holdem.limit.2p.reverse_blinds"
GAME = load_game(LIMIT)


def records(path: Path) -> list[str]:
    """A log's lines other than comments (a resumed run repeats the header)."""
    return [line for line in path.read_text().splitlines() if not line.startswith("#")]


# --- hostile players over TCP: seat 1 is the `call` agent, seat 2 a scripted client


def scripted_match(
    tmp_path: Path, hands: int, behave: Callable[[ScriptedPlayer, str, bool], bool], *args: str, timeout: float = 60
) -> tuple[int, str, str]:
    """Play ``hands`` hands; ``behave(player, line, to_act)`` answers each message to seat 2
    (False: stop reading). Returns the dealer's status, standard output and error."""
    dealer = start_dealer(tmp_path, "m", LIMIT, str(hands), "1", "Caller", "Hostile", "-q", *args)
    agent = start_agent("call", dealer.ports[0], "--game", LIMIT)
    player = ScriptedPlayer(dealer.ports[1])
    player.send("VERSION:2.0.0\r\n")
    try:
        while line := player.receive():
            view = parse_match_state(line, GAME)
            if behave(player, line, not view.state.finished and view.state.current_player == view.viewer) is False:
                break
    except OSError:
        pass
    player.close()
    try:
        result = dealer.wait(timeout=timeout)
    finally:
        dealer.process.kill()
        agent.wait(timeout=30)
    return result


def flood(player: ScriptedPlayer, junk: bytes) -> threading.Thread:
    """Send ``junk`` without pause from a thread until the dealer closes the connection."""

    def run() -> None:
        block = junk * max(1, 65536 // len(junk))
        try:
            while True:
                player.sock.sendall(block)
        except OSError:
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    "junk",
    [b"garbage\r\n", b"MATCHSTATE:0:999::AsKs|:c\r\n", b"# thinking\r\n"],
    ids=["unreadable", "unrequested", "comments"],
)
def test_a_flood_on_turn_ends_at_the_response_deadline(tmp_path: Path, junk: bytes) -> None:
    """Lines that never answer keep the socket readable: the deadline must still hold, and
    standard error must not get a line per junk line."""
    started: list[float] = []

    def behave(player: ScriptedPlayer, line: str, to_act: bool) -> bool:
        if to_act and line.split(":")[2] == "3":
            started.append(time.monotonic())
            flood(player, junk).join(timeout=30)
            return False
        if to_act:
            player.send(f"{line}:c\r\n")
        return True

    status, out, err = scripted_match(tmp_path, 10, behave, "--t_response", "1000")
    assert status == 1 and out == ""
    assert time.monotonic() - started[0] < 10
    assert err.splitlines()[-1] == "ERROR: seat 2: timed out waiting for a response"
    warnings = [line for line in err.splitlines() if line.startswith("WARNING")]
    assert len(warnings) <= WARNINGS_SHOWN + 2  # the first ones, a notice, a count at the end
    assert len(err) < 5000
    check_log(tmp_path / "m.log", GAME, 3, finished=False)


def test_a_flood_off_turn_is_read_and_counted_and_the_match_finishes(tmp_path: Path) -> None:
    sent = [0]

    def behave(player: ScriptedPlayer, line: str, to_act: bool) -> bool:
        if to_act:
            player.send(f"{line}:c\r\n")
        elif line.split(":")[2] in ("1", "2"):
            player.send("junk\r\n" * 300)
            sent[0] += 300
        return True

    status, out, err = scripted_match(tmp_path, 20, behave)
    assert status == 0, err[-2000:]
    warnings = [line for line in err.splitlines() if line.startswith("WARNING")]
    assert warnings[:WARNINGS_SHOWN] == ["WARNING: bad state format in response"] * WARNINGS_SHOWN
    assert warnings[WARNINGS_SHOWN:] == [
        "WARNING: seat 2: more 'bad_state' warnings are counted and reported at the end",
        f"WARNING: seat 2: {sent[0] - WARNINGS_SHOWN} more 'bad_state' warnings not shown ({sent[0]} in all)",
    ]
    totals = check_log(tmp_path / "m.log", GAME, 20)
    assert out.strip() == records(tmp_path / "m.log")[-1]
    assert abs(sum(totals)) < 1e-6


@pytest.mark.parametrize("on_turn", [True, False], ids=["on-turn", "off-turn"])
def test_an_oversized_line_ends_the_match(tmp_path: Path, on_turn: bool) -> None:
    def behave(player: ScriptedPlayer, line: str, to_act: bool) -> bool:
        if line.split(":")[2] == "4" and to_act == on_turn:
            player.send("#" + "x" * 5000 + "\r\n")
        if to_act:
            player.send(f"{line}:c\r\n")
        return True

    status, _, err = scripted_match(tmp_path, 10, behave)
    assert status == 1
    assert err.splitlines()[-1] == "ERROR: seat 2: sent a line longer than 4096 bytes"
    # read on seat 2's next turn: in hand 4 (on turn) or, when sent after its last turn of hand 4, in hand 5
    logged = len(records(tmp_path / "m.log"))
    assert logged in ((4,) if on_turn else (4, 5))
    check_log(tmp_path / "m.log", GAME, logged, finished=False)


def test_a_disconnect_in_the_middle_of_a_hand(tmp_path: Path) -> None:
    def behave(player: ScriptedPlayer, line: str, to_act: bool) -> bool:
        view = parse_match_state(line, GAME)
        if view.state.hand_id == 6 and any(view.state.actions):
            return False  # gone, with the hand half played
        if to_act:
            player.send(f"{line}:c\r\n")
        return True

    status, _, err = scripted_match(tmp_path, 10, behave)
    assert status == 1
    assert err.splitlines()[-1].startswith("ERROR: seat 2: ")
    check_log(tmp_path / "m.log", GAME, 6, finished=False)


@pytest.mark.timeout(60)
def test_the_runners_socket_channel_holds_the_deadline_under_a_flood() -> None:
    """``SocketChannel`` (the match runner's) never waits while a flood keeps data coming."""
    ours, theirs = socket.socketpair()
    config = MatchConfig(
        name="t", game=load_game("kuhn"), game_file="kuhn", hands=3, seed=1, players=("A", "B"), t_response_ms=500
    )

    def flooder() -> None:
        theirs.sendall(b"VERSION:2.0.0\r\n")
        theirs.makefile("rb").readline()
        try:
            while True:
                theirs.sendall(b"garbage\r\n" * 8000)
        except OSError:
            pass  # the dealer closed the connection

    async def main() -> MatchResult:
        a, b = trio.testing.memory_stream_pair()
        calling = Player(b, "kuhn")

        async def call(player: Player = calling) -> None:
            await player.send("VERSION:2.0.0\r\n")
            while (line := await player.next_turn()) is not None:
                await player.send(f"{line}:c\r\n")

        channels = [StreamChannel(0, a), SocketChannel(1, ours)]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call)
            with trio.fail_after(10):
                result = await play_match(MatchEngine(config), channels)
            for channel in channels:
                await channel.aclose()
        return result

    thread = threading.Thread(target=flooder, daemon=True)
    thread.start()
    result = trio.run(main)
    theirs.close()
    thread.join(timeout=10)
    assert result.error is not None and result.error.kind == "timeout" and result.error.seat == 1


async def test_warnings_are_rate_limited_per_seat_and_counted_in_full(tmp_path: Path) -> None:
    game = load_game("kuhn")
    config = MatchConfig(name="t", game=game, game_file="kuhn", hands=4, seed=1, players=("A", "B"))
    junk = [37, 0, 5, 2]  # junk lines seat 2 sends before each of its four answers

    async def noisy(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        turn = 0
        while (line := await player.next_turn()) is not None:
            await player.send("nonsense\r\n" * junk[turn] + f"{line}:c\r\n")
            turn += 1

    async def call(player: Player) -> None:
        await player.send("VERSION:2.0.0\r\n")
        while (line := await player.next_turn()) is not None:
            await player.send(f"{line}:c\r\n")

    out = io.StringIO()
    registry = CollectorRegistry()
    observer = Observers([ConsoleObserver(quiet=True, stream=out), MetricsObserver(DealerMetrics(registry))])
    async with trio.open_nursery() as nursery:
        channels = []
        for seat, script in enumerate([call, noisy]):
            a, b = trio.testing.memory_stream_pair()
            channels.append(StreamChannel(seat, a))
            nursery.start_soon(script, Player(b, "kuhn"))
        result = await play_match(MatchEngine(config, observer), channels)
        for channel in channels:
            await channel.aclose()
    assert result.ok
    total = sum(junk)  # seat 2 acts once in every hand of kuhn when both check
    lines = out.getvalue().splitlines()
    assert lines == [
        *["WARNING: bad state format in response"] * WARNINGS_SHOWN,
        "WARNING: seat 2: more 'bad_state' warnings are counted and reported at the end",
        f"WARNING: seat 2: {total - WARNINGS_SHOWN} more 'bad_state' warnings not shown ({total} in all)",
    ]
    counted = registry.get_sample_value(
        "acpc_dealer_warnings_total", {"match": "t", "seat": "2", "player": "B", "kind": "bad_state"}
    )
    assert counted == total


# --- killed and resumed: in-process at every write, and a real `kill -9`


def deterministic_choice(line: str) -> str:
    """An action that depends on the state alone, so a restarted player plays as before."""
    return "fccr"[zlib.crc32(line.encode()) % 4]


class Crash(Exception):
    """Stands for the dealer dying: nothing after it is written."""


class Writes:
    """Counts writes to the log and transaction files; the ``crash_at``-th never completes
    (with ``half``, half of its text reaches the disk first)."""

    def __init__(self, crash_at: int | None = None, half: bool = False) -> None:
        self.count = 0
        self.crash_at = crash_at
        self.half = half

    def check(self, path: Path, text: str) -> None:
        self.count += 1
        if self.count == self.crash_at:
            if self.half:
                with open(path, "a") as file:
                    file.write(text[: len(text) // 2])
            raise Crash


def crashing_files(directory: Path, writes: Writes, append: bool) -> tuple[MatchLog, TransactionLog]:
    """The match's log and transaction file, each write counted (and maybe crashed) by ``writes``."""

    class CrashingMatchLog(MatchLog):
        def write_text(self, text: str) -> None:
            writes.check(self.path, text)
            super().write_text(text)

    class CrashingTransactionLog(TransactionLog):
        def write_text(self, text: str) -> None:
            writes.check(self.path, text)
            super().write_text(text)

    log = CrashingMatchLog(directory / "m.log", append=append)
    return log, CrashingTransactionLog(directory / "m.tlog", append=append)


async def play_in_process(directory: Path, hands: int, writes: Writes, resume: bool) -> MatchResult | None:
    """What ``acpc-dealer m holdem... -T [-a]`` does, with deterministic players; None if it crashed."""
    config = MatchConfig(name="m", game=GAME, game_file=LIMIT, hands=hands, seed=11, players=("A", "B"))
    replay = read_transactions(directory / "m.tlog") if resume else []
    log, transactions = crashing_files(directory, writes, append=resume)

    async def deterministic(player: Player) -> None:
        try:
            await player.send("VERSION:2.0.0\r\n")
            while (line := await player.next_turn()) is not None:
                await player.send(f"{line}:{deterministic_choice(line)}\r\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the dealer crashed

    result = None
    try:
        async with trio.open_nursery() as nursery:
            channels = []
            for seat in range(2):
                a, b = trio.testing.memory_stream_pair()
                channels.append(StreamChannel(seat, a))
                nursery.start_soon(deterministic, Player(b, LIMIT))
            try:
                log.write_text(config.header())
                result = await play_match(
                    MatchEngine(config, log=log, transactions=transactions, replay=replay), channels
                )
            except Crash:
                pass
            for channel in channels:
                await channel.aclose()
    finally:
        log.close()
        transactions.close()
    return result


def uncrashed(result: MatchResult | None) -> MatchResult:
    """The result of a match played with a ``Writes()`` that crashes no write."""
    assert result is not None, "play_in_process crashed though no write was set to crash"
    return result


async def test_killed_at_any_write_and_resumed_the_log_is_the_uninterrupted_one(tmp_path: Path) -> None:
    hands = 6
    whole = tmp_path / "whole"
    whole.mkdir()
    counted = Writes()
    assert uncrashed(await play_in_process(whole, hands, counted, resume=False)).ok
    expected = records(whole / "m.log")
    check_log(whole / "m.log", GAME, hands)
    failures = []
    assert counted.count > 2 * hands  # the header, every action, every hand, the score
    for crash_at in range(1, counted.count + 1):
        for half in (False, True):
            case = tmp_path / f"crash{crash_at}{'h' if half else ''}"
            case.mkdir()
            assert await play_in_process(case, hands, Writes(crash_at, half), resume=False) is None
            result = await play_in_process(case, hands, Writes(), resume=True)
            if result is None or not result.ok or records(case / "m.log") != expected:
                failures.append((crash_at, half))
                continue
            check_log(case / "m.log", GAME, hands)
    assert failures == []


async def test_a_match_played_again_onto_its_log_is_logged_again(tmp_path: Path) -> None:
    """``-a`` without a transaction file to replay: the C dealer appends a whole new match, score included."""
    assert uncrashed(await play_in_process(tmp_path, 4, Writes(), resume=False)).ok
    once = records(tmp_path / "m.log")
    (tmp_path / "m.tlog").unlink()
    assert uncrashed(await play_in_process(tmp_path, 4, Writes(), resume=True)).ok
    assert records(tmp_path / "m.log") == once + once


KILLER = """
import os, signal, sys
from acpc_arena.dealer.server import logfiles
from acpc_arena.dealer.commands.dealer import main

write_line = logfiles.MatchLog.write_line

def killed_before_hand(self, line):
    if line.startswith("STATE:{hand}:"):
        os.kill(os.getpid(), signal.SIGKILL)  # the hand's last action is in the transaction file
    write_line(self, line)

logfiles.MatchLog.write_line = killed_before_hand
main(sys.argv[1:])
"""


def run_match(dealer: Dealer, agents: tuple[str, ...] = ("call", "raise")) -> tuple[int, str, str]:
    players = [start_agent(agent, port, "--game", LIMIT) for agent, port in zip(agents, dealer.ports, strict=True)]
    result = dealer.wait()
    for player in players:
        player.wait(timeout=30)
    return result


def start_killer(cwd: Path, hand: int, *args: str) -> Dealer:
    process = spawn(
        [sys.executable, "-c", KILLER.format(hand=hand), *dealer_args(*args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return Dealer(process, read_ports(process))


def test_kill_9_between_the_transaction_and_the_log_line_then_resume(tmp_path: Path) -> None:
    args = ["m", LIMIT, "40", "17", "Caller", "Raiser", "-q", "-T"]
    whole = tmp_path / "whole"
    whole.mkdir()
    status, out, err = run_match(start_dealer(whole, *args))
    assert status == 0, err

    broken = tmp_path / "broken"
    broken.mkdir()
    status, _, _ = run_match(start_killer(broken, 23, *args))
    assert status == -9
    assert len(records(broken / "m.log")) == 23  # hands 0-22; hand 23 only in the transaction file
    assert read_transactions(broken / "m.tlog")[-1].hand_id == 23

    status, resumed_out, err = run_match(start_dealer(broken, *args, "-a"))
    assert status == 0, err
    assert records(broken / "m.log") == records(whole / "m.log")
    assert resumed_out == out
    check_log(broken / "m.log", GAME, 40)


def limit_file_size(size: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))  # past it, writes fail with EFBIG

    return limit


def test_a_full_disk_ends_the_match_cleanly_and_it_resumes(tmp_path: Path) -> None:
    args = ["m", LIMIT, "60", "3", "Caller", "Raiser", "-q", "-T"]
    whole = tmp_path / "whole"
    whole.mkdir()
    status, _, err = run_match(start_dealer(whole, *args))
    assert status == 0, err

    full = tmp_path / "full"
    full.mkdir()
    process = spawn(
        [str(Path(sys.executable).parent / "acpc-dealer"), *dealer_args(*args)],
        cwd=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit_file_size(8000),
    )
    dealer = Dealer(process, read_ports(process))
    status, out, err = run_match(dealer)
    assert status == 1 and out == ""
    assert err.splitlines()[-1] == "ERROR: could not write to m.tlog: File too large"
    assert "Traceback" not in err
    logged = len(records(full / "m.log"))
    assert 0 < logged < 60
    check_log(full / "m.log", GAME, logged, finished=False)

    status, _, err = run_match(start_dealer(full, *args, "-a"))
    assert status == 0, err
    assert records(full / "m.log") == records(whole / "m.log")
    check_log(full / "m.log", GAME, 60)


class FlakyListener(socket.socket):
    """A listening socket whose ``accept`` first fails with the given errors."""

    def __init__(self, *errors: int) -> None:
        super().__init__(socket.AF_INET, socket.SOCK_STREAM)
        self.errors = list(errors)
        self.bind(("127.0.0.1", 0))
        self.listen(8)
        self.setblocking(False)

    def accept(self) -> tuple[socket.socket, tuple[str, int]]:
        if self.errors:
            code = self.errors.pop(0)
            raise OSError(code, os.strerror(code))
        return super().accept()


async def test_accept_skips_a_connection_that_failed_before_it_was_accepted() -> None:
    with (
        FlakyListener(errno.ECONNABORTED, errno.EPERM) as listener,
        socket.create_connection(listener.getsockname()) as client,
    ):
        with trio.fail_after(10):
            connection = await accept(listener)
        assert connection is not None
        connection.sendall(b"hello")
        assert client.recv(5) == b"hello"
        connection.close()


async def test_accept_raises_what_concerns_the_listener() -> None:
    with FlakyListener(errno.EMFILE) as listener, pytest.raises(OSError) as raised:
        await accept(listener)
    assert raised.value.errno == errno.EMFILE
