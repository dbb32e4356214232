"""Ctrl-C (SIGINT) and SIGTERM on the real commands: one line on standard error instead of a
traceback, saying what was kept, and status 130 or 143. A real ``acpc-match`` run keeps its
finished matches and reports them (marked partial), every agent stopped; ``acpc-cfr solve``
saves the strategy reached; the dealer's log keeps the hands played."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.models.cfr.abstraction import all_deals
from acpc_arena.models.cfr.checkpoint import load_policy
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state
from tests.helpers.processes import (
    Dealer,
    ScriptedPlayer,
    default_sigint,
    program,
    spawn,
    start_agent,
    start_dealer,
    wait_until,
)

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
    process = spawn(
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
    wait_until(lambda: all(_gone(pid) for pid in agents), 10, f"the end of the agents {agents}")

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


# -- every command: one line on standard error, status 128 + the signal -----------------------------

SIGNALS = pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
BAR = re.compile(r"\s*\d+%\|.*\|")
"""A line of tqdm's progress bar."""


@dataclass
class Stopped:
    status: int
    out: str
    err: str
    err_after: str
    """What the command wrote on standard error after the signal was sent."""


def signal_when(
    command: list[str],
    marker: str,
    signum: signal.Signals,
    cwd: Path,
    stream: str = "stderr",
    terminal: bool = False,
) -> Stopped:
    """Run ``command`` in ``cwd`` (Ctrl-C's default action, as from a terminal) and send it ``signum``
    once ``marker`` shows on its standard error (``stream="stdout"``: output); wait for its end. With
    ``terminal``, its standard error is a terminal (a pseudo-terminal's), where the commands show progress."""
    master, slave = pty.openpty() if terminal else (None, None)
    process = spawn(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE if slave is None else slave,
        preexec_fn=default_sigint, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    if slave is not None:
        os.close(slave)
    texts = {"stdout": bytearray(), "stderr": bytearray()}

    def read(name: str) -> None:
        pipe = process.stdout if name == "stdout" else process.stderr
        fd = master if name == "stderr" and master is not None else pipe.fileno() if pipe is not None else -1
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # a pseudo-terminal's end, once the command has closed it
                break
            if not chunk:
                break
            texts[name] += chunk

    readers = [threading.Thread(target=read, args=(name,), daemon=True) for name in texts]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + 300  # a loaded machine starts slowly
    while marker.encode() not in texts[stream]:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"no {marker!r} before the end or in time: {bytes(texts['stderr']).decode()}")
        time.sleep(0.02)
    sent_at = len(texts["stderr"])
    process.send_signal(signum)
    process.wait(timeout=120)
    for reader in readers:
        reader.join(timeout=10)
    if master is not None:
        os.close(master)
    err = bytes(texts["stderr"]).decode()
    return Stopped(process.returncode, bytes(texts["stdout"]).decode(), err, err[sent_at:])


@SIGNALS
def test_acpc_web_stops_with_one_line(tmp_path: Path, signum: signal.Signals) -> None:
    stopped = signal_when(
        [program("acpc-web"), "--port", "0", "--out", str(tmp_path / "web")], "(Ctrl-C stops)\n", signum, tmp_path
    )
    assert stopped.status == 128 + signum, stopped.err
    assert stopped.err_after == (
        f"acpc-web: interrupted by {signum.name}: the pages are down; the games played here are logged in "
        f"{tmp_path / 'web'}\n"
    )


def test_ctrl_c_ends_the_pages_acpc_match_keeps_up_after_its_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    stopped = signal_when(
        [program("acpc-match"), "--a", "call", "--b", "raise", "--game", "kuhn.limit.2p", "--seeds", "1",
         "--hands", "20", "--web", "0", "--quiet", "--no-plots", "--out", str(run)],
        "until Ctrl-C\n", signal.SIGINT, tmp_path,
    )  # fmt: skip
    assert stopped.status == 130, stopped.err
    assert stopped.err_after == (
        f"acpc-match: interrupted by SIGINT: the run had ended (status 0); its logs and report are in {run}\n"
    )
    report = json.loads((run / "report.json").read_text())
    assert report["partial"] is False and [m["hands"] for m in report["matches"]] == [20, 20]


def test_ctrl_c_stops_acpc_lbr_with_one_line(tmp_path: Path) -> None:
    """On a terminal (where acpc-lbr shows its progress): one line after the progress, ending it."""
    deals = 100_000  # minutes of play: it is still playing when the signal comes
    stopped = signal_when(
        [program("acpc-lbr"), "cfr", "--game", "leduc.limit.2p", "--hands", str(deals)],
        f"\r50/{deals} deals", signal.SIGINT, tmp_path, terminal=True,
    )  # fmt: skip
    assert stopped.status == 130, stopped.err
    lines = [line for line in stopped.err_after.replace("\r", "\n").splitlines() if line]
    *progress, last = lines
    assert all(re.fullmatch(rf"\d+/{deals} deals", line) for line in progress)
    found = re.fullmatch(rf"acpc-lbr: interrupted by SIGINT: stopped after (\d+) of {deals} deals; no result", last)
    assert found is not None, last
    assert 50 <= int(found.group(1)) < deals
    assert stopped.out == ""  # no result printed


