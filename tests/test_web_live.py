"""``acpc-dealer --web``: what its live pages show of a hand in play, and the page process's life.

A real match (``acpc-dealer`` and two ``acpc-agent random`` processes over TCP) is watched
through ``/api/live`` and the live-event stream while it is played; afterwards every
board seen is compared with the match's log (the cards each hand dealt, read from its
``STATE`` lines with a regular expression): no hole card of a hand not yet over was
ever shown, and a hand's cards shown once it was over are the log's. The pages run
in a process of their own that ends with the dealer, however the dealer ends.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers.processes import start_agent, start_dealer, wait_until
from tests.helpers.web_load import GAME, page_url

STATE_LINE = re.compile(r"^STATE:(\d+):([^:]*):([^:]*):([^:]*):(.*)$")


def log_cards(path: Path) -> dict[int, tuple[list[list[str]], list[str]]]:
    """Each hand's hole cards (by the names' order) and names, from the log's ``STATE`` lines."""
    hands = {}
    for line in path.read_text().splitlines():
        found = STATE_LINE.match(line)
        if found:
            holes = found.group(3).split("/")[0].split("|")
            hands[int(found.group(1))] = ([re.findall(r"..", hole) for hole in holes], found.group(5).split("|"))
    return hands


class Watcher:
    """Every board a page would be sent: polled from ``/api/live``, and read from the event stream."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.boards: list[tuple[str, str]] = []
        """(where from, the board's JSON text)."""
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._poll), threading.Thread(target=self._stream)]
        for thread in self.threads:
            thread.start()

    def _poll(self) -> None:
        while not self.stop.is_set():
            try:
                with urllib.request.urlopen(self.url + "api/live", timeout=5) as answer:
                    self.boards.append(("poll", answer.read().decode()))
            except OSError:
                pass
            time.sleep(0.02)

    def _stream(self) -> None:
        address = urlsplit(self.url)
        connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
        connection.request("GET", "/api/live/events")
        answer = connection.getresponse()
        assert answer.status == 200 and answer.getheader("content-type") == "text/event-stream"
        while not self.stop.is_set():
            try:
                line = answer.fp.readline()
            except OSError:
                return
            if not line:
                return
            if line.startswith(b"data: "):
                self.boards.append(("events", line[len(b"data: ") :].decode()))

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=15)


def test_no_hole_card_of_a_hand_in_play_reaches_a_page(tmp_path: Path) -> None:
    dealer = start_dealer(
        tmp_path, "watched", GAME, "2000", "7", "alice", "bob", "-q", "--web", "0", "--web-linger", "3",
    )  # fmt: skip
    url = page_url(dealer.process.stderr)
    watcher = Watcher(url)
    try:
        agents = [start_agent("random", port, "--game", GAME) for port in dealer.ports]
        for agent in agents:
            agent.wait(timeout=120)
        wait_until(
            lambda: _told_the_end(watcher.boards, 2000) == {"poll", "events"}, 30, "the board of the match's end"
        )
    finally:
        watcher.close()
        dealer.process.terminate()
        dealer.wait(timeout=30)
    hands = log_cards(tmp_path / "watched.log")
    assert len(hands) == 2000
    in_play = over = 0
    sources = set()
    for source, text in watcher.boards:
        matches = json.loads(text)["matches"]
        if not matches:  # a board from before the match began
            continue
        (match,) = matches
        table = match["table"]
        if table is None:
            continue
        sources.add(source)
        holes, names = hands[table["hand"]]
        shown = [player["hole"] for player in table["players"]]
        if not table["finished"]:
            in_play += 1
            assert shown == [None, None], (source, table)
            for card in (card for hole in holes for card in hole):  # nowhere in the page's text either
                assert f'"{card}"' not in text, (source, card, text)
        elif shown != [None, None]:  # a hand over is told first by its last line (no cards), then by its log line
            over += 1
            # A hand over shows every card as the log has it (a folded hand's too), by the log's names.
            assert [player["name"] for player in table["players"]] == names
            assert shown == holes, (source, table)
    assert sources == {"poll", "events"}
    assert in_play >= 10 and over >= 1, (in_play, over)  # both kinds seen: the check was not vacuous


def _told_the_end(boards: list[tuple[str, str]], hands: int) -> set[str]:
    """Where from (``poll``, ``events``) a board of the match's last hand over, its cards shown, came."""
    told = set()
    for source, text in list(boards):
        matches = json.loads(text)["matches"]
        table = matches[0]["table"] if matches else None
        if table and table["hand"] == hands - 1 and table["finished"] and table["players"][0]["hole"]:
            told.add(source)
    return told


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _gone(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ends (or is a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def _request(url: str, method: str, target: str, body: bytes | None = None) -> tuple[int, dict[str, Any]]:
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    connection.request(method, target, body=body, headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    return answer.status, json.loads(answer.read())


@pytest.mark.parametrize("ending", [signal.SIGKILL, signal.SIGTERM])
def test_a_live_run_has_no_seat_and_its_page_process_ends_with_it(tmp_path: Path, ending: signal.Signals) -> None:
    """``POST /api/play`` on a live run is refused (it once started a game and an agent in the dealer's
    process); the page process is gone once the dealer is, killed or terminated."""
    dealer = start_dealer(tmp_path, "alone", GAME, "10", "7", "alice", "bob", "-q", "--web", "0")
    url = page_url(dealer.process.stderr)
    try:
        status, answer = _request(url, "POST", "/api/play", b'{"agent":"call","game":"kuhn","hands":5}')
        assert status == 404 and "no seat" in answer["error"]
        status, answer = _request(url, "GET", "/api/play")
        assert status == 404
        status, answer = _request(url, "GET", "/api/options")
        assert status == 200 and answer["play"] is False and answer["agents"] == []
        assert not list(tmp_path.rglob("human-vs-*"))
        (side,) = _children(dealer.process.pid)  # the page process; no game, no agent started
        assert "acpc_arena.dealer.web.side" in Path(f"/proc/{side}/cmdline").read_text()
        niced = min(19, os.getpriority(os.PRIO_PROCESS, dealer.process.pid) + 10)
        assert os.getpriority(os.PRIO_PROCESS, side) == niced
        # In the dealer's session (where the kernel shares the processor out by session, its niceness counts
        # against the dealer's) but not its process group (a Ctrl-C reaches the dealer alone).
        assert os.getsid(side) == os.getsid(dealer.process.pid)
        assert os.getpgid(side) != os.getpgid(dealer.process.pid)
        os.kill(dealer.process.pid, ending)
        dealer.process.wait(timeout=30)
        assert _gone(side, 10), "the page process outlived the dealer"
    finally:
        if dealer.process.poll() is None:
            dealer.process.kill()
        dealer.process.communicate(timeout=30)
