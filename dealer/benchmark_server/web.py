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
reading, rendered once (``pages``). The HTTP bounds are ``web.http``'s; the process ends when the feed's pipe does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import trio

from acpc_arena.dealer.arena.estimates import Running
from acpc_arena.dealer.benchmark_server.aivat_cache import Task
from acpc_arena.dealer.benchmark_server.aivat_worker import AivatWorker
from acpc_arena.dealer.benchmark_server.config import LOCAL, BmConfig
from acpc_arena.dealer.benchmark_server.database import DATABASE_ERRORS
from acpc_arena.dealer.benchmark_server.pages import Durations, Reading, Rendered, rendered
from acpc_arena.dealer.benchmark_server.store import RunRow, Store
from acpc_arena.dealer.observers.page_process import SideServer, bind, start_page_process
from acpc_arena.dealer.web.http import Guard, HttpError, Request, Response, guard_for, serve
from acpc_arena.dealer.web.side import METRICS_CONTENT_TYPE, READY, MetricsPage, read_feed
from acpc_arena.protocol.match_log import read_log

DB_VARIABLE = "ACPC_BM_DB"
"""The environment variable that gives the page process its database (a URL may hold a password)."""
HOSTED_VARIABLE = "ACPC_BM_HOSTED"
"""The environment variable that gives the page process the hosted bots (JSON, ``Hosted``)."""
Hosted = dict[str, dict[str, list[str] | None]]
"""By game, each hosted bot's shipped agent and its options (``[agent, *args]``), or None for a command."""
REFRESH_S = 1.0
FINISHED_MARGIN_S = 120.0
"""Runs are read again from this long before the last finish seen (finishes written out of order)."""


def hosted_agents(config: BmConfig) -> Hosted:
    """The config's hosted bots as the page process is told them."""
    return {
        name: {bot.name: None if bot.agent is None else [bot.agent, *bot.args] for bot in game.bots.values()}
        for name, game in config.games.items()
    }


@dataclass
class Pairing:
    """A user's bot against a hosted side in a game: the figures of the hands' results read so far (what a
    mean and its interval need, in memory that does not grow)."""

    results: Running = field(default_factory=Running)
    big_blind: int = 0
    runs: int = 0
    unread: int = 0
    """Runs whose log this host could not read (another host's, or removed)."""
    aivat_runs: list[int] = field(default_factory=list)
    """The runs (match ids) given to the AIVAT worker."""
    aivat_reason: str | None = None
    """Why the other runs have no AIVAT (the last one's reason)."""

    @property
    def hands(self) -> int:
        return self.results.count

    def add(self, values: np.ndarray) -> None:
        """Take in a run's hands."""
        self.results.add_all(values)

    def mbb(self) -> tuple[float, tuple[float, float]]:
        """The mean in mbb/h and its 95% interval."""
        figure = self.results.estimate(self.big_blind)
        return figure.mbb_per_hand, figure.ci95

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
        figure = Running.of_sums(hands, total, squares).estimate(big_blind)
        return {"runs": runs, "of_runs": self.runs, "pending": pending, "hands": hands,
                "mbb_per_hand": figure.mbb_per_hand, "ci95": list(figure.ci95),
                "reason": reason if runs + pending < self.runs else None}  # fmt: skip


def opponents(players: Sequence[str]) -> str | None:
    """The hosted side of a run with one ``LOCAL`` seat (its bots joined by ``+``); None for other runs."""
    if sum(player == LOCAL for player in players) != 1:
        return None
    return " + ".join(player for player in players if player != LOCAL)


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
            self.rendered = rendered(self.reading)
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
