"""The web view in a real browser (headless Chromium through Selenium) against real runs.

A live ``lstm_dqn`` vs ``cfr`` match (``acpc-match --web``): the table changes as the
hands are played, then its log replays step by step and its report shows. A person
plays ``cfr`` from the page (``acpc-web``) through the real dealer, and the page's
checks on no-limit sizes. Expected values come from the logs the runs write, read
here with a regular expression, not from the page's code. Screenshots are kept in
``runs/test-artifacts/web/``. ``.ci/run`` installs Debian's chromium and
chromium-driver when they are missing; without them these tests are skipped.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from tests.helpers.agents import INVALID_BOT
from tests.helpers.processes import REPO, program, spawn

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)",
)
ARTIFACTS = REPO / "runs" / "test-artifacts" / "web"
T = TypeVar("T")
STATE_LINE = re.compile(r"^STATE:(\d+):([^:]*):([^:]*):([^:]*):(.*)$")


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(condition: Callable[[], T], seconds: float = 60, what: str = "the page") -> T:
    deadline = time.monotonic() + seconds
    while True:
        try:
            value: T | None = condition()
        except Exception:  # an element not there yet, or replaced while read
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(0.1)


class Server:
    """A command that prints its page's address on standard error (read on a thread)."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.process = spawn(
            args,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.err: list[str] = []
        self.url = ""
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(lambda: self.url or self.process.poll() is not None, 60, "the address line")
        assert self.url, f"no address: {''.join(self.err)}"

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.err.append(line)
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if found and not self.url:
                self.url = found.group(0)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def text_of(driver: WebDriver, selector: str) -> str:
    """The text of an element of a page that redraws itself (a stale element is read again)."""
    return wait_for(lambda: driver.find_element(By.CSS_SELECTOR, selector).text, 10, selector)


