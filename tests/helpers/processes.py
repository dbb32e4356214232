"""Helpers to run the real programs in tests: the dealer and agents as processes, over TCP,
and scripted players for the dealer core over trio streams.

Every process these helpers start goes through ``spawn``, which records it; ``tests/conftest.py``
ends what a test started when the test ends, passed, failed, timed out or interrupted."""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.dealer.server.match import DEFAULT_T_RESPONSE_MS, MatchConfig, MatchObserver, MatchResult
from acpc_arena.dealer.server.seat import StreamChannel
from acpc_arena.dealer.server.trio_match import play_match
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.wire import MatchStateReader, parse_log_line, parse_match_state, parse_score_line

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_MS = "120000"
"""The ``--start_timeout`` of a test's dealer unless the test gives one: a dealer whose players never
come ends on its own, even where the run that started it was killed."""
PORTS_TIMEOUT_S = 60.0
"""How long a test waits for the ports line a dealer prints first (``read_ports``) before ending it."""
END_GRACE_S = 3.0
"""How long a process asked to end (SIGTERM) has before it is killed (SIGKILL)."""


@dataclass(frozen=True)
class Started:
    """A process a test started through ``spawn``."""

    process: subprocess.Popen[Any]
    group: int | None
    """The process group it leads (it made one, as ``start_new_session`` does), else None."""

    def alive(self) -> bool:
        """The process runs, or a process of the group it made does."""
        if self.process.poll() is None:
            return True
        return self.group is not None and _group_runs(self.group)

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.group is not None:
                os.killpg(self.group, signum)
            else:
                self.process.send_signal(signum)


def _group_runs(group: int) -> bool:
    """A process of process group ``group`` runs; a zombie (ended, not yet reaped) does not count."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            state, _parent, process_group = stat.read_text().rsplit(")", 1)[1].split()[:3]
            if state != "Z" and int(process_group) == group:
                return True
    return False


_started: list[Started] = []
"""Every process ``spawn`` started, oldest first."""


def _recorded(process: subprocess.Popen[Any]) -> Started:
    try:
        group = process.pid if os.getpgid(process.pid) == process.pid else None
    except ProcessLookupError:
        group = None
    return Started(process, group)


def spawn(args: Any, **options: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **options)``, recorded: ``ending_spawned`` ends it with the test."""
    process = subprocess.Popen(args, **options)
    _started.append(_recorded(process))
    return process


def end_processes(started: Sequence[Started], grace: float = END_GRACE_S) -> None:
    """SIGTERM to each process still alive (to its group where it made one), SIGKILL to those alive
    ``grace`` seconds later; returns once they are gone (or ``grace`` after the SIGKILL)."""
    alive = [entry for entry in started if entry.alive()]
    for signum in (signal.SIGTERM, signal.SIGKILL):
        for entry in alive:
            entry.signal(signum)
        deadline = time.monotonic() + grace
        while alive and time.monotonic() < deadline:
            time.sleep(0.02)
            alive = [entry for entry in alive if entry.alive()]
        if not alive:
            return


@contextlib.contextmanager
def ending_spawned() -> Iterator[None]:
    """The processes ``spawn`` starts within the block are ended when it is left, however it is left
    (``tests/conftest.py`` wraps every test in it)."""
    first = len(_started)
    try:
        yield
    finally:
        ours = _started[first:]
        del _started[first:]
        end_processes(ours)


FREE_PORTS = range(20000, 32768)
"""Where ``free_port`` looks: below the kernel's ephemeral range (Linux: from 32768), so that a socket bound to
port 0 meanwhile (a dealer's seats, a client) cannot take a port between its probe and its use."""


def worker_ports() -> range:
    """This test process's share of ``FREE_PORTS``: under pytest-xdist (``make test``) each worker has its own
    slice, so two tests running at once never probe the same port."""
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    size = len(FREE_PORTS) // count
    return range(FREE_PORTS.start + worker * size, FREE_PORTS.start + (worker + 1) * size)


def free_port() -> int:
    """A TCP port of 127.0.0.1 free at the time of asking, from this worker's ``worker_ports``."""
    rng = random.Random()
    ports = worker_ports()
    for _ in range(200):
        port = rng.choice(ports)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free TCP port in {ports.start}-{ports.stop - 1}")


