"""Property-based fuzzing (Hypothesis) of the parsers that read what others send or write.

Every parser of outside text either returns a value or raises ``ProtocolError`` (whose
message the commands print as one line): never another exception, never a hang (each
example has a deadline). The inputs are arbitrary Unicode and bytes, and near-valid
texts built from each format's grammar with one part damaged (huge numbers, stray
separators, control characters, non-ASCII, very long fields). Where a valid text can be
made from a legal hand, it must read back as the hand it came from. The web server
(``acpc-web``'s pages on a real socket) answers any bytes with an HTTP status that is
not a server fault, or closes, never serves a file from outside what it was given,
and keeps answering.

``make test`` runs a few hundred examples of each property, the same ones each time
(the ``ci`` profile of ``tests/conftest.py``); ``make test-slow`` runs 20,000 fresh ones
of each (the ``slow`` profile: over 100,000 inputs in all). Each input's peak memory in
the parser is measured (Linux: the peak is reset before each call) and must stay under
``PEAK_MIB``.
"""

from __future__ import annotations

import errno
import gzip
import re
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import example, given
from hypothesis import strategies as st

from acpc_arena.dealer.observers.page_process import bind
from acpc_arena.dealer.web.http import guard_for, serve
from acpc_arena.dealer.web.server import web_app
from acpc_arena.protocol.acpc_log import AcpcLogReader
from acpc_arena.protocol.dealing import deal_cards
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game, parse_game, resolve_game_path
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import (
    format_log_line,
    format_match_state,
    format_score_line,
    parse_log_line,
    parse_match_state,
    parse_response,
    parse_score_line,
    parse_state,
)

PEAK_MIB = 50
"""The most memory one input may take in a parser (issue: no reader takes more than 50 MB)."""
GAMES = {name: load_game(name) for name in SHIPPED_GAMES}
GAME_TEXTS = {name: resolve_game_path(name).read_text() for name in SHIPPED_GAMES}


# -- the grammar's pieces, valid and damaged -------------------------------------------------

NUMBERS = st.one_of(
    st.integers(0, 400).map(str),
    st.integers(0, 2**70).map(str),
    st.integers(1, 6000).map(lambda n: "9" * n),  # past Python's 4,300-digit conversion limit
    st.sampled_from(["", "-1", "+5", "0x10", "1e9", "٣", "１２"]),  # empty, signed, hex, exponent, non-ASCII digits
)
ACTIONS = st.lists(
    st.one_of(st.sampled_from(list("fcrbkFCRBK")), NUMBERS.map(lambda n: "r" + n), st.sampled_from(["/", " r 5", "x"])),
    max_size=30,
).map("".join)
CARDS = st.lists(
    st.one_of(
        st.sampled_from([r + s for r in "23456789TJQKA" for s in "shdc"]),
        st.sampled_from(["|", "/", "Xx", "1s", "Ah\x00", "Ⓐs", ":"]),
    ),
    max_size=14,
).map("".join)
JUNK = st.text(max_size=40)


@st.composite
def near_valid_state(draw: st.DrawFn, head: str) -> str:
    parts = [head, draw(NUMBERS), draw(NUMBERS), draw(ACTIONS), draw(CARDS)]
    if head == "STATE":
        parts = [head, *parts[2:]]
    text = ":".join(parts)
    if draw(st.booleans()):  # damage one place
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(JUNK) + text[at + draw(st.integers(0, 3)) :]
    return text


