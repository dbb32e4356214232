"""Agents the tests build to misbehave on purpose."""

from __future__ import annotations

import time

from acpc_arena.agents.baselines import CallAgent
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState


class SlowOnFifthDecision(CallAgent):
    """``call``, except that its fifth decision takes 0.3 s (past a 200 ms response limit)."""

    def __init__(self, game: Game, seed: int) -> None:
        super().__init__(game, seed)
        self.decisions = 0

    def act(self, view: MatchState) -> Action:
        self.decisions += 1
        if self.decisions == 5:
            time.sleep(0.3)  # the lateness under test
        return super().act(view)


INVALID_BOT = """
import socket, sys
sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
sock.sendall(b"VERSION:2.0.0\\r\\n")
for line in sock.makefile("rb"):
    if line.startswith(b"MATCHSTATE:"):
        sock.sendall(line.rstrip(b"\\r\\n") + b":x\\r\\n")
"""
"""A bot (a script: ``python -c INVALID_BOT HOST PORT``) that answers every state it is sent with the action
``x``, which no game has: each of its decisions is an invalid action (the dealer plays a call); its answers to
the states where it is not to act are ignored as un-requested."""
