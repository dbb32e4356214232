"""AIVAT in the commands: ``acpc-match`` adds it to a Kuhn run of two shipped agents, ``acpc-report
--aivat`` to any logs with the players named, and where it is unavailable (an agent that cannot be
loaded, a policy that never takes a logged action) one line says why and the plain figures stand.

The real programs run as processes on real logs. The run's AIVAT estimate must match A's exact value
(its two seatings' exact values averaged, walked in ``test_aivat``) within its interval, which must be
far narrower than the duplicate one.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.agents.baselines import CallAgent
from acpc_arena.dealer.arena.aivat import AivatUnavailable, aivat_estimates, reporting, shipped_agent
from acpc_arena.dealer.arena.aivat.reporting import cpu_line, wanted
from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.match_log import LoggedMatch
from tests.helpers.aivat import pair, terminal_histories
from tests.helpers.processes import program

KUHN = load_game("kuhn.limit.2p")
SEEDS = "1,2"
HANDS = 1500


@pytest.fixture(scope="module")
def kuhn_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A duplicate Kuhn run of cfr against random, in process; its folder and what acpc-match printed."""
    out = tmp_path_factory.mktemp("run") / "kuhn"
    done = subprocess.run(
        [program("acpc-match"), "--a", "cfr", "--b", "random", "--game", "kuhn.limit.2p", "--seeds", SEEDS,
         "--hands", str(HANDS), "--in-process", "--out", str(out), "--no-plots", "--quiet"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return out, done.stdout


def exact_value_of_a() -> float:
    """cfr's exact chips per hand against random in Kuhn, averaged over its two positions."""
    first = sum(w * hand.values[0] for w, hand in terminal_histories(KUHN, pair(KUHN, "cfr", "random")))
    second = sum(w * hand.values[1] for w, hand in terminal_histories(KUHN, pair(KUHN, "random", "cfr")))
    return (first + second) / 2


def test_acpc_match_adds_aivat_to_a_kuhn_run_and_it_hits_the_exact_value(kuhn_run: tuple[Path, str]) -> None:
    out, printed = kuhn_run
    report = json.loads((out / "report.json").read_text())
    aivat, duplicate = report["aivat"], report["duplicate"]
    assert aivat["known"] == ["a-cfr", "b-random"]
    assert aivat["duplicate"]["samples"] == duplicate["samples"] == 2 * HANDS
    low, high = aivat["ci95"]
    assert low <= 1000 * exact_value_of_a() <= high  # Kuhn's big blind is 1 chip: mbb = 1000 x chips
    # measured: the interval is about a tenth of the duplicate one's; a half is asserted
    assert high - low < (duplicate["ci95"][1] - duplicate["ci95"][0]) / 2
    row = next(line for line in printed.splitlines() if "AIVAT duplicate" in line)
    assert f"{aivat['mbb_per_hand']:+.1f}" in row
    assert "AIVAT's corrections: chance: the cards dealt and the board cards; actions of a-cfr and b-random" in printed
    # AIVAT's CPU beside the match's, in report.json and printed (one decimal, the ratio as hand-formatted here)
    match_cpu, aivat_cpu = report["cpu_seconds"], aivat["cpu_seconds"]
    assert 0 < match_cpu <= report["elapsed_seconds"] * (os.cpu_count() or 1) + 0.5
    assert aivat_cpu > 0
    ratio = f"{aivat_cpu / match_cpu:.1f}"
    assert f"AIVAT's CPU: {aivat_cpu:.1f} s beside the match's {match_cpu:.1f} s ({ratio}x)" in printed


def test_acpc_report_aivat_with_one_player_known(kuhn_run: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = kuhn_run
    logs = sorted(str(p) for p in out.glob("*.log"))
    done = subprocess.run(
        [program("acpc-report"), *logs, "--aivat", "a-cfr", "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    aivat = json.loads((tmp_path / "r.json").read_text())["aivat"]
    assert aivat["known"] == ["a-cfr"]
    assert "actions of a-cfr;" in aivat["corrections"]
    assert aivat["ci95"][0] <= 1000 * exact_value_of_a() <= aivat["ci95"][1]
    assert "AIVAT duplicate, 95% CI" in done.stdout
    assert aivat["cpu_seconds"] > 0
    assert f"AIVAT's CPU: {aivat['cpu_seconds']:.1f} s (the match's CPU time is not in the logs)" in done.stdout


def test_cpu_line_puts_aivat_beside_the_match() -> None:
    assert cpu_line({"cpu_seconds": 3.04}, 1.52) == "AIVAT's CPU: 3.0 s beside the match's 1.5 s (2.0x)"
    assert cpu_line({"cpu_seconds": 0.26}, None) == "AIVAT's CPU: 0.3 s (the match's CPU time is not in the logs)"
    assert cpu_line({"cpu_seconds": 1.0}, 0.0) == "AIVAT's CPU: 1.0 s beside the match's 0.0 s"


def test_a_holdem_run_decides_on_aivat_without_loading_its_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold'em is not a small game: AIVAT only where asked, decided without importing an agent's module (a
    neural one's would import torch into the runner); Kuhn's default asks whether the policies are known."""
    loaded: list[str] = []

    def agent_class(spec: str) -> type[CallAgent]:
        loaded.append(spec)
        return CallAgent

    monkeypatch.setattr(reporting, "agent_class", agent_class)
    contestants = [Contestant("a", agent="dqn"), Contestant("b", agent="call")]
    holdem, kuhn = load_game("holdem.limit.2p.reverse_blinds"), load_game("kuhn")
    assert (wanted(holdem, contestants, None), wanted(holdem, contestants, True), loaded) == (False, True, [])
    assert wanted(kuhn, contestants, None) and loaded == ["dqn", "call"]


def test_the_runs_recorded_policies_give_acpc_reports_replay_to_the_last_digits(
    kuhn_run: tuple[Path, str], tmp_path: Path
) -> None:
    """acpc-match --in-process gave AIVAT the policies its agents recorded; acpc-report replays the agents."""
    out, _ = kuhn_run
    logs = sorted(str(p) for p in out.glob("*.log"))
    subprocess.run(
        [program("acpc-report"), *logs, "--aivat", "a-cfr", "--aivat", "b-random", "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    replayed = json.loads((tmp_path / "r.json").read_text())["aivat"]
    recorded = json.loads((out / "report.json").read_text())["aivat"]
    assert replayed["known"] == recorded["known"] == ["a-cfr", "b-random"]
    for key in ("duplicate", "per_hand"):
        assert abs(replayed[key]["mbb_per_hand"] - recorded[key]["mbb_per_hand"]) < 1e-9
        assert np.allclose(replayed[key]["ci95"], recorded[key]["ci95"], rtol=0, atol=1e-9)


def test_a_seeds_seatings_scored_in_turn_give_each_log_its_values_alone(kuhn_run: tuple[Path, str]) -> None:
    # the two seatings of a seed are scored hand by hand in turn (their agents share a board's work): each
    # log's values are those it gets scored on its own, and progress counts every hand once
    out, _ = kuhn_run
    logs = sorted(out.glob("*.log"))
    done: list[int] = []
    together = aivat_estimates(logs, {"a-cfr": shipped_agent("a-cfr")}, progress=done.append)
    assert sum(done) == 2 * len(SEEDS.split(",")) * HANDS
    for log, figure in zip(logs, together.matches, strict=True):
        alone = aivat_estimates([log], {"a-cfr": shipped_agent("a-cfr")}, player=together.player)
        assert np.array_equal(alone.matches[0].values, figure.values)
        assert np.array_equal(alone.matches[0].results, figure.results)


def test_an_agent_that_cannot_be_loaded_leaves_the_plain_figures_and_one_line(kuhn_run: tuple[Path, str]) -> None:
    out, _ = kuhn_run
    logs = sorted(str(p) for p in out.glob("*.log"))
    done = subprocess.run(
        [program("acpc-report"), *logs, "--aivat", "a-cfr --checkpoint nosuch.npz"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("acpc-report: AIVAT unavailable: cannot load agent 'cfr' for a-cfr: nosuch.npz")
    assert "duplicate, 95% CI" in done.stdout and "AIVAT" not in done.stdout


def test_a_policy_that_never_takes_a_logged_action_is_refused_naming_the_log(kuhn_run: tuple[Path, str]) -> None:
    out, _ = kuhn_run
    logs = sorted(out.glob("*.log"))

    def claimed(match: LoggedMatch) -> CallAgent:  # random also bets; call never does
        return CallAgent(match.game)

    with pytest.raises(AivatUnavailable) as caught:
        aivat_estimates(logs, {"b-random": claimed})
    message = str(caught.value)
    assert message.startswith(f"{logs[0]}: hand ") and "b-random (call) gives its action r probability 0" in message
    assert "\n" not in message


def test_players_are_named_or_seated_and_a_missing_one_is_refused(kuhn_run: tuple[Path, str]) -> None:
    out, _ = kuhn_run
    logs = sorted(out.glob("*.log"))[:1]
    by_seat = aivat_estimates(logs, {0: shipped_agent("a-cfr")})
    by_name = aivat_estimates(logs, {"a-cfr": shipped_agent("a-cfr")})
    assert np.array_equal(by_seat.matches[0].values, by_name.matches[0].values)
    with pytest.raises(AivatUnavailable, match="has no player named 'c-cfr'"):
        aivat_estimates(logs, {"c-cfr": shipped_agent("c-cfr")})
    with pytest.raises(AivatUnavailable, match="is not a player of acpc-match"):
        shipped_agent("cfr")


def test_tournament_cells_and_the_python_api_carry_aivat(tmp_path: Path) -> None:
    out = tmp_path / "t"
    subprocess.run(
        [program("acpc-tournament"), "--agents", "cfr,call", "--game", "kuhn.limit.2p", "--seeds", "1",
         "--hands", "200", "--out", str(out), "--no-plots", "--quiet", "--workers", "1"],
        capture_output=True, text=True, timeout=180, check=True,
    )  # fmt: skip
    table = json.loads((out / "crosstable.json").read_text())["crosstable"]
    cell, mirrored = table["cfr"]["call"]["aivat"], table["call"]["cfr"]["aivat"]
    assert mirrored["mbb_per_hand"] == -cell["mbb_per_hand"]
    assert cell["ci95"][0] <= cell["mbb_per_hand"] <= cell["ci95"][1]
    assert "(AIVAT " in (out / "crosstable.md").read_text()
    report = play(("cfr", "random"), "kuhn.limit.2p", seeds=(1,), hands=200)
    assert report.extra["aivat"]["known"] == ["a-cfr", "b-random"]
    assert "aivat" not in play(("cfr", "random"), "kuhn.limit.2p", seeds=(1,), hands=20, aivat=False).extra
