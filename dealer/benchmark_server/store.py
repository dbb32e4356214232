"""The benchmark server's database (``database.py``: a SQLite file, or PostgreSQL shared by several hosts):
users, jobs, their runs (``matches``), the runs' logs and results.

Every change is one transaction, so a server killed at any point leaves the database as it was before or
after a change, never between. A run is ``queued``, ``running``, then ``done`` or ``failed`` (or
``cancelled``: its requesting connection left before it started). A server claims a queued run
(``start_run``) in one transaction that also holds the run's job, so that of several servers sharing the
database one plays it, and a job plays one run at a time. While it plays, the server renews the run's lease
(``renew``, every ``RENEW_S``); a run whose lease is older than ``LEASE_S`` (its server was stopped or
killed) goes back in the queue (``requeue_stale``) and is played again from its first hand; a run is
finished (its results written) only by the server holding it, so once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.dealer.benchmark_server.config import LOCAL
from acpc_arena.dealer.benchmark_server.database import Database

DEFAULT_DB = Path("bm.sqlite3")
"""Where the commands keep the database unless told (``--db``)."""
LEASE_S = 15.0
"""A running run whose server has not renewed it for this long is queued again."""
RENEW_S = 3.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    match_quota INTEGER,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id {id},
    "user" TEXT NOT NULL REFERENCES users(name),
    game TEXT NOT NULL,
    tag TEXT NOT NULL,
    seed BIGINT NOT NULL,
    players TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'active',
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id {id},
    job_id BIGINT NOT NULL REFERENCES jobs(id),
    run_index INTEGER NOT NULL,
    seed BIGINT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    log TEXT,
    error TEXT,
    started DOUBLE PRECISION,
    finished DOUBLE PRECISION,
    owner TEXT,
    lease DOUBLE PRECISION,
    UNIQUE (job_id, run_index)
);
CREATE TABLE IF NOT EXISTS results (
    match_id BIGINT NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    chips DOUBLE PRECISION NOT NULL,
    hands INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS matches_state ON matches (state, job_id)
"""
SCHEMA_LOCK = 7_304_221
"""The PostgreSQL advisory lock held while the tables are made (two servers starting at once)."""


class StoreError(ValueError):
    """A change the database refuses (a user that exists or does not, a bound reached); ``str`` says why."""


@dataclass(frozen=True)
class QueuedRun:
    match_id: int
    job_id: int
    run_index: int
    seed: int
    user: str
    game: str
    tag: str
    players: tuple[str, ...]

    @property
    def has_local(self) -> bool:
        return LOCAL in self.players

    @property
    def ref(self) -> str:
        return f"{self.job_id}.{self.run_index}"


@dataclass(frozen=True)
class JobStatus:
    job_id: int
    user: str
    tag: str
    game: str
    runs_left: int
    running: bool
    state: str


@dataclass(frozen=True)
class Result:
    seat: int
    player: str
    chips: float
    hands: int


@dataclass(frozen=True)
class RunRow:
    """A run as the web page shows it: its job's request, its state and times, its log."""

    match_id: int
    job_id: int
    run_index: int
    user: str
    game: str
    tag: str
    players: tuple[str, ...]
    state: str
    started: float | None
    finished: float | None
    log: str | None


def _run_row(row: Sequence[object]) -> RunRow:
    match_id, job_id, index, user, game, tag, players, state, started, finished, log = row
    return RunRow(
        int(str(match_id)), int(str(job_id)), int(str(index)), str(user), str(game), str(tag),
        tuple(json.loads(str(players))), str(state),
        None if started is None else float(str(started)), None if finished is None else float(str(finished)),
        None if log is None else str(log),
    )  # fmt: skip


