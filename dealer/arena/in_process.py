"""Shipped agents played inside the runner's process (``acpc-match --in-process``).

An ``AgentChannel`` is a seat whose player is an agent object in this process
instead of an ``acpc-agent`` process at the end of a TCP connection. The dealer
code is the same (``play_match`` sends it the same ``MATCHSTATE`` lines and reads
its replies as from a socket), and the agent is driven by the client runtime's
``ClientSession``, as ``acpc-agent`` drives it: it sees only its own view, parsed
from its own line, the others' cards hidden. Built with the same options and seed,
it makes the same choices, so the logs are those of the TCP path, line for line.

Time is counted as over TCP: from the moment a seat's question is sent until its
reply is read, the agent's work on the messages before the question (the hand's
start, the others' actions) included, as a process would do it before it answers.
The difference: an agent in this process cannot be interrupted in the middle of a
decision; one that takes too long is found out when it returns, and its match ends
with the same timeout as over TCP.
"""

from __future__ import annotations

import contextlib
import math
import traceback
from typing import TextIO

import trio

from acpc_arena.agents.base import Agent
from acpc_arena.agents.client import ClientSession
from acpc_arena.dealer.seat import SeatChannel, SeatError, SeatFailure

VERSION_LINE = b"VERSION:2.0.0\r\n"
"""What ``acpc-agent`` sends first."""


class AgentChannel(SeatChannel):
    """A seat played by an agent object: lines to it are read by a ``ClientSession``, its replies read back.

    The lines sent are kept until the dealer reads from the seat; the agent follows
    them then and answers the last one if it asks for an action. ``log`` (closed with
    the channel) receives the session's warnings and the traceback of an agent that
    fails, which ends its match as a crashed process does: the seat is disconnected.
    """

    CHECKPOINT_EVERY = 16
    """Replies between two turns given to the other tasks (other matches, the progress bar, Ctrl-C)."""

    def __init__(self, seat: int, agent: Agent, log: TextIO) -> None:
        super().__init__(seat)
        self.session = ClientSession(agent, log)
        self.log = log
        self._lines: list[str] = []
        self._replies = 0
        self._buffer += VERSION_LINE

    async def send(self, data: bytes = b"") -> None:
        if self._pending:
            data, self._pending = self._pending + data, b""
        self._lines += data.decode("ascii").splitlines()

    async def receive_line(self, deadline: float = math.inf) -> bytes:
        """The agent's reply to the lines sent (its ``VERSION`` line first), as a socket's next line."""
        line = self._buffered_line()
        if line is None:
            self._replies += 1
            if self._replies % self.CHECKPOINT_EVERY == 0:
                await trio.lowlevel.checkpoint()
            reply = self._follow()
            if reply is None:  # asked nothing: nothing will come, as from a process
                await trio.sleep_until(deadline)
                raise self.timed_out()
            line = reply.encode("ascii") + b"\r\n"
        if trio.current_time() > deadline:
            raise self.timed_out()
        return line

    def _follow(self) -> str | None:
        """Have the agent read the lines sent since the last reply; its reply to the last, if asked."""
        lines, self._lines = self._lines, []
        try:
            view = self.session.follow(lines)
            return None if view is None else self.session.reply(lines[-1], view)
        except Exception as exc:  # the agent's own failure: the seat is lost, as a crashed process's
            traceback.print_exc(file=self.log)
            self.log.flush()
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            cause = f"the agent failed: {type(exc).__name__}" + (f": {reason}" if reason else "")
            raise SeatError(self.seat, cause, SeatFailure.DISCONNECT) from None

    async def aclose(self) -> None:
        """Let the agent read the last lines (the end of the last hand), as a process would before the hang-up."""
        with contextlib.suppress(SeatError):
            self._follow()
        self.log.close()
        await trio.lowlevel.checkpoint()
