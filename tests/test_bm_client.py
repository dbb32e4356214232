"""``acpc-bm`` against a stub of the C ``bm_server`` (each line it sends is one of ``bm_server.c``'s writes:
``validateLogon``, ``writeHelpMessage``, ``writeGameList``, ``writeQueueStatus``, ``sendStartMessage``) and
against servers that send without end: every command ends within its timeout, a refused logon exits 1, and
what the server sends is bounded (issue 58)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.bm import query, start_server, write_config
from tests.helpers.processes import measured, program

GAME = "holdem.limit.2p.reverse_blinds.game"
HELP = (
    b"HELP - this message\n"
    b"GAMES - list available games and players\n"
    b"QSTAT - show the current queue\n"
    b"RUNMATCHES game #runs tag rngSeed player ... - submit match request\n"
    b"  - Player order decides match seating\n"
    b'  - "LOCAL" player runs the bm_widget agent (bot_command)\n'
)  # writeHelpMessage's six writes


class CServer:
    """One connection at a time, answered as ``bm_server.c``'s ``handleConnection`` answers (user neil, password
    test; one game, one bot ``testBot``). A ``RUNMATCHES`` job is queued (no answer, as C), started at the next
    ``QSTAT`` (``# RUNNING USER.TAG``, ``RUN HOST PORT``) and gone from the queue at the one after."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.jobs: list[list[str]] = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            with sock, contextlib.suppress(OSError):
                self.converse(sock, sock.makefile("rb"))

    def converse(self, sock: socket.socket, reader: Iterator[bytes]) -> None:
        words = next(reader).split()
        if words[:2] != [b"neil", b"test"]:
            sock.sendall(b"BAD LOGON\n")
            return
        sock.sendall(b"LOGON OKAY - type help for commands\n")
        for line in reader:
            command = line.strip()
            if command[:4].upper() == b"HELP":
                sock.sendall(HELP)
            elif command[:5].upper() == b"GAMES":
                sock.sendall(f"\n{GAME}\n testBot\n".encode())
            elif command[:5].upper() == b"QSTAT":
                sock.sendall(self.queue())
            elif command[:10].upper() == b"RUNMATCHES":
                spec = command[10:].decode().split()
                if len(spec) < 6 or spec[0] != GAME or any(p not in ("LOCAL", "testBot") for p in spec[4:6]):
                    sock.sendall(b"BAD RUNMATCHES COMMAND\n")
                else:
                    self.jobs.append(["neil", spec[2], spec[0], spec[1], "Q"])
            else:
                sock.sendall(b"UNKNOWN\n")

    def queue(self) -> bytes:
        if not self.jobs:
            return b"Queue empty\n"
        lines = b"".join(
            f"{user} {tag} {game} * {runs} {state}\n".encode() for user, tag, game, runs, state in self.jobs
        )
        job = self.jobs[0]
        if job[4] == "R":
            self.jobs.pop(0)
            return lines
        job[4] = "R"
        return lines + f"# RUNNING neil.{job[1]}\nRUN 127.0.0.1 {self.port}\n".encode()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def c_server() -> Iterator[CServer]:
    server = CServer()
    yield server
    server.close()


def acpc_bm(*args: str, timeout: float = 30, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("acpc-bm"), *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def test_games_and_jobs_against_the_c_server_are_asked_in_its_session_and_end(c_server: CServer) -> None:
    games = acpc_bm("--timeout", "5", "127.0.0.1", str(c_server.port), "neil", "test", "games")
    assert (games.returncode, games.stdout) == (0, f"\n{GAME}\n testBot\n")
    jobs = acpc_bm("--timeout", "5", "127.0.0.1", str(c_server.port), "neil", "test", "jobs")
    assert (jobs.returncode, jobs.stdout) == (0, "Queue empty\n")


def test_a_run_against_the_c_server_starts_the_bot_and_ends_once_the_queue_no_longer_has_it(
    c_server: CServer, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    script = tmp_path / "bot.sh"
    script.write_text(f'#!/bin/sh\necho "$1 $2" > "{marker}"\n')
    script.chmod(0o755)
    run = acpc_bm(
        "127.0.0.1", str(c_server.port), "neil", "test", "run", "2pl", str(script), "1", "t1", "5", "local", "testBot"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "# RUNNING neil.t1",  # sendStartMessage's first write, then RUN HOST PORT, which starts the bot
        f"starting match 127.0.0.1:{c_server.port}",
        "Matches finished",
    ]
    assert marker.read_text() == f"127.0.0.1 {c_server.port}\n"


def test_logs_and_rerun_against_the_c_server_and_a_wrong_password_exit_1_in_one_line(c_server: CServer) -> None:
    for words in (["logs", "1.0"], ["rerun", "2pl", "./x", "0", "t", "5", "local", "testBot"]):
        done = acpc_bm("--timeout", "5", "127.0.0.1", str(c_server.port), "neil", "test", *words)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "C bm_server" in done.stderr
    wrong = acpc_bm("--timeout", "5", "127.0.0.1", str(c_server.port), "neil", "nottest", "games")
    assert (wrong.returncode, wrong.stderr) == (1, f"acpc-bm: 127.0.0.1:{c_server.port}: logon refused: BAD LOGON\n")


def serve_once(answer: Callable[[socket.socket], None]) -> tuple[int, socket.socket]:
    """A listener whose first connection gets ``answer(sock)`` (in a thread) after its first line."""
    listener = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        with contextlib.suppress(OSError):
            sock, _ = listener.accept()
            with sock:
                sock.recv(4096)
                answer(sock)

    threading.Thread(target=run, daemon=True).start()
    return listener.getsockname()[1], listener


def endless(piece: bytes) -> Callable[[socket.socket], None]:
    def send(sock: socket.socket) -> None:
        while True:
            sock.sendall(piece)

    return send


def test_an_endless_line_and_an_endless_log_end_the_client_with_bounded_memory(tmp_path: Path) -> None:
    """A server that sends a line with no end, or a log with no end: the client stops at its bounds (a line
    of 64 KiB; a log of ``ACPC_ARENA_MAX_LOG_BYTES``, 50 MB here) in one line, status 1, its memory a few
    tens of megabytes (before issue 58: a MemoryError, or gigabytes)."""
    port, listener = serve_once(endless(b"x" * 65536))
    done = measured(program("acpc-bm"), "--timeout", "5", "127.0.0.1", str(port), "neil", "test", "games", timeout=60)
    listener.close()
    assert done["code"] == 1 and "line longer than 65536 bytes" in done["err"], done["err"]

    port, listener = serve_once(endless(b"STATE:0:r:6h|5s:0|0:a|b\n" * 2000))
    done = measured(
        program("acpc-bm"), "--timeout", "5", "127.0.0.1", str(port), "neil", "test", "logs", "1.0",
        env={"ACPC_ARENA_MAX_LOG_BYTES": "50000000"}, keep_output=False, timeout=60,
    )  # fmt: skip
    listener.close()
    assert done["code"] == 1 and "longer than 50000000 bytes" in done["err"], done["err"]
    assert done["peak"] < 150 * 1024 * 1024  # the log went to standard output a piece at a time


def test_a_silent_server_ends_the_command_at_its_timeout() -> None:
    port, listener = serve_once(lambda sock: time.sleep(30))
    began = time.monotonic()
    done = acpc_bm("--timeout", "1", "127.0.0.1", str(port), "neil", "test", "games")
    listener.close()
    assert done.returncode == 1 and "sent nothing for 1 s" in done.stderr, done.stderr
    assert time.monotonic() - began < 10


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["127.0.0.1", "²", "neil", "test", "games"], "invalid port"),
        (["127.0.0.1", "9" * 5000, "neil", "test", "games"], "invalid port"),
        (["--timeout", "x", "127.0.0.1", "1", "neil", "test", "games"], "--timeout must be"),
    ],
)
def test_a_bad_argument_is_one_line_and_status_2(args: list[str], said: str) -> None:
    done = acpc_bm(*args)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_a_host_no_resolver_takes_is_one_line_and_status_1() -> None:
    done = acpc_bm("--timeout", "5", "999.1.1.1", "1", "neil", "test", "games")
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_every_command_against_this_server_ends_and_a_log_comes_byte_for_byte(tmp_path: Path) -> None:
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    where = ["--timeout", "10", "127.0.0.1", str(port), "neil", "test"]
    games = acpc_bm(*where, "games")
    assert games.returncode == 0 and " cfr\n" in games.stdout
    run = acpc_bm(*where, "run", "2pl", "./unused.sh", "1", "t", "3", "random", "cfr")
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "Matches finished", run.stdout + run.stderr
    ((log,),) = query(tmp_path / "bm.sqlite3", "SELECT log FROM matches")
    fetched = subprocess.run([program("acpc-bm"), *where, "logs", "1.0"], capture_output=True, timeout=30)
    assert fetched.returncode == 0 and fetched.stdout == Path(log).read_bytes()
    jobs = acpc_bm(*where, "jobs")
    assert jobs.returncode == 0 and jobs.stdout.startswith("1 t ")
    wrong = acpc_bm("127.0.0.1", str(port), "neil", "wrong", "games")
    assert (wrong.returncode, wrong.stderr) == (1, f"acpc-bm: 127.0.0.1:{port}: logon refused: BAD LOGON\n")