@SIGNALS
def test_acpc_cfr_solve_saves_the_strategy_reached(tmp_path: Path, signum: signal.Signals) -> None:
    out = tmp_path / "leduc.npz"
    asked = 10_000_000  # hours of iterations: it is still solving when the signal comes
    stopped = signal_when(
        [program("acpc-cfr"), "solve", "--game", "leduc.limit.2p", "--iterations", str(asked), "--out", str(out)],
        "iteration 100: exploitability", signum, tmp_path, stream="stdout",
    )  # fmt: skip
    assert stopped.status == 128 + signum, stopped.err
    told = [line for line in stopped.err.replace("\r", "\n").splitlines() if line.strip() and not BAR.match(line)]
    assert len(told) == 1, stopped.err  # besides the progress bar (the progress lines go to standard output)
    found = re.fullmatch(
        rf"acpc-cfr: interrupted by {signum.name}: "
        rf"the average strategy of (\d+) iterations saved in {re.escape(str(out))}",
        told[0],
    )
    assert found is not None, told[0]
    iterations = int(found.group(1))
    assert 100 <= iterations < asked  # the progress line of iteration 100 came before the signal
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["iterations"] == iterations and meta["interrupted"] is True
    # The file holds the average strategy of exactly that many whole iterations: a solver run as long gives it.
    policy = load_policy(out)
    solver = Solver(policy.tree, policy.abstraction, "cfr+", worlds=all_deals(policy.game))
    solver.iterate(iterations)
    assert np.allclose(policy.strategy, solver.average_strategy(), atol=1e-6)
    # The commands that read checkpoints take it: exploitability, and the cfr agent (exact LBR).
    done = subprocess.run([program("acpc-cfr"), "exploitability", str(out)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("exploitability "), done.stderr
    done = subprocess.run(
        [program("acpc-lbr"), "cfr", "--game", "leduc.limit.2p", "--checkpoint", str(out), "--exact"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "(exact)" in done.stdout, done.stderr


def test_ctrl_c_on_acpc_train_cfr_saves_the_strategy_reached(tmp_path: Path) -> None:
    stopped = signal_when(
        [program("acpc-train"), "cfr", "--only", "cfr-leduc"], "iteration 500: exploitability", signal.SIGINT,
        tmp_path, stream="stdout",
    )  # fmt: skip
    assert stopped.status == 130, stopped.err
    told = [line for line in stopped.err.replace("\r", "\n").splitlines() if line.strip() and not BAR.match(line)]
    assert len(told) == 1, stopped.err  # besides the progress bar (the progress lines go to standard output)
    found = re.fullmatch(
        r"acpc-train: interrupted by SIGINT: "
        r"the average strategy of (\d+) iterations saved in runs/train/cfr-leduc\.npz",
        told[0],
    )
    assert found is not None, told[0]
    assert json.loads((tmp_path / "runs/train/cfr-leduc.json").read_text())["iterations"] == int(found.group(1))


class _Stalling:
    """Seat 2 of a Kuhn match over TCP: it checks or calls through ``hands`` hands, then waits at its next turn."""

    def __init__(self, port: int, hands: int) -> None:
        self.player = ScriptedPlayer(port)
        self.player.send("VERSION:2.0.0\r\n")
        game = load_game("kuhn.limit.2p")
        finished = 0
        while True:
            line = self.player.receive()
            view = parse_match_state(line, game)
            finished += view.state.finished
            if not view.state.finished and view.state.current_player == view.viewer:
                if finished == hands:
                    return
                self.player.send(f"{line}:c\r\n")


def _stalled_match(tmp_path: Path, hands: int) -> tuple[Dealer, subprocess.Popen[str], _Stalling]:
    """A Kuhn match of 10 hands between ``acpc-agent call`` and a seat that stalls after ``hands`` hands."""
    dealer = start_dealer(tmp_path, "m", "kuhn.limit.2p", "10", "1", "call", "stalling", "-q")
    agent = start_agent("call", dealer.ports[0], "--game", "kuhn.limit.2p")
    return dealer, agent, _Stalling(dealer.ports[1], hands)


@SIGNALS
def test_the_dealer_stops_with_one_line_and_keeps_the_hands_played(tmp_path: Path, signum: signal.Signals) -> None:
    dealer, agent, stalling = _stalled_match(tmp_path, hands=3)
    try:
        dealer.process.send_signal(signum)
        status, _, err = dealer.wait(timeout=60)
    finally:
        stalling.player.close()
        agent.kill()
        agent.communicate()
    assert status == 128 + signum
    header, told = err.splitlines()[:4], err.splitlines()[4:]
    assert all(line.startswith("#") for line in header)
    assert told == [f"acpc-dealer: interrupted by {signum.name}: the log keeps the hands played (m.log)"]
    log = (tmp_path / "m.log").read_text().splitlines()
    assert len([line for line in log if line.startswith("STATE:")]) == 3
    assert not any(line.startswith("SCORE:") for line in log)


@SIGNALS
def test_an_agent_leaves_the_match_with_one_line(tmp_path: Path, signum: signal.Signals) -> None:
    dealer, agent, stalling = _stalled_match(tmp_path, hands=1)
    try:
        agent.send_signal(signum)
        _, err = agent.communicate(timeout=60)
    finally:
        stalling.player.close()
        dealer.process.kill()
        dealer.wait()
    assert agent.returncode == 128 + signum
    assert err == f"acpc-agent: interrupted by {signum.name}: call left the match\n"
