"""``acpc-web`` against hostile clients: other hosts and sites, another page at the person's seat, paths out
of the served folder, files that would run as pages, a reader that never reads.

Every test runs the real ``acpc-web`` process and speaks HTTP to it over TCP with the
exact bytes given (no client library normalises a path here). What may be served is
set by the test's own folder: a secret file beside it, links out of it.
"""

from __future__ import annotations

import json
import re
import select
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acpc_arena.dealer.web.http import FIRST_SECONDS
from tests.helpers.processes import default_sigint, program, spawn, wait_until

SECRET = "the secret beside the served folder"
LOG = "STATE:0:cc/cc/cc/cc:2c2d|3c3d/4h5h6h/7s/9s:-100|100:bob|alice\n"
LOG_HEADER = "# name/game/hands/seed web holdem.nolimit.2p.reverse_blinds 1 1\n"


class Answer:
    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ", 2)[1]) if lines[0].startswith("HTTP/1.1 ") else 0
        self.headers = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines[1:])}

    def json(self) -> dict[str, object]:
        value = json.loads(self.body)
        assert isinstance(value, dict)
        return value


def ask(
    port: int, target: str, method: str = "GET", headers: dict[str, str] | None = None, body: bytes = b""
) -> Answer:
    """``METHOD target`` sent as written, with ``Host: 127.0.0.1:port`` unless ``headers`` name one."""
    fields = {"Host": f"127.0.0.1:{port}", **(headers or {}), "Connection": "close"}
    if body:
        fields["Content-Length"] = str(len(body))
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode("latin-1") + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return Answer(data)


