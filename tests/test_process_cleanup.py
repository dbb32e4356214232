"""A process a test starts through ``tests/helpers/processes.py`` ends with the test: when the test fails, when
the run is interrupted, and when the test's wait on its dealer runs out."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.processes import (
    REPO,
    START_TIMEOUT_MS,
    dealer_args,
    default_sigint,
    program,
    read_ports,
    spawn,
    start_dealer,
    wait_until,
    worker_ports,
)

NESTED_TEST = """
import os
from pathlib import Path

from tests.helpers.processes import start_dealer


def test_with_a_dealer_whose_players_never_come(tmp_path):
    dealer = start_dealer(tmp_path, "m", "kuhn", "10", "1", "A", "B", "-q", "--start_timeout", "-1")
    assert dealer.process.poll() is None
    (tmp_path / "pid").write_text(str(dealer.process.pid))
    os.replace(tmp_path / "pid", os.environ["DEALER_PID_FILE"])
    if os.environ["ENDING"] == "fail":
        assert False, "the test fails with its dealer waiting"
    dealer.wait(timeout=600)
"""


def nested_run(folder: Path, ending: str) -> subprocess.Popen[str]:
    """pytest on a test that starts a dealer waiting forever for its players (``start_dealer``), writes
    the dealer's pid to ``folder/dealer.pid``, then fails (``ending="fail"``) or waits on the dealer."""
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "conftest.py").write_text("from tests.conftest import no_process_left, pytest_sessionstart\n")
    (folder / "test_nested.py").write_text(NESTED_TEST)
    return spawn(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={folder / 'tmp'}",
         str(folder / "test_nested.py")],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=default_sigint,
        env={**os.environ, "DEALER_PID_FILE": str(folder / "dealer.pid"), "ENDING": ending},
    )  # fmt: skip


def dealer_running(pid: int) -> bool:
    """``pid`` is a live (not zombie) ``acpc-dealer``."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return b"acpc-dealer" in command and state != "Z"


def waiting_in_poll(pid: int) -> bool:
    """Process ``pid`` sleeps in the kernel's ``poll`` (where ``communicate`` with a timeout waits on pipes);
    where the kernel does not say in what it sleeps (``wchan`` hidden: "0" or absent), that it sleeps."""
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text().strip()
    except OSError:
        wchan = ""
    return state == "S" and ("poll" in wchan or wchan in ("", "0"))


@contextlib.contextmanager
def killing_a_leaked_dealer(pid_file: Path) -> Iterator[None]:
    """Kill the dealer named in ``pid_file`` if the check failed and left it running."""
    try:
        yield
    finally:
        if pid_file.exists() and dealer_running(pid := int(pid_file.read_text())):
            os.kill(pid, signal.SIGKILL)


def test_a_failing_test_leaves_no_dealer_behind(tmp_path: Path) -> None:
    with killing_a_leaked_dealer(tmp_path / "dealer.pid"):
        run = nested_run(tmp_path, "fail")
        out, _ = run.communicate(timeout=120)
        assert run.returncode == 1 and "1 failed" in out, out
        assert "the test fails with its dealer waiting" in out, out
        pid = int((tmp_path / "dealer.pid").read_text())
        assert not dealer_running(pid), f"the dealer {pid} outlived the failed test"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_leaves_no_dealer_behind(tmp_path: Path, signum: signal.Signals) -> None:
    with killing_a_leaked_dealer(tmp_path / "dealer.pid"):
        run = nested_run(tmp_path, "wait")
        deadline = time.monotonic() + 120
        while not (tmp_path / "dealer.pid").exists():
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()[0]
            time.sleep(0.05)
        pid = int((tmp_path / "dealer.pid").read_text())
        wait_until(lambda: waiting_in_poll(run.pid), 60, "the nested test to be in its wait on the dealer")
        run.send_signal(signum)  # to pytest alone: a Ctrl-C the dealer does not get, or a kill
        out, _ = run.communicate(timeout=60)
        assert run.returncode == pytest.ExitCode.INTERRUPTED and "KeyboardInterrupt" in out, out
        assert not dealer_running(pid), f"the dealer {pid} outlived the interrupted run"


def test_a_dealer_still_running_after_its_wait_is_ended_and_the_test_told(tmp_path: Path) -> None:
    dealer = start_dealer(tmp_path, "m", "kuhn", "10", "1", "A", "B", "-q")
    argv = Path(f"/proc/{dealer.process.pid}/cmdline").read_bytes().split(b"\0")[:-1]
    assert argv[-2:] == [b"--start_timeout", START_TIMEOUT_MS.encode()]  # none given: the suite's
    with pytest.raises(AssertionError, match=r"still running after 0\.5 s, so the test ended it"):
        dealer.wait(timeout=0.5)
    assert dealer.process.returncode is not None
    assert not dealer_running(dealer.process.pid)


def test_a_dealer_that_prints_no_ports_is_ended_and_the_test_told(tmp_path: Path) -> None:
    dealer = spawn(
        [program("acpc-dealer"), *dealer_args("m", "kuhn", "10", "1", "A", "B", "-q")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    os.kill(dealer.pid, signal.SIGSTOP)  # stopped long before it could bind its seats: its ports never come
    with pytest.raises(AssertionError, match=r"^the dealer printed no ports line within 1 s, so the test ended it"):
        read_ports(dealer, timeout=1)
    assert dealer.returncode == -signal.SIGKILL  # deaf to SIGTERM while stopped
    assert not dealer_running(dealer.pid)


def test_a_dealer_that_ends_before_its_ports_fails_the_test_with_its_error(tmp_path: Path) -> None:
    with pytest.raises(AssertionError) as failure:
        start_dealer(tmp_path, "m", "nosuchgame", "10", "1", "A", "B")
    first, second = str(failure.value).splitlines()[:2]
    assert first == "the dealer ended (exit 1) before printing its ports line; its standard error ends:"
    assert second.startswith("ERROR: could not read game nosuchgame: no game file 'nosuchgame'")


def test_parallel_workers_probe_ports_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist each worker probes its own slice of 20000-32767: three workers, 4,256 ports each."""
    slices = []
    for worker in ("gw0", "gw1", "gw2"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        slices.append(worker_ports())
    assert [(s.start, s.stop) for s in slices] == [(20000, 24256), (24256, 28512), (28512, 32768)]
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT")
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert worker_ports() == range(20000, 32768)
