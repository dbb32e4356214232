"""The benchmark server's web page and ``/metrics`` (``acpc-bm-server --web PORT``), served by a process of
its own that reads the database with a read-only connection: no observer can slow the server's loop.

    ACPC_BM_DB=TARGET python -m acpc_arena.dealer.benchmark_server.web --feed FD --sock FD --host H --port P

``/`` (refreshed every few seconds) and ``/api/bm`` (JSON) show the queue, the runs being played, and each
user's results against each hosted bot: chips won per hand in mbb/h with a 95% interval (``estimates``') over
the hands of the logs this host can read, and beside it the AIVAT estimate over the runs whose hosted bot is
a shipped agent (``aivat_worker``: computed off the page's threads, once a run, cached beside its log).
``/metrics`` (Prometheus, any ``Host``) gives the runs queued and running, the active jobs, the runs finished
and failed and their durations (a histogram, by game), and the connections refused at logon (counted by the
server and sent through the feed, as ``web.side`` takes them).
A thread of this process reads the database every ``REFRESH_S`` seconds; the pages answer from its last
reading. The HTTP bounds are ``web.http``'s; the process ends when the feed's pipe does.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import math
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import trio
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.metrics_core import Metric

from acpc_arena.dealer.arena.estimates import Z95
from acpc_arena.dealer.arena.logreading import read_log
from acpc_arena.dealer.benchmark_server.aivat_worker import AivatWorker
from acpc_arena.dealer.benchmark_server.config import LOCAL, BmConfig
from acpc_arena.dealer.benchmark_server.database import DATABASE_ERRORS
from acpc_arena.dealer.benchmark_server.protocol import (
    BAD_LOGON,
    LOGON_TIMEOUT,
    RATE_LIMITED,
    SERVER_BUSY,
    TOO_MANY_CONNECTIONS,
)
from acpc_arena.dealer.benchmark_server.run_aivat import Task
from acpc_arena.dealer.benchmark_server.store import JobStatus, RunRow, Store
from acpc_arena.dealer.observers.page_process import SideServer, bind, start_page_process
from acpc_arena.dealer.web.http import Guard, HttpError, Request, Response, guard_for, json_bytes, serve
from acpc_arena.dealer.web.side import METRICS_CONTENT_TYPE, READY, MetricsPage, read_feed

DB_VARIABLE = "ACPC_BM_DB"
"""The environment variable that gives the page process its database (a URL may hold a password)."""
HOSTED_VARIABLE = "ACPC_BM_HOSTED"
"""The environment variable that gives the page process the hosted bots (JSON, ``Hosted``)."""
Hosted = dict[str, dict[str, list[str] | None]]
"""By game, each hosted bot's shipped agent and its options (``[agent, *args]``), or None for a command."""
REFRESH_S = 1.0
PAGE_REFRESH_S = 5
"""The HTML page reloads itself this often."""
FINISHED_MARGIN_S = 120.0
"""Runs are read again from this long before the last finish seen (finishes written out of order)."""
DURATION_BUCKETS = (1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 24 * 3600.0, float("inf"))
REFUSALS = {
    BAD_LOGON: "bad_logon",
    LOGON_TIMEOUT: "logon_timeout",
    RATE_LIMITED: "rate_limited",
    SERVER_BUSY: "server_busy",
    TOO_MANY_CONNECTIONS: "too_many_connections",
}
"""The server's refusals at logon and their ``reason`` labels."""


class _Families:
    """A collector of families made elsewhere (``prometheus_client`` renders registries, not families)."""

    def __init__(self, families: Callable[[], Sequence[Metric]]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        yield from self.families()


def render(families: Sequence[Metric]) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(lambda: families))
    return generate_latest(registry)


def refused_page(refused: Counter[str]) -> bytes:
    """The server's part of ``/metrics``: connections refused at logon, by reason (each from 0)."""
    family = CounterMetricFamily("acpc_bm_logons_refused", "Connections refused at logon", labels=["reason"])
    for line, reason in REFUSALS.items():
        family.add_metric([reason], refused[line])
    return render([family])


def hosted_agents(config: BmConfig) -> Hosted:
    """The config's hosted bots as the page process is told them."""
    return {
        name: {bot.name: None if bot.agent is None else [bot.agent, *bot.args] for bot in game.bots.values()}
        for name, game in config.games.items()
    }