class Web:
    """``acpc-web ARGS --port 0`` in ``cwd``, its port read from its first line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.process = spawn(
            [program("acpc-web"), *args, "--port", "0"], cwd=cwd, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint,
        )  # fmt: skip
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + self.process.stderr.read()
        self.port = int(found.group(1))

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]

    def stop(self) -> str:
        self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=30)
        return err


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Web, Path]]:
    """A folder with a log, a report, files that would run as pages, and links out of it; a secret beside it."""
    (tmp_path / "secret.txt").write_text(SECRET)
    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "match.log").write_text(LOG_HEADER + LOG)
    (run / "report.json").write_text('{"a": "alice"}')
    (run / ".hidden.log").write_text(SECRET)
    (run / "page.html").write_text("<script>alert(document.cookie)</script>")
    (run / "image.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    (run / "notes.txt").write_text("notes")
    (run / "link-out.log").symlink_to(tmp_path / "secret.txt")
    (run / "link-up").symlink_to(tmp_path)
    (run / "sub" / "link-up").symlink_to(tmp_path)
    (run / "link-in.log").symlink_to(run / "match.log")
    web = Web(tmp_path, str(run), "--out", str(tmp_path / "run" / "web"))
    try:
        yield web, run
    finally:
        web.stop()


TRAVERSALS = [
    "/files/0/../secret.txt", "/files/0/%2e%2e/secret.txt", "/files/0/%2E%2E/secret.txt", "/files/0/.%2e/secret.txt",
    "/files/0/%2e./secret.txt", "/files/0/..%2fsecret.txt", "/files/0/..%2Fsecret.txt", "/files/0/%2e%2e%2fsecret.txt",
    "/files/0/sub/../../secret.txt", "/files/0/sub/%2e%2e/%2e%2e/secret.txt", "/files/0//../secret.txt",
    "/files/0//etc/passwd", "/files/0/%2fetc%2fpasswd", "/files/0/%2F%2Fetc/passwd", "/files//etc/passwd",
    "/files/%2fetc/passwd", "/files/0/..\\secret.txt", "/files/0/..%5csecret.txt",
    "/files/0/sub%5c..%5c..%5csecret.txt",
    "/files/0/%5c%5c..%5csecret.txt", "/files/0/link-out.log", "/files/0/link-up/secret.txt",
    "/files/0/sub/link-up/secret.txt", "/files/0/link-up/run/../secret.txt", "/files/0/.hidden.log",
    "/files/0/%2ehidden.log", "/files/0/.", "/files/0/..", "/files/0/", "/files/0", "/files/0/%00",
    "/files/0/match.log%00", "/files/0/match.log%00.png", "/files/0/%C3%A9", "/files/0/%FF%FE%00",
    "/files/0/%C0%AE%C0%AE/secret.txt", "/files/%D9%A0/match.log", "/files/-1/match.log", "/files/9/match.log",
    "/files/%31/../secret.txt", "/files/0%2f..%2fsecret.txt", "/files/../secret.txt", "/files/0/match.log/..",
    "/files/0/match.log/", "/files/0/sub//x.log", "/files/0/./match.log", "/files/0/sub/./../match.log",
    "/api/log?f=0/../secret.txt", "/api/log?f=0/%2e%2e/secret.txt", "/api/log?f=/etc/passwd",
    "/api/log?f=0//etc/passwd", "/api/log?f=0/link-out.log", "/api/log?f=0/link-up/secret.txt",
    "/api/log?f=0/%00", "/api/hand?f=0/../secret.txt&i=0", "/api/hand?f=0/link-out.log&i=0",
    "/api/result?f=0/../secret.txt", "/api/result?f=0/link-up/secret.txt", "/api/result?f=%00",
    "/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static/.%2e/http.py",
    "/static/%5c..%5capp.py", "/static/", "/static/%00", "/static/..%5c..%5capp.py",
]  # fmt: skip


def test_no_path_leaves_the_served_folder(served: tuple[Web, Path]) -> None:
    web, _ = served
    assert len(TRAVERSALS) >= 40
    for target in TRAVERSALS:
        answer = ask(web.port, target)
        assert answer.status == 404, (target, answer.status, answer.body[:200])
        assert SECRET.encode() not in answer.body and b"root:" not in answer.body, target
    # What is inside is served, links inside the folder too.
    assert ask(web.port, "/files/0/match.log").body == (LOG_HEADER + LOG).encode()
    assert ask(web.port, "/files/0/link-in.log").body == (LOG_HEADER + LOG).encode()
    assert ask(web.port, "/api/log?f=0/match.log").json()["hands"] != []
    logs = ask(web.port, "/api/files").json()["logs"]
    assert isinstance(logs, list) and [f["id"] for f in logs] == ["0/link-in.log", "0/match.log"]


def test_a_log_served_alone_is_all_that_is_served(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "one.log").write_text(LOG_HEADER + LOG)
    web = Web(tmp_path, str(tmp_path / "one.log"), "--out", str(tmp_path / "out"))
    try:
        assert ask(web.port, "/files/0/").body == (LOG_HEADER + LOG).encode()
        for target in ("/files/0/secret.txt", "/files/0/../secret.txt", "/files/0/one.log", "/api/log?f=0/secret.txt"):
            answer = ask(web.port, target)
            assert answer.status == 404 and SECRET.encode() not in answer.body, target
    finally:
        web.stop()


def test_served_files_never_run_as_pages(served: tuple[Web, Path]) -> None:
    web, _ = served
    kinds = {
        "/files/0/page.html": "application/octet-stream",
        "/files/0/image.svg": "application/octet-stream",
        "/files/0/notes.txt": "text/plain; charset=utf-8",
        "/files/0/match.log": "text/plain; charset=utf-8",
        "/files/0/report.json": "application/json",
    }
    for target, kind in kinds.items():
        answer = ask(web.port, target)
        assert answer.status == 200 and answer.headers["content-type"] == kind, target
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "sandbox" in answer.headers["content-security-policy"].split("; ")
    page = ask(web.port, "/")
    assert page.status == 200 and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["content-security-policy"].startswith("default-src 'self'")


def test_other_hosts_and_other_sites_are_refused(served: tuple[Web, Path]) -> None:
    web, _ = served
    for host in (f"localhost:{web.port}", f"127.0.0.1:{web.port}", f"[::1]:{web.port}"):
        assert ask(web.port, "/api/files", headers={"Host": host}).status == 200, host
    for host in (f"attacker.example:{web.port}", "attacker.example", f"127.0.0.1:{web.port + 1}", ""):
        answer = ask(web.port, "/api/files", headers={"Host": host})
        assert answer.status == 421 and "Host" in str(answer.json()["error"]), host
    evil = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    answer = ask(web.port, "/api/play", "POST", evil, b'{"agent":"call","game":"kuhn","hands":1}')
    assert answer.status == 403 and "another site" in str(answer.json()["error"])
    assert ask(web.port, "/api/files", headers={"Origin": "null"}).status == 403
    assert ask(web.port, "/api/files", headers={"Origin": f"http://127.0.0.1:{web.port}"}).status == 200


def test_the_persons_seat_answers_only_the_page_that_started_the_game(served: tuple[Web, Path]) -> None:
    web, _ = served
    assert ask(web.port, "/api/play").json()["message"] == "no game yet"
    started = ask(web.port, "/api/play", "POST", body=b'{"agent":"call","game":"kuhn.limit.2p","hands":3}').json()
    token = str(started["token"])
    assert len(token) >= 32
    mine = {"X-Play-Token": token}
    deadline = time.monotonic() + 60
    while True:  # the person's first turn: the page that started the game sees its card
        state = ask(web.port, "/api/play", headers=mine).json()
        if state["table"] and state["table"]["your_turn"]:  # type: ignore[index]
            break
        assert time.monotonic() < deadline, state
        time.sleep(0.1)
    you = state["table"]["you"]  # type: ignore[index]
    assert state["table"]["players"][you]["hole"]  # type: ignore[index]
    for other in ({}, {"X-Play-Token": "x" * len(token)}, {"X-Play-Token": token[:-1]}):
        assert ask(web.port, "/api/play", headers=other).status == 403
        answer = ask(web.port, "/api/play/act", "POST", other, b'{"action":"c"}')
        assert answer.status == 403 and "token" in str(answer.json()["error"])
    again = ask(web.port, "/api/play", "POST", body=b'{"agent":"call","game":"kuhn.limit.2p","hands":3}')
    assert again.status == 409
    assert ask(web.port, "/api/play/act", "POST", mine, b'{"action":"c"}').status == 200


def test_a_reader_that_never_reads_a_big_file_costs_no_memory(tmp_path: Path) -> None:
    """Ten clients ask for a 50 MB file and read nothing: the server sends it in chunks, so its memory
    stays where it was (it once read the whole file for each), and it answers others meanwhile."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "big.log").write_bytes(b"x" * (50 << 20))
    web = Web(tmp_path, str(run), "--out", str(tmp_path / "out"))
    clients = []
    try:
        assert ask(web.port, "/api/files").status == 200
        before = web.rss_kib()
        for _ in range(10):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", web.port))
            sock.sendall(f"GET /files/0/big.log HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\n\r\n".encode())
            clients.append(sock)
        # Each answer has begun (a server that reads the whole file first has read it by then).
        wait_until(lambda: all(select.select([c], [], [], 0)[0] for c in clients), 30, "the ten answers to begin")
        assert ask(web.port, "/api/files").status == 200
        grown = web.rss_kib() - before
        assert grown < 20 * 1024, f"the server grew {grown} KiB"
    finally:
        for sock in clients:
            sock.close()
        web.stop()


