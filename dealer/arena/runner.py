"""Duplicate runs: for every seed, A against B in both seatings (with more players, every
rotation of the seats), matches played concurrently.

Every match gets its own listening sockets and freshly started agent processes (no
memory from one match to the next; a neural agent's is a child forked by the run's warm
process, which imported torch once: ``warm_agents``), and is played by ``play_match`` over TCP; up
to ``concurrency`` matches run at once in this one trio process. A side may be a
shipped agent (``acpc-agent``), any command line (as ``play_match.pl`` starts
players: ``{host}``, ``{port}``, ``{game}`` and ``{seed}`` are filled in), or an
external bot that connects by itself to a printed port.

With N players (A, B, C, ...) a seed is played N times: in rotation r contestant k
sits in seat (k + r) mod N, so each contestant gets each seat, and the cards dealt
to it, once, the others keeping their order around the table. (All N! orders
would also balance who acts after whom, at (N-1)! times the cost.)

With ``RunSpec.in_process`` the shipped agents play inside this process instead
(``in_process.AgentChannel``: the same dealer code, each agent driven as
``acpc-agent`` drives it, built afresh for every match with the same options and
seed), while commands and external bots still connect over TCP: the logs are the
same line for line, without a process and a connection per agent. A match of
in-process agents alone is played without the lines (``in_process.play_seats``).

A match whose agent crashes, misbehaves or runs out of time ends on its own; its
finished hands stay in its log and the run goes on with the others.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import trio

from acpc_arena.agents.base import has_policy
from acpc_arena.dealer.arena.contestants import Contestant, build_agent, check_agent
from acpc_arena.dealer.arena.in_process import AgentChannel, DecisionBatcher, play_seats
from acpc_arena.dealer.arena.log_tally import LogTally
from acpc_arena.dealer.arena.policy_record import PolicyRecord
from acpc_arena.dealer.arena.warm_agents import AgentProcess, WarmAgents, warm_specs
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.dealer.server.match import (
    DEFAULT_T_HAND_MS,
    DEFAULT_T_PER_HAND_MS,
    DEFAULT_T_RESPONSE_MS,
    MatchConfig,
    MatchObserver,
    MatchResult,
    Observers,
)
from acpc_arena.dealer.server.seat import SeatChannel, SocketChannel, accept, open_listener
from acpc_arena.protocol.game import Game


@dataclass(frozen=True)
class RunSpec:
    a: Contestant
    b: Contestant
    game_file: str
    """The game as the user named it (in the log headers)."""
    game: Game
    game_path: Path
    seeds: tuple[int, ...]
    hands: int
    out_dir: Path
    concurrency: int = 1
    host: str = "127.0.0.1"
    announce: str | None = None
    """The address the bots are told to connect to (default ``host``; a server listening on all addresses
    tells one of them)."""
    t_response_ms: int = DEFAULT_T_RESPONSE_MS
    t_hand_ms: int = DEFAULT_T_HAND_MS
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS
    connect_timeout: float = 120.0
    """Seconds the started agents have to connect."""
    external_timeout: float = 600.0
    """Seconds an external bot has to connect."""
    more: tuple[Contestant, ...] = ()
    """Contestants C, ... of a game of more than two players."""
    in_process: bool = False
    """Play the shipped agents inside this process (``in_process.AgentChannel``) instead of as
    ``acpc-agent`` processes over TCP; commands and external bots still connect over TCP."""
    record_policies: bool = False
    """With ``in_process``: record each shipped agent's policy at its decisions (``MatchOutcome.policies``,
    for AIVAT)."""
    warm: bool = True
    """The neural agents played over TCP by children of one warm process (``warm_agents``), not by an
    ``acpc-agent`` process started a match; they answer the same."""
    unchecked: tuple[str, ...] = ()
    """The labels of the contestants whose agent the run builds once before its first match (``check_agent``)
    instead of the command that made the spec: a warm process's child where one plays it, else this process."""

    def __post_init__(self) -> None:
        if not self.game_file.isascii() or any(c.isspace() for c in self.game_file):
            raise ValueError(
                f"the game's name {self.game_file!r} goes in the logs' headers, which are ASCII words: "
                "give it without spaces or non-ASCII characters (rename or link the file)"
            )

    @property
    def contestants(self) -> tuple[Contestant, ...]:
        """A, B and any more, in their seat order of the first rotation."""
        return (self.a, self.b, *self.more)

    def plays_in_process(self, contestant: Contestant) -> bool:
        """Whether ``contestant`` plays inside this process: a shipped agent, with ``in_process``."""
        return self.in_process and contestant.agent is not None

    def matches(self) -> list[MatchSpec]:
        players = len(self.contestants)
        return [MatchSpec(seed, a_seat, players) for seed in self.seeds for a_seat in range(players)]