def mbb_interval(hands: int, mean: float, deviations: float, big_blind: int) -> tuple[float, tuple[float, float]]:
    """A mean of ``hands`` chip results in mbb/h and its 95% interval, as ``estimates.estimate`` makes them:
    the mean ± ``Z95`` sample standard errors, ``deviations`` the sum of the squared deviations from the mean
    (NaN without hands, an infinite interval with one)."""
    if not hands:
        return math.nan, (math.nan, math.nan)
    scale = 1000.0 / (big_blind or 1)
    half = Z95 * math.sqrt(max(0.0, deviations) / (hands - 1) / hands) if hands > 1 else math.inf
    return mean * scale, ((mean - half) * scale, (mean + half) * scale)


@dataclass
class Pairing:
    """A user's bot against a hosted side in a game: the count, mean and sum of squared deviations of the
    hands' results read so far (what a mean and its interval need, in memory that does not grow)."""

    hands: int = 0
    mean: float = 0.0
    squares: float = 0.0
    big_blind: int = 0
    runs: int = 0
    unread: int = 0
    """Runs whose log this host could not read (another host's, or removed)."""
    aivat_runs: list[int] = field(default_factory=list)
    """The runs (match ids) given to the AIVAT worker."""
    aivat_reason: str | None = None
    """Why the other runs have no AIVAT (the last one's reason)."""

    def add(self, values: np.ndarray) -> None:
        """Take in a run's hands (the two sets' statistics merged, Chan et al.)."""
        if not len(values):
            return
        mean = float(np.mean(values))
        squares = float(np.sum((values - mean) ** 2))
        hands = self.hands + len(values)
        delta = mean - self.mean
        self.mean += delta * len(values) / hands
        self.squares += squares + delta**2 * self.hands * len(values) / hands
        self.hands = hands

    def mbb(self) -> tuple[float, tuple[float, float]]:
        """The mean in mbb/h and its 95% interval (``mbb_interval``)."""
        return mbb_interval(self.hands, self.mean, self.squares, self.big_blind)

    def aivat(self, worker: AivatWorker) -> dict[str, Any]:
        """The AIVAT estimate over the runs that have one (their hands pooled, as the plain one), how many
        runs that is of all, how many are still computed, and why the others have none."""
        hands, total, squares, runs, pending = 0, 0.0, 0.0, 0, 0
        big_blind, reason = self.big_blind, self.aivat_reason
        for match_id in self.aivat_runs:
            result = worker.result(match_id)
            if result is None:
                pending += 1
            elif result.reason is not None:
                reason = result.reason
            else:
                runs += 1
                hands, total, squares = hands + result.hands, total + result.total, squares + result.squares
                big_blind = result.big_blind
        mean = total / hands if hands else 0.0
        mbb, ci95 = mbb_interval(hands, mean, squares - total * mean, big_blind)
        return {"runs": runs, "of_runs": self.runs, "pending": pending, "hands": hands, "mbb_per_hand": mbb,
                "ci95": list(ci95), "reason": reason if runs + pending < self.runs else None}  # fmt: skip


def opponents(players: Sequence[str]) -> str | None:
    """The hosted side of a run with one ``LOCAL`` seat (its bots joined by ``+``); None for other runs."""
    if sum(player == LOCAL for player in players) != 1:
        return None
    return " + ".join(player for player in players if player != LOCAL)


@dataclass
class Durations:
    """A histogram of runs' seconds: how many took at most each of ``DURATION_BUCKETS``, and their sum."""

    counts: list[int] = field(default_factory=lambda: [0] * len(DURATION_BUCKETS))
    total: float = 0.0

    def add(self, seconds: float) -> None:
        for index, bound in enumerate(DURATION_BUCKETS):
            if seconds <= bound:
                self.counts[index] += 1
        self.total += seconds


@dataclass
class Rendered:
    """A reading as each page sends it, made by the watcher's thread so that a request costs a copy."""

    page: bytes = b""
    api: bytes = b"{}"
    metrics: bytes = b""


@dataclass
class Reading:
    """What the database held at ``taken``."""

    taken: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    jobs: list[JobStatus] = field(default_factory=list)
    running: list[RunRow] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    finished: dict[tuple[str, str], int] = field(default_factory=dict)
    """Runs ended, by (game, ``done`` or ``failed``)."""
    durations: dict[str, Durations] = field(default_factory=dict)
    error: str | None = None


