"""A real Prometheus server scrapes a real ``acpc-match --metrics-port`` run; the series are read
back through Prometheus's HTTP query API.

Prometheus is Debian's ``prometheus`` package (``.ci/run`` installs it when missing). The
expected figures come from the command line (hands, seeds, game) and from the run's ACPC
logs, computed here by hand: A's result in each hand from the ``STATE`` lines, the
duplicate pairs, their mean and 95% interval.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.processes import free_port, program, spawn, start_prometheus

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(
    PROMETHEUS is None, reason="no prometheus binary (apt-get install prometheus; .ci/run installs it)"
)

SEEDS = (1, 2)
HANDS = 200
BIG_BLIND = 1  # kuhn.limit.2p.game: blind = 1 1


def _query(port: int, expr: str) -> list[dict[str, Any]]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as response:
        answer = json.load(response)
    assert answer["status"] == "success", answer
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


def _value(port: int, expr: str) -> float:
    (series,) = _query(port, expr)
    return float(series["value"][1])


def _a_values(log: Path, a: str) -> list[float]:
    """A's result in every hand: ``STATE:id:betting:cards:v1|v2:p1|p2``."""
    values = []
    for line in log.read_text().splitlines():
        if line.startswith("STATE:"):
            fields = line.split(":")
            names = fields[5].split("|")
            values.append(float(fields[4].split("|")[names.index(a)]))
    return values


def _duplicate_by_hand(run: Path, a: str) -> tuple[float, float, float, int]:
    pairs = []
    for seed in SEEDS:
        first, second = (_a_values(run / f"seed{seed}-a{seat}.log", a) for seat in (1, 2))
        assert len(first) == len(second) == HANDS
        pairs += [(x + y) / 2 for x, y in zip(first, second, strict=True)]
    mean = statistics.fmean(pairs)
    z = statistics.NormalDist().inv_cdf(0.975)  # the 95% interval: mean ± z standard errors
    half = z * statistics.stdev(pairs) / math.sqrt(len(pairs))
    scale = 1000 / BIG_BLIND
    return mean * scale, (mean - half) * scale, (mean + half) * scale, len(pairs)


def test_prometheus_scrapes_a_run_and_keeps_its_final_values(tmp_path: Path) -> None:
    metrics_port, prometheus_port = free_port(), free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n"
        "scrape_configs:\n  - job_name: acpc-match\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
    )
    prometheus = start_prometheus(config, tmp_path, prometheus_port)
    run = tmp_path / "run"
    match = spawn(
        [program("acpc-match"), "--a", "cfr", "--b", "random", "--game", "kuhn", "--seeds", ",".join(map(str, SEEDS)),
         "--hands", str(HANDS), "--metrics-port", str(metrics_port), "--metrics-linger", "120", "--quiet",
         "--no-plots", "--out", str(run)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert match.stderr is not None
        line = match.stderr.readline()  # with --quiet, the first line on standard error is the linger notice
        assert "serving the final metrics" in line, line + match.stderr.read()
        scraped = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()

        # Prometheus has the final values once it scraped after the run ended.
        deadline = time.monotonic() + 90
        while True:
            try:
                # both series of the final scrape: the last hand is counted before its match is
                if _query(prometheus_port, f"acpc_match_hands_total == {4 * HANDS}") and _query(
                    prometheus_port, 'acpc_match_matches_total{status="finished"} == 4'
                ):
                    break
            except OSError:
                pass  # Prometheus still starting
            assert time.monotonic() < deadline, (tmp_path / "prometheus.err").read_text()[-2000:]
            time.sleep(0.5)

        labels = '{a="a-cfr",b="b-random"}'
        assert _value(prometheus_port, f"acpc_match_hands_planned{labels}") == 4 * HANDS
        assert _value(prometheus_port, 'acpc_match_matches_total{status="finished"}') == 4
        assert _value(prometheus_port, 'acpc_match_matches_total{status="failed"}') == 0

        mbb, low, high, pairs = _duplicate_by_hand(run, "a-cfr")
        assert low > 0  # CFR's strategy beats a random player: the interval is no degenerate zero
        assert _value(prometheus_port, "acpc_match_duplicate_pairs") == pairs
        assert _value(prometheus_port, f"acpc_match_duplicate_mbb_per_hand{labels}") == pytest.approx(mbb, abs=1e-9)
        assert _value(prometheus_port, f"acpc_match_duplicate_ci95_low{labels}") == pytest.approx(low, abs=1e-9)
        assert _value(prometheus_port, f"acpc_match_duplicate_ci95_high{labels}") == pytest.approx(high, abs=1e-9)

        (info,) = _query(prometheus_port, "acpc_match_run_info")
        assert info["metric"]["game"] == "kuhn"
        assert info["metric"]["seeds"] == "1,2" and info["metric"]["hands"] == str(HANDS)

        # The error and timeout series exist at 0 though no agent failed.
        errors = _query(prometheus_port, "acpc_match_errors_total")
        kinds = {"disconnect", "timeout", "line_too_long", "invalid_actions", "version"}
        assert {(s["metric"]["agent"], s["metric"]["kind"]) for s in errors} == {
            (agent, kind) for agent in ("a-cfr", "b-random") for kind in kinds
        }
        assert all(float(s["value"][1]) == 0 for s in errors)
        assert len(_query(prometheus_port, "acpc_match_timeouts_total == 0")) == 2

        # One latency histogram (per agent), no _created series.
        for agent in ("a-cfr", "b-random"):
            assert _value(prometheus_port, f'acpc_match_action_seconds_count{{agent="{agent}"}}') > 0
        assert _query(prometheus_port, '{__name__=~"acpc_dealer_response_seconds.*"}') == []
        assert _query(prometheus_port, '{__name__=~".+_created"}') == []

        # The matches' own series went when they ended: the last page has their families only.
        assert not [line for line in scraped.splitlines() if line.startswith("acpc_dealer_") and "match=" in line]
        assert "acpc_dealer_matches_running 0.0" in scraped
    finally:
        match.terminate()
        prometheus.terminate()
        match.communicate(timeout=30)
        prometheus.wait(timeout=30)
