"""Ctrl-C (SIGINT to the terminal's process group) and SIGTERM on a real ``acpc-match`` run:
one line instead of a traceback, the finished matches kept and reported (marked partial),
every agent stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import program

HANDS = 3000


def _children(pid: int) -> set[int]:
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children.update(int(c) for c in (task / "children").read_text().split())
    return children


def _gone(pid: int) -> bool:
    """No such process, or a zombie (it exited; its new parent reaps it)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return status.rsplit(")", 1)[1].split()[0] == "Z"


def _finished(log: Path) -> bool:
    """An ACPC log ends with its ``SCORE`` line once the match is over."""
    return log.exists() and "\nSCORE:" in log.read_text()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_keeps_its_finished_matches(tmp_path: Path, signum: signal.Signals) -> None:
    run = tmp_path / "run"
    process = subprocess.Popen(
        [program("acpc-match"), "--a", "raise", "--b", "call", "--seeds", "1,2", "--hands", str(HANDS),
         "--concurrency", "1", "--quiet", "--no-plots", "--out", str(run)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    first = run / "seed1-a1.log"
    deadline = time.monotonic() + 120
    while not _finished(first):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    # The second match is being played (its log has hands) by two fresh agents.
    second = run / "seed1-a2.log"
    while not (second.exists() and "\nSTATE:" in second.read_text()) or len(agents := _children(process.pid)) < 2:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    if signum == signal.SIGINT:
        os.killpg(process.pid, signum)  # what a terminal does on Ctrl-C
    else:
        process.send_signal(signum)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err and "Traceback" not in out
    assert err.strip().splitlines() == [
        f"acpc-match: interrupted by {signum.name}: 1 of 4 matches finished; the report covers those (marked partial)"
    ]
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in agents):
        assert time.monotonic() < deadline, f"agents left running: {[p for p in agents if not _gone(p)]}"
        time.sleep(0.05)

    report = json.loads((run / "report.json").read_text())
    assert report["partial"] is True and report["interrupted_by"] == signum.name
    assert [(m["seed"], m["a_seat"], m["hands"], m["finished"]) for m in report["matches"]] == [(1, 1, HANDS, True)]
    assert report["unfinished_matches"] == ["seed1-a2", "seed2-a1", "seed2-a2"]
    # The interrupted match's log keeps the hands it played, whole lines, without a SCORE line.
    interrupted = (run / "seed1-a2.log").read_text()
    assert interrupted.endswith("\n") and "\nSCORE:" not in interrupted
    assert interrupted.count("\nSTATE:") < HANDS
    assert "seed1-a1" in out  # the table of the finished match
