"""A Python client of the benchmark server, speaking ``bm_run_matches``' lines (``protocol.py``).

    >>> from acpc_arena.dealer.bm.client import BmClient
    >>> client = BmClient("bm.example.org", 54000, "neil", "secret")
    >>> client.games()                       # the GAMES lines
    >>> client.run(["run", "2pl", "./mybot.sh", "2", "t1", "7", "local", "cfr"])  # plays ./mybot.sh HOST PORT
    >>> open("t1.log", "wb").write(client.log("1.0"))

Every request is one connection, as ``bm_run_matches`` makes it.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from acpc_arena.dealer.bm.protocol import MATCHES_FINISHED


@dataclass
class BmClient:
    host: str
    port: int
    user: str
    password: str
    timeout: float | None = None
    """Seconds a connection may wait for the server's next bytes (None: no limit; runs can take hours)."""
    started: list[subprocess.Popen[Any]] = field(default_factory=list)
    """The local bots ``run`` started."""

    def _connect(self, words: Sequence[str]) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=30)
        sock.settimeout(self.timeout)
        sock.sendall((" ".join([self.user, self.password, *words]) + "\n").encode("ascii"))
        return sock

    def lines(self, words: Sequence[str]) -> Iterator[str]:
        """Send ``USER PW WORDS...`` and yield each line the server sends (without its end) until it closes."""
        with self._connect(words) as sock, sock.makefile("rb") as reader:
            for raw in reader:
                yield raw.decode("ascii", "replace").rstrip("\r\n")

    def games(self) -> list[str]:
        """The ``GAMES`` lines: an empty line and a game's name, then its bots' names (each after a space)."""
        return list(self.lines(["games"]))

    def jobs(self) -> list[str]:
        return list(self.lines(["jobs"]))

    def log(self, ref: str) -> bytes:
        """The log of run ``J.I`` as the server keeps it (or its ``NO LOG: ...`` line)."""
        chunks = []
        with self._connect(["logs", ref]) as sock:
            while data := sock.recv(65536):
                chunks.append(data)
        return b"".join(chunks)

    def run(
        self, words: Sequence[str], on_line: Callable[[str], None] | None = None, out: TextIO | None = None
    ) -> None:
        """A ``run`` or ``rerun`` request (``words`` as ``bm_run_matches`` takes them after the password): each
        ``RUN HOST PORT`` starts ``SCRIPT HOST PORT`` (``words[2]``); every other line goes to ``on_line`` (default:
        printed to ``out``, standard output), until ``Matches finished``."""
        script = words[2] if len(words) > 2 else ""
        stream = out or sys.stdout
        for line in self.lines(words):
            if line[:4].lower() == "run ":
                host, _, port = line[4:].partition(" ")
                print(f"starting match {host}:{port}", file=stream, flush=True)
                self.started.append(subprocess.Popen([script, host, port], stdin=subprocess.DEVNULL))
                continue
            if on_line is not None:
                on_line(line)
            else:
                print(line, file=stream, flush=True)
            if line == MATCHES_FINISHED:
                return
