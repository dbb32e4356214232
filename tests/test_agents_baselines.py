"""The baseline agents, the client runtime and ``acpc-agent``."""

from __future__ import annotations

import io
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from acpc_arena.agents.base import Agent
from acpc_arena.agents.baselines import CallAgent, RaiseAgent, RandomAgent, RuleAgent
from acpc_arena.agents.client import play
from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, parse_match_state
from tests.helpers.processes import program, start_agent, start_dealer

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
NL = load_game("holdem.nolimit.2p.reverse_blinds")


def view_of(game: Game, line: str) -> MatchState:
    return parse_match_state(line, game)


def test_random_agent_uses_the_example_player_probabilities() -> None:
    agent = RandomAgent(LIMIT, seed=1)
    facing_bet = view_of(LIMIT, "MATCHSTATE:1:0::|AsKd")  # the small blind owes 5: all three valid
    counts = Counter(agent.act(facing_bet).kind for _ in range(20000))
    assert abs(counts[FOLD] / 20000 - 0.06) < 0.01
    assert abs(counts[CALL] / 20000 - 0.47) < 0.015
    assert abs(counts[RAISE] / 20000 - 0.47) < 0.015
    nothing_owed = view_of(LIMIT, "MATCHSTATE:0:0:c:AsKd|")
    counts = Counter(agent.act(nothing_owed).kind for _ in range(4000))
    assert counts[FOLD] == 0 and abs(counts[CALL] / 4000 - 0.5) < 0.03
    capped = view_of(LIMIT, "MATCHSTATE:0:0:rrr:AsKd|")
    assert {agent.act(capped).kind for _ in range(500)} == {FOLD, CALL}


def test_random_agent_nolimit_sizes_and_seeding() -> None:
    view = view_of(NL, "MATCHSTATE:1:0::|AsKd")
    agent = RandomAgent(NL, seed=5)
    sizes = [a.size for a in (agent.act(view) for _ in range(3000)) if a.kind == RAISE]
    assert min(sizes) >= 200 and max(sizes) <= 20000 and len(set(sizes)) > 500
    first, again = RandomAgent(NL, seed=9), RandomAgent(NL, seed=9)
    assert [first.act(view) for _ in range(50)] == [again.act(view) for _ in range(50)]


def test_call_and_raise_agents() -> None:
    opening = MatchState(1, State(NL))
    assert CallAgent(NL).act(opening) == Action(CALL)
    assert RaiseAgent(NL).act(opening) == Action(RAISE, 200)
    assert RaiseAgent(LIMIT).act(view_of(LIMIT, "MATCHSTATE:1:0::|AsKd")) == Action(RAISE)
    assert RaiseAgent(LIMIT).act(view_of(LIMIT, "MATCHSTATE:0:0:rrr:AsKd|")) == Action(CALL)


def test_rule_agent_never_folds_a_strong_hand() -> None:
    agent = RuleAgent(LIMIT, seed=1, samples=300)
    strong = view_of(LIMIT, "MATCHSTATE:0:0:r:AsAh|")
    kinds = Counter(agent.act(strong).kind for _ in range(200))
    assert kinds[FOLD] == 0 and 70 < kinds[RAISE] < 130


def test_rule_agent_folds_a_fifth_of_weak_hands_facing_a_bet() -> None:
    agent = RuleAgent(LIMIT, seed=2, samples=300)
    weak = view_of(LIMIT, "MATCHSTATE:0:0:r:7c2d|")
    kinds = Counter(agent.act(weak).kind for _ in range(400))
    assert 50 < kinds[FOLD] < 110 and 120 < kinds[RAISE] < 200
    checked_to = view_of(LIMIT, "MATCHSTATE:0:0:c:7c2d|")
    assert all(agent.act(checked_to).kind != FOLD for _ in range(100))
    assert agent.hand_strength(weak) < 0.5 < agent.hand_strength(view_of(LIMIT, "MATCHSTATE:0:0:r:AsAh|"))


