"""The page process: a run's live pages and its ``/metrics``, served beside the matches, never by them.

``acpc-dealer --web`` and ``acpc-match --web`` and every ``--metrics-port`` bind their
port, then start this module as a process of its own (``dealer.pages``) that serves it:
reading logs, building boards and answering scrapers costs the matches' process nothing
but the small updates its ``Feed`` thread (``dealer.feed``) writes to a pipe, at most ten
times a second, never waiting. The process ends when the pipe does (its parent closed
it, or died).

    python -m acpc_arena.dealer.web.side --feed FD [--pages FD --host H --port P --folder DIR] [--metrics FD]

The pages are a live run's: its tables, and the folder's logs and results; no seat
to play (``acpc-web`` serves that). ``/metrics`` is the last page of the registry the
parent rendered (at most once a second), served with its own bounds (``METRICS_LIMITS``)
to any ``Host`` (Prometheus scrapes by name), never across sites.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
from pathlib import Path

import trio

from acpc_arena.dealer.observers.feed import HEAD, LIVE, METRICS
from acpc_arena.dealer.web.http import Guard, HttpError, Limits, Request, Response, guard_for, serve
from acpc_arena.dealer.web.live import LiveBoard

METRICS_LIMITS = Limits(
    connections=64, request_seconds=5.0, idle_seconds=60.0, send_seconds=10.0, address_connections=32, first_seconds=5.0
)
"""A scraper keeps one connection; half of them from one address leave the others their room."""
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text format, as ``prometheus_client.generate_latest`` writes it."""
READY = b"serving\n"
"""What the process writes on its standard output once it serves (``pages`` waits for it)."""


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
    from acpc_arena.dealer.web.app import WebApp  # the replayer and results: a metrics-only page process skips them

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