def _status_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> bool:
    """Reset the process's peak resident size (Linux's ``clear_refs`` 5); False where that cannot be done."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def only_protocol_errors(parse: Callable[[], Any]) -> None:
    """``parse()`` returns or raises a one-line ``ProtocolError``, and its peak memory stays under
    ``PEAK_MIB`` above what the process held before it (checked where Linux lets the peak be reset)."""
    measured = _reset_peak()
    before = _status_mib("VmRSS")
    try:
        parse()
    except ProtocolError as exc:
        assert str(exc)
        assert "\n" not in str(exc)
    if measured:
        grown = _status_mib("VmHWM") - before
        assert grown < PEAK_MIB, f"one input took {grown:.0f} MiB"


# -- the wire: what a seat sends, what a log holds ---------------------------------------------

GAME_NAMES = st.sampled_from(sorted(GAMES))


def _any_match_state(name: str, text: str) -> None:
    game = GAMES[name]
    only_protocol_errors(lambda: parse_match_state(text, game))
    only_protocol_errors(lambda: parse_response(text, game))
    only_protocol_errors(lambda: parse_response(text + ":r" + text[-5:], game))


@given(GAME_NAMES, st.one_of(near_valid_state("MATCHSTATE"), st.text(max_size=200)))
def test_match_state_lines(name: str, text: str) -> None:
    _any_match_state(name, text)


@given(GAME_NAMES, st.one_of(near_valid_state("STATE"), st.text(max_size=200)), NUMBERS, JUNK)
def test_log_lines(name: str, state: str, value: str, names: str) -> None:
    game = GAMES[name]
    only_protocol_errors(lambda: parse_state(state, game))
    line = f"{state}:{value}|-{value}:{names}"
    only_protocol_errors(lambda: parse_log_line(line, game))
    only_protocol_errors(lambda: parse_score_line(f"SCORE:{value}|{value}:{names}", game.num_players))


@st.composite
def played_hand(draw: st.DrawFn) -> State:
    """A hand of a shipped game dealt as the dealer deals and played to a random point with legal actions."""
    game = GAMES[draw(GAME_NAMES)]
    holes, board = deal_cards(game, MT19937(draw(st.integers(0, 2**32 - 1))))
    state = State(game, draw(st.integers(0, 2**32 - 1)), holes, board)
    for _ in range(draw(st.integers(0, 40))):
        if state.finished:
            break
        legal = state.legal_actions()
        choices = [Action(CALL, 0)]
        if legal.can_fold:
            choices.append(Action(FOLD, 0))
        if legal.can_raise:
            size = draw(st.integers(legal.min_raise_to, legal.max_raise_to)) if game.no_limit else 0
            choices.append(Action(RAISE, size))
        state.apply(draw(st.sampled_from(choices)))
    return state


@given(played_hand())
def test_round_trip(state: State) -> None:
    game = state.game
    for viewer in range(game.num_players):
        view = parse_match_state(format_match_state(state, viewer), game)
        assert view.viewer == viewer
        assert view.state.hand_id == state.hand_id
        assert view.state.actions == state.actions
        assert view.state.hole_cards[viewer] == state.hole_cards[viewer]
    if state.finished:
        names = [f"p{i}" for i in range(game.num_players)]
        hand = parse_log_line(format_log_line(state, state.values(), names), game)
        assert list(hand.values) == pytest.approx(state.values())
        assert hand.state.actions == state.actions
        score = parse_score_line(format_score_line(state.values(), names), game.num_players)
        assert score.names == tuple(names)


# -- game definition files ----------------------------------------------------------------------

KEYWORDS = [
    "gamedef", "end gamedef", "limit", "nolimit", "numPlayers", "numRounds", "blind", "raiseSize", "stack",
    "firstPlayer", "maxRaises", "numSuits", "numRanks", "numHoleCards", "numBoardCards", "# comment",
]  # fmt: skip


@st.composite
def near_valid_game(draw: st.DrawFn) -> str:
    lines = draw(st.sampled_from(sorted(GAME_TEXTS.values()))).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines)))
        kind = draw(st.integers(0, 3))
        if kind == 0:  # a keyword with damaged numbers
            values = draw(st.lists(NUMBERS, max_size=5))
            lines.insert(at, f"{draw(st.sampled_from(KEYWORDS))} = {' '.join(values)}")
        elif kind == 1 and lines:  # a line removed
            del lines[min(at, len(lines) - 1)]
        elif kind == 2:  # junk
            lines.insert(at, draw(JUNK))
        else:  # a line repeated
            lines.insert(at, lines[min(at, len(lines) - 1)] if lines else "")
    return "\n".join(lines)


@given(st.one_of(near_valid_game(), st.text(max_size=300)))
def test_game_definitions(text: str) -> None:
    def parse() -> None:
        game = parse_game(text, "fuzzed.game")
        assert isinstance(game, Game)

    only_protocol_errors(parse)


# -- log files, plain and compressed -------------------------------------------------------------


@st.composite
def log_bytes(draw: st.DrawFn) -> bytes:
    name = draw(GAME_NAMES)
    lines = [f"# name/game/hands/seed fuzz {resolve_game_path(name)} {draw(NUMBERS)} {draw(NUMBERS)}"]
    for _ in range(draw(st.integers(0, 8))):
        state = draw(st.one_of(near_valid_state("STATE"), JUNK))
        lines.append(f"{state}:{draw(NUMBERS)}|-{draw(NUMBERS)}:a|b")
    if draw(st.booleans()):
        lines.append(f"SCORE:{draw(NUMBERS)}|{draw(NUMBERS)}:a|b")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=64)) + data[at:]
    return data


@given(st.one_of(log_bytes(), st.binary(max_size=400)), st.booleans())
def test_log_files(data: bytes, compressed: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("fuzz.log.gz" if compressed else "fuzz.log")
        path.write_bytes(gzip.compress(data) if compressed else data)

        def read() -> None:
            reader = AcpcLogReader(path)
            for _hand in reader:
                pass
            assert all(str(problem) for problem in reader.problems)

        only_protocol_errors(read)


# -- the web server: any bytes a client sends ----------------------------------------------------


class PageServer:
    """``acpc-web``'s app on a real socket, served by a thread of this process (started once)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="fuzz-web-"))
        (self.folder / "m.log").write_text(
            "# name/game/hands/seed m holdem.limit.2p.reverse_blinds 1 1\n"
            "STATE:0:cc/cc/cc/cc:9s8h|Kd2c/8c8d5c/6s/2h:-40|40:a|b\nSCORE:-40|40:a|b\n"
        )
        (self.folder / "secret.txt").write_text(SECRET)
        (self.folder / "page.html").write_text(f"<script>{SECRET}</script>")
        app = web_app([self.folder / "m.log"], self.folder / "web")
        self.sock = bind("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.host = f"127.0.0.1:{self.port}".encode()
        guard = guard_for("127.0.0.1", self.port)
        threading.Thread(target=trio.run, args=(serve, app.handle, self.sock, guard), daemon=True).start()

    def exchange(self, raw: bytes) -> bytes:
        """Send ``raw`` (``{h}``: the server's own Host), end the request side, read the whole answer."""
        answer = b""
        with socket.create_connection(("127.0.0.1", self.port), timeout=15) as client:
            try:  # a server that refuses a request may close before it is all sent
                client.sendall(raw.replace(b"{h}", self.host))
                client.shutdown(socket.SHUT_WR)
                while chunk := client.recv(65536):
                    answer += chunk
                    if len(answer) > 1 << 20:
                        break
            except OSError as exc:  # reset, a broken pipe, or already shut down by the server's close
                if exc.errno not in (errno.ECONNRESET, errno.EPIPE, errno.ENOTCONN):
                    raise
        return answer


_SERVER: list[PageServer] = []
SECRET = "contents-of-a-file-beside-the-served-log"


def page_server() -> PageServer:
    if not _SERVER:
        _SERVER.append(PageServer())
    return _SERVER[0]


PATH_PARTS = st.sampled_from(
    ["", "/", "..", "%2e%2e", "%2f", "%00", "\\", "//", "0", "1", "m.log", "secret.txt", "page.html", "files",
     "api", "log", "hand", "live", "play", "static", "index.html", "é", "%ff", "?", "#", ";", "~", "." * 300]
)  # fmt: skip
HEADER_NAMES = st.sampled_from(
    ["Host", "Origin", "Content-Length", "Transfer-Encoding", "Content-Type", "X-Play-Token", "Connection", "Range"]
)
HEADER_VALUES = st.one_of(
    st.sampled_from(["{h}", "http://{h}", "evil.example", "http://evil.example", "chunked", "-1", "0", "5", "close"]),
    NUMBERS,
    st.text(max_size=30),
)


@st.composite
def http_request(draw: st.DrawFn) -> bytes:
    method = draw(st.sampled_from(["GET", "POST", "PUT", "HEAD", "OPTIONS", "G\xe9T", ""]))
    path = "/" + "/".join(draw(st.lists(PATH_PARTS, max_size=6)))
    if draw(st.booleans()):
        path += "?" + "&".join(f"{k}={v}" for k, v in draw(st.lists(st.tuples(PATH_PARTS, PATH_PARTS), max_size=3)))
    headers = [("Host", "{h}")] if draw(st.booleans()) else []
    headers += draw(st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=4))
    head = f"{method} {path} HTTP/1.{draw(st.sampled_from(['1', '0', '9']))}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n"
    return head.encode("utf-8", "surrogatepass") + draw(st.binary(max_size=200))


