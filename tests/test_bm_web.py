"""``acpc-bm-server --web PORT``: the page, ``/api/bm`` and ``/metrics`` of the queue, the runs and the results,
served by a process of its own over real TCP while the server plays real runs."""

from __future__ import annotations

import math
import socket
import statistics
import time
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.dealer.benchmark_server.pages import Durations
from acpc_arena.dealer.benchmark_server.web import Pairing
from acpc_arena.dealer.web.http import FIRST_SECONDS
from tests.helpers.bm import (
    LIMIT,
    Line,
    api,
    get,
    metric,
    query,
    start_local_bot,
    start_web_server,
    write_config,
)
from tests.helpers.processes import wait_until


def hand_values(log: Path, player: str) -> list[float]:
    """``player``'s chips in each hand, read from the log's ``STATE:`` lines apart from the project's reader."""
    values = []
    for line in log.read_text().splitlines():
        if line.startswith("STATE:"):
            fields = line.split(":")
            values.append(float(fields[-2].split("|")[fields[-1].split("|").index(player)]))
    return values


def test_the_page_shows_the_queue_the_running_run_and_the_results_with_their_interval(tmp_path: Path) -> None:
    write_config(tmp_path, hands=40)
    _, port, url = start_web_server(tmp_path, "--web", "0")
    assert url.startswith("http://127.0.0.1:")

    request = Line(port)
    request.send("neil test run 2pl ./mybot.sh 2 web 3 LOCAL random\n")
    assert request.read() == f"# QUEUED job 1: 2 runs of {LIMIT}.game\n"
    assert request.read() == "# RUNNING neil.web 1.0\n"
    run_line = request.read()
    # the run waits for the user's bot: running, and its job the queue's with one run left after it
    wait_until(lambda: api(url)["running"] != [], 10, "the running run on the page")
    state = api(url)
    started = state["running"][0]["started"]
    assert state["running"] == [{"run": "1.0", "user": "neil", "tag": "web", "game": f"{LIMIT}.game",
                                 "players": ["LOCAL", "random"], "started": started}]  # fmt: skip
    assert state["queue"] == [{"job": 1, "user": "neil", "tag": "web", "game": f"{LIMIT}.game", "runs_left": 1,
                               "running": True}]  # fmt: skip
    assert metric(url, "acpc_bm_runs_running") == 1 and metric(url, "acpc_bm_runs_queued") == 1
    assert metric(url, "acpc_bm_jobs_running") == 1 and metric(url, "acpc_bm_jobs_active") == 1
    status, page = get(url)
    assert status == 200 and b"<td>neil</td><td>web</td>" in page and b"1.0" in page

    start_local_bot(run_line.strip(), LIMIT, tmp_path)
    while (line := request.read()) != "Matches finished\n":
        assert line, "the server closed the request"
        if line.lower().startswith("run "):
            start_local_bot(line.strip(), LIMIT, tmp_path)
    request.close()

    # the results: mean and 95% interval of a-neil's chips per hand over both logs, in mbb/h (big blind 10)
    logs = [Path(log) for (log,) in query(tmp_path / "bm.sqlite3", "SELECT log FROM matches ORDER BY id")]
    values = hand_values(logs[0], "a-neil") + hand_values(logs[1], "a-neil")
    assert len(values) == 80
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = 1.959964 * sd / math.sqrt(len(values))
    wait_until(lambda: [r["runs"] for r in api(url)["results"]] == [2], 10, "both runs' results on the page")
    (row,) = api(url)["results"]
    assert (row["game"], row["user"], row["opponent"], row["runs"], row["hands"], row["unread_runs"]) == (
        f"{LIMIT}.game", "neil", "random", 2, 80, 0)  # fmt: skip
    assert row["mbb_per_hand"] == pytest.approx(100 * mean)
    assert row["ci95"] == pytest.approx([100 * (mean - half), 100 * (mean + half)], rel=1e-5)
    assert api(url)["queue"] == [] and api(url)["running"] == []
    assert metric(url, f'acpc_bm_runs_finished_total{{game="{LIMIT}.game"}}') == 2
    assert metric(url, f'acpc_bm_run_seconds_count{{game="{LIMIT}.game"}}') == 2
    assert metric(url, f'acpc_bm_run_seconds_bucket{{game="{LIMIT}.game",le="+Inf"}}') == 2
    assert metric(url, "acpc_bm_runs_running") == 0


