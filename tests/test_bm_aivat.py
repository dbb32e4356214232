"""``acpc-bm-server --web``'s AIVAT column: a real server playing real Leduc runs over TCP against the hosted
``cfr``, its page's AIVAT figures held to ``acpc-report --aivat`` on the same logs (another path to the same
estimate), each run's AIVAT kept beside its log across a restart, and the reason shown where the hosted bot is
a command whose policy is not known."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from acpc_arena.dealer.benchmark_server.aivat_cache import RunAivat, Task, load_cache
from acpc_arena.dealer.benchmark_server.aivat_worker import AivatWorker
from acpc_arena.dealer.benchmark_server.run_aivat import compute
from acpc_arena.dealer.benchmark_server.web import Pairing
from tests.helpers.bm import Line, api, get, query, start_local_bot, start_web_server
from tests.helpers.processes import program, spawn, wait_until

GAME = "leduc.limit.2p.game"
HANDS = 300


def write_leduc_config(folder: Path) -> None:
    """A config of Leduc hosting ``cfr`` (a shipped agent) and ``ext`` (a command running ``random``)."""
    script = folder / "ext.sh"
    script.write_text(f'#!/bin/sh\nexec {program("acpc-agent")} random "$1" "$2" --game leduc\n')
    script.chmod(0o755)
    (folder / "bm.config").write_text(
        f"""port 0
game {GAME} {{
    maxMatchRuns 5
    matchHands {HANDS}
    bot cfr cfr
    bot ext {script}
}}
user neil test
"""
    )


def play_job(port: int, folder: Path, runs: int, bot: str) -> None:
    """Ask for ``runs`` runs of the user's ``random`` (seat 1) against the hosted ``bot``, play them to the end."""
    request = Line(port)
    request.send(f"neil test run 2pl ./mybot.sh {runs} t 42 local {bot}\n")
    while (line := request.read()) != "Matches finished\n":
        assert line, "the server closed the request"
        if line.lower().startswith("run "):
            start_local_bot(line.strip(), "leduc", folder)
    request.close()


def aivat_processes(folder: Path) -> list[int]:
    """The page's AIVAT processes working in ``folder`` (the server's), read from ``/proc``."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if b"acpc_arena.dealer.benchmark_server.run_aivat" in (entry / "cmdline").read_bytes() and (
                (entry / "cwd").resolve() == folder.resolve()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def page(url: str) -> str:
    status, body = get(url)
    assert status == 200, body
    return body.decode()


def row_against(url: str, bot: str) -> dict[str, Any]:
    """The page's result of neil against ``bot`` (``{}`` before the page has it)."""
    rows = [r for r in api(url).get("results", []) if r["opponent"] == bot]
    return rows[0] if rows else {}


