"""A Python client of the benchmark server, speaking ``bm_run_matches``' lines (``protocol.py``), and the C
``bm_server``'s session where the server is that one.

    >>> from acpc_arena.dealer.benchmark_server.client import BmClient
    >>> client = BmClient("bm.example.org", 54000, "neil", "secret")
    >>> client.games()                       # the GAMES lines
    >>> client.run(["run", "2pl", "./mybot.sh", "2", "t1", "7", "local", "cfr"])  # plays ./mybot.sh HOST PORT
    >>> with open("t1.log", "wb") as out:
    ...     client.log("1.0", out)

Every request is one connection, as ``bm_run_matches`` makes it. What the server sends is bounded: a line
longer than ``MAX_LINE_BYTES`` and a log longer than the log limit (``ACPC_ARENA_MAX_LOG_BYTES``) end the
request with ``BmError``, as does a server silent for longer than ``timeout`` seconds (``run_timeout`` while
a run is played). A logon refused (``BAD LOGON``, ...) is ``Refused``.

The C ``bm_server`` reads a first line's first two words and answers ``LOGON OKAY``: this client then speaks
its session instead (``GAMES``, ``QSTAT``, ``RUNMATCHES``), each answer ended by a ``HELP`` sent after it
(its first line, ``HELP - this message``, marks the end), and a job is over once ``QSTAT`` no longer lists
it. That server keeps no logs and reruns nothing: ``logs`` and ``rerun`` are refused there.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, TextIO

from acpc_arena.dealer.benchmark_server.protocol import BAD_LOGON, HELP_LINES, LOGON_OKAY, MATCHES_FINISHED, QUEUE_EMPTY
from acpc_arena.protocol.files import LOG_BYTES

MAX_LINE_BYTES = 65536
"""The longest line taken from a server (its own lines are under 4 KiB: ``READBUF_LEN``)."""
REFUSALS = (
    BAD_LOGON,
    "LOGON RATE LIMITED",
    "LOGON TIMEOUT",
    "SERVER BUSY",
    "TOO MANY CONNECTIONS",
    "LINE TOO LONG",
)
"""First lines that refuse a logon (the C server's ``BAD LOGON``, this server's others)."""
KIND = re.compile(r"\.(no)?limit\.(\d+)p\b")
"""A game file's name as the ACPC names them (``holdem.nolimit.2p.reverse_blinds.game``): its kind."""
POLL_S = 2.0
"""How often ``QSTAT`` is asked, in a C session, whether a job is over."""


class BmError(Exception):
    """The request failed: the server broke off, was silent too long, or sent too much; ``str`` says which."""


class Refused(BmError):
    """The server refused the logon; ``str`` is its line."""