def test_refused_logons_are_counted_and_the_page_refuses_other_hosts(tmp_path: Path) -> None:
    write_config(tmp_path)
    _, port, url = start_web_server(tmp_path, "--web", "0")
    assert metric(url, 'acpc_bm_logons_refused_total{reason="bad_logon"}') == 0
    for password in ("wrong", "worse"):
        client = Line(port)
        client.send(f"neil {password}\n")
        assert client.read() == "BAD LOGON\n"
        client.close()
    wait_until(lambda: metric(url, 'acpc_bm_logons_refused_total{reason="bad_logon"}') == 2, 10, "two refusals")
    assert metric(url, 'acpc_bm_logons_refused_total{reason="rate_limited"}') == 0
    # the page answers its own address only (a DNS-rebinding page names another), /metrics any name
    assert get(url, host="evil.example")[0] == 421
    assert get(url + "api/bm", host="evil.example")[0] == 421
    assert get(url + "nothing")[0] == 404


def test_the_page_and_the_server_answer_while_a_client_holds_page_connections_silent(tmp_path: Path) -> None:
    write_config(tmp_path)
    _, bm_port, url = start_web_server(tmp_path, "--web", "0")
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(20)]
    # A server that waited on a silent client would answer only when the client's first byte is given up on,
    # FIRST_SECONDS after it connected; half of that leaves room for a loaded machine and still tells them apart.
    bound = FIRST_SECONDS / 2
    began = time.monotonic()
    assert get(url + "metrics")[0] == 200 and get(url)[0] == 200
    assert time.monotonic() - began < bound
    began = time.monotonic()
    games = Line(bm_port)
    games.send("neil test games\n")
    assert games.read_until(" random")[:2] == ["\n", f"{LIMIT}.game\n"]
    games.close()
    assert time.monotonic() - began < bound  # the benchmark port does not wait for the page's clients
    for sock in held:
        sock.close()


def test_a_pairing_merged_run_by_run_gives_the_mean_and_interval_of_all_its_hands() -> None:
    runs = [[10.0, -5.0, 0.0], [20.0], [-15.0, 5.0, 5.0, -10.0]]
    pairing = Pairing(big_blind=10)
    for values in runs:
        pairing.add(np.array(values))
    every = [v for values in runs for v in values]
    mean = statistics.fmean(every)  # 10/8 chips a hand
    half = 1.959964 * statistics.stdev(every) / math.sqrt(len(every))
    mbb, (low, high) = pairing.mbb()
    assert pairing.hands == 8 and mbb == pytest.approx(125.0)
    assert (low, high) == pytest.approx((100 * (mean - half), 100 * (mean + half)), rel=1e-6)


def test_run_durations_fall_in_every_bucket_at_or_above_them() -> None:
    durations = Durations()
    for seconds in (0.5, 1.0, 3.0, 7200.0):
        durations.add(seconds)
    # buckets 1, 5, 15, 60, 300, 900, 3600, 14400, 86400, +Inf
    assert durations.counts == [2, 3, 3, 3, 3, 3, 3, 4, 4, 4]
    assert durations.total == 7204.5


def test_idle_sockets_from_one_address_leave_the_benchmark_page_and_metrics_to_another(tmp_path: Path) -> None:
    """600 connections from 127.0.0.2 that send nothing: the page and ``/metrics`` asked from 127.0.0.1 are
    answered within half the first-byte deadline that frees a held slot (issue 58: 503 for 22 s, the page server's
    slots all held)."""
    write_config(tmp_path)
    _, _, url = start_web_server(tmp_path, "--web", "0")
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    held = [
        socket.create_connection((host, int(port)), timeout=10, source_address=("127.0.0.2", 0)) for _ in range(600)
    ]
    try:
        time.sleep(0.5)  # the page server has taken them all
        began = time.monotonic()
        assert get(url)[0] == 200 and get(url + "metrics")[0] == 200
        assert time.monotonic() - began < FIRST_SECONDS / 2
    finally:
        for sock in held:
            sock.close()