class Watcher:
    """Reads the database every ``REFRESH_S`` seconds in a thread of its own; ``reading`` is the last."""

    def __init__(self, target: str, hosted: Hosted | None = None) -> None:
        self.target = target
        self.hosted = hosted or {}
        self.aivat = AivatWorker()
        self.reading = Reading()
        self.rendered = Rendered()
        self.seen: set[int] = set()
        self.since: float | None = None
        self.pairings: dict[tuple[str, str, str], Pairing] = {}
        self.finished: Counter[tuple[str, str]] = Counter()
        self.durations: dict[str, Durations] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="acpc-bm-web", daemon=True)

    def _run(self) -> None:
        store: Store | None = None
        while not self.stop.is_set():
            try:
                store = store or Store(self.target, read_only=True)
                self.reading = self.read(store)
            except DATABASE_ERRORS as exc:
                self.reading = Reading(time.time(), error=f"database: {exc}".splitlines()[0])
                if store is not None:
                    with contextlib.suppress(*DATABASE_ERRORS):
                        store.close()
                store = None
            reading = self.reading
            self.rendered = Rendered(
                page_html(reading).encode(), json_bytes(reading_json(reading)), render(metric_families(reading))
            )
            self.stop.wait(REFRESH_S)

    def read(self, store: Store) -> Reading:
        taken = time.time()
        for run in store.runs(("done", "failed"), self.since):
            if run.match_id in self.seen:
                continue
            self.seen.add(run.match_id)
            self.finished[(run.game, run.state)] += 1
            if run.started is not None and run.finished is not None:
                self.durations.setdefault(run.game, Durations()).add(max(0.0, run.finished - run.started))
            if run.finished is not None:
                self.since = max(self.since or 0.0, run.finished - FINISHED_MARGIN_S)
            if run.state == "done":
                self._add_result(store, run)
        return Reading(
            taken=taken,
            counts=store.state_counts(),
            jobs=store.job_statuses(),
            running=store.runs(("running",)),
            results=self._results(),
            finished=dict(self.finished),
            durations={game: Durations(list(d.counts), d.total) for game, d in self.durations.items()},
        )

    def _add_result(self, store: Store, run: RunRow) -> None:
        side = opponents(run.players)
        if side is None:
            return
        pairing = self.pairings.setdefault((run.game, run.user, side), Pairing())
        pairing.runs += 1
        seat = run.players.index(LOCAL)
        names = {result.seat: result.player for result in store.results(run.match_id)}
        try:
            if run.log is None or seat not in names:
                raise OSError("no log")
            match = read_log(run.log)
            pairing.add(match.values_of(names[seat]))
            pairing.big_blind = match.game.big_blind
        except (OSError, ValueError):
            pairing.unread += 1
        task = self._aivat_task(run, seat, names)
        if isinstance(task, str):
            pairing.aivat_reason = task
        else:
            pairing.aivat_runs.append(run.match_id)
            self.aivat.add(run.match_id, task)

    def _aivat_task(self, run: RunRow, seat: int, names: dict[int, str]) -> Task | str:
        """What the AIVAT worker computes for the run, the hosted bot's policy known; or why it has none."""
        if len(run.players) != 2:
            return "AIVAT is for two-player runs"
        bot = run.players[1 - seat]
        bots = self.hosted.get(run.game, {})
        if bot not in bots:
            return f"{bot} is not a hosted bot of this server's config: its policy is not known"
        agent = bots[bot]
        if agent is None:
            return f"{bot} is a hosted command, not a shipped agent: its policy is not known"
        if run.log is None or not os.path.isfile(run.log) or set(names) != {0, 1}:
            return "no log of the run on this host"
        return Task(run.log, names[seat], names[1 - seat], agent[0], tuple(agent[1:]))

    def _results(self) -> list[dict[str, Any]]:
        rows = []
        for (game, user, side), pairing in sorted(self.pairings.items()):
            mbb, ci95 = pairing.mbb()
            rows.append({
                "game": game, "user": user, "opponent": side, "runs": pairing.runs, "hands": pairing.hands,
                "unread_runs": pairing.unread, "mbb_per_hand": mbb, "ci95": list(ci95),
                "aivat": pairing.aivat(self.aivat),
            })  # fmt: skip
        return rows