@dataclass(frozen=True)
class MatchSpec:
    seed: int
    a_seat: int
    """A's seat, from 0 (shown from 1, as in the match name): the rotation of the seats."""
    players: int = 2

    @property
    def name(self) -> str:
        return f"seed{self.seed}-a{self.a_seat + 1}"

    def seat_of(self, label: str) -> int:
        """The seat (from 0) of side ``label`` (``a``, ``b``, ...): A's seat plus the label's place."""
        return (ord(label) - ord("a") + self.a_seat) % self.players

    def seating(self, contestants: Sequence[Contestant]) -> list[Contestant]:
        """``contestants`` (A, B, ...) by seat in this match."""
        return sorted(contestants, key=lambda c: self.seat_of(c.label))


class ChangedActions(TypedDict):
    """The actions of one player the dealer played otherwise than sent (as the C dealer does, with a warning)."""

    invalid: int
    """Unreadable or against the rules: played as a call."""
    fixed: int
    """No-limit raises below the minimum or above the stack: played resized."""


def changed_actions(players: Sequence[str], result: MatchResult) -> dict[str, ChangedActions]:
    """The actions of each of ``players`` (by seat) that the dealer changed in a match of ``result``."""
    return {
        name: ChangedActions(invalid=result.invalid_actions[seat], fixed=result.fixed_actions[seat])
        for seat, name in enumerate(players)
    }


@dataclass
class MatchOutcome:
    spec: MatchSpec
    log: Path
    result: MatchResult | None = None
    error: str | None = None
    agent_notes: list[str] = field(default_factory=list)
    policies: dict[str, PolicyRecord] = field(default_factory=dict)
    """The policies of the agents played in this process, by player name (``RunSpec.record_policies``)."""
    tally: LogTally | None = None
    """What ``read_log`` would keep of the log, kept as the match was played and its log written whole
    (None: the log is read back to score it)."""
    changed_actions: dict[str, ChangedActions] = field(default_factory=dict)
    """The actions the dealer changed, by player name (``changed_actions``)."""


class RunObserver:
    """What a run reports as it goes; every method does nothing unless overridden."""

    def match_started(self, match: MatchSpec, config: MatchConfig) -> list[MatchObserver]:
        """Called when the players are connected; returns observers for that match."""
        return []

    def external_waiting(self, match: MatchSpec, contestant: Contestant, host: str, port: int) -> None: ...

    def match_finished(self, outcome: MatchOutcome) -> None: ...


