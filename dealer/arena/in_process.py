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

Where every seat of a match is such an agent and no observer reads the messages
(``play_seats``), the match is played by ``play_agents`` instead of ``play_match``:
the same deal, betting, time limits, log and result, without the lines. Each agent
is given the view it would read from its lines (its state as ``parse_match_state``
makes it: its own cards, the board so far, the others' cards at a showdown they
reach), at the moments ``ClientSession.follow`` gives them (a hand's start and end
told when the agent is next asked, or after the last hand), and its action goes to
the dealer's state as its reply line would.
"""

from __future__ import annotations

import contextlib
import math
import time
import traceback
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

import trio

from acpc_arena.agents.base import Agent
from acpc_arena.agents.client import ClientSession
from acpc_arena.agents.registry import cause_line
from acpc_arena.dealer.arena.policy_record import PolicyRecord
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchResult
from acpc_arena.dealer.server.seat import SeatChannel, SeatError, SeatFailure
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.state import CALL_ACTION, FOLD, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, format_match_state, shows_cards

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
        self.batch_key = agent.batch_key() if batcher is not None else None
        """The agent's ``batch_key`` (asked once: it does not change)."""
        self.batcher = batcher if self.batch_key is not None else None
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
            reply = await self._answer()
            if reply is None:  # asked nothing: nothing will come, as from a process
                await trio.sleep_until(deadline)
                raise self.timed_out()
            line = reply.encode("ascii") + b"\r\n"
        if trio.current_time() > deadline:
            raise self.timed_out()
        return line

    def _follow(self) -> tuple[list[str], MatchState | None]:
        """Have the agent read the lines sent since the last reply: the lines, and the view of the last if it
        asks for an action (raises what the agent raises)."""
        lines, self._lines = self._lines, []
        view = self.session.follow(lines)
        if view is not None:
            self._record(view)
        return lines, view

    async def _answer(self) -> str | None:
        """The agent's reply to the lines sent since its last (None: it is asked nothing); its action decided
        alone, or by the batcher with other matches' views."""
        try:
            lines, view = self._follow()
            if view is None:
                return None
            if self.batcher is None:
                return self.session.reply(lines[-1], view)
            action = await self.batcher.decide(self.session.agent, view, self.batch_key)
            return self.session.respond(lines[-1], view, action)
        except Exception as exc:  # the agent's own failure: the seat is lost, as a crashed process's
            raise self._failed(exc) from None

    def _record(self, view: MatchState) -> None:
        """With a record, the agent's policy at ``view``, before it acts (the distribution it draws from)."""
        if self.record is not None:
            self.record.add(view, self.session.agent.policy(view))

    def _failed(self, exc: Exception) -> SeatError:
        """The seat's error for the agent's own failure ``exc``, its traceback written to the agent's log."""
        traceback.print_exception(exc, file=self.log)
        self.log.flush()
        return SeatError(self.seat, f"the agent failed: {cause_line(exc)}", SeatFailure.DISCONNECT)

    async def aclose(self) -> None:
        """Let the agent read the last lines (the end of the last hand), as a process would before the hang-up."""
        with contextlib.suppress(SeatError):
            try:
                self._follow()
            except Exception as exc:
                raise self._failed(exc) from None
        self.log.close()
        await trio.lowlevel.checkpoint()


@dataclass
class _Request:
    agent: Agent
    view: MatchState
    key: Hashable
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

    async def decide(self, agent: Agent, view: MatchState, key: Hashable) -> Action:
        """``agent``'s action at ``view`` (``key``: its ``batch_key``; raises what ``act_batch`` raised)."""
        request = _Request(agent, view, key)
        self._waiting.append(request)
        self._arrived.set()
        await request.done.wait()
        if request.error is not None:
            raise request.error
        assert request.action is not None
        return request.action

    async def run(self) -> None:
        await self._arrived.wait()
        import trio.testing  # it imports pytest (0.1 s): only once an agent asks for a batched decision

        while True:
            await self._arrived.wait()
            self._arrived = trio.Event()
            await trio.testing.wait_all_tasks_blocked()
            waiting, self._waiting = self._waiting, []
            by_key: dict[Hashable, list[_Request]] = {}
            for request in waiting:
                by_key.setdefault(request.key, []).append(request)
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


async def play_seats(engine: MatchEngine, channels: Sequence[SeatChannel]) -> MatchResult:
    """``play_match`` on ``channels``, played by ``play_agents`` where every seat is an ``AgentChannel`` and
    no observer reads the messages (the same log and result, without the lines)."""
    agents = [channel for channel in channels if isinstance(channel, AgentChannel)]
    if len(agents) == len(channels) and not engine.verbose:
        return await play_agents(engine, agents)
    return await play_match(engine, channels)


