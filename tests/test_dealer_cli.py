"""``acpc-dealer`` as a process: its command line, files, failures, metrics and structured logs."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from acpc_arena.protocol.game import load_game
from tests.helpers.processes import ScriptedPlayer, check_log, free_port, play, program, start_agent, start_dealer

LIMIT = "holdem.limit.2p.reverse_blinds"


def run_dealer(cwd: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([program("acpc-dealer"), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_usage(tmp_path: Path) -> None:
    done = run_dealer(tmp_path)
    assert done.returncode == 1 and done.stdout.startswith("usage: dealer matchName gameDefFile #Hands rngSeed")
    done = run_dealer(tmp_path, "m", LIMIT, "10", "1", "OnlyOne")
    assert done.returncode == 1 and done.stdout.startswith("usage:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["m", "nope.game", "10", "1", "A", "B"], "ERROR: could not read game nope.game"),
        (["m", LIMIT, "0", "1", "A", "B"], "ERROR: invalid number of hands 0"),
        (["m", LIMIT, "ten", "1", "A", "B"], "ERROR: invalid number of hands ten"),
        (["m", LIMIT, "10", "x", "A", "B"], "ERROR: invalid random number seed x"),
        (["m", LIMIT, "10", "1", "A", "B", "-p", "12,x"], "ERROR: bad port string 12,x"),
        (["m", LIMIT, "10", "1", "A", "B", "-z"], "ERROR: unrecognized arguments: -z"),
        (["m", LIMIT, "10", "1", "A", "B", "--t_response", "soon"], "ERROR: invalid --t_response soon"),
    ],
)
def test_bad_command_lines(tmp_path: Path, args: list[str], message: str) -> None:
    done = run_dealer(tmp_path, *args)
    assert done.returncode == 1
    assert done.stderr.startswith(message)


def test_a_broken_game_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad.game").write_text("GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 9\nEND GAMEDEF\n")
    done = run_dealer(tmp_path, "m", "bad.game", "10", "1", "A", "B")
    assert done.returncode == 1
    assert "bad.game, line 4: invalid number of rounds 9" in done.stderr


def test_start_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_dealer(tmp_path, "m", LIMIT, "10", "1", "A", "B", "--start_timeout", "300")
    assert done.returncode == 1
    assert "ERROR: timed out waiting for seat 1 to connect" in done.stderr
    assert time.monotonic() - started < 10


def test_fixed_seats_and_no_log(tmp_path: Path) -> None:
    status, _, err = play(tmp_path, "kuhn", 30, 1, [("call", []), ("raise", [])], "-f", "-q")
    assert status == 0, err
    lines = (tmp_path / "match.log").read_text().splitlines()
    assert all(line.endswith(":call1|raise2") for line in lines if line.startswith("STATE"))  # no rotation
    (tmp_path / "match.log").unlink()
    status, out, _ = play(tmp_path, "kuhn", 30, 1, [("call", []), ("raise", [])], "-l", "-q")
    assert status == 0 and not (tmp_path / "match.log").exists()
    assert out.startswith("SCORE:")


def test_the_ports_are_the_ones_given(tmp_path: Path) -> None:
    with socket.socket() as a, socket.socket() as b:
        a.bind(("127.0.0.1", 0))
        b.bind(("127.0.0.1", 0))
        ports = [a.getsockname()[1], b.getsockname()[1]]
    dealer = start_dealer(tmp_path, "m", "kuhn", "5", "1", "A", "B", "-q", "-p", f"{ports[0]},{ports[1]}")
    assert dealer.ports == ports
    agents = [start_agent("call", port, "--game", "kuhn") for port in ports]
    assert dealer.wait()[0] == 0
    for agent in agents:
        agent.wait(timeout=30)


def scripted_match(
    tmp_path: Path, hands: int, behave: Callable[[ScriptedPlayer, str, int], bool], *args: str
) -> tuple[int, str, str]:
    """Seat 1 is the ``call`` agent, seat 2 a scripted player driven by ``behave(player, line)``."""
    dealer = start_dealer(tmp_path, "m", LIMIT, str(hands), "1", "Caller", "Scripted", "-q", *args)
    agent = start_agent("call", dealer.ports[0], "--game", LIMIT)
    player = ScriptedPlayer(dealer.ports[1])
    player.send("VERSION:2.0.0\r\n")
    game = load_game(LIMIT)
    from acpc_arena.protocol.wire import parse_match_state

    try:
        while line := player.receive():
            view = parse_match_state(line, game)
            if view.state.finished or view.state.current_player != view.viewer:
                continue
            if behave(player, line, view.state.hand_id) is False:
                break
    except OSError:
        pass
    player.close()
    result = dealer.wait()
    agent.wait(timeout=30)
    return result


def test_disconnect_over_tcp(tmp_path: Path) -> None:
    def behave(player: ScriptedPlayer, line: str, hand: int) -> bool:
        if hand == 5:
            return False
        player.send(f"{line}:c\r\n")
        return True

    status, out, err = scripted_match(tmp_path, 20, behave)
    assert status == 1
    assert "ERROR: seat 2: disconnected" in err
    assert "SCORE" not in out
    hands = [line for line in (tmp_path / "m.log").read_text().splitlines() if line.startswith("STATE")]
    assert len(hands) == 5


def test_line_too_long_over_tcp(tmp_path: Path) -> None:
    def behave(player: ScriptedPlayer, line: str, hand: int) -> bool:
        player.send(f"{line}:c" + "c" * 5000 + "\r\n" if hand == 2 else f"{line}:c\r\n")
        return True

    status, _, err = scripted_match(tmp_path, 20, behave)
    assert status == 1 and "ERROR: seat 2: sent a line longer than 4096 bytes" in err


def test_response_timeout_over_tcp(tmp_path: Path) -> None:
    def behave(player: ScriptedPlayer, line: str, hand: int) -> bool:
        if hand == 3:
            time.sleep(1.0)  # a player late on purpose: past the 300 ms response limit
        player.send(f"{line}:c\r\n")
        return True

    status, _, err = scripted_match(tmp_path, 20, behave, "--t_response", "300")
    assert status == 1 and "ERROR: seat 2: timed out waiting for a response" in err
    assert "#--t_response 300" in (tmp_path / "m.log").read_text()


def test_warnings_go_to_standard_error(tmp_path: Path) -> None:
    def behave(player: ScriptedPlayer, line: str, hand: int) -> bool:
        player.send("nonsense\r\n")
        player.send(f"{line}:z\r\n")
        return True

    status, _out, err = scripted_match(tmp_path, 3, behave)
    assert status == 0
    assert "WARNING: bad state format in response" in err
    assert "WARNING: bad action format in response, changed to call" in err


def test_transaction_file_replays_an_interrupted_match(tmp_path: Path) -> None:
    """A match stopped by a disconnect and restarted with -T -a ends as an uninterrupted one."""
    whole = tmp_path / "whole"
    whole.mkdir()
    status, _, _ = play(whole, LIMIT, 60, 5, [("random", ["--seed", "1"]), ("call", [])], "-q")
    assert status == 0

    broken = tmp_path / "broken"
    broken.mkdir()
    dealer = start_dealer(broken, "match", LIMIT, "60", "5", "random1", "call2", "-q", "-T")
    first = start_agent("random", dealer.ports[0], "--game", LIMIT, "--seed", "1")
    player = ScriptedPlayer(dealer.ports[1])
    player.send("VERSION:2.0.0\r\n")
    from acpc_arena.protocol.wire import parse_match_state

    game = load_game(LIMIT)
    while line := player.receive():
        view = parse_match_state(line, game)
        if view.state.hand_id == 25 and view.state.actions[0]:
            break  # leave in the middle of hand 25
        if not view.state.finished and view.state.current_player == view.viewer:
            player.send(f"{line}:c\r\n")
    player.close()
    assert dealer.wait()[0] == 1
    first.kill()
    first.wait()
    transactions = (broken / "match.tlog").read_text().splitlines()
    assert transactions and all(len(line.split()) == 4 for line in transactions)

    # The random agent restarts too, so it must not replay its own earlier choices:
    # the same seed and the replayed hands' actions come from the transaction file.
    dealer = start_dealer(broken, "match", LIMIT, "60", "5", "random1", "call2", "-q", "-T", "-a")
    agents = [
        start_agent("random", dealer.ports[0], "--game", LIMIT, "--seed", "1"),
        start_agent("call", dealer.ports[1], "--game", LIMIT),
    ]
    status, _out, err = dealer.wait()
    for agent in agents:
        agent.wait(timeout=30)
    assert status == 0, err
    resumed = [line for line in (broken / "match.log").read_text().splitlines() if not line.startswith("#")]
    expected = [line for line in (whole / "match.log").read_text().splitlines() if not line.startswith("#")]
    assert [line.split(":")[1] for line in resumed[:-1]] == [str(h) for h in range(60)]
    assert resumed[:25] == expected[:25]  # the hands finished before the break
    assert len(resumed) == 61 and resumed[-1].startswith("SCORE:")
    check = broken / "check.log"
    header = (broken / "match.log").read_text().splitlines()[:4]
    check.write_text("\n".join(header + resumed) + "\n")
    check_log(check, game, 60)


def test_json_event_log(tmp_path: Path) -> None:
    status, out, err = play(tmp_path, "kuhn", 10, 1, [("call", []), ("raise", [])], "-q", "--log-format", "json")
    assert status == 0 and out.startswith("SCORE:")
    events = [json.loads(line) for line in err.splitlines()]
    names = [event["event"] for event in events]
    assert names[0] == "listening" and "match_started" in names and names[-1] == "match_finished"
    finished = events[-1]
    assert finished["hands"] == 10 and set(finished["totals"]) == {"call1", "raise2"}


def test_prometheus_metrics_are_served_while_playing(tmp_path: Path) -> None:
    metrics_port = free_port()
    dealer = start_dealer(tmp_path, "metered", LIMIT, "3000", "1", "A", "B", "-q", "--metrics-port", str(metrics_port))
    agents = [
        start_agent(agent, port, "--game", LIMIT) for agent, port in zip(["call", "raise"], dealer.ports, strict=True)
    ]
    scraped = ""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and dealer.process.poll() is None:
        try:
            scraped = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        except OSError:
            time.sleep(0.05)
            continue
        if 'acpc_dealer_hands_total{match="metered"}' in scraped:
            break
        time.sleep(0.05)
    # Seen: the rest of the 3,000 hands would only cost time (a dealer's metrics to the match's end:
    # tests/test_metrics_linger.py; what a stopped dealer keeps: tests/test_interrupt.py).
    dealer.process.terminate()
    status, _, err = dealer.wait()
    for agent in agents:
        agent.wait(timeout=30)
    assert status == 128 + signal.SIGTERM, err
    assert 'acpc_dealer_hands_total{match="metered"}' in scraped
    assert 'acpc_dealer_actions_total{action="raise",match="metered",player="B",seat="2"}' in scraped
    assert 'acpc_dealer_response_seconds_count{match="metered",player="A",seat="1"}' in scraped
    assert 'acpc_dealer_chips_won{match="metered",player="A",seat="1"}' in scraped
    assert "acpc_dealer_matches_running 1.0" in scraped