_MEASURE = """\
import json, resource, subprocess, sys, time
keep, timeout, command = sys.argv[1] == "keep", float(sys.argv[2]), sys.argv[3:]
start = time.monotonic()
out = subprocess.PIPE if keep else subprocess.DEVNULL
done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, text=True, timeout=timeout)
wall = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"code": done.returncode, "err": done.stderr, "out": done.stdout or "", "wall": wall, "peak": peak}))
"""


def measured(
    *command: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    keep_output: bool = True,
    timeout: float = 300,
) -> dict[str, Any]:
    """Run ``command`` alone under a fresh Python: its exit status (``code``), standard error (``err``) and
    output (``out``; empty unless ``keep_output``), wall time (``wall``) and peak resident memory in bytes
    (``peak``). The fresh Python makes the peak the command's own: a process started straight from this one
    would count this one's memory as its own (Linux keeps the peak of the image a process replaced)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, "keep" if keep_output else "drop", str(timeout), *command],
        capture_output=True, text=True, timeout=timeout + 100, cwd=cwd, check=True,
        env=None if env is None else {**os.environ, **env},
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def wait_until(condition: Callable[[], object], timeout: float, what: str) -> None:
    """Return as soon as ``condition()`` is true (checked every 20 ms); the test fails, naming ``what``
    it waited for, when it is still false after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout:g} s for {what}")
        time.sleep(0.02)