async def run_matches(
    spec: RunSpec,
    observer: RunObserver | None = None,
    matches: Sequence[MatchSpec] | None = None,
    limiter: trio.CapacityLimiter | None = None,
) -> list[MatchOutcome]:
    """Play every match of the run (or only ``matches``); returns their outcomes in seed and seat order.

    ``limiter`` bounds the matches played at once (default: ``spec.concurrency``); runs that
    share one share the bound.
    """
    observer = observer or RunObserver()
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    (spec.out_dir / "agents").mkdir(exist_ok=True)
    limiter = limiter or trio.CapacityLimiter(max(1, spec.concurrency))
    chosen = spec.matches() if matches is None else matches
    outcomes = {match: MatchOutcome(match, spec.out_dir / f"{match.name}.log") for match in chosen}
    batcher = DecisionBatcher() if spec.in_process else None
    async with trio.open_nursery() as helpers:
        if batcher is not None:
            helpers.start_soon(batcher.run)
        warm = await _warm_agents(spec)
        if warm is not None:
            helpers.start_soon(warm.read_replies)
        try:
            await _check_unchecked(spec, warm)
            async with trio.open_nursery() as nursery:
                for match, outcome in outcomes.items():
                    nursery.start_soon(_run_one, spec, match, outcome, limiter, observer, batcher, warm)
        finally:
            if warm is not None:
                with trio.CancelScope(shield=True):
                    await warm.aclose()
        helpers.cancel_scope.cancel()
    return list(outcomes.values())


async def _warm_agents(spec: RunSpec) -> WarmAgents | None:
    """The run's warm process, for the neural agents it starts over TCP; None where there are none (or none
    can be started: their processes are then started a match)."""
    remote = [c for c in spec.contestants if not spec.plays_in_process(c)]
    specs = warm_specs(remote) if spec.warm else []
    if not specs:
        return None
    try:
        return await WarmAgents.start(specs, spec.out_dir / "agents" / "warm.err")
    except OSError:
        return None


async def _check_unchecked(spec: RunSpec, warm: WarmAgents | None) -> None:
    """Build each contestant of ``spec.unchecked`` once (``AgentCannotPlay`` for one that cannot play)."""
    for contestant in spec.contestants:
        if contestant.label not in spec.unchecked:
            continue
        if warm is not None and warm.plays(contestant):
            err_path = spec.out_dir / "agents" / f"check-{contestant.label}.err"
            await warm.check(contestant, spec.game_path, spec.game_file, err_path)
        else:
            check_agent(contestant, spec.game, spec.game_file)


async def _run_one(
    spec: RunSpec,
    match: MatchSpec,
    outcome: MatchOutcome,
    limiter: trio.CapacityLimiter,
    observer: RunObserver,
    batcher: DecisionBatcher | None,
    warm: WarmAgents | None,
) -> None:
    async with limiter:
        try:
            await _play_one(spec, match, outcome, observer, batcher, warm)
        except OSError as exc:
            outcome.error = f"could not run the match: {exc}"
        observer.match_finished(outcome)


async def _play_one(
    spec: RunSpec,
    match: MatchSpec,
    outcome: MatchOutcome,
    observer: RunObserver,
    batcher: DecisionBatcher | None,
    warm: WarmAgents | None,
) -> None:
    seats = match.seating(spec.contestants)
    remote = [seat for seat, contestant in enumerate(seats) if not spec.plays_in_process(contestant)]
    listeners = {seat: open_listener(spec.host) for seat in remote}
    processes: list[tuple[Contestant, AgentProcess, Path]] = []
    channels: list[SeatChannel] = []
    agent_logs: list[tuple[Contestant, Path]] = []
    culprit: Contestant | None = None
    cancelled = False
    try:
        await _start_processes(spec, match, seats, listeners, observer, processes, warm)
        connected, outcome.error = await _connect(spec, seats, listeners, processes)
        if outcome.error is not None:
            return
        outcome.error = _seat_channels(spec, match, seats, connected, outcome, batcher, channels, agent_logs)
        if outcome.error is not None:
            return
        await _play_logged(spec, match, seats, channels, outcome, observer)
        if outcome.result is not None and outcome.result.error is not None:
            error = outcome.result.error
            outcome.error = f"{error!s} ({seats[error.seat].name})"
            culprit = seats[error.seat]
    except trio.Cancelled:
        cancelled = True
        raise
    finally:
        # Shielded: an interrupted run (Ctrl-C) still closes the connections and stops the agents.
        with trio.CancelScope(shield=True):
            for listener in listeners.values():
                listener.close()
            for channel in channels:
                await channel.aclose()
            await _reap(processes, grace=1.0 if cancelled else 10.0)
        if outcome.error is not None:
            _note_agents(outcome, processes, agent_logs, culprit)


