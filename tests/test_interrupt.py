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

HANDS = 1000


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


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_keeps_its_finished_matches(tmp_path: Path, signum: signal.Signals) -> None:
    run = tmp_path / "run"
    process = subprocess.Popen(
        [program("acpc-match"), "--a", "raise", "--b", "call", "--seeds", "1,2", "--hands", str(HANDS),
         "--concurrency", "1", "--quiet", "--no-plots", "--out", str(run)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    names = ["seed1-a1", "seed1-a2", "seed2-a1", "seed2-a2"]
    deadline = time.monotonic() + 600  # a loaded machine plays slowly
    # One match finished, the next one being played (its log has hands) by two fresh agents.
    while True:
        texts = {name: (run / f"{name}.log").read_text() for name in names if (run / f"{name}.log").exists()}
        finished = [name for name, text in texts.items() if "\nSCORE:" in text]
        playing = [name for name, text in texts.items() if "\nSTATE:" in text and name not in finished]
        if finished and playing and len(agents := _children(process.pid)) >= 2:
            break
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the run ended or took too long: {process.communicate()}")
        time.sleep(0.02)
    if signum == signal.SIGINT:
        os.killpg(process.pid, signum)  # what a terminal does on Ctrl-C
    else:
        process.send_signal(signum)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err and "Traceback" not in out
    assert err.strip().splitlines() == [
        f"acpc-match: interrupted by {signum.name}: {len(finished)} of 4 matches finished; "
        "the report covers those (marked partial)"
    ]
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in agents):
        assert time.monotonic() < deadline, f"agents left running: {[p for p in agents if not _gone(p)]}"
        time.sleep(0.05)

    report = json.loads((run / "report.json").read_text())
    assert report["partial"] is True and report["interrupted_by"] == signum.name
    reported = [(f"seed{m['seed']}-a{m['a_seat']}", m["hands"], m["finished"]) for m in report["matches"]]
    assert reported == [(name, HANDS, True) for name in finished]
    assert report["unfinished_matches"] == [name for name in names if name not in finished]
    # The interrupted match's log keeps the hands it played, whole lines, without a SCORE line.
    (interrupted_name,) = playing
    interrupted = (run / f"{interrupted_name}.log").read_text()
    assert interrupted.endswith("\n") and "\nSCORE:" not in interrupted
    assert interrupted.count("\nSTATE:") < HANDS
    assert f"\n{len(finished)} matches, " in out  # the table of the finished match
