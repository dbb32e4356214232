"""The web load of ``tests/test_web_load.py`` and ``benchmarks/dealer.py``'s ``web`` section: clients of
``acpc-dealer --web --metrics-port`` and the logs they pull.

``LoadClients`` (run as a process of its own by ``start_load``, niced as the page process is) keeps
live-event clients connected, scrapers on ``/metrics`` and a client pulling logs in a loop. The logs are
written by the project's engine (``write_log``: dealt as the dealer deals, random legal actions, valued
by the rules).

    python -m tests.helpers.web_load PAGES_URL METRICS_URL --sse N --scrapers N --logs ID,ID

runs the load until its standard input closes, then prints what it did as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import h11
import trio

from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION
from acpc_arena.protocol.wire import format_log_line
from tests.helpers.processes import REPO, spawn

GAME = "holdem.limit.2p.reverse_blinds"
LOG_HANDS = 20_000


def write_log(path: Path, hands: int, seed: int) -> None:
    """A log of ``hands`` hands of ``GAME``: dealt as the dealer deals them, random legal actions."""
    game = load_game(GAME)
    deck, choose = MT19937(seed), random.Random(seed)
    lines = [f"# name/game/hands/seed {path.stem} {GAME} {hands} {seed}"]
    for hand_id in range(hands):
        state = deal_hand(game, hand_id, deck)
        while not state.finished:
            legal = state.legal_actions()
            options = [CALL_ACTION]
            options += [FOLD_ACTION] if legal.can_fold else []
            options += [LIMIT_RAISE_ACTION] if legal.can_raise else []
            state.apply(choose.choice(options))
        names = ["alice", "bob"] if hand_id % 2 == 0 else ["bob", "alice"]
        lines.append(format_log_line(state, state.values(), names))
    path.write_text("\n".join(lines) + "\n")


# -- the load ------------------------------------------------------------------------------


class LoadClients:
    """The clients of one load, with what they got (``counts``)."""

    def __init__(self, pages: str, metrics: str, sse: int, scrapers: int, logs: list[str]) -> None:
        self.pages = urlsplit(pages)
        self.metrics = urlsplit(metrics)
        self.sse = sse
        self.scrapers = scrapers
        self.logs = logs
        self.counts: Counter[str] = Counter()
        self.clients = 0

    def _address(self) -> str:
        """A loopback address of a client's own (127.0.1.1, 127.0.1.2, ...): many viewers come from many
        addresses, and the pages cap the connections of each one."""
        self.clients += 1
        return f"127.0.{1 + self.clients // 250}.{1 + self.clients % 250}"

    async def run(self, ready: trio.Event) -> None:
        """Start every client; ``ready`` is set once every live-events client has its first event."""
        connected = trio.Semaphore(0)
        async with trio.open_nursery() as nursery:
            for _ in range(self.sse):
                nursery.start_soon(self._events, connected)
            with trio.move_on_after(60):
                for _ in range(self.sse):
                    await connected.acquire()
            for _ in range(self.scrapers):
                nursery.start_soon(self._scrape)
            nursery.start_soon(self._pull_logs)
            ready.set()

    async def _events(self, connected: trio.Semaphore) -> None:
        """One live-events client: reading every event, until the server ends."""
        try:
            stream = await trio.open_tcp_stream(
                self.pages.hostname or "", self.pages.port or 80, local_address=self._address()
            )
            async with stream:
                target = f"GET /api/live/events HTTP/1.1\r\nHost: {self.pages.netloc}\r\n\r\n"
                await stream.send_all(target.encode())
                first = True
                while data := await stream.receive_some(65536):
                    self.counts["sse_events"] += data.count(b"data: {")
                    if first and data.startswith(b"HTTP/1.1 200"):
                        first = False
                        self.counts["sse_connected"] += 1
                        connected.release()
        except OSError:
            self.counts["sse_errors"] += 1

    async def _scrape(self) -> None:
        address = self._address()
        while True:
            await self._get(self.metrics.netloc, self.metrics.path or "/metrics", "scrapes", address)

    async def _pull_logs(self) -> None:
        address = self._address()
        while True:
            for log in self.logs:
                await self._get(self.pages.netloc, f"/api/log?f={log}", "logs", address)
                await self._get(self.pages.netloc, f"/files/{log}", "files", address)

    async def _get(self, netloc: str, target: str, what: str, address: str) -> None:
        """One GET from ``address`` on a connection of its own: counted as ``what_asked`` once sent, its status
        as ``what_STATUS``."""
        host, _, port = netloc.rpartition(":")

        def asked() -> None:
            self.counts[f"{what}_asked"] += 1

        try:
            status = await fetch(host, int(port), target, netloc, address, asked)
        except (OSError, h11.ProtocolError, trio.BrokenResourceError):
            self.counts[f"{what}_errors"] += 1
            await trio.sleep(0.05)  # the server is gone or full: no spinning
            return
        self.counts[f"{what}_{status}"] += 1


async def fetch(
    host: str,
    port: int,
    target: str,
    netloc: str,
    address: str | None = None,
    sent: Callable[[], None] = lambda: None,
) -> int:
    """The status of ``GET target`` (from the local ``address`` if given; ``sent()`` once the request is sent),
    its body read to the end."""
    client = h11.Connection(h11.CLIENT)
    stream = await trio.open_tcp_stream(host, port, local_address=address)
    async with stream:
        request = h11.Request(method="GET", target=target, headers=[("Host", netloc), ("Connection", "close")])
        await stream.send_all(client.send(request) + client.send(h11.EndOfMessage()))
        sent()
        status = 0
        while True:
            event = client.next_event()
            if event is h11.NEED_DATA:
                client.receive_data(await stream.receive_some(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return status


async def _until_stdin_closes(load: LoadClients) -> None:
    async with trio.open_nursery() as nursery:
        ready = trio.Event()
        nursery.start_soon(load.run, ready)
        await ready.wait()
        print("ready", flush=True)
        stdin = trio.lowlevel.FdStream(os.dup(0))
        while await stdin.receive_some(4096):
            pass
        nursery.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tests.helpers.web_load")
    parser.add_argument("pages")
    parser.add_argument("metrics")
    parser.add_argument("--sse", type=int, default=100)
    parser.add_argument("--scrapers", type=int, default=16)
    parser.add_argument("--logs", default="")
    args = parser.parse_args(argv)
    os.nice(10)  # the clients share the machine as the page process does: behind the match
    load = LoadClients(args.pages, args.metrics, args.sse, args.scrapers, [f for f in args.logs.split(",") if f])
    trio.run(_until_stdin_closes, load)
    print(json.dumps(dict(load.counts)), flush=True)


def start_load(pages: str, metrics: str, sse: int, logs: list[str]) -> subprocess.Popen[str]:
    """The load as a process of its own, connected once it printed ``ready``."""
    process = spawn(
        [sys.executable, "-m", "tests.helpers.web_load", pages, metrics, "--sse", str(sse), "--logs", ",".join(logs)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


def stop_load(process: subprocess.Popen[str]) -> Counter[str]:
    """Stop the load; what its clients got."""
    out, _ = process.communicate(timeout=60)
    return Counter(json.loads(out.strip().splitlines()[-1]))


def page_url(dealer_stderr: object) -> str:
    """The address ``acpc-dealer --web`` prints on standard error (read up to it)."""
    while line := dealer_stderr.readline():  # type: ignore[attr-defined]
        found = re.search(r"the table live at (http://\S+)", line)
        if found:
            return found.group(1)
    raise AssertionError("the dealer ended without a page")


if __name__ == "__main__":
    main()