def metric_families(reading: Reading) -> list[Metric]:
    """``/metrics``' families from the database's reading."""
    counts = reading.counts
    families: list[Metric] = [
        GaugeMetricFamily("acpc_bm_runs_queued", "Runs waiting to be played", value=counts.get("queued", 0)),
        GaugeMetricFamily("acpc_bm_runs_running", "Runs being played", value=counts.get("running", 0)),
        GaugeMetricFamily("acpc_bm_jobs_active", "Jobs with runs left to play", value=len(reading.jobs)),
        GaugeMetricFamily(
            "acpc_bm_jobs_running", "Jobs with a run being played", value=sum(job.running for job in reading.jobs)
        ),
    ]
    ended = CounterMetricFamily("acpc_bm_runs_finished", "Runs played to their end", labels=["game"])
    failed = CounterMetricFamily("acpc_bm_runs_failed", "Runs that failed", labels=["game"])
    for (game, state), count in sorted(reading.finished.items()):
        (ended if state == "done" else failed).add_metric([game], count)
    seconds = HistogramMetricFamily("acpc_bm_run_seconds", "Seconds each run took", labels=["game"])
    for game, durations in sorted(reading.durations.items()):
        buckets = [(_le(bound), float(count)) for bound, count in zip(DURATION_BUCKETS, durations.counts, strict=True)]
        seconds.add_metric([game], buckets, sum_value=durations.total)
    return [*families, ended, failed, seconds]


def _le(bound: float) -> str:
    return "+Inf" if bound == float("inf") else f"{bound:g}"


def reading_json(reading: Reading) -> dict[str, Any]:
    return {
        "taken": reading.taken,
        "error": reading.error,
        "counts": reading.counts,
        "queue": [
            {"job": job.job_id, "user": job.user, "tag": job.tag, "game": job.game, "runs_left": job.runs_left,
             "running": job.running}
            for job in reading.jobs
        ],
        "running": [
            {"run": f"{run.job_id}.{run.run_index}", "user": run.user, "tag": run.tag, "game": run.game,
             "players": list(run.players), "started": run.started}
            for run in reading.running
        ],
        "results": reading.results,
    }  # fmt: skip


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], empty: str) -> str:
    if not rows:
        return f"<p>{html.escape(empty)}</p>"
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _interval(row: dict[str, Any]) -> str:
    low, high = row["ci95"]
    if not row["hands"]:
        return "no hands read"
    if not np.isfinite(low):
        return f"{row['mbb_per_hand']:+.1f} (one hand)"
    return f"{row['mbb_per_hand']:+.1f} [{low:+.1f}, {high:+.1f}]"


def _aivat_cell(aivat: dict[str, Any]) -> str:
    """The AIVAT estimate and the runs it is over; or, none having it, that it is computed or why not."""
    computing = f"{aivat['pending']} run{'s' if aivat['pending'] != 1 else ''} computing"
    if aivat["runs"]:
        shown = f"{_interval(aivat)}, AIVAT over {aivat['runs']} of {aivat['of_runs']} runs"
        return f"{shown}, {computing}" if aivat["pending"] else shown
    if aivat["pending"]:
        return computing
    return f"none: {aivat['reason']}"


def page_html(reading: Reading) -> str:
    """The page: the queue, the runs being played, the results (every value escaped)."""
    now = time.time()
    queue = [(j.job_id, j.user, j.tag, j.game, j.runs_left, "R" if j.running else "Q") for j in reading.jobs]
    running = [
        (f"{r.job_id}.{r.run_index}", r.user, r.tag, r.game, " ".join(r.players),
         f"{now - r.started:.0f} s" if r.started else "")
        for r in reading.running
    ]  # fmt: skip
    results = [
        (r["game"], r["user"], r["opponent"], r["runs"], r["hands"], _interval(r), _aivat_cell(r["aivat"]),
         r["unread_runs"])
        for r in reading.results
    ]  # fmt: skip
    counts = ", ".join(f"{state} {count}" for state, count in sorted(reading.counts.items())) or "no runs yet"
    error = f"<p><strong>{html.escape(reading.error)}</strong></p>" if reading.error else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{PAGE_REFRESH_S}">
