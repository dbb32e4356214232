"""Helpers of the benchmark server's tests: the server as a process, and a client speaking the C tools' lines
over a plain socket."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.processes import default_sigint, program, spawn

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"


def write_config(folder: Path, hands: int = 20, startup: int = 60, runs: int = 5, jobs: int = 1) -> Path:
    """A config of the two heads-up games, hosted ``random`` and ``cfr``, user ``neil`` (password ``test``)."""
    config = folder / "bm.config"
    config.write_text(
        f"""# a test server
port 0
startupTimeoutSecs {startup}
game {LIMIT}.game {{
    maxMatchRuns {runs}
    maxRunningJobs {jobs}
    matchHands {hands}
    bot random random
    bot cfr cfr
}}
game {NOLIMIT}.game {{
    maxMatchRuns {runs}
    maxRunningJobs {jobs}
    matchHands {hands}
    bot random random
}}
user neil test
user ann secret
"""
    )
    return config


def start_server(folder: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    """``acpc-bm-server bm.config`` in ``folder`` on 127.0.0.1 (its database and logs there); the process and
    the port of its ``starting server on port N`` line."""
    process, port, _ = start_web_server(folder, *args)
    return process, port


def start_web_server(folder: Path, *args: str) -> tuple[subprocess.Popen[str], int, str]:
    """``start_server``, and the URL of its ``web page on URL`` line ('' without ``--web``)."""
    process = spawn(
        [program("acpc-bm-server"), "bm.config", "--host", "127.0.0.1", *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=open(folder / "server.err", "a"),  # noqa: SIM115 (the child holds it)
        text=True,
        preexec_fn=default_sigint,
        start_new_session=True,
    )
    assert process.stdout is not None
    url = ""
    line = process.stdout.readline()
    if line.startswith("web page on "):
        url = line.split()[-1]
        line = process.stdout.readline()
    assert line.startswith("starting server on port "), (line, (folder / "server.err").read_text())
    return process, int(line.split()[-1]), url


class Line:
    """A connection that sends and reads lines as ``bm_widget`` and ``bm_run_matches`` do."""

    def __init__(self, port: int, timeout: float = 60, source: str | None = None) -> None:
        """Connect to ``port`` on 127.0.0.1, from the loopback address ``source`` if given (``127.0.0.2``: another
        machine as the server sees it)."""
        where = None if source is None else (source, 0)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=where)
        self.reader = self.sock.makefile("rb")

    def send(self, data: str | bytes) -> None:
        self.sock.sendall(data if isinstance(data, bytes) else data.encode())

    def read(self) -> str:
        """The next line with its newline ('' at the end of the stream)."""
        return self.reader.readline().decode("ascii")

    def read_until(self, prefix: str) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        lines: list[str] = []
        while True:
            line = self.read()
            assert line, f"the server closed the connection before {prefix!r}: {lines}"
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def rest(self) -> bytes:
        return self.reader.read()

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def start_local_bot(line: str, game: str, cwd: Path) -> subprocess.Popen[Any]:
    """What ``bm_widget`` does with a ``RUN HOST PORT`` line: start the user's bot (here ``acpc-agent random``)."""
    assert line.lower().startswith("run "), line
    host, port = line[4:].split()
    return spawn(
        [program("acpc-agent"), "random", host, port, "--game", game],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def query(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of the server's database, read apart from the server's code."""
    with sqlite3.connect(db, timeout=30) as connection:
        return connection.execute(sql, args).fetchall()


READBUF_LEN = 4096
"""``net.h``'s buffer: the C clients read at most this many bytes at once, and lines of up to one less."""


def read_as_bm_run_matches(sock: socket.socket) -> bytes:
    """What ``bm_run_matches`` prints of what the server sends, read as its C code reads (``bm_run_matches.c``'s
    loop over ``net.c``'s ``getLine(fromServer, READBUF_LEN, line, 0)``): after ``select`` says the socket is
    readable, lines are taken with a zero timeout, so a line whose rest has not arrived when the buffer runs out
    is dropped; it stops at the end of the stream or at ``Matches finished``."""
    printed: list[bytes] = []
    buffer = b""
    while True:
        select.select([sock], [], [])
        while True:  # getLine until it returns -1 (nothing ready) or 0 (the end)
            line = b""
            ended = False
            while len(line) < READBUF_LEN - 1 and not line.endswith(b"\n"):
                if not buffer:
                    if not select.select([sock], [], [], 0)[0]:
                        break
                    buffer = sock.recv(READBUF_LEN)
                    if not buffer:
                        ended = True
                        break
                take = min(len(buffer), READBUF_LEN - 1 - len(line))
                newline = buffer.find(b"\n", 0, take)
                take = take if newline < 0 else newline + 1
                line, buffer = line + buffer[:take], buffer[take:]
            if not line.endswith(b"\n") and len(line) < READBUF_LEN - 1 and not ended:
                break  # -1: what was read of this line is lost
            if not line:
                return b"".join(printed)
            if not line.lower().startswith(b"run "):
                printed.append(line)
            if line == b"Matches finished\n":
                return b"".join(printed)


@dataclass
class Postgres:
    """A throw-away PostgreSQL cluster listening on a Unix socket in ``folder`` only."""

    folder: Path
    port: int
    user: str | None
    """The unprivileged account that runs it when the tests run as root (``initdb`` refuses root)."""

    def url(self, database: str) -> str:
        return f"postgresql://bm@/{database}?host={self.folder}&port={self.port}"

    def create(self, database: str) -> str:
        """A new database of the cluster; its URL."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {database}")
        return self.url(database)

    def pg_ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(shutil.which("pg_ctl")), "-D", str(self.folder / "data"), *args],
            user=self.user, cwd=self.folder, capture_output=True, text=True, timeout=60,
        )  # fmt: skip


def postgres_cluster() -> Iterator[Postgres]:
    """``initdb`` a cluster in a new folder of the system's temporary folder (short enough for a socket's name;
    owned by ``nobody`` when run as root), start it with ``pg_ctl`` (no TCP, a socket in the folder), yield it,
    then stop it and remove the folder. Skips the test without ``initdb`` or psycopg."""
    initdb = shutil.which("initdb")
    if initdb is None or shutil.which("pg_ctl") is None:
        pytest.skip("no PostgreSQL here: initdb and pg_ctl are not on the PATH")
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'acpc-arena[postgres]')")
    user = "nobody" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="acpc-bm-pg-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # a port number for the socket's name (nothing listens on TCP)
    cluster = Postgres(folder, port, user)
    try:
        if user is not None:
            shutil.chown(folder, user)
        done = subprocess.run(
            [initdb, "-D", str(folder / "data"), "-A", "trust", "-U", "bm", "--no-sync"],
            user=user, cwd=folder, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        started = cluster.pg_ctl("-l", str(folder / "log"), "-w", "-o", f"-k {folder} -p {port} -h '' -F", "start")
        assert started.returncode == 0, started.stderr + (folder / "log").read_text()
        yield cluster
    finally:
        cluster.pg_ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def get(url: str, host: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={} if host is None else {"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def api(url: str) -> Any:
    status, body = get(url + "api/bm")
    assert status == 200, body
    return json.loads(body)


def metric(url: str, series: str) -> float | None:
    """The value of ``series`` (name and labels as written) in ``/metrics``, None when absent."""
    status, body = get(url + "metrics", host="scraper.example:9999")  # any Host: Prometheus scrapes by name
    assert status == 200
    for line in body.decode().splitlines():
        name, _, value = line.rpartition(" ")
        if name == series:
            return float(value)
    return None