@given(st.one_of(http_request(), st.binary(max_size=300)))
@example(b"GET /files/0/../secret.txt HTTP/1.1\r\nHost: {h}\r\n\r\n")  # the campaign's traversal
@example(b"GET /files/0/../page.html HTTP/1.1\r\nHost: {h}\r\n\r\n")
@example(b"GET /files/0/%2e%2e/secret.txt HTTP/1.1\r\nHost: {h}\r\n\r\n")
@example(b"GET /files/1/../../" + b"x" * 70000 + b" HTTP/1.1\r\nHost: {h}\r\n\r\n")
def test_web_requests(raw: bytes) -> None:
    """Any request gets an HTTP answer that is not a server fault (500), or the connection closed; no
    answer carries a file from outside the served log, or serves a folder's file as a page."""
    server = page_server()
    answer = server.exchange(raw)
    if answer:
        status_line = answer.split(b"\r\n", 1)[0]
        assert re.fullmatch(rb"HTTP/1\.1 [1-5]\d\d .*", status_line), status_line[:100]
        assert not status_line.startswith(b"HTTP/1.1 500"), answer[:300]
    assert SECRET.encode() not in answer
    assert server.exchange(b"GET /api/files HTTP/1.1\r\nHost: {h}\r\n\r\n").startswith(b"HTTP/1.1 200 ")
