"""Hostile or broken clients of ``acpc-bm-server``: each is answered with one line or closed, and the server
goes on serving the others (real TCP, the server as a process)."""

from __future__ import annotations

import contextlib
import resource
import socket
import threading
import time
from pathlib import Path

import pytest

from acpc_arena.dealer.benchmark_server.passwords import LogonLimiter
from tests.helpers.bm import LIMIT, Line, query, start_local_bot, start_server, write_config
from tests.helpers.processes import wait_until


def logon_answer(port: int, text: str | bytes) -> tuple[str, bytes, float]:
    """The first line answering logon line ``text``, what follows it (the server closes), and the seconds taken."""
    client = Line(port)
    began = time.monotonic()
    client.send(text)
    answer = client.read()
    took = time.monotonic() - began
    rest = client.rest()
    client.close()
    return answer, rest, took


def test_a_wrong_password_and_an_unknown_user_get_the_same_line_and_too_many_are_refused(tmp_path: Path) -> None:
    write_config(tmp_path)
    _, port = start_server(tmp_path, "--logon-failures", "3", "--logon-window", "60")
    wrong = logon_answer(port, "neil nottest\n")
    unknown = logon_answer(port, "nobody test\n")
    assert wrong[:2] == unknown[:2] == ("BAD LOGON\n", b"")
    assert wrong[2] >= 1.0 and unknown[2] >= 1.0  # the same delay and the same hash check, user or not
    assert logon_answer(port, "ann wrong\n")[:2] == ("BAD LOGON\n", b"")
    # the fourth failure from this address within the window: refused before any password check, right or not
    assert logon_answer(port, "neil test\n")[:2] == ("LOGON RATE LIMITED - try again later\n", b"")


def test_a_long_line_non_ascii_bytes_and_silence_are_each_answered_with_one_line(tmp_path: Path) -> None:
    write_config(tmp_path)
    _, port = start_server(tmp_path, "--login-timeout", "2")
    # a logged-in session, which none of what follows disturbs
    session = Line(port)
    session.send("neil test\n")
    assert session.read() == "LOGON OKAY - type help for commands\n"

    # a megabyte without a newline, sent by a thread as the server reads only the first 4 KB
    flood = Line(port)
    sender = threading.Thread(target=lambda: _send_quietly(flood.sock, b"x" * (1 << 20)))
    sender.start()
    assert flood.read() == "LINE TOO LONG\n"
    assert flood.rest() == b""
    sender.join(timeout=30)

    # bytes that are not ASCII: a logon refused, a command unknown
    assert logon_answer(port, "n\xe9il test\n".encode("latin-1"))[:2] == ("BAD LOGON\n", b"")
    session.send(b"GAM\xffES\n")
    assert session.read() == "UNKNOWN\n"

    # a connection that never sends: told and closed after the login time
    silent = Line(port)
    began = time.monotonic()
    assert silent.read() == "LOGON TIMEOUT\n"
    assert 1.5 < time.monotonic() - began < 10
    assert silent.rest() == b""

    session.send("QSTAT\n")
    assert session.read() == "Queue empty\n"


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the server closes the connection mid-way, as it should
        sock.sendall(data)


def test_a_flood_of_connections_is_refused_and_disturbs_neither_a_session_nor_a_running_job(tmp_path: Path) -> None:
    write_config(tmp_path, hands=2000)
    _, port = start_server(tmp_path, "--max-connections", "40", "--login-timeout", "3")
    session = Line(port)
    session.send("neil test\n")
    assert session.read() == "LOGON OKAY - type help for commands\n"
    session.send(f"RUNMATCHES {LIMIT}.game 1 busy 3 random random\n")
    assert session.read_until("# RUNNING")[-1] == "# RUNNING neil.busy 1.0\n"

    sockets = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(500)]
    answers = []
    for sock in sockets:
        with sock, sock.makefile("rb") as reader:
            answers.append(reader.read())  # everything until the server closes
    # each got one line, and was closed: at most 40 at once were let in, the rest turned away
    assert set(answers) <= {b"SERVER BUSY\n", b"LOGON TIMEOUT\n"}
    assert answers.count(b"SERVER BUSY\n") >= 500 - 40

    session.send("GAMES\n")
    lines = session.read_until(" cfr")  # the run may have ended meanwhile: its line comes first then
    if not any(line.startswith("# FINISHED") for line in lines):
        lines += session.read_until("# FINISHED")
    assert " cfr\n" in lines
    assert [line for line in lines if line.startswith("# FINISHED 1.0 a-random ")]
    assert query(tmp_path / "bm.sqlite3", "SELECT state FROM matches") == [("done",)]


