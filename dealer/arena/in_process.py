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
A channel given a ``PolicyRecord`` records its agent's policy at each decision (AIVAT's,
``RunSpec.record_policies``). The difference: an agent in this process cannot be interrupted in the middle of a
decision; one that takes too long is found out when it returns, and its match ends
with the same timeout as over TCP.

Agents that say they can (``Agent.batch_key``: the neural ones, whose choice is a
function of the view) decide across matches together: a seat asked for an action
hands its view to the run's ``DecisionBatcher`` and waits; once every match of the
run is waiting (on an agent, a process or the batcher), the batcher has one agent of
each key decide all its key's views in one ``act_batch``. A view's action is the one
``act`` gives it alone, so the logs stay those of TCP; the batch is what the
network computes in one pass instead of one pass a table.
"""

from __future__ import annotations

import contextlib
import math
import traceback
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TextIO

import trio

from acpc_arena.agents.base import Agent
from acpc_arena.agents.client import ClientSession
from acpc_arena.dealer.arena.policy_record import PolicyRecord
from acpc_arena.dealer.seat import SeatChannel, SeatError, SeatFailure
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState

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

    def __init__(
        self,
        seat: int,
        agent: Agent,
        log: TextIO,
        batcher: DecisionBatcher | None = None,
        record: PolicyRecord | None = None,
    ) -> None:
        super().__init__(seat)
        self.session = ClientSession(agent, log)
        self.log = log
        self.batcher = batcher if batcher is not None and agent.batch_key() is not None else None
        self.record = record
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
            reply = self._follow() if self.batcher is None else await self._follow_batched()
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
            if view is None:
                return None
            self._record(view)
            return self.session.reply(lines[-1], view)
        except Exception as exc:  # the agent's own failure: the seat is lost, as a crashed process's
            raise self._failed(exc) from None

    async def _follow_batched(self) -> str | None:
        """``_follow``, the agent's action decided by the batcher with other matches' views."""
        assert self.batcher is not None
        lines, self._lines = self._lines, []
        try:
            view = self.session.follow(lines)
            if view is None:
                return None
            self._record(view)
            action = await self.batcher.decide(self.session.agent, view)
            return self.session.respond(lines[-1], view, action)
        except Exception as exc:
            raise self._failed(exc) from None

    def _record(self, view: MatchState) -> None:
        """With a record, the agent's policy at ``view``, before it acts (the distribution it draws from)."""
        if self.record is not None:
            self.record.add(view, self.session.agent.policy(view))

    def _failed(self, exc: Exception) -> SeatError:
        """The seat's error for the agent's own failure ``exc``, its traceback written to the agent's log."""
        traceback.print_exception(exc, file=self.log)
        self.log.flush()
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        cause = f"the agent failed: {type(exc).__name__}" + (f": {reason}" if reason else "")
        return SeatError(self.seat, cause, SeatFailure.DISCONNECT)

    async def aclose(self) -> None:
        """Let the agent read the last lines (the end of the last hand), as a process would before the hang-up."""
        with contextlib.suppress(SeatError):
            self._follow()
        self.log.close()
        await trio.lowlevel.checkpoint()


@dataclass
class _Request:
    agent: Agent
    view: MatchState
    done: trio.Event = field(default_factory=trio.Event)
    action: Action | None = None
    error: Exception | None = None


class DecisionBatcher:
    """The decisions of in-process agents with a ``batch_key``, taken together across the run's matches.

    ``run`` (a task of the run's nursery, cancelled when the matches are over) waits for
    a request, then until no task of the run can move without an answer, then decides
    every waiting view, one ``act_batch`` per key. ``sizes`` counts the views of each
    ``act_batch`` (the bench reads it).
    """

    def __init__(self) -> None:
        self._waiting: list[_Request] = []
        self._arrived = trio.Event()
        self.sizes: list[int] = []

    async def decide(self, agent: Agent, view: MatchState) -> Action:
        """``agent``'s action at ``view`` (raises what ``act_batch`` raised)."""
        request = _Request(agent, view)
        self._waiting.append(request)
        self._arrived.set()
        await request.done.wait()
        if request.error is not None:
            raise request.error
        assert request.action is not None
        return request.action

    async def run(self) -> None:
        import trio.testing  # it imports pytest: only where a run batches

        while True:
            await self._arrived.wait()
            self._arrived = trio.Event()
            await trio.testing.wait_all_tasks_blocked()
            waiting, self._waiting = self._waiting, []
            by_key: dict[Hashable, list[_Request]] = {}
            for request in waiting:
                by_key.setdefault(request.agent.batch_key(), []).append(request)
            for requests in by_key.values():
                self.sizes.append(len(requests))
                try:
                    actions = requests[0].agent.act_batch([r.view for r in requests])
                except Exception as exc:  # every seat of the batch fails as its agent would have
                    for request in requests:
                        request.error = exc
                else:
                    for request, action in zip(requests, actions, strict=True):
                        request.action = action
                for request in requests:
                    request.done.set()
