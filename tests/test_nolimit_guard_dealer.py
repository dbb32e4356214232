"""The no-limit ``ensemble`` and ``cfr`` agents against bad input over TCP, under the real ``acpc-dealer`` and its
time limits: ``spar_fuzz`` (all in 30% of its decisions, raises over its stack and under the minimum made valid
by its client) and the raw fuzzing client (the same sent as drawn, for the dealer to correct). Each match ends,
its log checks out, the agent never sent an action its client had to correct (the client would say so on standard
error), and nobody ran past a time limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acpc_arena.protocol.game import load_game
from tests.helpers.processes import check_log, spawn, start_agent, start_dealer

NOLIMIT_NAME = "holdem.nolimit.2p.reverse_blinds"
HANDS = 40
LIMITS = ("--t_response", "10000", "--t_hand", "60000", "--t_per_hand", "2000")
"""Ten seconds a decision, a minute a hand, two seconds a hand on average."""


def fuzzer(kind: str, port: int, cwd: Path) -> subprocess.Popen[str]:
    if kind == "spar_fuzz":
        return start_agent("spar_fuzz", port, "--game", NOLIMIT_NAME, "--seed", "9", cwd=cwd)
    return spawn(
        [sys.executable, "-m", "acpc_arena.agents.sparring.fuzz", "127.0.0.1", str(port), "--game", NOLIMIT_NAME,
         "--seed", "9"],
        cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


@pytest.mark.parametrize("fuzz", [pytest.param("spar_fuzz", marks=pytest.mark.slow), "raw"])  # make test: raw
@pytest.mark.parametrize("agent", ["ensemble", "cfr"])
def test_the_agent_plays_out_a_fuzzing_opponent(tmp_path: Path, agent: str, fuzz: str) -> None:
    dealer = start_dealer(tmp_path, "m", NOLIMIT_NAME, str(HANDS), "11", "agent", "fuzz", "-q", *LIMITS)
    player = start_agent(agent, dealer.ports[0], "--game", NOLIMIT_NAME, "--seed", "3", cwd=tmp_path)
    opponent = fuzzer(fuzz, dealer.ports[1], tmp_path)
    status, _out, err = dealer.wait(timeout=300)
    agent_err = player.communicate(timeout=60)[1]
    fuzz_err = opponent.communicate(timeout=60)[1]
    assert status == 0, err
    assert player.returncode == 0 and agent_err == "", agent_err
    assert opponent.returncode == 0, fuzz_err
    assert "timed out" not in err, err  # the dealer's word for a seat past its time limit
    totals = check_log(tmp_path / "m.log", load_game(NOLIMIT_NAME), HANDS)
    assert len(totals) == 2
