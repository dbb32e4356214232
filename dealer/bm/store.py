"""The benchmark server's database (SQLite, the standard library's ``sqlite3``): users, jobs, their runs
(``matches``), the runs' logs and results.

Every change is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a server killed at any point leaves
the database as it was before or after a change, never between. A run is ``queued``, ``running``, then
``done`` or ``failed`` (or ``cancelled``: its requesting connection left before it started). A server
starting again puts its ``running`` runs back in the queue (``requeue_running``): they are played again from
their first hand, and a run is finished (its results written) only from ``running``, so once.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.dealer.bm.config import LOCAL

DEFAULT_DB = Path("bm.sqlite3")
"""Where the commands keep the database unless told (``--db``)."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    match_quota INTEGER,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL REFERENCES users(name),
    game TEXT NOT NULL,
    tag TEXT NOT NULL,
    seed INTEGER NOT NULL,
    players TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'active',
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id INTEGER NOT NULL REFERENCES jobs(id),
    run_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    log TEXT,
    error TEXT,
    started REAL,
    finished REAL,
    UNIQUE (job_id, run_index)
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    chips REAL NOT NULL,
    hands INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
"""
UNFINISHED = ("queued", "running")


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


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- users --------------------------------------------------------------

    def add_user(self, name: str, hashed: str, quota: int | None = None) -> None:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise StoreError(f"user {name} exists already (change the password with passwd)")
            db.execute("INSERT INTO users VALUES (?, ?, ?, ?)", (name, hashed, quota, time.time()))

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
            "SELECT u.name, u.match_quota, COUNT(m.id) FROM users u LEFT JOIN jobs j ON j.user = u.name "
            "LEFT JOIN matches m ON m.job_id = j.id AND m.state != 'cancelled' GROUP BY u.name ORDER BY u.name"
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
            pending = db.execute("SELECT COUNT(*) FROM jobs WHERE user = ? AND state = 'active'", (user,)).fetchone()
            if max_pending and pending[0] >= max_pending:
                raise StoreError(f"{pending[0]} jobs pending already, the most a user may have")
            quota, used = db.execute(
                "SELECT u.match_quota, COUNT(m.id) FROM users u LEFT JOIN jobs j ON j.user = u.name "
                "LEFT JOIN matches m ON m.job_id = j.id AND m.state != 'cancelled' WHERE u.name = ?",
                (user,),
            ).fetchone()
            if quota is not None and used + len(seeds) > quota:
                raise StoreError(f"over quota: {used} of {quota} runs used, {len(seeds)} asked for")
            job_id = db.execute(
                "INSERT INTO jobs (user, game, tag, seed, players, created) VALUES (?, ?, ?, ?, ?, ?)",
                (user, game, tag, seed, json.dumps(list(players)), time.time()),
            ).lastrowid
            assert job_id is not None
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
            "SELECT m.id, m.job_id, m.run_index, m.seed, j.user, j.game, j.tag, j.players FROM matches m "
            "JOIN jobs j ON j.id = m.job_id WHERE m.state = 'queued' ORDER BY m.job_id, m.run_index"
        )
        return [
            QueuedRun(match_id, job_id, index, seed, user, game, tag, tuple(json.loads(players)))
            for match_id, job_id, index, seed, user, game, tag, players in rows
        ]

    def start_run(self, match_id: int) -> bool:
        """Mark a queued run running; False if it was not queued (cancelled meanwhile)."""
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE matches SET state = 'running', attempts = attempts + 1, started = ?, log = NULL, "
                "error = NULL WHERE id = ? AND state = 'queued'",
                (time.time(), match_id),
            ).rowcount
        return changed == 1

    def finish_run(
        self, match_id: int, ok: bool, log: str | None, error: str | None, results: Sequence[Result]
    ) -> bool:
        """Record a running run's end and results, and end its job when it was the last; False (nothing
        written) if the run was not running."""
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE matches SET state = ?, log = ?, error = ?, finished = ? WHERE id = ? AND state = 'running'",
                ("done" if ok else "failed", log, error, time.time(), match_id),
            ).rowcount
            if changed != 1:
                return False
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?)",
                [(match_id, r.seat, r.player, r.chips, r.hands) for r in results],
            )
            self._close_finished_jobs(db)
        return True

    def _close_finished_jobs(self, db: sqlite3.Connection) -> None:
        db.execute(
            "UPDATE jobs SET state = 'done' WHERE state = 'active' AND NOT EXISTS "
            "(SELECT 1 FROM matches m WHERE m.job_id = jobs.id AND m.state IN ('queued', 'running'))"
        )

    def requeue_running(self) -> int:
        """Put the runs left running (by a server that was stopped) back in the queue; how many."""
        with self.transaction() as db:
            return db.execute("UPDATE matches SET state = 'queued' WHERE state = 'running'").rowcount

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
        where = ["1"]
        args: list[str] = []
        if user is not None:
            where.append("j.user = ?")
            args.append(user)
        if active_only:
            where.append("j.state = 'active'")
        rows = self.db.execute(
            "SELECT j.id, j.user, j.tag, j.game, SUM(m.state = 'queued'), SUM(m.state = 'running'), j.state "
            f"FROM jobs j LEFT JOIN matches m ON m.job_id = j.id WHERE {' AND '.join(where)} "
            "GROUP BY j.id ORDER BY j.id",
            args,
        )
        return [
            JobStatus(job, owner, tag, game, int(left or 0), bool(running), state)
            for job, owner, tag, game, left, running, state in rows
        ]

    def run_logs(self, user: str, job_id: int, run_index: int | None) -> list[tuple[str, str | None, str]]:
        """``(J.I, log path or None, state)`` of the user's job's runs (or of the one run)."""
        rows = self.db.execute(
            "SELECT m.run_index, m.log, m.state FROM matches m JOIN jobs j ON j.id = m.job_id "
            "WHERE j.id = ? AND j.user = ? AND (? IS NULL OR m.run_index = ?) ORDER BY m.run_index",
            (job_id, user, run_index, run_index),
        )
        return [(f"{job_id}.{index}", log, state) for index, log, state in rows]

    def results(self, match_id: int) -> list[Result]:
        rows = self.db.execute(
            "SELECT seat, player, chips, hands FROM results WHERE match_id = ? ORDER BY seat", (match_id,)
        )
        return [Result(*row) for row in rows]
