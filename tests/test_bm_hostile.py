"""Hostile or broken clients of ``acpc-bm-server``: each is answered with one line or closed, and the server
goes on serving the others (real TCP, the server as a process)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path

from tests.helpers.bm import LIMIT, Line, query, start_server, write_config
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
