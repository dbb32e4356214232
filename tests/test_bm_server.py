"""``acpc-bm-server`` driven over TCP with the exact lines of the C ``bm_widget`` and ``bm_run_matches``
(``bm_widget.c``, ``bm_run_matches.c`` and ``bm_server.c`` of the ACPC server package), its runs played by
real processes, its database read with ``sqlite3`` and its logs scored by ``acpc-report``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np

from tests.helpers.bm import LIMIT, NOLIMIT, Line, query, start_local_bot, start_server, write_config
from tests.helpers.processes import program, wait_until


def report(log: Path, player: str, tmp_path: Path) -> dict[str, float]:
    """``acpc-report LOG --a PLAYER --json``'s one match: the player's chips and the hands."""
    out = tmp_path / f"{log.parent.name}-{player}.json"
    done = subprocess.run(
        [program("acpc-report"), str(log), "--a", player, "--json", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    (match,) = json.loads(out.read_text())["matches"]
    return {"chips": match["chips_a"], "hands": match["hands"]}


def test_a_widget_and_bm_run_matches_run_jobs_whose_stored_results_equal_acpc_report(tmp_path: Path) -> None:
    write_config(tmp_path, hands=30)
    _, port = start_server(tmp_path)

    # bm_widget: the user types "neil test", then the commands of bm_server.c's HELP
    widget = Line(port)
    widget.send("neil test\n")
    assert widget.read() == "LOGON OKAY - type help for commands\n"
    widget.send("GAMES\n")
    games = [widget.read() for _ in range(7)]
    assert games == ["\n", f"{LIMIT}.game\n", " random\n", " cfr\n", "\n", f"{NOLIMIT}.game\n", " random\n"]
    widget.send("QSTAT\n")
    assert widget.read() == "Queue empty\n"
    # two limit jobs against the hosted cfr and random; the widget's bot takes the LOCAL seat
    widget.send(f"RUNMATCHES {LIMIT}.game 1 first 11 LOCAL cfr\n")
    widget.send(f"RUNMATCHES {LIMIT}.game 2 second 7 random LOCAL\n")
    seen: list[str] = []
    finished: list[str] = []
    while len(finished) < 3:  # maxRunningJobs 1: the runs come one after the other
        line = widget.read()
        assert line, f"the server closed the widget's connection: {seen}"
        seen.append(line)
        if line.lower().startswith("run "):
            start_local_bot(line.strip(), LIMIT, tmp_path)
        elif line.startswith(("# FINISHED", "# FAILED")):
            finished.append(line)
    assert seen[0] == f"# QUEUED job 1: 1 runs of {LIMIT}.game\n"
    assert f"# QUEUED job 2: 2 runs of {LIMIT}.game\n" in seen
    runs = [line.split()[3] for line in seen if line.startswith("# RUNNING")]
    assert runs == ["1.0", "2.0", "2.1"]
    assert [line.split()[:3] for line in finished] == [["#", "FINISHED", "1.0"], ["#", "FINISHED", "2.0"],
                                                      ["#", "FINISHED", "2.1"]]  # fmt: skip

    # bm_run_matches HOST PORT neil test run 2pn SCRIPT 1 nl 5 local random: its arguments as one line
    runner = Line(port)
    runner.send("neil test run 2pn ./mybot.sh 1 nl 5 local random\n")
    lines: list[str] = []
    while (line := runner.read()) != "Matches finished\n":
        assert line, f"the server closed the connection before Matches finished: {lines}"
        lines.append(line)
        if line.lower().startswith("run "):
            start_local_bot(line.strip(), NOLIMIT, tmp_path)
    assert lines[0] == f"# QUEUED job 3: 1 runs of {NOLIMIT}.game\n"
    assert lines[-1].startswith("# FINISHED 3.0 a-neil ")
    assert runner.read() == ""  # then it closes, and bm_run_matches exits

    # the seeds: one run plays its seed, several the outputs of MT19937 seeded with it (numpy's init_genrand)
    seeds = np.random.RandomState(7).randint(0, 2**32, size=2, dtype=np.uint32).tolist()
    rows = query(tmp_path / "bm.sqlite3", "SELECT job_id, run_index, seed, state, log, id FROM matches ORDER BY id")
    assert [row[:4] for row in rows] == [(1, 0, 11, "done"), (2, 0, seeds[0], "done"), (2, 1, seeds[1], "done"),
                                         (3, 0, 5, "done")]  # fmt: skip
    players = {1: ("a-neil", "b-cfr"), 2: ("a-random", "b-neil"), 3: ("a-neil", "b-random")}
    for job, index, seed, _, log, match_id in rows:
        # the log comes back over the protocol byte for byte: bm_run_matches ... logs J.I > run.log
        fetch = Line(port)
        fetch.send(f"neil test logs {job}.{index}\n")
        received = tmp_path / f"received-{job}.{index}" / "run.log"
        received.parent.mkdir()
        received.write_bytes(fetch.rest())
        assert received.read_bytes() == Path(log).read_bytes()
        assert (
            received.read_text().splitlines()[0]
            == f"# name/game/hands/seed seed{seed}-a1 {LIMIT if job < 3 else NOLIMIT}.game 30 {seed}"
        )
        results = query(tmp_path / "bm.sqlite3", "SELECT player, chips, hands FROM results WHERE match_id = ? "
                        "ORDER BY seat", match_id)  # fmt: skip
        assert tuple(player for player, _, _ in results) == players[job]
        for player, chips, hands in results:
            assert report(received, player, tmp_path) == {"chips": chips, "hands": hands}
        assert sum(chips for _, chips, _ in results) == 0
    assert query(tmp_path / "bm.sqlite3", "SELECT id, state FROM jobs") == [(1, "done"), (2, "done"), (3, "done")]


def test_killing_the_server_mid_job_and_starting_it_again_finishes_every_run_once(tmp_path: Path) -> None:
    hands = 1500  # the second run lasts seconds: it is killed at its hundredth hand
    write_config(tmp_path, hands=hands)
    db = tmp_path / "bm.sqlite3"
    server, port = start_server(tmp_path, "--lease", "5")
    # hosted bots alone: the job needs no connection once queued
    request = Line(port)
    request.send("neil test run 2pl ./unused.sh 3 restart 9 random random\n")
    assert request.read() == f"# QUEUED job 1: 3 runs of {LIMIT}.game\n"

    def second_run_playing() -> bool:
        rows = query(db, "SELECT log FROM matches WHERE run_index = 1 AND state = 'running'")
        logs = list((tmp_path / "logs" / "job1-neil.restart" / "run1").glob("*.log"))
        return bool(rows) and bool(logs) and logs[0].read_text().count("\nSTATE:") > 100

    wait_until(second_run_playing, 120, "the second run's first hundred hands")
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=30)
    request.close()

    start_server(tmp_path, "--lease", "5")  # the killed run is played again once its lease of 5 s runs out
    wait_until(lambda: query(db, "SELECT state FROM jobs") == [("done",)], 180, "the job's end after the restart")
    runs = query(db, "SELECT id, run_index, state, attempts, log FROM matches ORDER BY run_index")
    assert [(index, state) for _, index, state, _, _ in runs] == [(0, "done"), (1, "done"), (2, "done")]
    assert [attempts for _, _, _, attempts, _ in runs] == [1, 2, 1]  # the killed run played again, once
    for match_id, _, _, _, log in runs:
        lines = Path(log).read_text().splitlines()
        hand_ids = [int(line.split(":")[1]) for line in lines if line.startswith("STATE:")]
        assert hand_ids == list(range(hands))  # every hand once: the second attempt started afresh
        assert sum(line.startswith("SCORE:") for line in lines) == 1
        assert len(query(db, "SELECT seat FROM results WHERE match_id = ?", match_id)) == 2
