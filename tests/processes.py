"""Helpers to run the real programs in tests: the dealer and agents as processes, over TCP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.protocol.game import Game
from acpc_arena.protocol.wire import parse_log_line, parse_score_line
from tests.hand_values import hand_values

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parent.parent


def program(name: str) -> str:
    """The installed console script ``name`` (``acpc-dealer``, ``acpc-agent``, ...)."""
    return str(BIN / name)


@dataclass
class Dealer:
    process: subprocess.Popen[str]
    ports: list[int]

    def wait(self, timeout: float = 120) -> tuple[int, str, str]:
        """Exit status, the rest of standard output, and standard error."""
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err


def start_dealer(cwd: Path, *args: str) -> Dealer:
    """Start ``acpc-dealer args...`` in ``cwd`` and read the ports line it prints first."""
    process = subprocess.Popen(
        [program("acpc-dealer"), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        _, err = process.communicate(timeout=30)
        raise AssertionError(f"the dealer printed no ports (exit {process.returncode}): {err}")
    return Dealer(process, [int(p) for p in line.split()])


def start_agent(agent: str, port: int, *args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [program("acpc-agent"), agent, "127.0.0.1", str(port), *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def play(
    cwd: Path, game: str, hands: int, seed: int, agents: Sequence[tuple[str, Sequence[str]]], *dealer_args: str
) -> tuple[int, str, str]:
    """A whole match: the dealer and one agent process per seat; returns the dealer's status and output."""
    names = [f"{agent}{i + 1}" for i, (agent, _) in enumerate(agents)]
    dealer = start_dealer(cwd, "match", game, str(hands), str(seed), *names, *dealer_args)
    players = [
        start_agent(agent, port, "--game", game, *extra, cwd=cwd)
        for (agent, extra), port in zip(agents, dealer.ports, strict=True)
    ]
    result = dealer.wait()
    for player in players:
        player.wait(timeout=60)
    return result


def check_log(path: Path, game: Game, hands: int) -> list[float]:
    """Parse a finished match's log, check it, and return the totals by seat name order of the SCORE line."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# name/game/hands/seed ")
    assert [line.split()[0] for line in lines[1:4]] == ["#--t_response", "#--t_hand", "#--t_per_hand"]
    hand_lines = [line for line in lines if line.startswith("STATE")]
    states = [parse_log_line(line, game) for line in hand_lines]
    assert len(states) == hands
    assert [hand.state.hand_id for hand in states] == list(range(hands))
    score = parse_score_line(lines[-1], game.num_players)
    totals = dict.fromkeys(score.names, 0.0)
    for line, hand in zip(hand_lines, states, strict=True):
        assert abs(sum(hand.values)) < 1e-9
        # valued apart from the engine; the log prints 6 decimals (a split pot can leave thirds)
        assert all(abs(v - e) < 1e-6 for v, e in zip(hand.values, hand_values(line, game), strict=True)), line
        for name, value in zip(hand.names, hand.values, strict=True):
            totals[name] += value
    for name, total in zip(score.names, score.totals, strict=True):
        assert abs(totals[name] - total) < 1e-6
    return list(score.totals)


class ScriptedPlayer:
    """A hand-driven ACPC client over TCP, for sending the dealer exactly what a test wants."""

    def __init__(self, port: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.reader = self.sock.makefile("rb")

    def send(self, text: str | bytes) -> None:
        self.sock.sendall(text if isinstance(text, bytes) else text.encode())

    def receive(self) -> str:
        line = self.reader.readline()
        return line.decode().rstrip("\r\n")

    def close(self) -> None:
        self.reader.close()  # the socket stays open while its file object does
        self.sock.close()