def _seat_channels(
    spec: RunSpec,
    match: MatchSpec,
    seats: Sequence[Contestant],
    connected: dict[int, SeatChannel],
    outcome: MatchOutcome,
    batcher: DecisionBatcher | None,
    channels: list[SeatChannel],
    agent_logs: list[tuple[Contestant, Path]],
) -> str | None:
    """Every seat's channel, added to ``channels`` in seat order: its connection, or an agent built in this
    process (its log added to ``agent_logs``); the error of an agent that could not be built."""
    for seat, contestant in enumerate(seats):
        if seat in connected:
            channels.append(connected[seat])
            continue
        err_path = spec.out_dir / "agents" / f"{match.name}-{contestant.label}.err"
        agent_logs.append((contestant, err_path))
        try:
            agent = build_agent(contestant, spec.game, contestant.agent_seed(match.seed))
        except Exception as exc:  # checked before the run (check_agent): a rare failure of this match alone
            return f"could not start {contestant.name}: {type(exc).__name__}: {exc}"
        recorded = spec.record_policies and has_policy(type(agent))  # a plugin may give no policy (act alone)
        record = outcome.policies.setdefault(contestant.name, PolicyRecord()) if recorded else None
        agent_log = open(err_path, "w")  # noqa: SIM115 (closed with the channel)
        channels.append(AgentChannel(seat, agent, agent_log, batcher, record))
    return None


async def _play_logged(
    spec: RunSpec,
    match: MatchSpec,
    seats: Sequence[Contestant],
    channels: Sequence[SeatChannel],
    outcome: MatchOutcome,
    observer: RunObserver,
) -> None:
    """Play the match on ``channels`` into its log; its result, changed actions and tally in ``outcome``."""
    config = MatchConfig(
        name=match.name,
        game=spec.game,
        game_file=spec.game_file,
        hands=spec.hands,
        seed=match.seed,
        players=tuple(c.name for c in seats),
        t_response_ms=spec.t_response_ms,
        t_hand_ms=spec.t_hand_ms,
        t_per_hand_ms=spec.t_per_hand_ms,
    )
    log = MatchLog(outcome.log)
    tally = LogTally(config)
    try:
        log.write_text(config.header())
        extra = observer.match_started(match, config)
        outcome.result = await play_seats(MatchEngine(config, Observers([*extra, tally]), log), channels)
    finally:
        log.close()
    outcome.changed_actions = changed_actions(config.players, outcome.result)
    outcome.tally = tally  # every line written: what it kept is the log's


TAIL_BYTES = 16384
"""How much of the end of an agent's standard error ``_tail`` reads."""


