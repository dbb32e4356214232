"""The command lines' rough edges: help, bad values named in words, external bots that never
come, make's targets, the benchmark sections, training that leaves the shipped checkpoints
alone, and a run's output after an agent fails."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from acpc_arena.dealer.commands import dealer_options as dealer_cli
from acpc_arena.dealer.commands import match as match_cli
from acpc_arena.dealer.commands import tournament as tournament_cli
from tests.helpers.processes import REPO, error_lines, program, run_in_process

HANDS_MAX = 2**32 - 1
"""The C dealer reads the number of hands with ``sscanf("%" SCNu32)`` into a ``uint32_t`` and refuses 0."""


def _run(*command: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_dealer_help(flag: str) -> None:
    done = _run(program("acpc-dealer"), flag)
    assert done.returncode == 0 and done.stderr == ""
    assert "acpc-dealer matchName gameDefFile #Hands rngSeed p1name p2name" in done.stdout
    assert "--metrics-port PORT" in done.stdout and "--metrics-linger SECONDS" in done.stdout


_MODULES_AFTER = """
import json, runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exc:
    print(json.dumps({"status": exc.code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
"""Run the console script named first with the arguments after it; its exit status and every module
imported by then go to standard error as the last line (JSON)."""
HEAVY = {"numpy", "trio", "prometheus_client", "torch", "tqdm", "matplotlib"}
"""What a command's help and its answer to a bad command line never import: most of a command's start-up
time otherwise (``make bench SECTIONS=startup``)."""


@pytest.mark.parametrize(
    ("command", "module", "usage"),
    [
        (["acpc-dealer", "--help"], "acpc_arena.dealer.commands.dealer", "acpc-dealer matchName gameDefFile"),
        (["acpc-agent", "random", "--help"], "acpc_arena.agents.baselines", "usage: acpc-agent"),
        (["acpc-agent", "call", "--help"], "acpc_arena.agents.baselines", "usage: acpc-agent"),
        (["acpc-match", "--help"], "acpc_arena.dealer.arena.options", "usage: acpc-match"),
        (["acpc-tournament", "--help"], "acpc_arena.dealer.arena.options", "usage: acpc-tournament"),
        (["acpc-report", "--help"], "acpc_arena.dealer.commands.report", "usage: acpc-report"),
    ],
)
def test_help_starts_without_numpy_or_trio(command: list[str], module: str, usage: str) -> None:
    """The help of the dealer, of an agent and of the arena's commands is printed without importing any of
    ``HEAVY``; the installed console script runs."""
    done = _run(sys.executable, "-c", _MODULES_AFTER, program(command[0]), *command[1:])
    after = json.loads(done.stderr.splitlines()[-1])
    assert after["status"] == 0 and usage in done.stdout
    assert module in after["modules"]  # the list is real: it holds what the help needed (the agent's class)
    assert {name.split(".")[0] for name in after["modules"]} & HEAVY == set()


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (
            ["acpc-match", "--a", "call", "--b", "call", "--hands", "0"],
            f"acpc-match: error: argument --hands: must be a whole number from 1 to {HANDS_MAX} (as acpc-dealer "
            "takes): '0' (see acpc-match --help)",
        ),
        (
            ["acpc-tournament", "--agents", "call,raise", "--seeds", "1,1"],
            "acpc-tournament: error: argument --seeds: seeds must be distinct numbers from 0 to 2**32-1, not 1,1 "
            "(see acpc-tournament --help)",
        ),
        (["acpc-report", "missing.log"], "acpc-report: error: no such file: missing.log (see acpc-report --help)"),
    ],
)
def test_a_bad_command_line_is_answered_without_numpy_or_trio(command: list[str], error: str, tmp_path: Path) -> None:
    """The arena's commands refuse a bad command line in one line, before importing any of ``HEAVY``."""
    done = _run(sys.executable, "-c", _MODULES_AFTER, program(command[0]), *command[1:], cwd=tmp_path)
    *_, said, last = done.stderr.splitlines()
    after = json.loads(last)
    assert after["status"] == 2 and said == error
    assert {name.split(".")[0] for name in after["modules"]} & HEAVY == set()


def test_dealer_metrics_port_out_of_range() -> None:
    done = _run(program("acpc-dealer"), "m", "kuhn", "10", "1", "A", "B", "--metrics-port", "99999")
    assert done.returncode == 1
    assert done.stderr == "ERROR: invalid --metrics-port 99999\n"


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--hands", "x", f"must be a whole number from 1 to {HANDS_MAX} (as acpc-dealer takes): 'x'"),
        ("--hands", "0", f"must be a whole number from 1 to {HANDS_MAX} (as acpc-dealer takes): '0'"),
        ("--hands", "1e30", f"must be a whole number from 1 to {HANDS_MAX} (as acpc-dealer takes): '1e30'"),
        (
            "--hands",
            str(HANDS_MAX + 1),
            f"must be a whole number from 1 to {HANDS_MAX} (as acpc-dealer takes): '4294967296'",
        ),
        ("--concurrency", "two", "must be a whole number above 0: 'two'"),
        ("--metrics-port", "99999", "must be a port number from 1 to 65535: '99999'"),
        ("--metrics-port", "http", "must be a port number from 1 to 65535: 'http'"),
        ("--metrics-linger", "-1", "must be a number of seconds, 0 or more: '-1'"),
        ("--external-timeout", "soon", "must be a number of seconds, 0 or more: 'soon'"),
        ("--t-response", "1.5", "must be a whole number of milliseconds from 1 to 2^63: '1.5'"),
    ],
)
def test_match_bad_values_are_named_in_words(option: str, value: str, words: str) -> None:
    done = _run(program("acpc-match"), "--a", "call", "--b", "call", option, value)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"acpc-match: error: argument {option}: {words} (see acpc-match --help)"