class Store:
    """The database of ``target``: a SQLite file's path, or a ``postgresql://`` URL. ``read_only``: a connection
    that changes nothing (and makes no tables)."""

    def __init__(self, target: str | Path, read_only: bool = False) -> None:
        self.path = target
        self.db = Database(target, read_only)
        if not read_only:
            self._make_tables()

    def _make_tables(self) -> None:
        with self.db.transaction() as db:
            if db.postgres:
                db.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
            db.script(SCHEMA.format(id=db.id_column))
            if not db.postgres:  # a database made before runs had leases
                names = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
                for column in ("owner TEXT", "lease DOUBLE PRECISION"):
                    if column.split()[0] not in names:
                        db.execute(f"ALTER TABLE matches ADD COLUMN {column}")

    def close(self) -> None:
        self.db.close()

    def transaction(self) -> AbstractContextManager[Database]:
        return self.db.transaction()

    # -- users --------------------------------------------------------------

    def add_user(self, name: str, hashed: str, quota: int | None = None) -> None:
        with self.transaction() as db:
            added = db.execute(
                "INSERT INTO users VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
                (name, hashed, quota, time.time()),
            ).rowcount
            if added != 1:
                raise StoreError(f"user {name} exists already (change the password with passwd)")

    def set_password(self, name: str, hashed: str) -> None:
        with self.transaction() as db:
            if db.execute("UPDATE users SET hash = ? WHERE name = ?", (hashed, name)).rowcount == 0:
                raise StoreError(f"no user {name}")

    def set_quota(self, name: str, quota: int | None) -> None:
        with self.transaction() as db:
            if db.execute("UPDATE users SET match_quota = ? WHERE name = ?", (quota, name)).rowcount == 0:
                raise StoreError(f"no user {name}")

    def password_hash(self, name: str) -> str | None:
        row = self.db.execute("SELECT hash FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def users(self) -> list[tuple[str, int | None, int]]:
        """Each user's name, match quota (None: none) and the runs asked for so far (cancelled ones not counted)."""
        rows = self.db.execute(
            'SELECT u.name, u.match_quota, COUNT(m.id) FROM users u LEFT JOIN jobs j ON j."user" = u.name '
            "LEFT JOIN matches m ON m.job_id = j.id AND m.state != 'cancelled' GROUP BY u.name, u.match_quota "
            "ORDER BY u.name"
        )
        return [(str(name), quota, int(used)) for name, quota, used in rows]

    # -- jobs ---------------------------------------------------------------

    def add_job(
        self, user: str, game: str, tag: str, seed: int, players: Sequence[str], seeds: Sequence[int],
        first_index: int = 0, max_pending: int = 0,
    ) -> int:  # fmt: skip
        """Queue a job of ``len(seeds)`` runs; its id. StoreError when the user has ``max_pending`` jobs
        unfinished already (0: no bound) or the runs would pass the user's quota."""
        with self.transaction() as db:
            db.execute(f"SELECT name FROM users WHERE name = ?{db.lock}", (user,))  # one user's jobs one at a time
            pending = db.execute(
                "SELECT COUNT(*) FROM jobs WHERE \"user\" = ? AND state = 'active'", (user,)
            ).fetchone()
            if max_pending and pending[0] >= max_pending:
                raise StoreError(f"{pending[0]} jobs pending already, the most a user may have")
            quota, used = db.execute(
                'SELECT u.match_quota, COUNT(m.id) FROM users u LEFT JOIN jobs j ON j."user" = u.name '
                "LEFT JOIN matches m ON m.job_id = j.id AND m.state != 'cancelled' WHERE u.name = ? "
                "GROUP BY u.match_quota",
                (user,),
            ).fetchone() or (None, 0)
            if quota is not None and used + len(seeds) > quota:
                raise StoreError(f"over quota: {used} of {quota} runs used, {len(seeds)} asked for")
            job_id = db.insert(
                'INSERT INTO jobs ("user", game, tag, seed, players, created) VALUES (?, ?, ?, ?, ?, ?)',
                (user, game, tag, seed, json.dumps(list(players)), time.time()),
            )
            db.executemany(
                "INSERT INTO matches (job_id, run_index, seed) VALUES (?, ?, ?)",
                [(job_id, first_index + i, run_seed) for i, run_seed in enumerate(seeds)],
            )
            if not seeds:
                db.execute("UPDATE jobs SET state = 'done' WHERE id = ?", (job_id,))
        return job_id

    def queued_runs(self) -> list[QueuedRun]:
        """The runs waiting to be played, oldest job first, each job's runs in order."""
        rows = self.db.execute(
            'SELECT m.id, m.job_id, m.run_index, m.seed, j."user", j.game, j.tag, j.players FROM matches m '
            "JOIN jobs j ON j.id = m.job_id WHERE m.state = 'queued' ORDER BY m.job_id, m.run_index"
        )
        return [
            QueuedRun(match_id, job_id, index, seed, user, game, tag, tuple(json.loads(players)))
            for match_id, job_id, index, seed, user, game, tag, players in rows
        ]

    def start_run(self, match_id: int, job_id: int, owner: str) -> bool:
        """Claim a queued run for server ``owner``: False if it is not queued (cancelled, or claimed by another
        server) or another run of its job is running. The job's row is held meanwhile, so that two servers
        never claim one run, nor two runs of one job."""
        with self.transaction() as db:
            db.execute(f"SELECT id FROM jobs WHERE id = ?{db.lock}", (job_id,))
            now = time.time()
            changed = db.execute(
                "UPDATE matches SET state = 'running', attempts = attempts + 1, started = ?, log = NULL, "
                "error = NULL, owner = ?, lease = ? WHERE id = ? AND state = 'queued' AND NOT EXISTS "
                "(SELECT 1 FROM matches r WHERE r.job_id = ? AND r.state = 'running')",
                (now, owner, now, match_id, job_id),
            ).rowcount
        return changed == 1

    def renew(self, owner: str) -> None:
        """Renew the lease of every run ``owner`` is playing."""
        with self.transaction() as db:
            db.execute("UPDATE matches SET lease = ? WHERE owner = ? AND state = 'running'", (time.time(), owner))

    def finish_run(
        self, match_id: int, owner: str, ok: bool, log: str | None, error: str | None, results: Sequence[Result]
    ) -> bool:
        """Record the end and results of a run ``owner`` is playing, and end its job when it was the last;
        False (nothing written) if the run is not ``owner``'s running run (its lease ran out)."""
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE matches SET state = ?, log = ?, error = ?, finished = ?, owner = NULL "
                "WHERE id = ? AND state = 'running' AND owner = ?",
                ("done" if ok else "failed", log, error, time.time(), match_id, owner),
            ).rowcount
            if changed != 1:
                return False
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?)",
                [(match_id, r.seat, r.player, r.chips, r.hands) for r in results],
            )
            self._close_finished_jobs(db)
        return True

    def _close_finished_jobs(self, db: Database) -> None:
        db.execute(
            "UPDATE jobs SET state = 'done' WHERE state = 'active' AND NOT EXISTS "
            "(SELECT 1 FROM matches m WHERE m.job_id = jobs.id AND m.state IN ('queued', 'running'))"
        )

    def requeue_stale(self, lease_s: float = LEASE_S) -> int:
        """Put back in the queue the runs whose server has not renewed them for ``lease_s`` seconds; how many."""
        with self.transaction() as db:
            return db.execute(
                "UPDATE matches SET state = 'queued', owner = NULL WHERE state = 'running' "
                "AND (lease IS NULL OR lease < ?)",
                (time.time() - lease_s,),
            ).rowcount

    def cancel_queued(self, job_ids: Sequence[int]) -> int:
        """Cancel the queued runs of ``job_ids``; how many."""
        with self.transaction() as db:
            count = 0
            for job_id in job_ids:
                count += db.execute(
                    "UPDATE matches SET state = 'cancelled' WHERE job_id = ? AND state = 'queued'", (job_id,)
                ).rowcount
            self._close_finished_jobs(db)
        return count

    def job_done(self, job_id: int) -> bool:
        row = self.db.execute("SELECT state FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row is None or row[0] != "active"

    def job_statuses(self, user: str | None = None, active_only: bool = True) -> list[JobStatus]:
        """The jobs (of ``user``, or everyone's), oldest first: runs left to play, whether one is running."""
        where = ["1 = 1"]
        args: list[str] = []
        if user is not None:
            where.append('j."user" = ?')
            args.append(user)
        if active_only:
            where.append("j.state = 'active'")
        rows = self.db.execute(
            "SELECT j.id, j.\"user\", j.tag, j.game, SUM(CASE WHEN m.state = 'queued' THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN m.state = 'running' THEN 1 ELSE 0 END), j.state "
            f"FROM jobs j LEFT JOIN matches m ON m.job_id = j.id WHERE {' AND '.join(where)} "
            'GROUP BY j.id, j."user", j.tag, j.game, j.state ORDER BY j.id',
            args,
        )
        return [
            JobStatus(int(job), owner, tag, game, int(left or 0), bool(running), state)
            for job, owner, tag, game, left, running, state in rows
        ]

    def run_logs(self, user: str, job_id: int, run_index: int | None) -> list[tuple[str, str | None, str]]:
        """``(J.I, log path or None, state)`` of the user's job's runs (or of the one run)."""
        rows = self.db.execute(
            "SELECT m.run_index, m.log, m.state FROM matches m JOIN jobs j ON j.id = m.job_id "
            'WHERE j.id = ? AND j."user" = ? AND (m.run_index = ? OR ? < 0) ORDER BY m.run_index',
            (job_id, user, -1 if run_index is None else run_index, -1 if run_index is None else run_index),
        )
        return [(f"{job_id}.{index}", log, state) for index, log, state in rows]

    def earlier_seed(self, user: str, game: str, tag: str, run_index: int) -> int | None:
        """The deal seed of run ``run_index`` of the user's latest job of ``game`` tagged ``tag`` (a set of runs
        asked for with seed 0, each of a random seed, rerun), or None."""
        row = self.db.execute(
            "SELECT m.seed FROM matches m JOIN jobs j ON j.id = m.job_id "
            'WHERE j."user" = ? AND j.game = ? AND j.tag = ? AND m.run_index = ? ORDER BY j.id DESC LIMIT 1',
            (user, game, tag, run_index),
        ).fetchone()
        return None if row is None else int(row[0])

    def results(self, match_id: int) -> list[Result]:
        rows = self.db.execute(
            "SELECT seat, player, chips, hands FROM results WHERE match_id = ? ORDER BY seat", (match_id,)
        )
        return [Result(*row) for row in rows]

    # -- what the web page shows ---------------------------------------------

    def runs(self, states: Sequence[str], finished_since: float | None = None) -> list[RunRow]:
        """The runs in ``states`` (and finished at ``finished_since`` or later, if given), by id."""
        marks = ", ".join("?" for _ in states)
        since = "" if finished_since is None else " AND m.finished >= ?"
        rows = self.db.execute(
            'SELECT m.id, m.job_id, m.run_index, j."user", j.game, j.tag, j.players, m.state, m.started, '
            f"m.finished, m.log FROM matches m JOIN jobs j ON j.id = m.job_id WHERE m.state IN ({marks}){since} "
            "ORDER BY m.id",
            (*states, *(() if finished_since is None else (finished_since,))),
        )
        return [_run_row(row) for row in rows]

    def state_counts(self) -> dict[str, int]:
        """How many runs are in each state."""
        rows = self.db.execute("SELECT state, COUNT(*) FROM matches GROUP BY state")
        return {str(state): int(count) for state, count in rows}