def _tail(path: Path, lines: int = 5) -> str:
    """The last ``lines`` lines of the file at ``path`` (of its last ``TAIL_BYTES``), joined with `` | ``."""
    try:
        with open(path, "rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - TAIL_BYTES))
            text = file.read().decode(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


async def _start_processes(
    spec: RunSpec,
    match: MatchSpec,
    seats: Sequence[Contestant],
    listeners: dict[int, socket.socket],
    observer: RunObserver,
    processes: list[tuple[Contestant, AgentProcess, Path]],
    warm: WarmAgents | None,
) -> None:
    """Start each seat's process on its listener's port (an external bot is announced, not started; a
    neural agent is a child of ``warm``); each started process is added to ``processes``."""
    for seat, listener in listeners.items():
        contestant = seats[seat]
        port = listener.getsockname()[1]
        if contestant.external:
            observer.external_waiting(match, contestant, spec.announce or spec.host, port)
            continue
        err_path = spec.out_dir / "agents" / f"{match.name}-{contestant.label}.err"
        command = contestant.command_line(spec.announce or spec.host, port, spec.game_path, match.seed)
        if warm is not None and warm.plays(contestant):
            processes.append((contestant, warm.start_match(command[1:], err_path), err_path))
            continue
        with open(err_path, "wb") as err:
            # A session of its own: a Ctrl-C in the terminal reaches the runner alone,
            # which then ends its matches and stops the agents itself.
            process = await trio.lowlevel.open_process(
                command,
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                start_new_session=True,
            )
        processes.append((contestant, process, err_path))


def _note_agents(
    outcome: MatchOutcome,
    processes: Sequence[tuple[Contestant, AgentProcess, Path]],
    agent_logs: Sequence[tuple[Contestant, Path]],
    culprit: Contestant | None,
) -> None:
    """The failed agents' exit status and last lines of standard error (for an agent in this
    process, the last lines of its log: warnings, the traceback of its failure).

    When a seat's failure ended the match, only that agent is told: its opponent's
    "connection lost" after the dealer hung up is noise.
    """
    for contestant, process, err_path in processes:
        if culprit is not None and contestant is not culprit:
            continue
        tail = _tail(err_path)
        status = process.returncode
        if status not in (0, None) or tail:
            outcome.agent_notes.append(f"{contestant.name} exited with status {status}: {tail}")
    for contestant, err_path in agent_logs:
        tail = _tail(err_path)
        if (culprit is None or contestant is culprit) and tail:
            outcome.agent_notes.append(f"{contestant.name} (in process): {tail}")


async def _connect(
    spec: RunSpec,
    seats: Sequence[Contestant],
    listeners: dict[int, socket.socket],
    processes: Sequence[tuple[Contestant, AgentProcess, Path]],
) -> tuple[dict[int, SeatChannel], str | None]:
    """Accept the connection of every seat that has a listener: the channels by seat, or an error
    if an agent exits first or is too slow."""
    connections: dict[int, socket.socket | None] = dict.fromkeys(listeners)
    timeouts = {seat: spec.external_timeout if seats[seat].external else spec.connect_timeout for seat in listeners}
    deadlines = {seat: trio.current_time() + timeout for seat, timeout in timeouts.items()}
    error: str | None = None

    async with trio.open_nursery() as nursery:

        async def take(seat: int) -> None:
            connections[seat] = await accept(listeners[seat], deadlines[seat], seats[seat].allowed_from)

        async def watch(contestant: Contestant, process: AgentProcess) -> None:
            nonlocal error
            status = await process.wait()
            if error is None and any(c is None for c in connections.values()):
                error = f"{contestant.name} exited with status {status} before the match started"
                nursery.cancel_scope.cancel()

        async def gather() -> None:
            async with trio.open_nursery() as inner:
                for seat in listeners:
                    inner.start_soon(take, seat)
            nursery.cancel_scope.cancel()

        nursery.start_soon(gather)
        for contestant, process, _ in processes:
            nursery.start_soon(watch, contestant, process)
    accepted = {seat: c for seat, c in connections.items() if c is not None}
    if len(accepted) == len(connections):
        return {seat: SocketChannel(seat, c) for seat, c in accepted.items()}, None
    for connection in accepted.values():
        connection.close()
    missing = "; ".join(
        f"{seats[seat].name} did not connect to port {listeners[seat].getsockname()[1]} within {timeouts[seat]:g} s"
        for seat, c in connections.items()
        if c is None
    )
    return {}, error or missing


async def _reap(processes: Sequence[tuple[Contestant, AgentProcess, Path]], grace: float = 10.0) -> None:
    """Wait for the agents to leave after the dealer closed their connections; kill stragglers."""
    for _, process, _ in processes:
        with trio.move_on_after(grace):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