class _Seat:
    """One seat of ``play_agents``: its channel's agent, and the hands' starts and ends it is still to be told."""

    __slots__ = ("agent", "begins", "channel", "ends", "pending", "start")

    def __init__(self, channel: AgentChannel) -> None:
        self.channel = channel
        self.agent = channel.session.agent
        self.begins = type(self.agent).begin_hand is not Agent.begin_hand
        self.ends = type(self.agent).end_hand is not Agent.end_hand
        """Whether the agent reads a hand's start and end (the base class's ``begin_hand`` and
        ``end_hand`` do nothing: no view is made for them)."""
        self.pending: list[tuple[bool, MatchState]] = []
        """(whether it is a hand's end, the view) not told yet."""
        self.start: MatchState | None = None
        """The view of the current hand's start given to ``begin_hand``: the one to act on, as
        ``ClientSession.receive`` gives it, if the agent acts before anyone else."""

    def begin(self, views: _Views, position: int) -> None:
        """A hand starts: the agent is to be told (if it reads hands' starts) when it is next asked."""
        self.start = None
        if self.begins:
            self.start = views.view(position)
            self.pending.append((False, self.start))

    def end(self, views: _Views, position: int) -> None:
        """A hand ended: the agent is to be told (if it reads hands' ends) when it is next asked."""
        if self.ends:
            self.pending.append((True, views.view(position)))

    async def decide(self, views: _Views, first: bool) -> Action:
        """The agent's action at its view of the state (``first``: the hand's first action), as the dealer
        reads it from its reply; its own failure ends the seat as a crashed process's does."""
        channel = self.channel
        try:
            if self.pending:
                self.tell()
            view = self.start if first and self.start is not None else views.acting_view()
            if channel.record is not None:
                channel.record.add(view, self.agent.policy(view))
            if channel.batcher is None:
                chosen = self.agent.act(view)
            else:
                chosen = await channel.batcher.decide(self.agent, view, channel.batch_key)
            action = view.state.validate_action(chosen, True)
            if action is None or action != chosen or action.kind == RAISE:
                action = self.action(view, chosen)  # else a fold or call, as valid as read back
            return action
        except Exception as exc:  # the agent's own failure: the seat is lost, as a crashed process's
            raise channel._failed(exc) from None

    def tell(self) -> None:
        """Tell the agent what it has not been told, in order (raises what the agent raises)."""
        pending, self.pending = self.pending, []
        for end, view in pending:
            if end:
                self.agent.end_hand(view)
            else:
                self.agent.begin_hand(view)

    def tell_rest(self) -> None:
        """``tell`` after the last answer, as the channel's ``aclose``: a failure is written to the agent's log."""
        with contextlib.suppress(SeatError):
            try:
                self.tell()
            except Exception as exc:
                raise self.channel._failed(exc) from None

    def action(self, view: MatchState, chosen: Action) -> Action:
        """The action the dealer reads from the agent's reply: ``chosen`` made valid as ``ClientSession.respond``
        makes it (with its warning), in the form ``read_action`` gives it."""
        state = view.state
        fixed = state.validate_action(chosen, try_fixing=True)
        if fixed is None or fixed != chosen:
            replacement = fixed if fixed is not None else CALL_ACTION
            line = format_match_state(state, view.viewer)
            print(f"WARNING: {self.agent.name} chose {chosen} in {line}; sending {replacement}", file=self.channel.log)
            fixed = replacement
        if fixed.kind != RAISE:
            return FOLD_ACTION if fixed.kind == FOLD else CALL_ACTION
        return Action(RAISE, int(fixed.size)) if state.game.no_limit else LIMIT_RAISE_ACTION


class _Views:
    """The views of one hand's states, as the seats read them from their lines: the ``MatchState`` that
    ``parse_match_state`` makes of the line the dealer sends a viewer (its own cards, the others' at a
    showdown they reach, the board dealt so far). The cards of a view are shared with the hand's other
    views of the same viewer and round (readers never change a view, ``agents.base``); its betting is its own.
    """

    __slots__ = ("boards", "holes", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        holes = state.hole_cards
        self.holes = [
            [list(cards) if p == viewer else [] for p, cards in enumerate(holes)] for viewer in range(len(holes))
        ]
        """Each viewer's hole cards before the end of the hand."""
        game = state.game
        self.boards = [state.board_cards[: game.board_cards_after(r)] for r in range(game.num_rounds)]
        """The board seen in each round."""

    def acting_view(self) -> MatchState:
        """The acting position's view, the hand not over (``view``, quicker)."""
        state = self.state
        position = state.current_player
        seen = state.copy()
        seen.hole_cards = self.holes[position]
        seen.board_cards = self.boards[state.round]
        return MatchState(position, seen)

    def view(self, viewer: int) -> MatchState:
        """``viewer``'s view of the state as it stands."""
        state = self.state
        seen = state.copy()
        if state.finished:
            holes = seen.hole_cards
            seen.hole_cards = [cards if shows_cards(state, p, viewer) else [] for p, cards in enumerate(holes)]
        else:
            seen.hole_cards = self.holes[viewer]
        seen.board_cards = self.boards[state.round]
        return MatchState(viewer, seen)


async def play_agents(engine: MatchEngine, channels: Sequence[AgentChannel]) -> MatchResult:
    """``play_match`` where every seat is an agent in this process: the same hands, log, result and
    observer calls (the messages aside), each agent asked directly with the view its lines would give it.

    Time is counted as ``AgentChannel`` counts it: an answer's seconds are the agent's work on what
    it is told before it (the hands' starts and ends since its last answer) and its decision.
    """
    engine.check_seats(len(channels))
    seats = [_Seat(channel) for channel in channels]
    clock = time.perf_counter
    answers = 0
    try:
        engine.start(time.time())
        while not engine.over:
            views = _Views(engine.state)
            by_position = [seats[seat] for seat in engine.seat_of_position]
            for position, seat in enumerate(by_position):
                seat.begin(views, position)
            first = True
            while (asked := engine.next_reply()) is not None:
                seat = seats[asked[0]]
                started = clock()
                action = await seat.decide(views, first)
                engine.answer(action, started, clock())
                first = False
                answers += 1
                if answers % AgentChannel.CHECKPOINT_EVERY == 0:
                    await trio.lowlevel.checkpoint()
            for position, seat in enumerate(by_position):
                seat.end(views, position)
            engine.next_hand()
    except SeatError as error:
        engine.fail(error)
    result = engine.finish(time.time())
    for seat in seats:
        seat.tell_rest()
    return result
