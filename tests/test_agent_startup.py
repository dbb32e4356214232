"""The neural agents' start: the run's warm process (``agents.warm``, ``dealer.arena.warm_agents``), and
their networks loaded without weights drawn first.

A warm process's child plays as a fresh ``acpc-agent`` process: the same seeded matches played by
children and by fresh processes log the same, line for line (and as the same agents in process);
a child's exit status and error lines are a fresh process's; the warm process ends a child when
asked, tells a run of its children's ends even when it dies, and leaves when its requests end.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch
import trio

from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.runner import MatchSpec, RunSpec
from acpc_arena.dealer.arena.warm_agents import WarmAgents, WarmChild
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.nfq.network import NFQNetwork
from acpc_arena.models.q_networks.checkpoint import load_module
from acpc_arena.models.q_networks.networks import NETWORKS
from acpc_arena.protocol.game import load_game, resolve_game_path
from tests.helpers.matches import run_all
from tests.helpers.processes import program, spawn

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a warm process forks: Linux only")

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
SEED = 7
HANDS = 30


class _OneSeating(RunSpec):
    """A run of the first seating alone (A in seat 1)."""

    def matches(self) -> list[MatchSpec]:
        return super().matches()[:1]


def _spec(game_file: str, a: str, b: str, out: Path, cls: type = RunSpec, **fields: bool) -> RunSpec:
    return cls(
        a=Contestant("a", agent=a), b=Contestant("b", agent=b), game_file=game_file, game=load_game(game_file),
        game_path=resolve_game_path(game_file).resolve(), seeds=(SEED,), hands=HANDS, out_dir=out, concurrency=2,
        **fields,
    )  # fmt: skip


def _logs(out: Path, matches: int) -> dict[str, list[str]]:
    logs = {path.name: path.read_text().splitlines() for path in sorted(out.glob("*.log"))}
    assert len(logs) == matches
    for lines in logs.values():
        assert sum(line.startswith("STATE:") for line in lines) == HANDS and lines[-1].startswith("SCORE:")
    return logs


def _counting_children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The agent of every match a warm process's child plays from now on (``WarmAgents.start_match`` spied)."""
    agents: list[str] = []
    original = WarmAgents.start_match

    def start_match(self: WarmAgents, argv: Sequence[str], err_path: Path) -> WarmChild:
        agents.append(argv[0])
        return original(self, argv, err_path)

    monkeypatch.setattr(WarmAgents, "start_match", start_match)
    return agents


def test_warm_children_log_the_matches_of_fresh_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """lstm_dqn against dqn: children of one warm process, and an ``acpc-agent`` process each."""
    children = _counting_children(monkeypatch)
    warm, fresh = tmp_path / "warm", tmp_path / "fresh"
    run_all(
        [
            _spec(LIMIT, "lstm_dqn", "dqn", warm, _OneSeating),
            _spec(LIMIT, "lstm_dqn", "dqn", fresh, _OneSeating, warm=False),
        ]
    )
    assert sorted(children) == ["dqn", "lstm_dqn"]  # the fresh run started none
    assert _logs(warm, 1) == _logs(fresh, 1)
    assert all(path.read_text() == "" for path in (warm / "agents").glob("seed*.err"))
    assert not (warm / "agents" / "warm.err").exists()  # nothing told: no file left


def test_every_neural_kind_plays_warm_as_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """poker_cnn, nfq and ensemble as children, against the same agents inside the runner (which
    ``tests/test_in_process.py`` checks against fresh processes)."""
    children = _counting_children(monkeypatch)
    pairs = [(LIMIT, "poker_cnn", "nfq"), (NOLIMIT, "ensemble", "random")]
    specs = [
        _spec(game, a, b, tmp_path / f"{a}-{kind}", _OneSeating, in_process=kind == "inproc")
        for game, a, b in pairs
        for kind in ("warm", "inproc")
    ]
    run_all(specs)
    assert sorted(children) == ["ensemble", "nfq", "poker_cnn"]  # random is started as before
    for _, a, _ in pairs:
        assert _logs(tmp_path / f"{a}-warm", 1) == _logs(tmp_path / f"{a}-inproc", 1), a


