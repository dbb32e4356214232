"""A plain match (``play_match_sync``) deals, plays and scores without importing numpy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MATCH = """
import socket, sys, threading
from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.match import MatchConfig
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.sync_match import play_match_sync
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state

name = "holdem.limit.2p.reverse_blinds"
game = load_game(name)

def calls(sock):
    sock.sendall(b"VERSION:2.0.0\\r\\n")
    for raw in sock.makefile("rb"):
        text = raw.decode().rstrip("\\r\\n")
        view = parse_match_state(text, game)
        if not view.state.finished and view.state.current_player == view.viewer:
            sock.sendall((text + ":c\\r\\n").encode())

channels = []
for seat in range(2):
    ours, theirs = socket.socketpair()
    channels.append(BlockingChannel(seat, ours))
    threading.Thread(target=calls, args=(theirs,), daemon=True).start()
config = MatchConfig(name="m", game=game, game_file=name, hands=20, seed=1, players=("a", "b"))
result = play_match_sync(MatchEngine(config), channels)
print(result.ok, result.hands_played, sum(result.totals), "numpy" in sys.modules)
"""


def test_a_plain_match_imports_no_numpy(tmp_path: Path) -> None:
    environment = {**os.environ, "ACPC_ARENA_CACHE": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", MATCH], capture_output=True, text=True, env=environment, timeout=120)
        for _ in range(2)
    ]
    assert [run.stdout.split() for run in runs] == [
        ["True", "20", "0.0", "True"],  # the first builds the evaluator's tables (with numpy) and keeps them
        ["True", "20", "0.0", "False"],
    ], [run.stderr for run in runs]
