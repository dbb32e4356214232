"""The ACPC client runtime: connect to a dealer, follow each hand, answer when it is our turn.

Works with any ACPC dealer (the C ``dealer`` or ``acpc-dealer``): it sends
``VERSION:2.0.0``, reads ``MATCHSTATE`` lines, skips comments, keeps the agent
told of hand starts and ends, and replies ``<state>:<action>`` when the agent is
to act. An action the dealer would reject is made valid first (raise sizes
clamped, anything else invalid becomes a call), with a warning on standard
error, so the agent never sends an invalid action.
"""

from __future__ import annotations

import socket
import sys
from typing import TextIO

from acpc_arena.agents.base import Agent
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.state import CALL_ACTION
from acpc_arena.protocol.wire import MatchStateReader, format_action


class ClientError(Exception):
    """The connection failed or the dealer sent something unreadable."""


def connect(host: str, port: int, timeout: float = 30.0) -> socket.socket:
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise ClientError(f"could not connect to {host}:{port}: {exc}") from None
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def play(agent: Agent, sock: socket.socket, log: TextIO = sys.stderr) -> int:
    """Play until the dealer closes the connection; returns the number of hands seen."""
    game = agent.game
    states = MatchStateReader(game)
    reader = sock.makefile("rb", buffering=65536)
    sock.sendall(b"VERSION:2.0.0\r\n")
    current_hand = -1
    hands = 0
    for raw in reader:
        line = raw.decode("latin-1").rstrip("\r\n")
        if not line or line[0] in "#;":
            continue
        try:
            view = states.parse(line)
        except ProtocolError as exc:
            raise ClientError(f"unreadable state from the dealer (is --game right?): {exc}") from None
        state = view.state
        if state.hand_id != current_hand:
            current_hand = state.hand_id
            hands += 1
            agent.begin_hand(view)
        if state.finished:
            agent.end_hand(view)
            continue
        if state.current_player != view.viewer:
            continue
        action = agent.act(view)
        fixed = state.validate_action(action, try_fixing=True)
        if fixed is None or fixed != action:
            replacement = fixed if fixed is not None else CALL_ACTION
            print(f"WARNING: {agent.name} chose {action} in {line}; sending {replacement}", file=log)
            action = replacement
        sock.sendall(f"{line}:{format_action(action, game)}\r\n".encode("ascii"))
    return hands