@pytest.mark.parametrize("hands", ["1", str(HANDS_MAX), "0", str(HANDS_MAX + 1), "1" + "0" * 30, "-1"])
def test_acpc_match_takes_the_numbers_of_hands_acpc_dealer_takes(
    hands: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One rule for both, the C dealer's: a log header's hands is a count from 1 to ``HANDS_MAX``."""
    valid = 1 <= int(hands) <= HANDS_MAX
    for options in (["--a", "call", "--b", "call"], ["--agents", "call,raise"]):
        command = match_cli if options[0] == "--a" else tournament_cli
        try:
            command.parser().parse_args([*options, "--hands", hands])
            taken = True
        except SystemExit:
            taken = False
        assert taken == valid, capsys.readouterr().err
    try:
        dealer_cli.parse_args(["m", "kuhn", hands, "1", "A", "B"])
        taken = True
    except dealer_cli.UsageError:
        taken = False
    assert taken == valid


TIMEOUT_MAX = 2**63
"""The largest time limit acpc-dealer takes in milliseconds (its unsigned 64-bit reading, kept below 2^63 + 1)."""


@pytest.mark.parametrize("option", ["t-response", "t-hand", "t-per-hand"])
@pytest.mark.parametrize("ms", ["1", str(TIMEOUT_MAX), str(TIMEOUT_MAX + 1), "1" + "0" * 30])
def test_time_limits_follow_the_rule_acpc_dealer_follows(option: str, ms: str) -> None:
    """A time limit acpc-match or acpc-tournament takes goes into a log header acpc-dealer takes too."""
    valid = 1 <= int(ms) <= TIMEOUT_MAX
    for options in (["--a", "call", "--b", "call"], ["--agents", "call,raise"]):
        command = match_cli if options[0] == "--a" else tournament_cli
        try:
            command.parser().parse_args([*options, f"--{option}", ms])
            taken = True
        except SystemExit:
            taken = False
        assert taken == valid
    try:
        dealer_cli.parse_args(["m", "kuhn", "10", "1", "A", "B", f"--{option.replace('-', '_')}", ms])
        taken = True
    except dealer_cli.UsageError:
        taken = False
    assert taken == valid


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


def test_the_port_line_is_a_line_of_its_own_in_a_pipe(tmp_path: Path) -> None:
    """Without ``--quiet``, standard output and error in one pipe (``2>&1 | cut -d' ' -f8``): no progress bar
    off a terminal, so each port line is whole and its eighth word is the port."""
    done = subprocess.run(
        [program("acpc-match"), "--a", "call", "--b-external", "--seeds", "9", "--hands", "10", "--game", "kuhn",
         "--external-timeout", "0.5", "--no-plots", "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
    )  # fmt: skip
    output = done.stdout.decode()  # as bytes: text mode would read a carriage return as a line's end
    assert "\r" not in output
    waits = [line for line in output.split("\n") if "connect an ACPC bot" in line]
    assert len(waits) == 2  # one a match
    for line in waits:
        assert re.fullmatch(r"b-external: connect an ACPC bot to 127\.0\.0\.1 (\d+) \(match .*", line)
        assert line.split(" ")[7].isdigit()


def test_make_help_lists_every_target() -> None:
    done = _run("make", "-s", "help", cwd=REPO)
    assert done.returncode == 0, done.stderr
    (phony,) = re.findall(r"^\.PHONY: (.+)$", (REPO / "Makefile").read_text(), re.MULTILINE)
    listed = re.findall(r"^  make (\S+) ", done.stdout, re.MULTILINE)
    assert sorted(listed) == sorted(phony.split())


MAKE_RUNS = {  # target, its variables, the command it runs, that command's parser
    "match": (["SEEDS=1, 234", "A=call", "B=raise", "OUT=my run"], "acpc-match", match_cli.parser),
    "tournament": (["SEEDS=1, 234", "AGENTS=call, raise", "OUT=my run"], "acpc-tournament", tournament_cli.parser),
    "spar": (["SEEDS=1, 234", "OUT=my run"], "acpc-tournament", tournament_cli.parser),
}


@pytest.mark.parametrize(
    ("target", "variables", "command", "parser"), [(t, *run) for t, run in MAKE_RUNS.items()], ids=MAKE_RUNS.keys()
)
def test_make_passes_each_variable_as_one_argument(
    target: str, variables: list[str], command: str, parser: Callable[[], argparse.ArgumentParser]
) -> None:
    """``make match SEEDS="1, 234"`` (a space after the comma, as a person writes a list) runs the command with
    the seeds 1 and 234 and the folder named whole (``make -n`` shows the command without running it)."""
    done = _run("make", "-n", target, *variables, cwd=REPO)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.replace("\\\n", " ").splitlines() if f"bin/{command} " in line]
    args = parser().parse_args(shlex.split(line)[1:])
    assert args.seeds == (1, 234) and args.out == Path("my run")


def test_bench_names_its_sections_for_an_unknown_one() -> None:
    done = _run(sys.executable, "-m", "benchmarks", "nosuch", cwd=REPO)
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


LOG = REPO / "tests" / "data" / "acpc_match_limit" / "seed7-a1.log"
USAGE_ERRORS = {
    "agent: unknown agent": (["acpc-agent", "nope", "127.0.0.1", "9"], "ERROR: agent 'nope': not a shipped agent"),
    "agent: unknown game": (
        ["acpc-agent", "call", "127.0.0.1", "9", "--game", "nope.game"],
        "no game file 'nope.game'",
    ),
    "agent: bad option": (["acpc-agent", "rule", "127.0.0.1", "9", "--threshold", "high"], "invalid float value"),
    "agent: --build, a checkpoint of another game": (
        ["acpc-agent", "cfr", "--build", "--checkpoint", "cfr-leduc"],
        "ERROR: checkpoint cfr-leduc is for leduc.limit.2p, not for holdem.limit.2p.reverse_blinds",
    ),
    "match: unknown agent": (["acpc-match", "--a", "nope", "--b", "call"], "--a: agent 'nope': not a shipped agent"),
    "match: unknown game": (["acpc-match", "--a", "call", "--b", "call", "--game", "nope.game"], "nope.game"),
    "match: bad option": (["acpc-match", "--a", "call", "--b", "call", "--seeds", "x"], "argument --seeds"),
    "match: --cmd and --external": (
        ["acpc-match", "--a", "x", "--a-cmd", "y {host} {port}", "--a-external", "--b", "call"],
        "--a-cmd and --a-external exclude each other",
    ),
    "match: a field the command templates do not have": (
        ["acpc-match", "--a", "call", "--b", "mine", "--b-cmd", "./bot {host} {nope}"],
        "command './bot {host} {nope}': {nope} is not a field (the fields are {host} {port} {game} {seed}",
    ),
    "match: a lone brace in a command": (
        ["acpc-match", "--a", "call", "--b", "mine", "--b-cmd", "./bot {port"],
        "command './bot {port': a lone brace in '{port'",
    ),
    "match: a stray closing brace in a command": (
        ["acpc-match", "--a", "mine", "--a-cmd", "./bot } {port}", "--b", "call"],
        "command './bot } {port}': a lone brace in '}'",
    ),
    "match: a command's unclosed quote": (
        ["acpc-match", "--a", "mine", "--a-cmd", "./bot '{port}", "--b", "call"],
        "no closing quotation",
    ),
    "match: a command without {port}": (
        ["acpc-match", "--a", "call", "--b", "mine", "--b-cmd", "./bot {host}"],
        "argument --b-cmd: command './bot {host}': no {port} in it",
    ),
    "match: a command without {host} and {port}": (
        ["acpc-match", "--a", "mine", "--a-cmd", "./bot 127.0.0.1 18000", "--b", "call"],
        "argument --a-cmd: command './bot 127.0.0.1 18000': no {host} and no {port} in it",
    ),
    "tournament: a command without {host}": (
        ["acpc-tournament", "--agents", "call", "--cmd", "mine=./bot {port}"],
        "argument --cmd: command './bot {port}': no {host} in it",
    ),
    "tournament: a field the command templates do not have": (
        ["acpc-tournament", "--agents", "call", "--cmd", "mine=./bot {port} {nope}"],
        "command './bot {port} {nope}': {nope} is not a field",
    ),
    "tournament: more hands than acpc-dealer takes": (
        ["acpc-tournament", "--agents", "call,raise", "--hands", str(HANDS_MAX + 1)],
        f"argument --hands: must be a whole number from 1 to {HANDS_MAX}",
    ),
    "tournament: unknown agent": (["acpc-tournament", "--agents", "nope,call"], "agent 'nope': not a shipped agent"),
    "tournament: unknown game": (["acpc-tournament", "--agents", "call,raise", "--game", "nope.game"], "nope.game"),
    "tournament: bad option": (["acpc-tournament", "--agents", "call,raise", "--workers", "0"], "argument --workers"),
    "lbr: unknown agent": (["acpc-lbr", "nope"], "agent 'nope': not a shipped agent"),
    "lbr: unknown game": (["acpc-lbr", "cfr", "--game", "nope.game"], "no game file 'nope.game'"),
    "lbr: not heads-up": (["acpc-lbr", "cfr", "--game", "kuhn.limit.3p"], "heads-up"),
    "lbr: bad option": (["acpc-lbr", "cfr", "--rollouts", "0"], "argument --rollouts"),
    "cfr: unknown game": (["acpc-cfr", "solve", "--game", "nope.game", "--out", "x.npz"], "no game file 'nope.game'"),
    "cfr: bad option": (["acpc-cfr", "solve", "--game", "leduc", "--iterations", "0", "--out", "x"], "--iterations"),
    "cfr: missing file": (["acpc-cfr", "exploitability", "nope.npz"], "nope.npz: no such checkpoint file"),
    "train: unknown agent": (["acpc-train", "nope"], "invalid choice: 'nope'"),
    "train: bad option": (
        ["acpc-train", "dqn", "--preset", "tuned", "--mc-mix", "3"],
        "Monte Carlo mix must be a number from 0 to 1",
    ),
    "train: an option of another preset": (
        ["acpc-train", "dqn", "--mc-mix", "0.5"],
        "--mc-mix set Q-learning (--preset tuned, faithful or dqfd), not",
    ),
    "train: missing file": (["acpc-train", "poker_cnn", "--data", "nope.npz"], "nope.npz"),
    "report: unknown game": (["acpc-report", "--game", "nope.game", str(LOG)], "no game file 'nope.game'"),
    "report: missing file": (["acpc-report", "nope.log"], "no such file: nope.log"),
    "report: bad option": (["acpc-report", "--player", "x", "--a", "y", str(LOG)], "--a and --plots"),
    "web: missing file": (["acpc-web", "nope"], "no such file or folder: nope"),
    "web: bad option": (["acpc-web", "--port", "99999"], "argument --port"),
}


@pytest.mark.parametrize(("command", "words"), USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_a_usage_error_is_status_2_and_one_line(tmp_path: Path, command: list[str], words: str) -> None:
    """As argparse's own errors: a wrong agent, game, option value or file named is status 2 with one line
    (after argparse's usage), on every command (``acpc-dealer`` keeps the C dealer's 1: test_dealer_cli). Each
    command's ``main`` runs in this process; test_a_bad_command_line_is_answered_without_numpy_or_trio runs them
    as processes."""
    done = run_in_process(*command, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert words in line


CHECKPOINTS = {  # agent, game, the file looked for when --checkpoint names "nope"
    "cfr": ("cfr", "leduc.limit.2p", "nope.npz"),
    "lstm_dqn": ("lstm_dqn", "holdem.limit.2p.reverse_blinds", "nope.pt"),
    "dqn": ("dqn", "holdem.limit.2p.reverse_blinds", "nope.pt"),
    "poker_cnn": ("poker_cnn", "holdem.limit.2p.reverse_blinds", "nope.pt"),
    "nfq": ("nfq", "holdem.limit.2p.reverse_blinds", "nope.pt"),
    "ensemble": ("ensemble", "holdem.nolimit.2p.reverse_blinds", "nope.pt"),
}


@pytest.mark.parametrize(("agent", "game", "looked_for"), CHECKPOINTS.values(), ids=CHECKPOINTS.keys())
def test_a_missing_checkpoint_is_named_as_missing(tmp_path: Path, agent: str, game: str, looked_for: str) -> None:
    """A checkpoint file that does not exist is told as such, naming it (one line, status 2); one that
    exists without its description beside it is told that (here: an empty file)."""
    command = ["acpc-agent", agent, "127.0.0.1", "9", "--game", game, "--checkpoint", str(tmp_path / "nope")]
    done = run_in_process(*command, cwd=tmp_path)  # test_the_reported_missing_dqn_checkpoint: as a process
    assert done.returncode == 2
    assert done.stderr == f"ERROR: {agent}: {tmp_path / looked_for}: no such checkpoint file" + (
        " (shipped checkpoints: cfr-ehs2, cfr-ehs2-exact, cfr-improved, cfr-kuhn, cfr-kuhn3p, cfr-leduc, cfr-nl, "
        "cfr-traditional)\n"
        if agent == "cfr"
        else "\n"
    )
    (tmp_path / looked_for).touch()
    done = run_in_process(*command, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{tmp_path / 'nope.json'}: no description beside the checkpoint" in done.stderr


def test_the_reported_missing_dqn_checkpoint(tmp_path: Path) -> None:
    done = _run(
        program("acpc-match"), "--a", "dqn", "--b", "random", "--a-args", f"--checkpoint {tmp_path / 'nope.pt'}",
        "--hands", "10", "--seeds", "1", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.endswith(f": {tmp_path / 'nope.pt'}: no such checkpoint file\n")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


RUNTIME_FAILURES = {
    "cfr: checkpoint not written": (["acpc-cfr", "solve", "--game", "kuhn", "--iterations", "10", "--out"], "x.npz"),
    "lbr: result not written": (["acpc-lbr", "cfr", "--game", "kuhn", "--exact", "--json"], "result.json"),
}


@pytest.mark.parametrize(("command", "name"), RUNTIME_FAILURES.values(), ids=RUNTIME_FAILURES.keys())
def test_an_unwritable_output_is_status_1_and_one_line(tmp_path: Path, command: list[str], name: str) -> None:
    """A failure at run time (here the result cannot be written: a file stands where its folder should) is
    status 1, told in one line naming the place."""
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be\n")
    done = _run(program(command[0]), *command[1:], str(blocker / name), cwd=tmp_path)
    assert done.returncode == 1
    assert len([line for line in done.stderr.replace("\r", "\n").splitlines() if str(blocker) in line]) == 1
    assert "Traceback" not in done.stderr


def test_build_makes_the_agent_and_plays_nothing() -> None:
    """``acpc-agent --build``: the agent built for the game named (no dealer to connect to), status 0, silent."""
    done = subprocess.run(
        [program("acpc-agent"), "cfr", "--build", "--game", "leduc.limit.2p", "--checkpoint", "cfr-leduc"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