def shot(driver: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def log_hands(path: Path) -> list[tuple[int, str, list[float], list[str]]]:
    """(hand, betting, values, names) of each STATE line of an ACPC log."""
    hands = []
    for line in path.read_text().splitlines():
        found = STATE_LINE.match(line)
        if found:
            values = [float(v) for v in found.group(4).split("|")]
            hands.append((int(found.group(1)), found.group(2), values, found.group(5).split("|")))
    return hands


@pytest.mark.slow  # make test-slow (~35 s): the pages' pieces are checked in make test by tests/test_web*.py
def test_a_live_match_then_its_replay_and_report(browser: WebDriver, tmp_path: Path) -> None:
    out = tmp_path / "run"
    hands_planned = 100  # hand 77 is jumped to below
    server = Server(
        [program("acpc-match"), "--a", "lstm_dqn", "--b", "cfr", "--seeds", "1", "--hands", str(hands_planned),
         "--out", str(out), "--web", "0", "--web-linger", "300", "--quiet", "--no-plots", "--concurrency", "2"],
        tmp_path,
    )  # fmt: skip
    try:
        browser.get(server.url + "#live")
        felt = ".match[data-match='seed1-a1'] .felt"
        first = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, felt).get_attribute("data-hand"), 120, "a table")
        shot(browser, "live-first")
        # The table changes as the hands are played.
        wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, felt).get_attribute("data-hand") != first,
            120,
            "the next hand",
        )
        shot(browser, "live-later")
        text = text_of(browser, ".match[data-match='seed1-a1']")
        assert "a-lstm_dqn vs b-cfr" in text and "mbb/h" in text
        # A finished match shows its final state: every hand played.
        wait_for(
            lambda: len(browser.find_elements(By.CSS_SELECTOR, ".match[data-status='finished']")) == 2, 300, "the end"
        )
        finished = text_of(browser, ".match[data-match='seed1-a1'] .status")
        assert finished.startswith(f"finished, {hands_planned} of {hands_planned} hands")
        shot(browser, "live-finished")

        # The replayer: the first hand of seed1-a1.log, stepped through.
        wait_for(lambda: (out / "report.json").exists(), 120, "the report")
        hands = log_hands(out / "seed1-a1.log")
        assert len(hands) == hands_planned
        browser.get(server.url + "#replay")
        select = Select(wait_for(lambda: browser.find_element(By.ID, "replay-file"), 30))
        wait_for(lambda: any(o.text.endswith("seed1-a1.log") for o in select.options), 30, "the log list")
        select.select_by_visible_text(next(o.text for o in select.options if o.text.endswith("seed1-a1.log")))
        wait_for(
            lambda: len(browser.find_elements(By.CSS_SELECTOR, "#replay-hands li")) == hands_planned, 30, "the hands"
        )
        _, betting, _, _ = hands[0]
        browser.find_element(By.ID, "step-first").click()
        assert wait_for(lambda: browser.find_element(By.ID, "step-count").text.startswith("step 0 of"), 10)
        assert browser.find_element(By.CSS_SELECTOR, "#replay-table .last").text == "cards dealt"
        actions = len(re.findall(r"[fcr]", betting))
        assert browser.find_element(By.ID, "step-count").text == f"step 0 of {actions}"
        browser.find_element(By.ID, "step-next").click()
        assert wait_for(lambda: browser.find_element(By.ID, "step-count").text == f"step 1 of {actions}", 10)
        browser.find_element(By.ID, "step-last").click()
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#replay-table .betting").text == betting, 10, betting)
        shot(browser, "replay-hand")
        # Jump to a hand by number, and filter the showdowns (a betting that does not end in a fold).
        Select(browser.find_element(By.ID, "replay-filter")).select_by_value("showdown")
        showdowns = sum(1 for _, b, _, _ in hands if not b.endswith("f"))
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#replay-hands li")) == showdowns, 10, "the filter")
        target = hands[77]
        browser.find_element(By.ID, "hand-jump").send_keys(str(target[0]))
        browser.find_element(By.ID, "hand-go").click()
        wait_for(
            lambda: (
                browser.find_element(By.CSS_SELECTOR, "#replay-table .felt").get_attribute("data-hand")
                == str(target[0])
            ),
            10,
            "hand 77",
        )
        assert browser.find_element(By.CSS_SELECTOR, "#replay-table .betting").text == target[1]

        # The report's page shows the run's duplicate figure.
        browser.get(server.url + "#results")
        select = Select(wait_for(lambda: browser.find_element(By.ID, "results-file"), 30))
        wait_for(lambda: len(select.options) > 1, 30, "the reports")
        select.select_by_index(1)
        table = wait_for(lambda: browser.find_element(By.ID, "report").text, 30, "the report table")
        duplicate = json.loads((out / "report.json").read_text())["duplicate"]
        half = (duplicate["ci95"][1] - duplicate["ci95"][0]) / 2
        mbb = duplicate["mbb_per_hand"]
        shown = f"duplicate {'+' if mbb > 0 else ''}{mbb:.0f} \u00b1{half:.0f} {duplicate['samples']}"
        assert shown in table.splitlines(), table  # the run's own figure, as the row's cells
        # Each match is named as its log file.
        names = wait_for(
            lambda: [
                c.text for c in browser.find_elements(By.CSS_SELECTOR, "#results table:not(#report) td:first-child")
            ],
            30,
            "the matches",
        )
        assert sorted(names) == sorted(path.stem for path in out.glob("*.log")) == ["seed1-a1", "seed1-a2"]
        assert (
            text_of(browser, "#report-verdict")
            == "verdict: " + json.loads((out / "report.json").read_text())["verdict"]
        )
        shot(browser, "results")
    finally:
        server.stop()


