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
import time
from collections.abc import Sequence
from typing import TextIO

from acpc_arena.agents.base import Agent
from acpc_arena.protocol.commands import FAILED, Interrupted
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.state import CALL_ACTION, Action
from acpc_arena.protocol.wire import MATCHSTATE_PREFIX, MatchState, MatchStateReader, format_action


class ClientError(Exception):
    """The connection failed or the dealer sent something unreadable."""


CONNECT_RETRY_SECONDS = 5.0
"""How long a refused connection is tried again: a dealer started just before its players
(``acpc-dealer ... &`` then ``acpc-agent ...``) may not be listening yet."""


def connect(host: str, port: int, timeout: float = 30.0, retry: float = CONNECT_RETRY_SECONDS) -> socket.socket:
    """A TCP connection to the dealer; a refused one is tried again every 0.1 s for ``retry`` seconds."""
    deadline = time.monotonic() + retry
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
            break
        except ConnectionRefusedError as exc:
            if time.monotonic() >= deadline:
                raise ClientError(f"could not connect to {host}:{port}: {exc}") from None
            time.sleep(0.1)
        except OSError as exc:
            raise ClientError(f"could not connect to {host}:{port}: {exc}") from None
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class ClientSession:
    """One agent's side of a match, line by line: what ``play`` does with each dealer message.

    ``receive`` follows a ``MATCHSTATE`` line (hand starts and ends told to the agent)
    and returns the agent's view when it is to act on that line; ``reply`` then gives
    the response line. The in-process runner drives an agent through the same object.
    """

    def __init__(self, agent: Agent, log: TextIO = sys.stderr) -> None:
        self.agent = agent
        self.log = log
        self.hands = 0
        """Hands seen so far."""
        self._states = MatchStateReader(agent.game)
        self._current_hand = -1
        self._head = ""
        """The hand (``_hand_head``) of the last line ``follow`` read."""

    def receive(self, line: str) -> MatchState | None:
        """Follow one line from the dealer (no line end); the view to act on, or None.

        Comment and empty lines are skipped; an unreadable state raises ``ClientError``.
        """
        if not line or line[0] in "#;":
            return None
        try:
            view = self._states.parse(line)
        except ProtocolError as exc:
            raise ClientError(f"unreadable state from the dealer (is --game right?): {exc}") from None
        state = view.state
        if state.hand_id != self._current_hand:
            self._current_hand = state.hand_id
            self.hands += 1
            self.agent.begin_hand(view)
        if state.finished:
            self.agent.end_hand(view)
            return None
        if state.current_player != view.viewer:
            return None
        return view

    def follow(self, lines: Sequence[str]) -> MatchState | None:
        """``receive`` each of ``lines`` in turn (lines sent one after the other, the dealer waiting
        for no reply in between); the view to act on at the last one, or None.

        The agent is told the same as by ``receive`` line by line, but a line that can matter to
        it only as a step of the betting (neither the first nor the last of its hand, nor the
        last of ``lines``, so neither a hand's start or end nor a question) is not parsed: the
        next line read holds its actions.
        """
        view = None
        last = len(lines) - 1
        heads = [_hand_head(line) for line in lines]
        for i, line in enumerate(lines):
            head = heads[i]
            if i < last and head and head == heads[i + 1] and head == self._head:
                continue
            self._head = head
            view = self.receive(line)
        return view

    def reply(self, line: str, view: MatchState) -> str:
        """The response to ``line`` (no line end): the agent's action at ``view``, made valid if it is not."""
        return self.respond(line, view, self.agent.act(view))

    def respond(self, line: str, view: MatchState, action: Action) -> str:
        """The response to ``line`` with ``action``, the agent's choice at ``view``, made valid if it is not."""
        agent = self.agent
        state = view.state
        fixed = state.validate_action(action, try_fixing=True)
        if fixed is None or fixed != action:
            replacement = fixed if fixed is not None else CALL_ACTION
            print(f"WARNING: {agent.name} chose {action} in {line}; sending {replacement}", file=self.log)
            action = replacement
        return f"{line}:{format_action(action, agent.game)}"


def _hand_head(line: str) -> str:
    """``MATCHSTATE:<viewer>:<hand>:`` of a state line, the hand it belongs to ("" for anything else)."""
    if not line.startswith(MATCHSTATE_PREFIX):
        return ""
    viewer_end = line.find(":", len(MATCHSTATE_PREFIX))
    hand_end = line.find(":", viewer_end + 1) if viewer_end > 0 else -1
    return line[: hand_end + 1] if hand_end > 0 else ""


def play(agent: Agent, sock: socket.socket, log: TextIO = sys.stderr) -> int:
    """Play until the dealer closes the connection; returns the number of hands seen."""
    return play_session(ClientSession(agent, log), sock)


def play_session(session: ClientSession, sock: socket.socket) -> int:
    """``session`` answers the dealer on ``sock`` until it closes the connection; returns the hands seen."""
    reader = sock.makefile("rb", buffering=65536)
    sock.sendall(b"VERSION:2.0.0\r\n")
    for raw in reader:
        line = raw.decode("latin-1").rstrip("\r\n")
        view = session.receive(line)
        if view is not None:
            sock.sendall(f"{session.reply(line, view)}\r\n".encode("ascii"))
    return session.hands


def play_at(session: ClientSession, host: str, port: int, name: str) -> int:
    """Connect to the dealer at ``host:port`` and let ``session`` answer it until it closes the connection;
    the exit status (``protocol.commands``), a failure told in one line (``ERROR: NAME: ...``)."""
    try:
        sock = connect(host, port)
    except ClientError as exc:
        print(f"ERROR: {name}: {exc}", file=sys.stderr)
        return FAILED
    try:
        play_session(session, sock)
    except ClientError as exc:
        print(f"ERROR: {name}: {exc}", file=sys.stderr)
        return FAILED
    except OSError as exc:  # ConnectionError among them
        print(f"ERROR: {name}: connection lost: {exc}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        raise Interrupted(f"{name} left the match") from None
    finally:
        sock.close()
    return 0