def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([program("acpc-web"), "--port", "70000"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == (
        "acpc-web: error: argument --port: must be a port number from 0 (any free port) to 65535: '70000'"
        " (see acpc-web --help)\n"
    )


def test_each_hand_is_read_back_from_its_own_line(tmp_path: Path) -> None:
    """Blank, comment and damaged lines between the hands: the hand the replayer steps through is the one
    its list names (it is read again from its line)."""
    hands = [
        "STATE:0:cc/cc/cc/cc:2c2d|3c3d/4h5h6h/7s/9s:-100|100:bob|alice",
        "STATE:1:r300c/cr900f:AsKd|QhQc/2c3d4h:-300|300:alice|bob",
        "STATE:2:f:5c5d|6c6d:50|-50:bob|alice",  # the small blind (second position, first to act) folds
    ]
    gaps = "# a comment\n\n;an ACPC comment\nSTATE:9:r300c/cr900\n"
    text = LOG_HEADER + f"\n{hands[0]}\n{gaps}{hands[1]}\n\n{hands[2]}\n"
    (tmp_path / "gaps.log").write_text(text)
    web = Web(tmp_path, str(tmp_path / "gaps.log"), "--out", str(tmp_path / "out"))
    try:
        listed = ask(web.port, "/api/log?f=0/").json()["hands"]
        assert isinstance(listed, list) and [h["betting"] for h in listed] == ["cc/cc/cc/cc", "r300c/cr900f", "f"]
        for index, line in enumerate(hands):
            hand = ask(web.port, f"/api/hand?f=0/&i={index}").json()
            steps = hand["steps"]
            assert isinstance(steps, list) and steps[-1]["betting"] == line.split(":")[2], index
            assert hand["summary"] == listed[index]
    finally:
        web.stop()


MALFORMED = [
    "/files/" + "9" * 5000 + "/x", "/files/%C2%B2/match.log", "/files/%D9%A1/match.log",
    "/api/hand?f=0/match.log&i=%C2%B2", "/api/hand?f=0/match.log&i=" + "9" * 5000, "/api/hand?f=0/match.log&i=-1",
    "/api/log?f=" + "9" * 5000 + "/match.log", "/api/result?f=%C2%B2/report.json",
]  # fmt: skip


def test_a_malformed_path_or_parameter_is_a_404_and_none_of_it_reaches_the_servers_output(tmp_path: Path) -> None:
    """Digits ``int`` cannot take (``²``, five thousand of them) name no file and no hand: 404, as any name
    of nothing, and the server writes none of the request to its standard error (issue 58: 500s that
    echoed the path)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "match.log").write_text(LOG_HEADER + LOG)
    (run / "report.json").write_text('{"a": "alice"}')
    web = Web(tmp_path, str(run), "--out", str(tmp_path / "web"))
    try:
        for target in MALFORMED:
            assert ask(web.port, target).status == 404, target
        assert ask(web.port, "/api/hand?f=0/match.log&i=0").status == 200  # a hand that is there
    finally:
        err = web.stop()
    assert "99999" not in err and "²" not in err and "match.log" not in err, err


IDLE_SOCKETS = 600


def test_idle_sockets_from_one_address_leave_the_pages_to_another(tmp_path: Path) -> None:
    """600 connections from 127.0.0.2 that never send a request: that address's beyond its bound are refused,
    and a page asked from 127.0.0.1 is answered within half the first-byte deadline that frees a held slot (issue
    58: 503 for 22 s)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "match.log").write_text(LOG_HEADER + LOG)
    web = Web(tmp_path, str(run), "--out", str(tmp_path / "web"))
    idle = []
    try:
        for _ in range(IDLE_SOCKETS):
            idle.append(socket.create_connection(("127.0.0.1", web.port), timeout=30, source_address=("127.0.0.2", 0)))
        time.sleep(0.5)  # the server has taken them all
        began = time.monotonic()
        answer = ask(web.port, "/api/files")
        assert answer.status == 200, answer.body
        assert time.monotonic() - began < FIRST_SECONDS / 2
    finally:
        for sock in idle:
            sock.close()
        web.stop()