def test_a_widget_that_never_starts_its_bot_fails_its_run_and_frees_the_slot(tmp_path: Path) -> None:
    write_config(tmp_path, startup=2, jobs=1)
    _, port = start_server(tmp_path)
    widget = Line(port)
    widget.send("neil test\n")
    assert widget.read() == "LOGON OKAY - type help for commands\n"
    widget.send(f"RUNMATCHES {LIMIT}.game 1 idle 3 LOCAL random\n")
    widget.send(f"RUNMATCHES {LIMIT}.game 1 next 3 random random\n")
    lines = widget.read_until("RUN ")  # never started
    assert lines[-1].startswith("RUN 127.0.0.1 ")
    failed = widget.read_until("# FAILED")[-1]
    assert failed.startswith("# FAILED 1.0: a-neil did not connect to port ") and "within 2 s" in failed
    # the game's one slot (maxRunningJobs 1) is free again: the next job plays
    assert widget.read_until("# FINISHED")[-1].startswith("# FINISHED 2.0 a-random ")
    states = query(tmp_path / "bm.sqlite3", "SELECT job_id, state FROM matches ORDER BY job_id")
    assert states == [(1, "failed"), (2, "done")]


def test_a_bot_that_hangs_up_mid_match_fails_its_run_and_the_server_goes_on(tmp_path: Path) -> None:
    write_config(tmp_path, hands=100)
    _, port = start_server(tmp_path)
    widget = Line(port)
    widget.send("neil test\n")
    assert widget.read() == "LOGON OKAY - type help for commands\n"
    widget.send(f"RUNMATCHES {LIMIT}.game 1 quitter 3 LOCAL random\n")
    bot_port = int(widget.read_until("RUN ")[-1].split()[2])
    bot = Line(bot_port)
    bot.send("VERSION:2.0.0\r\n")
    assert bot.read().startswith("MATCHSTATE:0:0:")
    bot.close()  # gone after the first state, whoever is to act
    assert widget.read_until("# FAILED")[-1].startswith("# FAILED 1.0: ")
    assert query(tmp_path / "bm.sqlite3", "SELECT state FROM matches") == [("failed",)]
    widget.send(f"RUNMATCHES {LIMIT}.game 1 after 3 random random\n")
    assert widget.read_until("# FINISHED")[-1].startswith("# FINISHED 2.0 ")
    wait_until(
        lambda: query(tmp_path / "bm.sqlite3", "SELECT state FROM jobs") == [("done",), ("done",)], 30, "the jobs"
    )


def test_guesses_from_another_address_never_lock_the_real_user_out(tmp_path: Path) -> None:
    """An attacker guessing neil's password from 127.0.0.2 is refused past three failures; neil, from 127.0.0.1,
    logs on all the while (before issue 58 the name's failures locked neil out for the window)."""
    write_config(tmp_path)
    _, port = start_server(tmp_path, "--logon-failures", "3", "--logon-window", "60")
    answers = [logon_answer_from(port, "neil guess\n", "127.0.0.2") for _ in range(4)]
    assert answers == ["BAD LOGON\n"] * 3 + ["LOGON RATE LIMITED - try again later\n"]
    assert logon_answer_from(port, "neil test\n", "127.0.0.1") == "LOGON OKAY - type help for commands\n"
    assert logon_answer_from(port, "neil test\n", "127.0.0.3") == "LOGON OKAY - type help for commands\n"


def logon_answer_from(port: int, text: str, source: str) -> str:
    """The line answering logon line ``text`` sent from the loopback address ``source``."""
    client = Line(port, source=source)
    client.send(text)
    answer = client.read()
    client.close()
    return answer


def logons_held_at_once(port: int, count: int) -> bool:
    """Whether ``count`` logons of neil's, all kept open until each is answered, are all let in (the server
    holds at most 8 connections of a user)."""
    clients = [Line(port) for _ in range(count)]
    try:
        for client in clients:
            client.send("neil test\n")
        return all(client.read().startswith("LOGON OKAY") for client in clients)
    finally:
        for client in clients:
            client.close()


IDLE_SOCKETS = 2000