def test_the_results_page_shows_the_actions_the_dealer_changed(browser: WebDriver, tmp_path: Path) -> None:
    """A run of a bot whose every action is invalid (``INVALID_BOT``) against ``call``, Kuhn, 10 hands a match:
    the bot's 20 decisions (one a hand: every hand is ``cc``) played as calls, on the report's page."""
    command = f"{sys.executable} -c '{INVALID_BOT}' {{host}} {{port}}"
    done = subprocess.run(
        [program("acpc-match"), "--a", "xbot", "--a-cmd", command, "--b", "call", "--seeds", "1", "--hands", "10",
         "--game", "kuhn", "--quiet", "--no-plots", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    server = Server([program("acpc-web"), str(tmp_path), "--port", "0", "--out", str(tmp_path / "web")], tmp_path)
    try:
        browser.get(server.url + "?result=0/run/report.json#results")
        rows = wait_for(
            lambda: [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#report-changed tr")], 30, "the table"
        )
        assert rows == ["player invalid actions played as a call raises resized", "a-xbot 20 0"]
        shot(browser, "changed-actions")
    finally:
        server.stop()


def start_game(browser: WebDriver, server: Server, agent: str, game: str, hands: int) -> None:
    """Open the Play page, start a game of ``hands`` hands against ``agent`` and wait for the first turn."""
    browser.get(server.url + "#play")
    agents = Select(wait_for(lambda: browser.find_element(By.ID, "play-agent"), 30))
    wait_for(lambda: len(agents.options) > 1, 30, "the agents")
    agents.select_by_value(agent)
    Select(browser.find_element(By.ID, "play-game")).select_by_value(game)
    count = browser.find_element(By.ID, "play-hands")
    count.clear()
    count.send_keys(str(hands))
    browser.find_element(By.ID, "play-start").click()
    wait_for(lambda: browser.find_element(By.ID, "play-message").text == "your turn", 120, "the first turn")


def _play_until(browser: WebDriver, hands: int, choose: Callable[[], None]) -> None:
    deadline = time.monotonic() + 240
    while not browser.find_element(By.ID, "play-results").text.startswith(f"{hands} hands"):
        if time.monotonic() > deadline:
            raise AssertionError("the game did not end: " + browser.find_element(By.ID, "play-message").text)
        if browser.find_element(By.ID, "play-message").text == "your turn":
            choose()
        time.sleep(0.2)


CROSSTABLE = {
    "game": "holdem.limit.2p.reverse_blinds",
    "seeds": [1],
    "hands": 100,
    "estimate": "duplicate mbb/hand of the row against the column, 95% interval",
    "entrants": ["x", "y"],
    "crosstable": {
        "x": {"y": {"mbb_per_hand": 12.4, "ci95": [9.4, 15.4], "pairs": 100}},
        "y": {"x": {"mbb_per_hand": -12.4, "ci95": [-15.4, -9.4], "pairs": 100}},
    },
    "average": {
        "x": {"mbb_per_hand": 12.4, "ci95": [9.4, 15.4], "pairs": 100},
        "y": {"mbb_per_hand": -12.4, "ci95": [-15.4, -9.4], "pairs": 100},
    },
}


def test_a_person_plays_cfr_from_the_page_through_the_dealer(browser: WebDriver, tmp_path: Path) -> None:
    (tmp_path / "round-robin").mkdir()
    (tmp_path / "round-robin" / "crosstable.json").write_text(json.dumps(CROSSTABLE))
    server = Server([program("acpc-web"), str(tmp_path), "--port", "0", "--out", str(tmp_path / "web")], tmp_path)
    try:
        # A crosstable as a page, by its link: cells "mbb/h ±half-width".
        browser.get(server.url + "?result=0/round-robin/crosstable.json#results")
        cells = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#crosstable td"), 30, "the crosstable")
        assert [c.text for c in cells] == ["", "+12 \u00b13", "+12 \u00b13", "-12 \u00b13", "", "-12 \u00b13"]
        start_game(browser, server, "cfr", "holdem.limit.2p.reverse_blinds", 2)
        shot(browser, "play-turn")
        _play_until(browser, 2, lambda: browser.find_element(By.ID, "act-call").click())
        shot(browser, "play-over")
        text = browser.find_element(By.ID, "play-results").text
        logs = list((tmp_path / "web").glob("human-vs-cfr-*/seed1-a1.log"))
        assert len(logs) == 1
        played = log_hands(logs[0])
        assert len(played) == 2 and all("a-human" in names for _, _, _, names in played)
        # The chips the page shows are the log's: the sum of a-human's values.
        total = sum(values[names.index("a-human")] for _, _, values, names in played)
        assert text == f"2 hands, you {'+' if total > 0 else ''}{total:.0f} chips"
    finally:
        server.stop()


def test_the_page_checks_a_no_limit_size_before_sending_it(browser: WebDriver, tmp_path: Path) -> None:
    server = Server([program("acpc-web"), str(tmp_path), "--port", "0", "--out", str(tmp_path / "web")], tmp_path)
    try:
        start_game(browser, server, "call", "holdem.nolimit.2p.reverse_blinds", 1)
        size = browser.find_element(By.ID, "raise-size")
        size.clear()
        size.send_keys("5")
        browser.find_element(By.ID, "act-raise").click()
        message = browser.find_element(By.ID, "play-message").text
        assert message.startswith("raise to a whole number from ")  # refused on the page, nothing sent
        betting_before = browser.find_element(By.CSS_SELECTOR, "#play-table .betting").text
        low = int(message.split()[-3])
        size.clear()
        size.send_keys(str(low))
        browser.find_element(By.ID, "act-raise").click()
        wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, "#play-table .betting").text != betting_before,
            30,
            "the raise",
        )
        _play_until(browser, 1, lambda: browser.find_element(By.ID, "act-call").click())
        logs = list((tmp_path / "web").glob("human-vs-call-*/seed1-a1.log"))
        ((_, betting, _, _),) = log_hands(logs[0])
        assert f"r{low}" in betting
        shot(browser, "play-no-limit")
    finally:
        server.stop()