class LineReader:
    """Lines of a socket, each at most ``MAX_LINE_BYTES``, each waited for at most the socket's timeout."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def raw_line(self) -> bytes | None:
        """The next line's bytes with its newline (the last ones without, if the stream ends first), or None at
        the end of the stream."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE_BYTES:
                raise BmError(f"the server sent a line longer than {MAX_LINE_BYTES} bytes")
            data = self._receive()
            if not data:
                rest, self.buffer = self.buffer, b""
                return rest or None
            self.buffer += data
        end = self.buffer.index(b"\n") + 1
        if end > MAX_LINE_BYTES + 1:
            raise BmError(f"the server sent a line longer than {MAX_LINE_BYTES} bytes")
        raw, self.buffer = self.buffer[:end], self.buffer[end:]
        return raw

    def line(self) -> str | None:
        """The next line without its end, or None at the end of the stream."""
        raw = self.raw_line()
        return None if raw is None else raw.decode("ascii", "replace").rstrip("\r\n")

    def _receive(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except TimeoutError:
            raise BmError(f"the server sent nothing for {self.sock.gettimeout():g} s") from None


@dataclass
class BmClient:
    host: str
    port: int
    user: str
    password: str
    timeout: float = 60.0
    """Seconds to connect, and to wait for each of the server's lines (but in a run: ``run_timeout``)."""
    run_timeout: float = 86400.0
    """Seconds to wait for the next line while a job is queued or played (a run may take hours)."""
    started: list[subprocess.Popen[Any]] = field(default_factory=list)
    """The local bots ``run`` started."""

    def _connect(self, words: Sequence[str]) -> tuple[socket.socket, LineReader, bool]:
        """Connect and log on with ``USER PW WORDS...``: the socket, its reader, and whether the server is the C
        ``bm_server`` (it answered ``LOGON OKAY``: a session); ``Refused`` for a refusal."""
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        try:
            sock.sendall((" ".join([self.user, self.password, *words]) + "\n").encode("ascii"))
            reader = LineReader(sock)
            raw = reader.raw_line()
        except BaseException:
            sock.close()
            raise
        first = None if raw is None else raw.decode("ascii", "replace").rstrip("\r\n")
        if first is not None and first.startswith(REFUSALS):
            sock.close()
            raise Refused(first)
        session = first == LOGON_OKAY
        if not session and raw is not None:
            reader.buffer = raw + reader.buffer  # the answer's first line: read again as the rest
        return sock, reader, session

    def lines(self, words: Sequence[str]) -> Iterator[str]:
        """Send ``USER PW WORDS...`` and yield each line the server sends (without its end) until it closes; to
        the C ``bm_server``, ``games`` and ``jobs`` are asked as ``GAMES`` and ``QSTAT``."""
        sock, reader, session = self._connect(words)
        with sock:
            if session:
                yield from self._session_answer(sock, reader, {"games": "GAMES", "jobs": "QSTAT"}[words[0].lower()])
                return
            while (line := reader.line()) is not None:
                yield line

    def _session_answer(self, sock: socket.socket, reader: LineReader, command: str) -> list[str]:
        """The lines answering a session's ``command``, up to the ``HELP`` sent after it (not included)."""
        sock.sendall(f"{command}\nHELP\n".encode("ascii"))
        lines = []
        while (line := reader.line()) != HELP_LINES[0]:
            if line is None:
                raise BmError(f"the server closed the connection while answering {command}")
            lines.append(line)
        for _ in HELP_LINES[1:]:
            reader.line()
        return lines

    def games(self) -> list[str]:
        """The ``GAMES`` lines: an empty line and a game's name, then its bots' names (each after a space)."""
        return list(self.lines(["games"]))

    def jobs(self) -> list[str]:
        return list(self.lines(["jobs"]))

    def log(self, ref: str, out: IO[bytes]) -> int:
        """Write the log of run ``J.I`` (or every run of job ``J``) to ``out`` as it comes, a piece at a time (or
        the server's ``NO LOG: ...`` line); the bytes written. ``BmError`` past the log limit."""
        sock, reader, session = self._connect(["logs", ref])
        limit = LOG_BYTES.value()
        with sock:
            if session:
                raise BmError(
                    "this server is the C bm_server: it keeps no logs to fetch (its own logs/ folder has them)"
                )
            written = 0
            data, reader.buffer = reader.buffer, b""
            while data:
                written += len(data)
                if written > limit:
                    raise BmError(f"the log is longer than {limit} bytes ({LOG_BYTES.exceeded(limit)})")
                out.write(data)
                data = reader._receive()
        return written

    def run(
        self, words: Sequence[str], on_line: Callable[[str], None] | None = None, out: TextIO | None = None
    ) -> None:
        """A ``run`` or ``rerun`` request (``words`` as ``bm_run_matches`` takes them after the password): each
        ``RUN HOST PORT`` starts ``SCRIPT HOST PORT`` (``words[2]``); every other line goes to ``on_line`` (default:
        printed to ``out``, standard output), until ``Matches finished``."""
        script = words[2] if len(words) > 2 else ""
        stream = out or sys.stdout
        show = on_line or (lambda line: print(line, file=stream, flush=True))
        sock, reader, session = self._connect(words)
        with sock:
            sock.settimeout(self.run_timeout)
            if session:
                self._run_in_session(sock, reader, words, script, show, stream)
                return
            while (line := reader.line()) is not None:
                if not self._started(line, script, stream):
                    show(line)
                if line == MATCHES_FINISHED:
                    return

    def _started(self, line: str, script: str, stream: TextIO) -> bool:
        """Whether ``line`` is a ``RUN HOST PORT`` order, and if so start ``SCRIPT HOST PORT`` (as
        ``bm_run_matches``)."""
        if line[:4].lower() != "run ":
            return False
        host, _, port = line[4:].partition(" ")
        print(f"starting match {host}:{port}", file=stream, flush=True)
        self.started.append(subprocess.Popen([script, host, port], stdin=subprocess.DEVNULL))
        return True

    def _run_in_session(
        self,
        sock: socket.socket,
        reader: LineReader,
        words: Sequence[str],
        script: str,
        show: Callable[[str], None],
        stream: TextIO,
    ) -> None:
        """``run`` as the C ``bm_server``'s session: ``RUNMATCHES`` of the first game of the kind, then its lines
        until ``QSTAT`` no longer lists the job (the C server says nothing when a job ends)."""
        if words[0].lower() != "run" or len(words) < 7:
            raise BmError(
                "this server is the C bm_server: it takes run 2pl|2pn|3pl SCRIPT RUNS TAG SEED P1 P2 [P3] only"
            )
        sock.settimeout(self.timeout)
        listed = self._session_answer(sock, reader, "GAMES")
        game = next(
            (name for name in listed if name and not name.startswith(" ") and kind(name) == words[1].lower()), None
        )
        if game is None:
            raise BmError(f"the server has no game of kind {words[1]}")
        tag = words[4]
        players = ["LOCAL" if player.lower() == "local" else player for player in words[6:]]
        sock.sendall(" ".join(["RUNMATCHES", game, words[3], tag, words[5], *players, "\n"]).encode("ascii"))
        while True:
            sock.sendall(b"QSTAT\nHELP\n")
            waiting = False
            sock.settimeout(self.run_timeout)
            while (line := reader.line()) != HELP_LINES[0]:
                if line is None:
                    raise BmError("the server closed the connection")
                if line.startswith("BAD RUNMATCHES"):
                    raise BmError(line)
                if line == QUEUE_EMPTY or _queue_line(line):
                    waiting = waiting or line.split()[:2] == [self.user, tag]
                elif not self._started(line, script, stream):
                    show(line)
            for _ in HELP_LINES[1:]:
                reader.line()
            if not waiting:
                show(MATCHES_FINISHED)
                return
            time.sleep(POLL_S)


def kind(game: str) -> str | None:
    """``bm_run_matches``' kind of a game file's name (``2pl``, ``2pn``, ``3pl``), None where it tells none."""
    found = KIND.search(game)
    return None if found is None else f"{found[2]}p{'n' if found[1] else 'l'}"


def _queue_line(line: str) -> bool:
    """Whether ``line`` is a line of ``QSTAT``'s: ``USER TAG GAME * RUNS R|Q``."""
    words = line.split()
    return len(words) == 6 and words[3] == "*" and words[5] in ("R", "Q") and words[4].lstrip("-").isdigit()
