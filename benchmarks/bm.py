"""acpc-bm-server under load: 50 users asking for 200 jobs at once, its web page and metrics read meanwhile."""

from __future__ import annotations

import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from benchmarks.timing import Row

USERS = 50
JOBS_PER_USER = 4
HANDS = 20
RUNNING_JOBS = 2
"""Each game's ``maxRunningJobs``."""
GAMES = ("holdem.limit.2p.reverse_blinds.game", "holdem.nolimit.2p.reverse_blinds.game")
KINDS = ("2pl", "2pn")


def _config(folder: Path) -> Path:
    blocks = "".join(
        f"game {game} {{\n  maxMatchRuns 10\n  maxRunningJobs {RUNNING_JOBS}\n  matchHands {HANDS}\n"
        "  bot random random\n  bot call call\n}\n"
        for game in GAMES
    )
    users = "".join(f"user u{i:02d} pw{i:02d}\n" for i in range(USERS))
    path = folder / "bm.config"
    path.write_text(f"port 0\nstartupTimeoutSecs 60\n{blocks}{users}")
    return path


def _ask(port: int, user: int, job: int, finished: list[float], failures: list[str]) -> None:
    """One job of one run, hosted bots alone, asked as ``bm_run_matches`` asks; waits for its end."""
    kind = KINDS[job % 2]
    line = f"u{user:02d} pw{user:02d} run {kind} ./none.sh 1 j{job} {user * 10 + job + 1} random call\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=900) as sock, sock.makefile("rb") as reader:
            sock.sendall(line.encode())
            for raw in reader:
                if raw == b"Matches finished\n":
                    finished.append(time.monotonic())
                    return
                if raw.startswith((b"BAD", b"# FAILED", b"SERVER", b"TOO", b"LOGON")):
                    failures.append(raw.decode().strip())
            failures.append(f"u{user:02d} j{job}: closed before Matches finished")
    except OSError as exc:
        failures.append(f"u{user:02d} j{job}: {exc}")


def _get_ms(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as answer:
        answer.read()
    return 1000 * (time.perf_counter() - start)


def bench_bm() -> Iterator[Row]:
    """50 users each ask for 4 one-run jobs at once (200 jobs of ``HANDS`` hands, hosted ``random`` against
    ``call``, limit and no-limit; each game ``maxRunningJobs 2``); meanwhile the database is read every 0.1 s
    (runs running per game) and the page and /metrics every 0.25 s. No job may be lost, the limits must hold,
    and the page should answer within 1 s."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        _config(folder)
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "acpc-bm-server"), "bm.config", "--host", "127.0.0.1", "--web", "0"],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            url = server.stdout.readline().split()[-1]
            port = int(server.stdout.readline().split()[-1])
            yield from _load(folder, port, url)
        finally:
            server.terminate()
            server.wait(timeout=30)


def _load(folder: Path, port: int, url: str) -> Iterator[Row]:
    finished: list[float] = []
    failures: list[str] = []
    most_running = dict.fromkeys(GAMES, 0)
    page_ms: list[float] = []
    metrics_ms: list[float] = []
    done = threading.Event()

    def watch_database() -> None:
        db = sqlite3.connect(f"file:{folder / 'bm.sqlite3'}?mode=ro", uri=True, timeout=30)
        while not done.wait(0.1):
            rows = db.execute(
                "SELECT j.game, COUNT(*) FROM matches m JOIN jobs j ON j.id = m.job_id "
                "WHERE m.state = 'running' GROUP BY j.game"
            )
            for game, count in rows:
                most_running[game] = max(most_running[game], count)
        db.close()

    def watch_pages() -> None:
        while not done.wait(0.25):
            page_ms.append(_get_ms(url))
            metrics_ms.append(_get_ms(url + "metrics"))

    watchers = [threading.Thread(target=watch_database), threading.Thread(target=watch_pages)]
    for watcher in watchers:
        watcher.start()
    began = time.monotonic()
    askers = [
        threading.Thread(target=_ask, args=(port, user, job, finished, failures))
        for job in range(JOBS_PER_USER)
        for user in range(USERS)
    ]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    elapsed = time.monotonic() - began
    done.set()
    for watcher in watchers:
        watcher.join()

    db = sqlite3.connect(f"file:{folder / 'bm.sqlite3'}?mode=ro", uri=True)
    states = dict(db.execute("SELECT state, COUNT(*) FROM matches GROUP BY state").fetchall())
    jobs = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'done'").fetchone()[0]
    attempts = db.execute("SELECT MAX(attempts) FROM matches").fetchone()[0]
    db.close()
    total = USERS * JOBS_PER_USER
    lost = total - len(finished)
    limits = ", ".join(f"{game.split('.')[1]} {most}" for game, most in most_running.items())
    yield (
        f"acpc-bm-server: {USERS} users ask {total} one-run jobs at once ({HANDS} hands, random v call)",
        f"{total / elapsed:.2f} runs/s",
        f"all ended in {elapsed:.0f} s; finished {len(finished)}, lost {lost}, failures {len(failures)}"
        f"{' (' + failures[0] + ')' if failures else ''}; jobs done {jobs}, runs {states}, most attempts "
        f"{attempts}; most running at once: {limits} (maxRunningJobs {RUNNING_JOBS})",
    )
    every = page_ms + metrics_ms
    yield (
        "  its web page meanwhile (/ and /metrics, 4 a second each)",
        f"{max(every):.0f} ms max",
        f"{sum(ms >= 1000 for ms in every)} of {len(every)} answers took 1 s or more (goal: none); "
        f"/ {_spread(page_ms)}; /metrics {_spread(metrics_ms)}",
    )


def _spread(ms: list[float]) -> str:
    cuts = statistics.quantiles(ms, n=100)
    return f"median {statistics.median(ms):.0f} ms, 99th percentile {cuts[98]:.0f} ms, max {max(ms):.0f} ms"
