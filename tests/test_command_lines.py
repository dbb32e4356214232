"""The command lines' rough edges: help, bad values named in words, external bots that never
come, make's targets, the benchmark sections, training that leaves the shipped checkpoints
alone, and a run's output after an agent fails."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import REPO, program


def _run(*command: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_dealer_help(flag: str) -> None:
    done = _run(program("acpc-dealer"), flag)
    assert done.returncode == 0 and done.stderr == ""
    assert "acpc-dealer matchName gameDefFile #Hands rngSeed p1name p2name" in done.stdout
    assert "--metrics-port PORT" in done.stdout and "--metrics-linger SECONDS" in done.stdout


def test_dealer_metrics_port_out_of_range() -> None:
    done = _run(program("acpc-dealer"), "m", "kuhn", "10", "1", "A", "B", "--metrics-port", "99999")
    assert done.returncode == 1
    assert done.stderr == "ERROR: invalid --metrics-port 99999\n"


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--hands", "x", "must be a whole number above 0: 'x'"),
        ("--hands", "0", "must be a whole number above 0: '0'"),
        ("--concurrency", "two", "must be a whole number above 0: 'two'"),
        ("--metrics-port", "99999", "must be a port number from 1 to 65535: '99999'"),
        ("--metrics-port", "http", "must be a port number from 1 to 65535: 'http'"),
        ("--metrics-linger", "-1", "must be a number of seconds, 0 or more: '-1'"),
        ("--external-timeout", "soon", "must be a number of seconds, 0 or more: 'soon'"),
        ("--t-response", "1.5", "must be a whole number above 0: '1.5'"),
    ],
)
def test_match_bad_values_are_named_in_words(option: str, value: str, words: str) -> None:
    done = _run(program("acpc-match"), "--a", "call", "--b", "call", option, value)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"acpc-match: error: argument {option}: {words}"


def test_lbr_bad_value_names_no_function() -> None:
    done = _run(program("acpc-lbr"), "call", "--hands", "many")
    assert done.returncode == 2
    assert "invalid _" not in done.stderr and "must be a whole number above 0: 'many'" in done.stderr


def test_external_bot_that_never_comes(tmp_path: Path) -> None:
    started = time.monotonic()
    done = _run(
        program("acpc-match"), "--a", "call", "--b-external", "--seeds", "9", "--hands", "10", "--game", "kuhn",
        "--external-timeout", "1", "--quiet", "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert time.monotonic() - started < 60
    assert done.returncode == 1
    waits = re.findall(r"b-external: connect an ACPC bot to 127\.0\.0\.1 (\d+) .*waiting up to 1 s", done.stdout)
    assert len(waits) == 2  # one port a match
    for port in waits:
        assert f"b-external did not connect to port {port} within 1 s" in done.stderr


def test_make_help_lists_every_target() -> None:
    done = _run("make", "-s", "help", cwd=REPO)
    assert done.returncode == 0, done.stderr
    (phony,) = re.findall(r"^\.PHONY: (.+)$", (REPO / "Makefile").read_text(), re.MULTILINE)
    listed = re.findall(r"^  make (\S+) ", done.stdout, re.MULTILINE)
    assert sorted(listed) == sorted(phony.split())


def test_bench_names_its_sections_for_an_unknown_one() -> None:
    done = _run(sys.executable, "-m", "tests.bench", "nosuch", cwd=REPO)
    assert done.returncode == 1
    assert done.stderr.startswith("bench: no section nosuch; the sections: evaluator engine dealer runner")


def test_training_leaves_the_shipped_checkpoint_alone(tmp_path: Path) -> None:
    shipped = REPO / "models" / "checkpoints" / "cfr-kuhn.npz"
    before = hashlib.sha256(shipped.read_bytes()).hexdigest()
    done = _run(program("acpc-train"), "cfr", "--only", "cfr-kuhn", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert hashlib.sha256(shipped.read_bytes()).hexdigest() == before
    assert (tmp_path / "runs" / "train" / "cfr-kuhn.npz").stat().st_size > 0
    assert "--install" in done.stdout and "make train AGENT=cfr INSTALL=1" in done.stdout


CRASHING_BOT = """
import socket, sys
sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
sock.sendall(b"VERSION:2.0.0\\r\\n")
sock.recv(1)
print("crashing on purpose", file=sys.stderr)
sys.exit(3)
"""


def test_a_failing_agent_is_told_once_and_its_opponent_not_at_all(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(CRASHING_BOT)
    done = _run(
        program("acpc-match"), "--a", "crasher", "--a-cmd", f"{sys.executable} {bot} {{host}} {{port}}",
        "--b", "call", "--seeds", "1,2", "--hands", "20", "--quiet", "--no-plots", "--out", str(tmp_path / "run"),
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1
    assert output.count("match seed") == 4  # every match failed, each told once
    assert output.count("crashing on purpose") == 1
    assert "b-call exited" not in output and "connection lost" not in output  # the opponent hung up on is no news
