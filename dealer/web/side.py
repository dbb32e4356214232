"""The page process: a run's live pages and its ``/metrics``, served beside the matches, never by them.

``acpc-dealer --web`` and ``acpc-match --web`` (``start_pages``) and every
``--metrics-port`` (``start_metrics``) bind their port, then start this module as a
process of its own (``NICENESS`` nicer than theirs) that serves it: reading logs, building
boards and answering scrapers costs the matches' process nothing but the small
updates its ``Feed`` thread writes to a pipe, at most ten times a second, never
waiting. The process ends when the pipe does (its parent closed it, or died), and
``SideServer.close`` stops it too: it is never left behind.

    python -m acpc_arena.dealer.web.side --feed FD [--pages FD --host H --port P --folder DIR] [--metrics FD]

The pages are a live run's: its tables, and the folder's logs and results; no seat
to play (``acpc-web`` serves that). ``/metrics`` is the last page of the registry the
parent rendered (at most once a second), served with its own bounds (``METRICS_LIMITS``)
to any ``Host`` (Prometheus scrapes by name), never across sites.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import trio

from acpc_arena.dealer.web.feed import HEAD, LIVE, METRICS, Feed
from acpc_arena.dealer.web.http import (
    Guard,
    HttpError,
    Limits,
    Request,
    Response,
    bind,
    guard_for,
    serve,
)
from acpc_arena.dealer.web.live import LiveBoard

NICENESS = 10
METRICS_LIMITS = Limits(connections=64, request_seconds=5.0, idle_seconds=60.0, send_seconds=10.0)
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text format, as ``prometheus_client.generate_latest`` writes it."""
STOP_SECONDS = 2.0
READY_SECONDS = 10.0
"""How long a run waits, at its start, for the page process to serve (so that a short match can be
watched and scraped from its first hand); a process slower than that serves when it can."""
READY = b"serving\n"


class SideServer:
    """A page process and the feed that keeps it up to date; ``close`` stops both."""

    def __init__(self, process: subprocess.Popen[bytes], feed: Feed, url: str) -> None:
        self.process = process
        self.feed = feed
        self.url = url
        atexit.register(self.close)

    def close(self) -> None:
        atexit.unregister(self.close)
        self.feed.close()
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_pages(folder: Path, host: str, port: int) -> SideServer:
    """The live pages of a run whose logs land in ``folder``, on ``host:port`` (0: any free port);
    ``OSError`` when the port cannot be had. Tables are added with ``server.feed.table``."""
    sock = bind(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    pages = ["--pages", str(sock.fileno()), "--host", host, "--port", str(port), "--folder", str(folder)]
    return _start(pages, [sock], None, f"http://{shown}:{port}/")


def start_metrics(render: Callable[[], bytes], host: str, port: int) -> SideServer:
    """``/metrics`` on ``host:port``: the page ``render()`` gives, at most once a second; ``OSError``
    when the port cannot be had."""
    sock = bind(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return _start(["--metrics", str(sock.fileno())], [sock], render, f"http://{shown}:{port}/metrics")


def _start(args: list[str], sockets: list[socket.socket], render: Callable[[], bytes] | None, url: str) -> SideServer:
    read, write = os.pipe()
    feed = Feed(write, render)
    feed.flush(0)  # the first metrics page is there before the first scrape
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "acpc_arena.dealer.web.side", "--feed", str(read), *args],
            pass_fds=[read, *(s.fileno() for s in sockets)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            # A process group of its own: a Ctrl-C reaches the parent alone, which then stops this. The same
            # session: where the kernel groups processes by session (autogroup), the niceness counts.
            process_group=0,
        )
    except OSError:
        feed.close()
        raise
    finally:
        os.close(read)
        for sock in sockets:
            sock.close()
    with contextlib.suppress(OSError):  # behind the matches for the processor, from its start
        os.setpriority(os.PRIO_PROCESS, process.pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS))
    feed.start()
    _wait_until_serving(process)
    return SideServer(process, feed, url)


def _wait_until_serving(process: subprocess.Popen[bytes]) -> None:
    """Wait up to ``READY_SECONDS`` for the page process to say it serves (or to end)."""
    assert process.stdout is not None
    with process.stdout:
        select.select([process.stdout], [], [], READY_SECONDS)


# -- the page process ----------------------------------------------------------------------


class MetricsPage:
    """``/metrics``: the last page the parent sent."""

    def __init__(self) -> None:
        self.page = b""

    async def handle(self, request: Request) -> Response:
        if request.method == "GET" and request.path in ("/metrics", "/"):
            return Response(200, self.page, METRICS_CONTENT_TYPE)
        raise HttpError(404, f"nothing at {request.method} {request.path}: the metrics are at /metrics")


async def read_feed(fd: int, board: LiveBoard | None, metrics: MetricsPage) -> None:
    """Apply the parent's frames until its end of the pipe closes."""
    stream = trio.lowlevel.FdStream(fd)
    buffer = bytearray()
    while data := await stream.receive_some(1 << 20):
        buffer += data
        while len(buffer) >= HEAD.size:
            kind, length = HEAD.unpack_from(buffer)
            if len(buffer) < HEAD.size + length:
                break
            payload = bytes(buffer[HEAD.size : HEAD.size + length])
            del buffer[: HEAD.size + length]
            if kind == LIVE and board is not None:
                board.apply(json.loads(payload))
            elif kind == METRICS:
                metrics.page = payload


async def _serve(args: argparse.Namespace) -> None:
    from acpc_arena.dealer.web.app import WebApp

    board = LiveBoard() if args.pages is not None else None
    metrics = MetricsPage()
    async with trio.open_nursery() as nursery:
        if args.pages is not None:
            app = WebApp([args.folder], args.folder, board, play=False)
            app.nursery = nursery
            pages = socket.socket(fileno=args.pages)
            nursery.start_soon(serve, app.handle, pages, guard_for(args.host, args.port))
        if args.metrics is not None:
            scraped = socket.socket(fileno=args.metrics)
            nursery.start_soon(serve, metrics.handle, scraped, Guard(None), METRICS_LIMITS)
        await trio.sleep(0)  # the servers above listen once they first run
        with contextlib.suppress(OSError), open(sys.stdout.fileno(), "wb", closefd=False) as ready:
            ready.write(READY)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the pipe closes: the parent reads on
        await read_feed(args.feed, board, metrics)
        nursery.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent is told of a Ctrl-C, and stops this
    parser = argparse.ArgumentParser(prog="acpc_arena.dealer.web.side")
    parser.add_argument("--feed", type=int, required=True)
    parser.add_argument("--pages", type=int)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--folder", type=Path, default=Path("."))
    parser.add_argument("--metrics", type=int)
    trio.run(_serve, parser.parse_args(argv))


if __name__ == "__main__":
    main()
