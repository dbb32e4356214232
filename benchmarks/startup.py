"""The commands' start-up time beside the interpreter's own, and the neural agents' time to a first action."""

from __future__ import annotations

import json
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.timing import Row


def bench_startup() -> Iterator[Row]:
    """Start-up of the commands' help (and of acpc-dealer's answer to a bad command line), median wall seconds
    of interleaved runs beside ``python -c pass`` (goal: at most 0.1 s over it); then the neural agents' time
    to a first action (``bench_agent_startup``)."""
    bin_dir = Path(sys.executable).parent
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "acpc-dealer --help": [str(bin_dir / "acpc-dealer"), "--help"],
        "acpc-dealer, a bad command line": [str(bin_dir / "acpc-dealer"), "m", "kuhn", "many", "1", "a", "b"],
        "acpc-match --help": [str(bin_dir / "acpc-match"), "--help"],
        "acpc-agent random --help": [str(bin_dir / "acpc-agent"), "random", "--help"],
    }
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(11):  # alternating, so a busy moment slows each command alike
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds[name].append(time.perf_counter() - start)
    base = statistics.median(seconds["python -c pass"])
    for name, runs in seconds.items():
        median = statistics.median(runs)
        over = f"+{median - base:.3f} s over python -c pass (goal <= +0.100)"
        note = "the interpreter alone" if name == "python -c pass" else over
        yield (f"start-up: {name}", f"{median:.3f} s", f"median of {len(runs)}; {note}")
    yield from bench_agent_startup()


NEURAL = ("lstm_dqn", "dqn", "nfq", "poker_cnn", "ensemble")
"""The agents whose start is mostly torch's import (``dealer.arena.warm_agents.WARM_AGENTS``)."""
FIRST_ACTION_GOAL_S = 1.5
FIRST_STATE = b"MATCHSTATE:1:0::|AhKs\r\n"
"""A hand's first state in heads-up hold'em with reversed blinds (limit or no-limit), where seat 2 acts first."""
ROUNDS = 7


def bench_agent_startup() -> Iterator[Row]:
    """From starting ``acpc-agent AGENT HOST PORT`` to its first action read by a listener on PORT, for each
    neural agent, and from asking a warm process (``agents.warm``) that has imported them all to its child's
    first action: median wall seconds of interleaved runs (goal: at most 1.5 s), and the processor seconds of the
    whole fresh process (its end after the first action included). Then a run's saving."""
    program = str(Path(sys.executable).parent / "acpc-agent")
    fresh: dict[str, list[float]] = {agent: [] for agent in NEURAL}
    processor: dict[str, list[float]] = {agent: [] for agent in NEURAL}
    children: dict[str, list[float]] = {agent: [] for agent in NEURAL}
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        warm = subprocess.Popen([program, "--warm", *NEURAL], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _child_first_action(warm, listener, "random")  # the warm process's imports done before any measure
        for _ in range(ROUNDS):  # alternating, so a busy moment slows each alike
            for agent in NEURAL:
                before, start = _processor_seconds(), time.perf_counter()
                process = subprocess.Popen([program, agent, "127.0.0.1", str(port)], stderr=subprocess.DEVNULL)
                fresh[agent].append(_first_action(listener, start))
                process.wait()
                processor[agent].append(_processor_seconds() - before)
                children[agent].append(_child_first_action(warm, listener, agent))
        assert warm.stdin is not None
        warm.stdin.close()
        warm.wait()
    for agent in NEURAL:
        median = statistics.median(fresh[agent])
        verdict = "met" if median <= FIRST_ACTION_GOAL_S else "not met"
        yield (
            f"start-up: acpc-agent {agent} to its first action",
            f"{median:.3f} s",
            f"median of {ROUNDS} (goal <= {FIRST_ACTION_GOAL_S} s: {verdict}), the process "
            f"{statistics.median(processor[agent]):.2f} s of processor time; "
            f"a warm process's child: {statistics.median(children[agent]):.3f} s",
        )
    yield _warm_run_row()


def _first_action(listener: socket.socket, start: float) -> float:
    """Seconds from ``start`` until the agent that connects to ``listener`` answers ``FIRST_STATE``; it then
    leaves (its connection closed)."""
    connection, _ = listener.accept()
    with connection, connection.makefile("rb") as lines:
        lines.readline()  # VERSION:2.0.0
        connection.sendall(FIRST_STATE)
        lines.readline()
        return time.perf_counter() - start


def _child_first_action(warm: subprocess.Popen[bytes], listener: socket.socket, agent: str) -> float:
    """``_first_action`` of a child of ``warm`` playing ``agent``, from the request; waits for the child's end."""
    assert warm.stdin is not None and warm.stdout is not None
    request = {"id": 0, "argv": [agent, "127.0.0.1", str(listener.getsockname()[1])], "err": "/dev/null"}
    start = time.perf_counter()
    warm.stdin.write(json.dumps(request).encode() + b"\n")
    warm.stdin.flush()
    seconds = _first_action(listener, start)
    warm.stdout.readline()
    return seconds


def _warm_run_row() -> Row:
    """A run of lstm_dqn against dqn over TCP (8 matches of 100 hands, 2 at once) with a warm process and with an
    ``acpc-agent`` process a seat a match: medians of interleaved runs, wall and processor seconds."""
    import trio  # the runner's: imported by the run rows alone

    from acpc_arena.dealer.arena.contestants import Contestant
    from acpc_arena.dealer.arena.runner import RunSpec, run_matches
    from acpc_arena.protocol.game import load_game, resolve_game_path

    game = "holdem.limit.2p.reverse_blinds"
    runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for round_ in range(3):
        for warm in (True, False) if round_ % 2 == 0 else (False, True):
            with tempfile.TemporaryDirectory() as out:
                spec = RunSpec(
                    a=Contestant("a", agent="lstm_dqn"), b=Contestant("b", agent="dqn"), game_file=game,
                    game=load_game(game), game_path=resolve_game_path(game).resolve(), seeds=(1, 2, 3, 4),
                    hands=100, out_dir=Path(out), concurrency=2, warm=warm,
                )  # fmt: skip
                before, start = _processor_seconds(), time.perf_counter()
                trio.run(run_matches, spec)
                runs[warm].append((time.perf_counter() - start, _processor_seconds() - before))
    wall, cpu = (statistics.median(values) for values in zip(*runs[True], strict=True))
    cold_wall, cold_cpu = (statistics.median(values) for values in zip(*runs[False], strict=True))
    return (
        "run: lstm_dqn vs dqn, 8 matches of 100 hands over TCP, a warm process",
        f"{wall:.2f} s",
        f"median of {len(runs[True])}, {cpu:.1f} s of processor time; an acpc-agent process a seat a match: "
        f"{cold_wall:.2f} s ({cold_wall / wall:.1f}x), {cold_cpu:.1f} s of processor time",
    )


def _processor_seconds() -> float:
    """Processor seconds of this process and of its children that have ended."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
