"""The web view's server side: tables from logged hands, the routes, and hostile requests.

Expected values are worked out by hand from the hands written here (blinds, raises and
pots of holdem.nolimit.2p.reverse_blinds: 100 and 50, the small blind acting first
before the flop and last after it).
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from acpc_arena.dealer.observers.page_process import bind
from acpc_arena.dealer.web import http
from acpc_arena.dealer.web.app import WebApp
from acpc_arena.dealer.web.tables import replay, summary
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_log_line
from tests.helpers.processes import program, spawn, start_agent, start_dealer, wait_until

NOLIMIT = load_game("holdem.nolimit.2p.reverse_blinds")
LINE = "STATE:3:r300c/cr900f:AsKd|QhQc/2c3d4h:-300|300:alice|bob"
LOG_HEADER = "# name/game/hands/seed web holdem.nolimit.2p.reverse_blinds 3 1\n"


def test_a_logged_hand_replays_step_by_step_with_its_pots_and_sentences() -> None:
    steps = replay(parse_log_line(LINE, NOLIMIT))
    # The deal, then r300 c / c r900 f: six tables.
    assert [s["pot"] for s in steps] == [150, 400, 600, 600, 1200, 1200]
    assert [s["last"] for s in steps] == [
        "cards dealt",
        "bob raises to 300",
        "alice calls 200",
        "alice checks",
        "bob raises to 900",
        "alice folds",
    ]
    assert [s["round"] for s in steps] == ["preflop", "preflop", "flop", "flop", "flop", "flop"]
    assert steps[2]["board"] == ["2c", "3d", "4h"] and steps[1]["board"] == []
    assert steps[0]["to_act"] == 1 and steps[3]["to_act"] == 1
    assert steps[0]["legal"]["min_raise_to"] == 200 and steps[0]["legal"]["max_raise_to"] == 20000
    last = steps[-1]
    assert last["finished"] and last["legal"] is None and last["betting"] == "r300c/cr900f"
    assert [p["value"] for p in last["players"]] == [-300, 300]
    assert [p["stack"] for p in last["players"]] == [19700, 19100]
    assert last["players"][0]["hole"] == ["As", "Kd"] and last["players"][0]["folded"]
    line = summary(parse_log_line(LINE, NOLIMIT), 0)
    assert line["pot"] == 1200 and not line["showdown"] and not line["all_in"]


def test_a_showdown_and_an_all_in_are_marked() -> None:
    line = "STATE:0:r20000c///:AsKd|QhQc/2c3d4h/5s/6h:20000|-20000:alice|bob"
    hand = summary(parse_log_line(line, NOLIMIT), 0)
    assert hand["showdown"] and hand["all_in"] and hand["pot"] == 40000
    steps = replay(parse_log_line(line, NOLIMIT))
    assert steps[-1]["board"] == ["2c", "3d", "4h", "5s", "6h"]  # the board is run out to the river


async def _request(port: int, raw: bytes, read_seconds: float = 5.0) -> bytes:
    """Send ``raw`` (``{h}`` in it: the server's address, as a browser names it) and read the answer."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(raw.replace(b"{h}", b"127.0.0.1:%d" % port))
        data = b""
        with trio.move_on_after(read_seconds):
            while True:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                data += chunk
                if b"\r\n\r\n" in data:
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = [
                        int(v)
                        for k, _, v in (h.partition(b": ") for h in head.split(b"\r\n"))
                        if k.lower() == b"content-length"
                    ]
                    if length and len(body) >= length[0]:
                        break
        return data


def _status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def _body(response: bytes) -> object:
    return json.loads(response.partition(b"\r\n\r\n")[2])


@asynccontextmanager
async def serving(app: WebApp) -> AsyncIterator[int]:
    """``app`` served on a free port (yielded) for the block."""
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    async with trio.open_nursery() as nursery:
        app.nursery = nursery
        nursery.start_soon(http.serve, app.handle, sock, http.guard_for("127.0.0.1", port))
        yield port
        nursery.cancel_scope.cancel()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    good = "STATE:1:cc/cc/cc/cc:2c2d|3c3d/4h5h6h/7s/9s:-100|100:bob|alice"
    (run / "match.log").write_text(LOG_HEADER + LINE + "\nSTATE:2:r300c/cr900\n" + good + "\n")
    (run / "report.json").write_text(json.dumps({"a": "alice", "b": "bob"}))
    (tmp_path / "secret.txt").write_text("not served")
    return run


async def test_the_routes_answer_and_refuse_what_lies_outside_the_folder(folder: Path, tmp_path: Path) -> None:
    async with serving(WebApp([folder], tmp_path / "web")) as port:
        files = _body(await _request(port, b"GET /api/files HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n"))
        assert isinstance(files, dict)
        assert [f["id"] for f in files["logs"]] == ["0/match.log"]
        assert [f["id"] for f in files["results"]] == ["0/report.json"]
        log = _body(
            await _request(port, b"GET /api/log?f=0/match.log HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        )
        assert isinstance(log, dict)
        # The damaged line 3 is skipped and told with its line number; the hands on either side are kept.
        assert [h["hand"] for h in log["hands"]] == [3, 1]
        assert log["problem_count"] == 1 and "line 3:" in log["problems"][0]
        hand = _body(
            await _request(port, b"GET /api/hand?f=0/match.log&i=1 HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        )
        assert isinstance(hand, dict) and hand["steps"][-1]["betting"] == "cc/cc/cc/cc"
        for target in (
            b"/files/0/../secret.txt",
            b"/files/0/%2e%2e/secret.txt",
            b"/api/log?f=0/../secret.txt",
            b"/api/log?f=7/match.log",
            b"/static/../app.py",
            b"/api/hand?f=0/match.log&i=99",
        ):
            response = await _request(port, b"GET " + target + b" HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
            assert _status(response) == 404, target
        refused = await _request(
            port,
            b"POST /api/play HTTP/1.1\r\nHost: {h}\r\nContent-Length: 32\r\nConnection: close\r\n\r\n"
            + b'{"agent":"nobody","game":"kuhn"}',
        )
        assert _status(refused) == 400
        assert _status(await _request(port, b"GET /api/nothing HTTP/1.1\r\nHost: {h}\r\n\r\n")) == 404


async def test_a_reports_matches_are_named_as_their_logs(tmp_path: Path) -> None:
    """A short ``acpc-match`` run served: each match of its report is named as its log file."""
    run = tmp_path / "run"
    done = subprocess.run(
        [program("acpc-match"), "--a", "rule", "--b", "random", "--seeds", "1,2", "--hands", "10", "--out", str(run),
         "--quiet", "--no-plots", "--in-process"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    async with serving(WebApp([run], tmp_path / "web")) as port:
        result = _body(
            await _request(port, b"GET /api/result?f=0/report.json HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        )
    assert isinstance(result, dict)
    matches = result["data"]["matches"]
    assert sorted(m["name"] for m in matches) == ["seed1-a1", "seed1-a2", "seed2-a1", "seed2-a2"]
    assert sorted(p.stem for p in run.glob("*.log")) == ["seed1-a1", "seed1-a2", "seed2-a1", "seed2-a2"]
    assert all(Path(m["log"]).name == m["name"] + ".log" for m in matches)


async def test_hostile_requests_get_an_error_and_the_server_goes_on(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "REQUEST_SECONDS", 0.5)
    async with serving(WebApp([folder], tmp_path / "web")) as port:
        assert _status(await _request(port, b"\xff\xfe garbage \x00\r\n\r\n")) == 400
        # Raw non-ASCII in the target is not HTTP (400); escaped, it is a path that is not there (404).
        assert _status(await _request(port, b"GET /\xc3\xa9\xff HTTP/1.1\r\nHost: {h}\r\n\r\n")) == 400
        assert _status(await _request(port, b"GET /%C3%A9%FF HTTP/1.1\r\nHost: {h}\r\n\r\n")) == 404
        long_head = b"GET / HTTP/1.1\r\nHost: {h}\r\nX: " + b"a" * (http.MAX_HEADER_BYTES + 10) + b"\r\n\r\n"
        assert _status(await _request(port, long_head)) == 431
        big_body = b"POST /api/play HTTP/1.1\r\nHost: {h}\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000
        assert _status(await _request(port, big_body)) == 413
        not_json = b"POST /api/play HTTP/1.1\r\nHost: {h}\r\nContent-Length: 5\r\n\r\n\xff\xfe{{{"
        assert _status(await _request(port, not_json)) == 400
        # A line without an end: the request's deadline holds.
        assert _status(await _request(port, b"GET / HTTP/1.1\r\nHost: {h}", read_seconds=3)) == 408
        # A slow sender: a byte at a time is still held to the deadline.
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            received = b""
            with trio.move_on_after(3):
                try:
                    for byte in b"GET / HTTP/1.1\r\nHost: {h}\r\n":
                        await stream.send_all(bytes([byte]))
                        await trio.sleep(0.1)
                except trio.BrokenResourceError:
                    pass  # the server gave up on it and closed
            with trio.move_on_after(3):
                received = await stream.receive_some(4096)
            assert received.startswith(b"HTTP/1.1 408")
        ok = await _request(port, b"GET /api/files HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        assert _status(ok) == 200


def test_the_page_and_its_files_are_served_from_the_package(tmp_path: Path) -> None:
    app = WebApp([tmp_path], tmp_path / "web")

    async def get(path: str) -> http.Response:
        return await app.handle(http.Request("GET", path, {}))

    page = trio.run(get, "/")
    assert b"<title>acpc-arena</title>" in page.body and page.content_type == "text/html"
    script = trio.run(get, "/static/app.js")
    assert b"EventSource" in script.body
    with pytest.raises(http.HttpError):
        trio.run(get, "/static/nothing.js")


def test_the_dealer_shows_its_table_live(tmp_path: Path) -> None:
    """``acpc-dealer --web 0`` with two example players: the page's board follows the match
    and ends with the hands the log holds."""
    dealer = start_dealer(
        tmp_path, "live", "holdem.limit.2p.reverse_blinds", "3000", "7", "alice", "bob", "-q", "--web", "0",
        "--web-linger", "30",
    )  # fmt: skip
    assert dealer.process.stderr is not None
    url = ""
    while not url:
        line = dealer.process.stderr.readline()
        assert line, "the dealer ended without a page"
        url = line.split("the table live at ")[-1].strip() if "the table live at" in line else ""
    agents = [start_agent("random", port, "--game", "holdem.limit.2p.reverse_blinds") for port in dealer.ports]
    seen: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "api/live", timeout=10) as response:
            board = json.loads(response.read())
        (match,) = board["matches"]
        seen.append(match["hands_played"])
        if match["status"] == "finished":
            break
        time.sleep(0.05)
    for agent in agents:
        agent.wait(timeout=60)
    assert match["status"] == "finished" and match["hands_played"] == 3000
    assert len(set(seen)) > 2, seen  # seen part way, more than once
    assert match["seats"] == ["alice", "bob"]
    log_lines = [line for line in (tmp_path / "live.log").read_text().splitlines() if line.startswith("STATE:")]
    assert len(log_lines) == 3000
    assert match["table"]["hand"] == 2999 and match["table"]["betting"] == log_lines[-1].split(":")[2]
    totals = {"alice": 0.0, "bob": 0.0}
    for line in log_lines:
        hand = parse_log_line(line, load_game("holdem.limit.2p.reverse_blinds"))
        for name, value in zip(hand.names, hand.values, strict=True):
            totals[name] += value
    assert match["totals"] == [totals["alice"], totals["bob"]]
    dealer.process.terminate()
    dealer.wait(timeout=30)


async def test_a_fault_in_a_route_fails_that_request_only(folder: Path, tmp_path: Path) -> None:
    app = WebApp([folder], tmp_path / "web")

    async def broken(request: http.Request) -> http.Response:
        if request.path == "/boom":
            raise RuntimeError("a bug")
        return await app.handle(request)

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(http.serve, broken, sock, http.guard_for("127.0.0.1", port))
        assert _status(await _request(port, b"GET /boom HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")) == 500
        ok = await _request(port, b"GET /api/files HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        assert _status(ok) == 200
        nursery.cancel_scope.cancel()


def test_json_answers_carry_no_nan() -> None:
    body = http.json_response({"a": [1.5, float("nan")], "b": {"c": float("inf")}, "d": (2, "x")}).body
    assert json.loads(body) == {"a": [1.5, None], "b": {"c": None}, "d": [2, "x"]}


async def test_a_person_plays_a_three_player_game_through_the_app(tmp_path: Path) -> None:
    """Kuhn for three (one hole card each): the person and two copies of the bot, checking and
    calling; the game's log holds the hands with the three names."""
    app = WebApp([tmp_path], tmp_path / "web")
    async with serving(app):
        started = await app.play_start(
            http.Request("POST", "/api/play", {}, b'{"agent":"call","game":"kuhn.limit.3p","hands":3}')
        )
        assert started["started"]
        token = {"x-play-token": started["token"]}
        with trio.fail_after(120):
            while app.human is None or app.human.outcome is None:
                seat = app.human.seat if app.human else None
                if seat is not None and seat.to_json()["table"] and seat.to_json()["table"]["your_turn"]:
                    assert seat.to_json()["table"]["hole_cards"] == 1
                    await app.play_act(http.Request("POST", "/api/play/act", {}, b'{"action":"c"}', token))
                await trio.sleep(0.05)
    assert app.human.outcome.error is None
    (log,) = (tmp_path / "web").glob("human-vs-call-*/seed1-a1.log")
    lines = [line for line in log.read_text().splitlines() if line.startswith("STATE:")]
    assert len(lines) == 3 and all(
        sorted(line.split(":")[-1].split("|")) == ["a-human", "b-call", "c-call"] for line in lines
    )
    # Nobody bets, so every hand is checked down: the betting is c c c, and the hand with the highest card wins.
    assert all(line.split(":")[2] == "ccc" for line in lines)


async def test_a_game_that_fails_is_told_on_the_page_and_the_server_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the runner broke")

    monkeypatch.setattr("acpc_arena.dealer.web.human.run_matches", broken)
    app = WebApp([tmp_path], tmp_path / "web")
    async with serving(app) as port:
        started = await app.play_start(
            http.Request("POST", "/api/play", {}, b'{"agent":"call","game":"kuhn.limit.2p","hands":1}')
        )
        with trio.fail_after(10):
            while app.human is None or app.human.outcome is None:
                await trio.sleep(0.01)
        token = {"x-play-token": started["token"]}
        assert app.play_state(http.Request("GET", "/api/play", {}, b"", token))["message"] == (
            "the game failed: RuntimeError: the runner broke"
        )
        ok = await _request(port, b"GET /api/files HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n")
        assert _status(ok) == 200


def test_ctrl_c_stops_acpc_match_web_without_lingering(tmp_path: Path) -> None:
    """The pages linger after a finished run, not after the user's Ctrl-C: one Ctrl-C stops it all (exit 130)."""
    process = spawn(
        [program("acpc-match"), "--a", "random", "--b", "call", "--seeds", "1", "--hands", "200000",
         "--out", str(tmp_path / "run"), "--web", "0", "--quiet", "--no-plots", "--in-process"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "the tables live at http://127.0.0.1:" in line, line
    wait_until(
        lambda: any(log.stat().st_size for log in (tmp_path / "run").rglob("*.log")), 60, "the match's first hands"
    )
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("acpc-match kept serving after Ctrl-C") from None
    assert process.returncode == 130, err
    assert "stay up" not in err
