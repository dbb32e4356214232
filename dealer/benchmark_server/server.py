"""The benchmark server: its TCP listener and connections, the queue of runs and their play (trio).

Each connection is one task; its first line logs it in (``protocol.py`` describes the lines). What one
connection does can cost the others nothing: a line is read up to ``MAX_LINE`` bytes, the first line within
``login_timeout`` seconds, a password checked in a thread (at most two at once) against an argon2 hash, the
same work for an unknown name; failed logons are counted per address and per name (``LogonLimiter``); the
connections, a user's sessions and a user's unfinished jobs are bounded. Each refusal is one line, then the
connection is closed.

The queue is the database's (``store.py``): a scheduler starts the runs it can, the oldest job of the user
who waited longest first (as ``bm_server.c``), one run of a job at a time, within each game's
``maxRunningJobs`` and the server's ``maxRunningBots`` (bounds of this server: several servers sharing a
database each hold their own). A run with a ``LOCAL`` seat starts when its requesting connection is there,
or (its server restarted since) a session of its user. The server renews the leases of the runs it plays;
runs left by a stopped server are queued again once their lease runs out.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from acpc_arena.dealer.benchmark_server.config import BmConfig
from acpc_arena.dealer.benchmark_server.connection import Client, LineTooLong
from acpc_arena.dealer.benchmark_server.passwords import LogonLimiter, check_password
from acpc_arena.dealer.benchmark_server.playing import Played, hosted_bots, play_run
from acpc_arena.dealer.benchmark_server.protocol import (
    BAD_LOGON,
    BAD_RUN,
    BAD_RUNMATCHES,
    HELP_LINES,
    LINE_TOO_LONG,
    LOGON_OKAY,
    LOGON_TIMEOUT,
    MATCHES_FINISHED,
    QUEUE_EMPTY,
    RATE_LIMITED,
    SERVER_BUSY,
    TOO_MANY_CONNECTIONS,
    UNKNOWN,
    JobRequest,
    RequestError,
    game_list,
    login_words,
    parse_match_ref,
    parse_run,
    parse_runmatches,
)
from acpc_arena.dealer.benchmark_server.store import LEASE_S, RENEW_S, QueuedRun, Store, StoreError
from acpc_arena.dealer.benchmark_server.wholelines import send_file_lines
from acpc_arena.dealer.server.lines import plain_address


@dataclass(frozen=True)
class ServerOptions:
    host: str = "0.0.0.0"
    """The address to listen on (the benchmark port and the runs' ports)."""
    announce: str | None = None
    """The host name sent in ``RUN HOST PORT`` (default: ``host``, or this machine's address if that is any)."""
    logs: Path = Path("logs")
    max_connections: int = 256
    max_address_connections: int = 32
    """Connections at once from one address (logged in or not)."""
    max_address_logons: int = 16
    """Connections at once from one address that have not logged in yet (the rest are refused at once)."""
    max_user_connections: int = 8
    max_pending_jobs: int = 16
    login_timeout: float = 30.0
    send_timeout: float = 30.0
    logon_failures: int = 5
    logon_window: float = 60.0
    failure_delay: float = 1.0
    """Seconds before ``BAD LOGON`` is sent (doubled as failures for a name mount: ``LogonLimiter.delay``)."""
    c_logs: bool = False
    """Also append each run's log to ``LOGS/USER.TAG.log`` with the players named ``USER`` and ``BOT``, as
    ``bm_server.c``'s dealer writes them (``-a``), besides ``LOGS/jobJ-USER.TAG/runI/``."""
    lease: float = LEASE_S
    """Seconds after which a run its server stopped renewing (killed, cut off) is queued again; every server
    sharing a database should have the same."""
    run_from_any: bool = False
    """Let a ``LOCAL`` seat's port take a connection from any address (the C server's way; behind NAT), not
    only from the address of the connection it was announced to."""


def append_c_log(log: Path, target: Path) -> None:
    """Append the run's ``log`` to ``target``, the C layout's log of a set of runs (``LOGS/USER.TAG.log``)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "rb") as source, open(target, "ab") as out:
        shutil.copyfileobj(source, out)


def this_host() -> str:
    """This machine's IPv4 address as its host name resolves (the C server's announced name), else 127.0.0.1."""
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


@dataclass
class BmServer:
    config: BmConfig
    store: Store
    options: ServerOptions = field(default_factory=ServerOptions)

    def __post_init__(self) -> None:
        self.clients: set[Client] = set()
        self.per_address: Counter[str] = Counter()
        """Connections let in, by address."""
        self.logging_on: Counter[str] = Counter()
        """Connections let in that have not logged in (nor been refused), by address."""
        self.sessions: dict[str, list[Client]] = {}
        """Logged-in connections by user (sessions and requests)."""
        self.widgets: dict[str, list[Client]] = {}
        """Logged-in sessions (``bm_widget``) by user: they can play any ``LOCAL`` seat of the user."""
        self.owners: dict[int, Client] = {}
        """The connection that asked for each job, while it is there."""
        self.finished: dict[int, trio.Event] = {}
        self.running_jobs: set[int] = set()
        self.per_game: Counter[str] = Counter()
        self.running_bots = 0
        self.last_start: dict[str, float] = {}
        self.wake = trio.Event()
        self.checks = trio.CapacityLimiter(2)
        self.logons = LogonLimiter(self.options.logon_failures, self.options.logon_window)
        host = self.options.host
        self.announce = self.options.announce or (host if host not in ("", "0.0.0.0", "::") else this_host())
        self.logs = self.options.logs.resolve()
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This server among those sharing the database (the runs it plays are leased to it)."""
        self.refused: Counter[str] = Counter()
        """Logons refused, by reason (``BAD LOGON``, ``LOGON TIMEOUT``, ...)."""

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on the config's port (0: any free one), run the queue; ``task_status`` gets the port."""
        listeners = await trio.open_tcp_listeners(self.config.port, host=self.options.host or None)
        port = int(listeners[0].socket.getsockname()[1])
        self.store.requeue_stale(self.options.lease)
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            nursery.start_soon(self.schedule)
            nursery.start_soon(self.keep_leases)
            task_status.started(port)
            await trio.serve_listeners(self.handle, listeners, handler_nursery=nursery)

    def wake_up(self) -> None:
        self.wake.set()

    async def keep_leases(self) -> None:
        """Every ``RENEW_S`` (a fifth of the lease, where that is shorter): renew this server's runs, queue
        again those other servers left, and tell the requests waiting here of jobs that other servers finished."""
        while True:
            await trio.sleep(min(RENEW_S, self.options.lease / 5))
            self.store.renew(self.owner)
            if self.store.requeue_stale(self.options.lease):
                self.wake_up()
            for job in list(self.finished):
                self._check_finished(job)

    # -- connections --------------------------------------------------------

    async def handle(self, stream: trio.SocketStream) -> None:
        try:
            client = Client(stream, self.options.send_timeout)
        except OSError:  # gone before it was looked at
            await stream.aclose()
            return
        address = client.address
        try:
            if not self._admits(address):
                client.logging_on = False
                await self.refuse_logon(client, SERVER_BUSY)
                return
            self.clients.add(client)
            self.per_address[address] += 1
            self.logging_on[address] += 1
            try:
                with client.scope:
                    await self.converse(client)
            except LineTooLong:
                await client.refuse(LINE_TOO_LONG)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        finally:
            if client in self.clients:
                self.clients.discard(client)
                self._forget(self.per_address, address)
                if client.logging_on:
                    self._forget(self.logging_on, address)
            client.closed = True
            self.left(client)
            await stream.aclose()

    def _admits(self, address: str) -> bool:
        """Whether a new connection from ``address`` is let in: within the server's bound, its address's
        bound, and its address's bound on connections not logged in (so that no one address's idle sockets,
        however many, keep the others out)."""
        return (
            len(self.clients) < self.options.max_connections
            and self.per_address[address] < self.options.max_address_connections
            and self.logging_on[address] < self.options.max_address_logons
        )

    def logged_on(self, client: Client) -> None:
        """``client`` logged in, or was answered at its logon: no longer counted as logging on."""
        if client.logging_on:
            client.logging_on = False
            self._forget(self.logging_on, client.address)

    @staticmethod
    def _forget(counts: Counter[str], address: str) -> None:
        counts[address] -= 1
        if counts[address] <= 0:
            del counts[address]

    async def converse(self, client: Client) -> None:
        raw: bytes | None = None
        with trio.move_on_after(self.options.login_timeout) as waiting:
            raw = await client.line()
        await self.logon(client, raw, timed_out=waiting.cancelled_caught)

    async def logon(self, client: Client, raw: bytes | None, timed_out: bool) -> None:
        """Answer the first line ``raw``: a session or a request once logged in, else one line of refusal."""
        if timed_out:
            await self.refuse_logon(client, LOGON_TIMEOUT)
            return
        if raw is None:
            return
        words = login_words(raw.decode("ascii")) if raw.isascii() else None
        if words is None:
            await self.refuse_logon(client, BAD_LOGON)
            return
        name, password = words[0], words[1]
        if not self.logons.allowed(client.address, name):
            await self.refuse_logon(client, RATE_LIMITED)
            return
        stored = self.store.password_hash(name)
        if not await trio.to_thread.run_sync(check_password, stored, password, limiter=self.checks):
            self.logons.failed(client.address, name)
            await trio.sleep(self.logons.delay(name, self.options.failure_delay))
            await self.refuse_logon(client, BAD_LOGON)
            return
        if len(self.sessions.get(name, [])) >= self.options.max_user_connections:
            await self.refuse_logon(client, TOO_MANY_CONNECTIONS)
            return
        client.user = name
        self.logged_on(client)
        self.sessions.setdefault(name, []).append(client)
        if len(words) == 2:
            await self.session(client, name)
        else:
            await self.request(client, name, words[2:])

    async def refuse_logon(self, client: Client, line: str) -> None:
        """Refuse a connection before or at its logon with ``line``, counted in ``refused``."""
        self.logged_on(client)
        self.refused[line] += 1
        await client.refuse(line)

    def left(self, client: Client) -> None:
        """Forget a connection; cancel the queued runs of its jobs that needed its bot (as ``bm_server.c``)."""
        if client.user is None:
            return
        for table in (self.sessions, self.widgets):
            if client in table.get(client.user, []):
                table[client.user].remove(client)
        jobs = [job for job, owner in self.owners.items() if owner is client]
        for job in jobs:
            del self.owners[job]
        local = [job for job in jobs if self._has_local(job)]
        if local and self.store.cancel_queued(local):
            for job in local:
                self._check_finished(job)
        self.wake_up()

    def _has_local(self, job_id: int) -> bool:
        return any(run.has_local for run in self.store.queued_runs() if run.job_id == job_id)

    # -- a session (bm_widget) ----------------------------------------------

    async def session(self, client: Client, user: str) -> None:
        await client.send(LOGON_OKAY)
        self.widgets.setdefault(user, []).append(client)
        self.wake_up()
        while not client.closed and (raw := await client.line()) is not None:
            if not raw.isascii():
                await client.send(UNKNOWN)
                continue
            text = raw.decode("ascii")
            command = text.upper()
            if command.startswith("HELP"):
                await client.send(*HELP_LINES)
            elif command.startswith("GAMES"):
                await client.send(*game_list(self.config))
            elif command.startswith("QSTAT"):
                await client.send(*self.queue_lines())
            elif command.startswith("RUNMATCHES"):
                try:
                    request = parse_runmatches(self.config, text[len("RUNMATCHES") :].split())
                    job = self.submit(client, user, request)
                except (RequestError, StoreError) as exc:
                    await client.send(f"{BAD_RUNMATCHES}: {exc}")
                    continue
                await client.send(f"# QUEUED job {job}: {len(request.seeds)} runs of {request.game.name}")
            else:
                await client.send(UNKNOWN)

    def queue_lines(self, user: str | None = None) -> list[str]:
        statuses = self.store.job_statuses(user)
        if not statuses:
            return [QUEUE_EMPTY]
        return [f"{s.user} {s.tag} {s.game} * {s.runs_left} {'R' if s.running else 'Q'}" for s in statuses]

    def submit(self, client: Client, user: str, request: JobRequest) -> int:
        job = self.store.add_job(
            user, request.game.name, request.tag, request.seed, request.players, request.seeds,
            first_index=request.first_index, max_pending=self.options.max_pending_jobs,
        )  # fmt: skip
        self.owners[job] = client
        self.finished[job] = trio.Event()
        self.wake_up()
        return job

    # -- a request (bm_run_matches, acpc-bm) --------------------------------

    async def request(self, client: Client, user: str, words: list[str]) -> None:
        command = words[0].lower()
        if command == "games":
            await client.send(*game_list(self.config))
        elif command in ("run", "rerun"):
            try:
                request = parse_run(self.config, words[1:], rerun=command == "rerun")
                if not request.seeds:
                    request = self.earlier_run(user, request)
                job = self.submit(client, user, request)
            except (RequestError, StoreError) as exc:
                await client.send(f"{BAD_RUN}: {exc}")
                return
            await client.send(f"# QUEUED job {job}: {len(request.seeds)} runs of {request.game.name}")
            async with trio.open_nursery() as nursery:

                async def hang_up_when_gone() -> None:
                    while await client.line() is not None:
                        pass  # a request says nothing more: its lines are dropped
                    nursery.cancel_scope.cancel()

                nursery.start_soon(hang_up_when_gone)
                await self.finished[job].wait()
                await client.send(MATCHES_FINISHED)
                nursery.cancel_scope.cancel()
        elif command == "logs" and len(words) == 2:
            await self.send_logs(client, user, words[1])
        elif command == "jobs" and len(words) == 1:
            statuses = self.store.job_statuses(user, active_only=False)
            await client.send(
                *(f"{s.job_id} {s.tag} {s.game} {s.runs_left} {'R' if s.running else s.state}" for s in statuses)
            )
        else:
            await client.send(UNKNOWN)

    async def send_logs(self, client: Client, user: str, ref: str) -> None:
        try:
            job, run = parse_match_ref(ref)
        except RequestError as exc:
            await client.send(f"NO LOG: {exc}")
            return
        logs = self.store.run_logs(user, job, run)
        if not logs:
            await client.send(f"NO LOG: no run {ref} of yours")
            return
        for name, path, state in logs:
            if run is None:
                await client.send(f"# LOG {name}")
            if path is None:
                await client.send(f"NO LOG: run {name} is {state}")
                continue
            try:
                log = await trio.open_file(path, "rb")
            except OSError as exc:
                await client.send(f"NO LOG: run {name}: {exc.strerror or exc}")
                continue
            async with log, client.lock:
                try:
                    await send_file_lines(client.stream, log, self.options.send_timeout)
                except trio.TooSlowError:
                    client.drop()
                    return

    def earlier_run(self, user: str, request: JobRequest) -> JobRequest:
        """A rerun with seed 0 (``bm_run_matches``' own example): the run of that index of the user's latest set
        of that tag and game, its deal seed as it was drawn; RequestError if there is none."""
        seed = self.store.earlier_seed(user, request.game.name, request.tag, request.first_index)
        if seed is None:
            raise RequestError(
                f"no run {request.first_index} of a set tagged {request.tag} here to rerun with seed 0: "
                "give the set's seed"
            )
        return replace(request, seeds=(seed,))

    # -- the queue ----------------------------------------------------------

    async def schedule(self) -> None:
        while True:
            self.start_runs()
            with trio.move_on_after(1.0):
                await self.wake.wait()
            self.wake = trio.Event()

    def start_runs(self) -> None:
        """Start every queued run that can start now."""
        while True:
            queued = self.store.queued_runs()
            queued.sort(key=lambda run: (self.last_start.get(run.user, 0.0), run.job_id, run.run_index))
            if not any(self._try_start(run) for run in queued):
                return

    def _player(self, run: QueuedRun) -> Client | None:
        owner = self.owners.get(run.job_id)
        if owner is not None and not owner.closed:
            return owner
        return next((c for c in self.widgets.get(run.user, []) if not c.closed), None)

    def _try_start(self, run: QueuedRun) -> bool:
        if run.job_id in self.running_jobs:
            return False
        game = self.config.games.get(run.game)
        bots = hosted_bots(run.players)
        if game is not None:
            if game.max_running_jobs and self.per_game[run.game] >= game.max_running_jobs:
                return False
            if self.config.max_running_bots and self.running_bots + bots > self.config.max_running_bots:
                return False
        player = self._player(run) if run.has_local else None
        if run.has_local and player is None:
            return False
        if not self.store.start_run(run.match_id, run.job_id, self.owner):
            return False
        self.running_jobs.add(run.job_id)
        self.per_game[run.game] += 1
        self.running_bots += bots
        self.last_start[run.user] = time.monotonic()
        self.nursery.start_soon(self.play, run, player, bots)
        return True

    async def play(self, run: QueuedRun, player: Client | None, bots: int) -> None:
        told = player or self.owners.get(run.job_id)
        if told is not None:
            await told.send(f"# RUNNING {run.user}.{run.tag} {run.ref}")

        def on_waiting(port: int) -> None:
            if player is not None:
                self.nursery.start_soon(player.send, f"RUN {self.announce} {port}")

        out_dir = self.logs / f"job{run.job_id}-{run.user}.{run.tag}" / f"run{run.run_index}"
        try:
            if run.game not in self.config.games:
                played = Played(False, None, f"the game {run.game} is no longer in the config", [])
            else:
                local_from = None if player is None or self.options.run_from_any else plain_address(player.address)
                where = (self.options.host, self.announce)
                played = await play_run(run, self.config, out_dir, where, on_waiting, local_from, self.options.c_logs)
                if self.options.c_logs and played.log is not None:
                    await trio.to_thread.run_sync(append_c_log, played.log, self.logs / f"{run.user}.{run.tag}.log")
        except (OSError, ValueError) as exc:
            played = Played(False, None, f"could not play the run: {exc}", [])
        finally:
            self.running_jobs.discard(run.job_id)
            self.per_game[run.game] -= 1
            self.running_bots -= bots
        log = None if played.log is None else str(played.log)
        kept = self.store.finish_run(run.match_id, self.owner, played.ok, log, played.error, played.results)
        if told is not None:
            if not kept:
                await told.send(f"# FAILED {run.ref}: its lease ran out (the database was out of reach); queued again")
            elif played.ok:
                scores = " ".join(f"{r.player} {r.chips:g}" for r in played.results)
                hands = played.results[0].hands if played.results else 0
                await told.send(f"# FINISHED {run.ref} {scores} ({hands} hands)")
            else:
                await told.send(f"# FAILED {run.ref}: {played.error}")
        self._check_finished(run.job_id)
        self.wake_up()

    def _check_finished(self, job_id: int) -> None:
        if self.store.job_done(job_id) and job_id in self.finished:
            self.finished.pop(job_id).set()