def test_thousands_of_idle_sockets_from_one_address_keep_no_other_address_out(tmp_path: Path) -> None:
    """2,000 connections from 127.0.0.2 that never send a line: refused beyond that address's bound, so a logon
    from 127.0.0.1 is answered at once (before issue 58: ``SERVER BUSY`` until the idle ones timed out)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * IDLE_SOCKETS + 200:
        if hard != resource.RLIM_INFINITY and hard < 2 * IDLE_SOCKETS + 200:
            pytest.skip(f"the open files' hard limit, {hard}, is too low for {IDLE_SOCKETS} sockets a side")
        resource.setrlimit(resource.RLIMIT_NOFILE, (2 * IDLE_SOCKETS + 200, hard))  # the server inherits it
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    idle = []
    try:
        for _ in range(IDLE_SOCKETS):
            with contextlib.suppress(OSError):  # refused and closed meanwhile: it counted all the same
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.2", 0)))
        began = time.monotonic()
        assert logon_answer_from(port, "neil test\n", "127.0.0.1") == "LOGON OKAY - type help for commands\n"
        assert time.monotonic() - began < 10
    finally:
        for sock in idle:
            sock.close()


def test_clients_that_ask_for_a_log_and_never_read_it_are_dropped_at_the_send_deadline(tmp_path: Path) -> None:
    """Eight requests for a 32 MB log that read nothing: each is dropped once a piece waits past the send
    deadline (1 s here), so the user's eight connections are free again (before issue 58 they were held for
    minutes, and the user got ``TOO MANY CONNECTIONS``)."""
    write_config(tmp_path)
    _, port = start_server(tmp_path, "--send-timeout", "1")
    request = Line(port)
    request.send("neil test run 2pl ./unused.sh 1 big 9 random random\n")
    assert request.read_until("Matches finished")[-1] == "Matches finished\n"
    request.close()
    ((log,),) = query(tmp_path / "bm.sqlite3", "SELECT log FROM matches")
    text = b"STATE:0:r:6h|5s:0|0:a|b\n" * ((32 << 20) // 24)  # far more than the sockets' buffers
    Path(log).write_bytes(text)
    stalled = []
    for _ in range(8):
        client = Line(port)
        client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.send("neil test logs 1.0\n")
        stalled.append(client)
    time.sleep(1.0)  # their logons are checked and their logs begin
    wait_until(lambda: logons_held_at_once(port, 8), 60, "all eight of neil's connections free")
    for client in stalled:
        client.sock.settimeout(30)  # a connection left open fails here (TimeoutError), not at pytest's timeout
        received = 0
        with contextlib.suppress(ConnectionResetError):  # reset: what the server had queued for it thrown away
            while data := client.sock.recv(1 << 20):
                received += len(data)
        assert received < len(text)  # dropped before the end
        client.close()


def test_an_address_other_than_the_requesters_cannot_take_its_seat(tmp_path: Path) -> None:
    """The ``RUN`` port of neil's seat takes no connection from 127.0.0.2 (closed at once); neil's bot, from the
    address neil asked from, then plays the seat (before issue 58 whoever connected first played it)."""
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    widget = Line(port)
    widget.send("neil test\n")
    assert widget.read() == "LOGON OKAY - type help for commands\n"
    widget.send(f"RUNMATCHES {LIMIT}.game 1 mine 3 LOCAL random\n")
    run_line = widget.read_until("RUN ")[-1]
    intruder = Line(int(run_line.split()[2]), timeout=10, source="127.0.0.2")
    with contextlib.suppress(OSError):
        intruder.send("VERSION:2.0.0\r\n")
    try:
        answer = intruder.read()
    except OSError:  # reset
        answer = ""
    assert answer == ""  # closed, no MATCHSTATE
    intruder.close()
    bot = start_local_bot(run_line, f"{LIMIT}.game", tmp_path)
    assert widget.read_until("# FINISHED")[-1].startswith("# FINISHED 1.0 a-neil ")
    bot.wait(timeout=30)


def test_a_names_failures_delay_its_answers_doubling_and_never_refuse_it() -> None:
    """Three failures a window allowed (``failures=3``), a base delay of 1 s: the delays, worked by hand, are
    1, 1, 1 s for the first three failures for a name, 2 s after three, 4 s after six, at most 32 s; only the
    guessing address is refused."""
    limiter = LogonLimiter(failures=3, window=60.0)
    delays = []
    for guess in range(20):
        delays.append(limiter.delay("neil", 1.0))
        limiter.failed(f"10.0.0.{guess}", "neil")  # each guess from another address
    assert delays[:9] == [1, 1, 1, 2, 2, 2, 4, 4, 4]
    assert delays[-1] == 32 and max(delays) == 32
    assert limiter.allowed("127.0.0.1", "neil")  # the name is never refused
    for _ in range(3):
        limiter.failed("127.0.0.2", "ann")
    assert not limiter.allowed("127.0.0.2", "neil") and limiter.allowed("127.0.0.3", "ann")