def _warm_process(*specs: str) -> subprocess.Popen[str]:
    return spawn(
        [program("acpc-agent"), "--warm", *specs],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _ask(warm: subprocess.Popen[str], request: dict[str, object]) -> None:
    assert warm.stdin is not None
    warm.stdin.write(json.dumps(request) + "\n")
    warm.stdin.flush()


def _reply(warm: subprocess.Popen[str]) -> dict[str, int]:
    assert warm.stdout is not None
    reply: dict[str, int] = json.loads(warm.stdout.readline())
    return reply


def test_a_child_fails_as_a_fresh_process_does(tmp_path: Path) -> None:
    """An option the agent does not take: status 2 (a usage error, ``acpc-agent --help``) and the same lines."""
    argv = ["random", "127.0.0.1", "9", "--no-such-option"]
    fresh = subprocess.run([program("acpc-agent"), *argv], capture_output=True, text=True, timeout=60)
    warm = _warm_process("random")
    _ask(warm, {"id": 0, "argv": argv, "err": str(tmp_path / "child.err")})
    assert _reply(warm) == {"id": 0, "status": 2} and fresh.returncode == 2
    assert (tmp_path / "child.err").read_text() == fresh.stderr + fresh.stdout
    assert warm.stdin is not None
    warm.stdin.close()
    assert warm.wait(timeout=30) == 0


def test_a_child_is_killed_when_asked_and_the_warm_process_leaves_after_its_children(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        warm = _warm_process("random")
        _ask(warm, {"id": 0, "argv": ["random", "127.0.0.1", str(port)], "err": str(tmp_path / "child.err")})
        connection, _ = listener.accept()
        with connection:
            assert connection.recv(100) == b"VERSION:2.0.0\r\n"  # and nothing sent: the child waits
            assert warm.stdin is not None
            warm.stdin.close()  # no more requests: the warm process waits for its child
            with pytest.raises(subprocess.TimeoutExpired):
                warm.wait(timeout=0.5)
    assert warm.poll() is None
    # The child left with its connection closed; a second warm process's child is killed instead.
    assert _reply(warm) == {"id": 0, "status": 0} and warm.wait(timeout=30) == 0
    with socket.create_server(("127.0.0.1", 0)) as listener:
        warm = _warm_process("random")
        _ask(warm, {"id": 5, "argv": ["random", "127.0.0.1", str(listener.getsockname()[1])], "err": "/dev/null"})
        connection, _ = listener.accept()
        with connection:
            _ask(warm, {"kill": 5})
            assert _reply(warm) == {"id": 5, "status": -signal.SIGKILL}


def test_a_run_learns_its_children_ended_when_the_warm_process_dies(tmp_path: Path) -> None:
    async def main() -> tuple[int | None, int | None, str, str]:
        warm = await WarmAgents.start(["random"], tmp_path / "warm.err")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm.read_replies)
            with socket.create_server(("127.0.0.1", 0)) as listener:
                port = str(listener.getsockname()[1])
                waiting = warm.start_match(["random", "127.0.0.1", port], tmp_path / "a.err")
                connection, _ = await trio.to_thread.run_sync(listener.accept)  # the child waits for the dealer
                with connection:
                    warm._process.kill()
                    with trio.fail_after(30):
                        await waiting.wait()
                    late = warm.start_match(["random", "127.0.0.1", port], tmp_path / "b.err")
            await warm.aclose()
        return waiting.returncode, late.returncode, (tmp_path / "a.err").read_text(), (tmp_path / "b.err").read_text()

    waiting, late, *told = trio.run(main)
    assert waiting == -signal.SIGKILL  # the warm process's own end, its child's unknown
    assert late == 1
    assert all(f"the warm agent process has ended (its standard error: {tmp_path / 'warm.err'})" in t for t in told)
    assert (tmp_path / "warm.err").exists()  # kept, empty as it is, where the children's errors point


@pytest.mark.parametrize("name", ["lstm_dqn", "dqn", "poker_cnn", "nfq"])
def test_a_loaded_network_holds_the_checkpoints_tensors_bit_for_bit(name: str) -> None:
    """The network is built without weights of its own (``load_module``): each tensor it holds is the file's."""
    path = FOLDER / f"{name}.pt"
    network, _ = load_module(path, {**NETWORKS, "nfq": NFQNetwork}, torch.device("cpu"))
    saved = torch.load(path, map_location="cpu", weights_only=True)
    held = dict(network.named_parameters()) | dict(network.named_buffers())
    assert set(held) == set(saved)  # nothing left as the memory was
    assert all(torch.equal(held[key], saved[key]) for key in saved)
