"""A match under a load of page and metrics clients: nobody is timed out, the match finishes.

``acpc-dealer --web --metrics-port`` with two ``acpc-agent random`` players and a tight
``--t_response``, while the load of ``tests/helpers/web_load.py`` (a process of its own, niced as
the page process is) keeps 100 live-event clients connected, 16 scrapers on ``/metrics`` and a
client pulling 20,000-hand logs in a loop. ``benchmarks/dealer.py``'s ``web`` section (``make bench
SECTIONS=web``) uses the same load to measure the dealer's rate.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.helpers.processes import free_port, start_agent, start_dealer
from tests.helpers.web_load import GAME, LOG_HANDS, page_url, start_load, stop_load, write_log

# -- the test ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def big_logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("big-logs")
    logs = [folder / "bigA.log", folder / "bigB.log"]
    for seed, path in enumerate(logs, start=1):
        write_log(path, LOG_HANDS, seed)
    return logs


def test_a_match_under_load_is_neither_timed_out_nor_stopped(tmp_path: Path, big_logs: list[Path]) -> None:
    for log in big_logs:
        (tmp_path / log.name).write_bytes(log.read_bytes())
    metrics_port = free_port()
    hands = 3000
    dealer = start_dealer(
        tmp_path, "loaded", GAME, str(hands), "7", "alice", "bob", "-q", "--t_response", "300",
        "--web", "0", "--metrics-port", str(metrics_port),
    )  # fmt: skip
    url = page_url(dealer.process.stderr)
    load = start_load(url, f"http://127.0.0.1:{metrics_port}/metrics", 100, ["0/bigA.log", "0/bigB.log"])
    try:
        started = time.monotonic()
        agents = [start_agent("random", port, "--game", GAME) for port in dealer.ports]
        status, out, err = dealer.wait(timeout=120)
        seconds = time.monotonic() - started
        for agent in agents:
            agent.wait(timeout=30)
    finally:
        counts = stop_load(load)
    assert status == 0, err
    assert out.strip().startswith("SCORE:") and "timed out" not in err and "ERROR" not in err, err
    played = [line for line in (tmp_path / "loaded.log").read_text().splitlines() if line.startswith("STATE:")]
    assert len(played) == hands
    # The load was there all along: every live client connected and was sent events, the scrapers were
    # answered, the log reader asked for logs (how many it was sent depends on the machine's load: the page
    # process is niced, so that it never slows a match, and on a loaded machine a 20,000-hand log takes it
    # longer than the match).
    assert counts["sse_connected"] == 100 and counts["sse_events"] >= 100, counts
    assert counts["scrapes_200"] >= 100 and counts["logs_asked"] >= 1, counts
    print(f"{hands} hands in {seconds:.1f} s under load: {dict(counts)}")