def test_rule_agent_on_the_river_uses_the_board() -> None:
    agent = RuleAgent(LIMIT, seed=3, samples=400)
    nuts = view_of(LIMIT, "MATCHSTATE:0:0:cc/cc/cc/r:AsKs|/QsJsTs/2c/3d")
    assert agent.hand_strength(nuts) == 1.0  # a royal flush


class Stubborn(Agent):
    """An agent that always asks for something the dealer would refuse."""

    name = "stubborn"

    def act(self, view: MatchState) -> Action:
        return Action(FOLD) if not view.state.can_fold() else Action(RAISE, 5)


def fake_dealer(lines: list[str]) -> tuple[socket.socket, list[str], threading.Thread]:
    """A one-shot dealer on a socket pair: sends ``lines``, collects the replies."""
    ours, theirs = socket.socketpair()
    replies: list[str] = []

    def serve() -> None:
        reader = ours.makefile("rb")
        replies.append(reader.readline().decode().strip())
        for line in lines:
            ours.sendall((line + "\r\n").encode())
            if line.startswith("MATCHSTATE"):
                view = parse_match_state(line, NL)
                if not view.state.finished and view.state.current_player == view.viewer:
                    replies.append(reader.readline().decode().strip())
        reader.close()
        ours.close()

    thread = threading.Thread(target=serve)
    thread.start()
    return theirs, replies, thread


def test_client_never_sends_an_invalid_action() -> None:
    lines = ["# comment", "MATCHSTATE:0:0:c:AsKd|", "MATCHSTATE:1:1::|AsKd", "MATCHSTATE:1:1:cc/:|AsKd/2c3c4c"]
    sock, replies, thread = fake_dealer(lines)
    log = io.StringIO()
    hands = play(Stubborn(NL), sock, log)
    thread.join()
    sock.close()
    assert replies[0] == "VERSION:2.0.0"
    assert replies[1] == "MATCHSTATE:0:0:c:AsKd|:c"  # fold with nothing owed becomes a call
    assert replies[2] == "MATCHSTATE:1:1::|AsKd:r200"  # raise to 5 is fixed up to the minimum
    assert hands == 2
    assert log.getvalue().count("WARNING: stubborn chose") == 2


def test_registry() -> None:
    assert {"random", "call", "raise", "rule"} <= set(AGENTS)
    assert agent_class("rule") is RuleAgent
    with pytest.raises(ValueError, match="agent 'nope': not a shipped agent"):
        agent_class("nope")


def test_acpc_agent_command_line_errors() -> None:
    done = subprocess.run([program("acpc-agent"), "nope", "127.0.0.1", "1"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("ERROR: agent 'nope': not a shipped agent")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    done = subprocess.run(
        [program("acpc-agent"), "call", "127.0.0.1", str(closed_port)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and done.stderr.startswith("ERROR: call: could not connect to 127.0.0.1:")
    done = subprocess.run(
        [program("acpc-agent"), "call", "127.0.0.1", "1", "--game", "missing.game"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "no game file 'missing.game'" in done.stderr  # a usage error
    done = subprocess.run([program("acpc-agent"), "rule", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--threshold" in done.stdout


def test_an_agent_started_before_its_dealer_waits_for_it(tmp_path: Path) -> None:
    """A script that starts ``acpc-dealer ... &`` and its players at once: the players may try to
    connect before the dealer listens; a refused connection is tried again for a few seconds."""
    ports = []
    for _ in range(2):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    agents = [start_agent("call", port, "--game", "kuhn", cwd=tmp_path) for port in ports]
    time.sleep(1.0)  # the dealer starts a second after its players
    dealer = start_dealer(tmp_path, "m", "kuhn", "20", "1", "A", "B", "-p", f"{ports[0]},{ports[1]}", "-q")
    status, out, err = dealer.wait()
    assert status == 0, err
    assert out.startswith("SCORE:") and out.rstrip().endswith(":A|B")
    hands = [line.split(":") for line in (tmp_path / "m.log").read_text().splitlines() if line.startswith("STATE:")]
    # Two callers in Kuhn: both check, the higher card takes the other's ante of 1.
    assert len(hands) == 20 and all(h[2] == "cc" and h[4] in ("1|-1", "-1|1") for h in hands)
    for agent in agents:
        assert agent.wait(timeout=30) == 0
