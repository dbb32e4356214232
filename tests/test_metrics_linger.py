"""``acpc-dealer --metrics-port P --metrics-linger S``: the match's final values are still served
after its SCORE line, for a last scrape."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

from tests.helpers.processes import start_agent, start_dealer

HANDS = 20


def test_dealer_serves_its_final_metrics_after_the_match(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        metrics_port = probe.getsockname()[1]
    dealer = start_dealer(
        tmp_path, "lingering", "kuhn", str(HANDS), "7", "A", "B", "-q",
        "--metrics-port", str(metrics_port), "--metrics-linger", "60",
    )  # fmt: skip
    agents = [start_agent("call", port, "--game", "kuhn") for port in dealer.ports]
    try:
        assert dealer.process.stdout is not None
        score = dealer.process.stdout.readline()
        assert score.startswith("SCORE:"), score
        for agent in agents:
            agent.wait(timeout=60)
        assert dealer.process.poll() is None  # lingering
        page = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        assert f'acpc_dealer_hands_total{{match="lingering"}} {HANDS}.0' in page
        assert "acpc_dealer_matches_running 0.0" in page
        assert 'acpc_dealer_errors_total{kind="timeout",match="lingering",player="A",seat="1"} 0.0' in page
        assert 'acpc_dealer_response_seconds_count{match="lingering",player="B",seat="2"}' in page
    finally:
        dealer.process.terminate()
        dealer.wait(timeout=30)