def error_lines(err: str) -> list[str]:
    """Standard error without argparse's usage lines (``usage: ...`` and its indented continuation)."""
    lines = err.splitlines()
    if lines and lines[0].startswith("usage: "):
        lines = lines[1:]
        while lines and lines[0].startswith(" "):
            lines = lines[1:]
    return lines


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (mount's ``size=``, e.g. ``64k``) mounted on ``folder`` (created) for a full
    disk; the test is skipped where mounting needs a root or a mount this machine lacks."""
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def start_prometheus(config: Path, workdir: Path, port: int) -> subprocess.Popen[bytes]:
    """A real Prometheus (Debian's ``prometheus``) on 127.0.0.1:``port`` with ``config``, its data and
    standard error (``prometheus.err``) in ``workdir``."""
    binary = shutil.which("prometheus")
    assert binary is not None, "prometheus is not installed"
    with open(workdir / "prometheus.err", "wb") as err:
        return spawn(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={workdir / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip


def program(name: str) -> str:
    """The installed console script ``name`` (``acpc-dealer``, ``acpc-agent``, ...)."""
    return str(BIN / name)


def run_in_process(name: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The console script ``name`` run in this process with ``args``: its status and what it wrote, as
    ``subprocess.run(..., capture_output=True, text=True)`` gives them. For the one-line errors of programs
    that import torch (seconds a process), whose runs as processes other tests make."""
    (entry,) = (e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == name)
    out, err = io.StringIO(), io.StringIO()
    status: int = 0
    with contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            entry.load()(list(args))
        except SystemExit as stop:
            if isinstance(stop.code, str):
                print(stop.code, file=sys.stderr)
            status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    return subprocess.CompletedProcess([name, *args], status, out.getvalue(), err.getvalue())


def default_sigint() -> None:
    """A ``preexec_fn`` that gives the child Ctrl-C's default action, as a program started from a
    terminal has it: this suite may run with SIGINT ignored, which a child would keep."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Dealer:
    process: subprocess.Popen[str]
    ports: list[int]

    def wait(self, timeout: float = 120) -> tuple[int, str, str]:
        """Exit status, the rest of standard output, and standard error; a dealer still running after
        ``timeout`` seconds is ended (``end_processes``) and the test fails saying so."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_processes([_recorded(self.process)])
            _, err = self.process.communicate(timeout=30)
            raise AssertionError(
                f"the dealer was still running after {timeout:g} s, so the test ended it "
                f"(exit {self.process.returncode}); its standard error ends:\n{(err or '')[-2000:]}"
            ) from None
        return self.process.returncode, out, err


def dealer_args(*args: str | bytes) -> list[str | bytes]:
    """``args`` with ``--start_timeout START_TIMEOUT_MS`` unless they give a start timeout."""
    given = any(os.fsdecode(arg).partition("=")[0] == "--start_timeout" for arg in args)
    return [*args] if given else [*args, "--start_timeout", START_TIMEOUT_MS]


def read_ports(process: subprocess.Popen[Any], timeout: float = PORTS_TIMEOUT_S) -> list[int]:
    """The ports a dealer prints on its first line of standard output (a pipe nothing has read yet). A
    dealer that prints none within ``timeout`` seconds, or ends first, is ended (``end_processes``) and the
    test fails saying so, with the end of the dealer's standard error."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        readable, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        byte = os.read(fd, 1) if readable else b""  # one byte at a time: nothing after the line is taken
        if not byte:
            end_processes([_recorded(process)])
            _, err = process.communicate(timeout=30)
            err = os.fsdecode(err) if isinstance(err, bytes) else err or ""
            status = process.returncode
            what = (
                f"the dealer ended (exit {status}) before printing its ports line"
                if readable
                else f"the dealer printed no ports line within {timeout:g} s, so the test ended it (exit {status})"
            )
            raise AssertionError(f"{what}; its standard error ends:\n{err[-2000:]}")
        line += byte
    return [int(port) for port in line.split()]


def start_dealer(cwd: Path, *args: str) -> Dealer:
    """Start ``acpc-dealer args...`` (``dealer_args``) in ``cwd`` (``default_sigint``) and read the ports
    line it prints first (``read_ports``)."""
    process = spawn(
        [program("acpc-dealer"), *dealer_args(*args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    return Dealer(process, read_ports(process))


def start_agent(agent: str, port: int, *args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    """Start ``acpc-agent agent 127.0.0.1 port args...`` (``default_sigint``), its standard error piped."""
    return spawn(
        [program("acpc-agent"), agent, "127.0.0.1", str(port), *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


def play(
    cwd: Path, game: str, hands: int, seed: int, agents: Sequence[tuple[str, Sequence[str]]], *dealer_args: str
) -> tuple[int, str, str]:
    """A whole match: the dealer and one agent process per seat; returns the dealer's status and output."""
    names = [f"{agent}{i + 1}" for i, (agent, _) in enumerate(agents)]
    dealer = start_dealer(cwd, "match", game, str(hands), str(seed), *names, *dealer_args)
    players = [
        start_agent(agent, port, "--game", game, *extra, cwd=cwd)
        for (agent, extra), port in zip(agents, dealer.ports, strict=True)
    ]
    result = dealer.wait()
    for player in players:
        player.wait(timeout=60)
    return result


def check_log(path: Path, game: Game, hands: int, finished: bool = True) -> list[float]:
    """Parse a match's log, check it, and return the totals by seat name order of the SCORE line.

    Every ``STATE`` line parses, the hands are numbered 0 to ``hands - 1`` once each,
    their values follow from the cards and betting, and the ``SCORE`` line (last, when
    ``finished``; absent otherwise) is their sum. Comment lines (the header, repeated
    by a resumed run) may stand anywhere.
    """
    from tests.helpers.hand_values import hand_values  # pokerkit, slow to import: not for every run of conftest.py

    lines = path.read_text().splitlines()
    assert lines[0].startswith("# name/game/hands/seed ")
    assert [line.split()[0] for line in lines[1:4]] == ["#--t_response", "#--t_hand", "#--t_per_hand"]
    hand_lines = [line for line in lines if line.startswith("STATE")]
    states = [parse_log_line(line, game) for line in hand_lines]
    assert len(states) == hands
    assert [hand.state.hand_id for hand in states] == list(range(hands))
    records = [line for line in lines if not line.startswith("#")]
    assert len(records) == hands + finished
    names = states[0].names if states else ()
    totals = dict.fromkeys(names, 0.0)
    for line, hand in zip(hand_lines, states, strict=True):
        assert abs(sum(hand.values)) < 1e-9
        # valued apart from the engine; the log prints 6 decimals (a split pot can leave thirds)
        assert all(abs(v - e) < 1e-6 for v, e in zip(hand.values, hand_values(line, game), strict=True)), line
        for name, value in zip(hand.names, hand.values, strict=True):
            totals[name] = totals.get(name, 0.0) + value
    if not finished:
        return list(totals.values())
    score = parse_score_line(lines[-1], game.num_players)
    for name, total in zip(score.names, score.totals, strict=True):
        assert abs(totals.get(name, 0.0) - total) < 1e-6
    return list(score.totals)


class ScriptedPlayer:
    """A hand-driven ACPC client over TCP, for sending the dealer exactly what a test wants."""

    def __init__(self, port: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.reader = self.sock.makefile("rb")

    def send(self, text: str | bytes) -> None:
        self.sock.sendall(text if isinstance(text, bytes) else text.encode())

    def receive(self) -> str:
        line = self.reader.readline()
        return line.decode().rstrip("\r\n")

    def close(self) -> None:
        self.reader.close()  # the socket stays open while its file object does
        self.sock.close()


# -- scripted players in-process, over memory streams --------------------------------

Respond = Callable[[str], bytes | None]
"""What a scripted seat sends when it is to act, given the state line; None: hang up."""


@dataclass
class Outcome:
    result: MatchResult
    warnings: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    seen: list[list[str]] = field(default_factory=list)
    """Every line each seat received."""


class _Warnings(MatchObserver):
    def __init__(self, into: list[str]) -> None:
        self.into = into

    def warning(self, seat: int | None, kind: str, text: str) -> None:
        self.into.append(text)


def calling(line: str) -> bytes:
    return f"{line}:c\r\n".encode()


async def _seat(stream: trio.abc.Stream, game_name: str, hello: bytes, respond: Respond, seen: list[str]) -> None:
    """One player: ``hello`` first, then ``respond`` at each of its turns, until the dealer hangs up."""
    reader = MatchStateReader(load_game(game_name))
    buffer = b""
    try:
        await stream.send_all(hello)
        while True:
            data = await stream.receive_some(65536)
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                line = raw.decode("ascii").rstrip("\r")
                seen.append(line)
                view = reader.parse(line)
                if view.state.finished or view.state.current_player != view.viewer:
                    continue
                reply = respond(line)
                if reply is None:
                    return
                await stream.send_all(reply)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await stream.aclose()


async def play_scripted(
    tmp_path: Path,
    game_name: str,
    hands: int,
    responders: Sequence[Respond],
    hellos: Sequence[bytes] | None = None,
    seed: int = 7,
    names: Sequence[str] = ("a", "b"),
    t_response_ms: int = DEFAULT_T_RESPONSE_MS,
) -> Outcome:
    """A match in-process: seat ``i`` says ``hellos[i]`` (a good VERSION line by default) then
    answers with ``responders[i]``. Fails the test if the match does not end within 60 s."""
    game = load_game(game_name)
    match = MatchConfig(
        name="t",
        game=game,
        game_file=game_name,
        hands=hands,
        seed=seed,
        players=tuple(names),
        t_response_ms=t_response_ms,
    )
    hellos = hellos or [b"VERSION:2.0.0\r\n"] * len(responders)
    warnings: list[str] = []
    seen: list[list[str]] = [[] for _ in responders]
    log = MatchLog(tmp_path / "t.log")
    channels = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat, respond in enumerate(responders):
                ours, theirs = trio.testing.memory_stream_pair()
                channels.append(StreamChannel(seat, ours))
                nursery.start_soon(_seat, theirs, game_name, hellos[seat], respond, seen[seat])
            result = await play_match(MatchEngine(match, _Warnings(warnings), log, version_timeout=10), channels)
            for channel in channels:
                await channel.aclose()
    log.close()
    lines = (tmp_path / "t.log").read_bytes().decode("latin-1").splitlines()
    return Outcome(result, warnings, lines, seen)


class Player:
    """A scripted player on the player's end of a trio stream (a memory stream in tests), with line I/O."""

    def __init__(self, stream: trio.abc.Stream, game_name: str) -> None:
        self.stream = stream
        self.game = load_game(game_name)
        self.buffer = b""

    async def send(self, text: str | bytes) -> None:
        await self.stream.send_all(text if isinstance(text, bytes) else text.encode())

    async def line(self) -> str | None:
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode().rstrip("\r")

    async def next_turn(self) -> str | None:
        """Read until a state where this player is to act; None at the end of the match."""
        while True:
            line = await self.line()
            if line is None:
                return None
            view = parse_match_state(line, self.game)
            if not view.state.finished and view.state.current_player == view.viewer:
                return line