def report_aivat(folder: Path, logs: list[Path], known: str) -> subprocess.Popen[str]:
    """``acpc-report LOGS --aivat KNOWN --json folder/report.json``, started (``aivat_figures`` reads it)."""
    command = [program("acpc-report"), *map(str, logs), "--aivat", known, "--json", str(folder / "report.json")]
    return spawn(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def aivat_figures(folder: Path, report: subprocess.Popen[str]) -> dict[str, Any]:
    """The per-hand AIVAT figures of the report ``report_aivat`` started, once it has ended."""
    _, err = report.communicate(timeout=60)
    assert report.returncode == 0, err
    figures: dict[str, Any] = json.loads((folder / "report.json").read_text())["aivat"]["per_hand"]
    return figures


def test_the_page_shows_the_aivat_acpc_report_gives_for_the_same_logs_and_keeps_it_across_a_restart(
    tmp_path: Path,
) -> None:
    write_leduc_config(tmp_path)
    server, port, url = start_web_server(tmp_path, "--web", "0")
    play_job(port, tmp_path, 2, "cfr")
    logs = [Path(log) for (log,) in query(tmp_path / "bm.sqlite3", "SELECT log FROM matches ORDER BY id")]
    # the report builds the hosted b-cfr as acpc-match names and seeds its players, from the logs alone
    report = report_aivat(tmp_path, logs, "b-cfr")
    wait_until(lambda: row_against(url, "cfr").get("aivat", {}).get("runs") == 2, 30, "both runs' AIVAT on the page")
    row = row_against(url, "cfr")
    expected = aivat_figures(tmp_path, report)
    aivat = row["aivat"]
    assert (row["runs"], row["hands"], aivat["runs"], aivat["of_runs"], aivat["hands"]) == (2, 600, 2, 2, 600)
    assert expected["samples"] == 600
    assert aivat["mbb_per_hand"] == pytest.approx(expected["mbb_per_hand"], rel=1e-9)
    assert aivat["ci95"] == pytest.approx(expected["ci95"], rel=1e-9)
    assert aivat["ci95"][1] - aivat["ci95"][0] < row["ci95"][1] - row["ci95"][0]  # less luck in it
    low, high = aivat["ci95"]
    assert f"{aivat['mbb_per_hand']:+.1f} [{low:+.1f}, {high:+.1f}], AIVAT over 2 of 2 runs" in page(url)

    # restarted, the page takes each run's AIVAT from the file beside its log, not computed nor written again
    caches = [Path(f"{log}.aivat.json") for log in logs]
    written = [cache.stat().st_mtime_ns for cache in caches]
    assert len(aivat_processes(tmp_path)) == 1
    server.terminate()
    server.wait(timeout=10)
    wait_until(lambda: not aivat_processes(tmp_path), 10, "the end of the page's AIVAT process with the server")
    _, _, url = start_web_server(tmp_path, "--web", "0")
    wait_until(lambda: row_against(url, "cfr").get("aivat", {}).get("pending") == 0, 30, "the AIVAT read again")
    assert row_against(url, "cfr")["aivat"] == aivat
    assert [cache.stat().st_mtime_ns for cache in caches] == written and not aivat_processes(tmp_path)


def test_a_run_whose_log_cannot_be_read_gets_the_reason_kept_beside_it(tmp_path: Path) -> None:
    log = tmp_path / "seed1-a1.log"
    log.write_text(f"# name/game/hands/seed seed1-a1 {GAME} 10 1\nSTATE:0:garbage\n")
    task = Task(str(log), "a-neil", "b-cfr", "cfr")
    reason = compute(task).reason
    assert reason is not None and reason.startswith("cannot read the log: ") and str(log) in reason
    kept = json.loads(Path(f"{log}.aivat.json").read_text())
    assert kept["aivat"]["reason"] == reason and kept["task"]["log"] == str(log)
    assert load_cache(task) == compute(task)
    log.write_text(log.read_text() + "STATE:1:more garbage\n")
    assert load_cache(task) is None  # the log changed since: computed again


def test_a_run_whose_hosted_agent_cannot_be_loaded_gets_the_reason_kept_beside_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [program("acpc-match"), "--a", "random", "--b", "cfr", "--game", "leduc", "--seeds", "1", "--hands", "20",
         "--in-process", "--no-aivat", "--no-plots", "--quiet", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    task = Task(str(tmp_path / "run" / "seed1-a1.log"), "a-random", "b-cfr", "cfr", ("--checkpoint", "nosuch.npz"))
    reason = compute(task).reason
    assert reason is not None and reason.startswith("cannot load agent 'cfr' for b-cfr: ") and "nosuch.npz" in reason
    assert load_cache(task) == RunAivat(reason=reason)


def test_a_hosted_command_has_no_aivat_and_the_page_says_why(tmp_path: Path) -> None:
    write_leduc_config(tmp_path)
    _, port, url = start_web_server(tmp_path, "--web", "0")
    play_job(port, tmp_path, 1, "ext")
    wait_until(lambda: api(url).get("results"), 10, "the run's result on the page")
    aivat = row_against(url, "ext")["aivat"]
    assert (aivat["runs"], aivat["of_runs"], aivat["pending"]) == (0, 1, 0)
    assert aivat["mbb_per_hand"] is None and "not known" in aivat["reason"]
    assert f"<td>none: {aivat['reason']}</td>" in page(url)
    (log,) = query(tmp_path / "bm.sqlite3", "SELECT log FROM matches")[0]
    assert not Path(f"{log}.aivat.json").exists() and not aivat_processes(tmp_path)  # nothing computed


def test_the_aivat_cell_pools_the_runs_that_have_it_and_counts_the_others() -> None:
    rng = np.random.default_rng(5)
    first, second = rng.normal(0.3, 4.0, 250), rng.normal(-0.1, 6.0, 150)
    worker = AivatWorker()  # not started: its results set here as its thread sets them
    for match_id, values in ((1, first), (2, second), (4, first)):
        worker.results[match_id] = RunAivat(len(values), float(values.sum()), float((values**2).sum()), 2)
    worker.results[3] = RunAivat(reason="cannot read the log: run 3")
    pairing = Pairing(runs=5, big_blind=2, aivat_runs=[1, 2, 3, 5])  # run 5 computing, run 6 against a command
    aivat = pairing.aivat(worker)
    joined = np.concatenate([first, second])
    half = 1.959964 * joined.std(ddof=1) / np.sqrt(len(joined))
    assert (aivat["runs"], aivat["of_runs"], aivat["pending"], aivat["hands"]) == (2, 5, 1, 400)
    assert aivat["mbb_per_hand"] == pytest.approx(500 * joined.mean(), rel=1e-12)
    assert aivat["ci95"] == pytest.approx([500 * (joined.mean() - half), 500 * (joined.mean() + half)], rel=1e-6)
    assert aivat["reason"] == "cannot read the log: run 3"
    every = Pairing(runs=3, big_blind=2, aivat_runs=[1, 2, 4])
    pooled = every.aivat(worker)
    assert (pooled["runs"], pooled["hands"], pooled["reason"]) == (3, 650, None)
