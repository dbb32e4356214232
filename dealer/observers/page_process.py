"""Starting the page process beside the matches (``start_pages``, ``start_metrics``) and stopping it
(``SideServer.close``), from the matches' side.

``acpc-dealer --web`` and ``acpc-match --web`` (``start_pages``) and every
``--metrics-port`` (``start_metrics``) bind their port here, then start
``acpc_arena.dealer.web.side`` as a process of its own (``NICENESS`` nicer than theirs)
that serves it, kept up to date by the ``Feed`` (``feed``) through a pipe. The process
ends when the pipe does (its parent closed it, or died), and ``SideServer.close`` stops
it too: it is never left behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from acpc_arena.dealer.observers.feed import Feed

NICENESS = 10
STOP_SECONDS = 2.0
READY_SECONDS = 10.0
"""How long a run waits, at its start, for the page process to serve (so that a short match can be
watched and scraped from its first hand); a process slower than that serves when it can."""
BACKLOG = 1024
PAGE_PROCESS = "acpc_arena.dealer.web.side"
"""The module the page process runs (``python -m``)."""


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


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port), made before any trio run."""
    return socket.create_server(
        (host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET, backlog=BACKLOG
    )


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
    return start_page_process(PAGE_PROCESS, args, sockets, render, url)


def start_page_process(
    module: str,
    args: list[str],
    sockets: list[socket.socket],
    render: Callable[[], bytes] | None,
    url: str,
    env: dict[str, str] | None = None,
) -> SideServer:
    """Start ``python -m MODULE --feed FD ARGS`` as a page process: handed ``sockets`` (closed here), fed
    ``render()`` through a pipe (``Feed``), ``NICENESS`` nicer than this process, ``env`` its environment
    (None: this one's); waits up to ``READY_SECONDS`` for it to serve. ``OSError`` when it cannot start."""
    read, write = os.pipe()
    feed = Feed(write, render)
    feed.flush(0)  # the first metrics page is there before the first scrape
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", module, "--feed", str(read), *args],
            pass_fds=[read, *(s.fileno() for s in sockets)],
            env=env,
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
    make_nicer(process.pid)  # behind the matches for the processor, from its start
    feed.start()
    _wait_until_serving(process)
    return SideServer(process, feed, url)


def make_nicer(pid: int) -> None:
    """Put process ``pid`` ``NICENESS`` behind this one for the processor (where the system lets it)."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS))


def _wait_until_serving(process: subprocess.Popen[bytes]) -> None:
    """Wait up to ``READY_SECONDS`` for the page process to say it serves (or to end)."""
    assert process.stdout is not None
    with process.stdout:
        select.select([process.stdout], [], [], READY_SECONDS)