<title>Benchmark server</title></head><body>
<h1>Benchmark server</h1>{error}
<p>Runs: {html.escape(counts)}. Read {time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(reading.taken))}.</p>
<h2>Queue</h2>
{_table(("job", "user", "tag", "game", "runs left", "state"), queue, "Queue empty")}
<h2>Running</h2>
{_table(("run", "user", "tag", "game", "seats", "for"), running, "No run is being played.")}
<h2>Results</h2>
<p>The user's bot against each hosted side: chips won per hand in mbb/h (1000 x chips / big blind) with its 95%
interval, over the hands of the finished runs' logs; beside it the AIVAT estimate, the luck of the cards and of
the hosted bot's choices taken out, over the runs whose hosted bot is a shipped agent (its policy known).</p>
{
        _table(
            (
                "game",
                "user",
                "against",
                "runs",
                "hands",
                "mbb/h [95% interval]",
                "AIVAT mbb/h [95% interval]",
                "logs unread",
            ),
            results,
            "No finished run of a user's bot yet.",
        )
    }
<p><a href="/metrics">metrics</a> · <a href="/api/bm">JSON</a></p>
</body></html>
"""


class PagesGuard(Guard):
    """The page's guard, but ``/metrics`` answers any ``Host`` (Prometheus scrapes by name)."""

    def check(self, request: Request) -> None:
        if request.path == "/metrics":
            Guard(None).check(request)
        else:
            super().check(request)


class BmPages:
    def __init__(self, watcher: Watcher, metrics: MetricsPage) -> None:
        self.watcher = watcher
        self.metrics = metrics

    async def handle(self, request: Request) -> Response:
        if request.method != "GET":
            raise HttpError(405, f"{request.method} is not answered here: GET /, /api/bm or /metrics")
        rendered = self.watcher.rendered
        if request.path == "/":
            return Response(200, rendered.page, "text/html; charset=utf-8")
        if request.path == "/api/bm":
            return Response(200, rendered.api)
        if request.path == "/metrics":
            return Response(200, rendered.metrics + self.metrics.page, METRICS_CONTENT_TYPE)
        raise HttpError(404, f"nothing at {request.path}: the page is at /, the metrics at /metrics")


async def _serve(args: argparse.Namespace) -> None:
    watcher = Watcher(args.db, json.loads(os.environ.get(HOSTED_VARIABLE) or "{}"))
    watcher.thread.start()
    watcher.aivat.start()
    metrics = MetricsPage()
    pages = BmPages(watcher, metrics)
    base = guard_for(args.host, args.port)
    guard = PagesGuard(base.hosts, base.any_address_port)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, pages.handle, socket.socket(fileno=args.sock), guard)
        await trio.sleep(0)
        with contextlib.suppress(OSError), open(sys.stdout.fileno(), "wb", closefd=False) as ready:
            ready.write(READY)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        await read_feed(args.feed, None, metrics)
        nursery.cancel_scope.cancel()
    watcher.stop.set()
    watcher.aivat.stop()


def start_web(
    target: str | Path, host: str, port: int, server_page: Callable[[], bytes], config: BmConfig | None = None
) -> SideServer:
    """Serve the page and ``/metrics`` of the database ``target`` on ``host:port`` (0: any free port) from a
    process of its own, ``server_page()`` (the server's own metrics) sent to it at most once a second;
    ``OSError`` when the port cannot be had. ``config``'s hosted bots give the runs' AIVAT (none without)."""
    sock = bind(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    env = {  # not in the command line, which anyone may read
        **os.environ,
        DB_VARIABLE: str(target),
        HOSTED_VARIABLE: json.dumps(hosted_agents(config) if config is not None else {}),
    }
    args = ["--sock", str(sock.fileno()), "--host", host, "--port", str(port)]
    return start_page_process(
        "acpc_arena.dealer.benchmark_server.web", args, [sock], server_page, f"http://{shown}:{port}/", env
    )


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server is told of a Ctrl-C, and stops this
    parser = argparse.ArgumentParser(prog="acpc_arena.dealer.benchmark_server.web")
    parser.add_argument("--feed", type=int, required=True)
    parser.add_argument("--sock", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    args.db = os.environ.get(DB_VARIABLE, "")
    trio.run(_serve, args)


if __name__ == "__main__":
    main()
