"""Local best response on Leduc hold'em, where exact best responses are known.

LBR is a legal strategy, so against any policy it wins at most what a best
response wins. On Leduc every deal can be enumerated, so both are exact:
LBR's value by playing its ``act`` at every information set, the best response's
by the CFR solver's exact best response (whose NashConv the CFR tests check
against OpenSpiel's; for the uniform policy it is OpenSpiel's published 4.747222
per two players). Checked for the uniform policy, the shipped ``cfr-leduc`` and
random policies, with the gap stated; then LBR's play through the engine must
agree with its exact value, and ``acpc-lbr`` runs and refuses what it cannot do.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from acpc_arena.agents.base import Agent
from acpc_arena.agents.cfr import CFRAgent
from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.dealer.commands import lbr as lbr_cli
from acpc_arena.dealer.lbr.equity import win_probability
from acpc_arena.dealer.lbr.evaluation import evaluate
from acpc_arena.dealer.lbr.exact import exact_values
from acpc_arena.dealer.lbr.response import Settings
from acpc_arena.models.cfr.abstraction import ExactCards, all_deals
from acpc_arena.models.cfr.checkpoint import save_policy
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from tests.helpers.processes import program

LEDUC = load_game("leduc.limit.2p")
HOLDEM = load_game("holdem.limit.2p.reverse_blinds")
UNIFORM_EXPLOITABILITY = 4.747222222222222 / 2
"""OpenSpiel's NashConv of the uniform policy in Leduc poker, per player (chips per hand)."""


def table_agent(tmp_path: Path, name: str, strategy: np.ndarray | None) -> CFRAgent:
    """The CFR agent playing ``strategy`` (rows of the exact Leduc table; None: uniform) from a checkpoint."""
    solver = Solver(build_tree(LEDUC), ExactCards(LEDUC), "cfr+", worlds=all_deals(LEDUC))
    if strategy is not None:
        solver.strategy_sum = strategy * solver.legal
    path = save_policy(tmp_path / name, solver, LEDUC.to_text(), "exact", {})
    return CFRAgent(LEDUC, seed=1, checkpoint=path)


def random_strategy(seed: int) -> np.ndarray:
    solver = Solver(build_tree(LEDUC), ExactCards(LEDUC), "cfr+", worlds=all_deals(LEDUC))
    return np.random.default_rng(seed).dirichlet(np.ones(3), size=solver.num_infosets)


def test_uniform_policy_lbr_is_below_openspiels_best_response(tmp_path: Path) -> None:
    exact = exact_values(table_agent(tmp_path, "uniform", None), LEDUC)
    assert exact.exploitability == pytest.approx(UNIFORM_EXPLOITABILITY, abs=1e-9)
    for lbr, best in zip(exact.lbr, exact.best_response, strict=True):
        assert lbr <= best + 1e-9
    # measured: LBR 2.1782 of 2.3736 chips per hand (92%)
    assert exact.lbr_mean >= 0.8 * exact.exploitability


def test_shipped_cfr_leduc_lbr_is_below_its_exploitability() -> None:
    exact = exact_values(CFRAgent(LEDUC, seed=1), LEDUC)
    for lbr, best in zip(exact.lbr, exact.best_response, strict=True):
        assert lbr <= best + 1e-9
    assert exact.exploitability < 0.01  # the shipped checkpoint is near equilibrium
    assert exact.lbr_mean < 0.01


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lbr_comes_close_on_random_policies(tmp_path: Path, seed: int) -> None:
    exact = exact_values(table_agent(tmp_path, f"random{seed}", random_strategy(seed)), LEDUC)
    for lbr, best in zip(exact.lbr, exact.best_response, strict=True):
        assert lbr <= best + 1e-9
    # measured (chips per hand, LBR of best response): seed 1 2.521 of 2.936 (86%), seed 2 2.418 of 2.649
    # (91%), seed 3 2.528 of 2.935 (86%)
    assert exact.lbr_mean >= 0.8 * exact.exploitability


@pytest.mark.parametrize("name", ["call", "raise"])
def test_deterministic_bots_lbr_is_below_openspiels_best_response(name: str, openspiel: Any) -> None:
    """``call`` and ``raise`` never take some actions, so parts of the tree are never reached (LBR's range
    is empty there); their exploitability is OpenSpiel's NashConv of the same pure policy, halved (both
    seats playing it break even by symmetry)."""
    from open_spiel.python import policy as spiel_policy
    from open_spiel.python.algorithms import exploitability

    spiel = openspiel("leduc.limit.2p").spiel
    table = spiel_policy.TabularPolicy(spiel)
    legal = table.legal_actions_mask.astype(bool)
    wanted = 2 if name == "raise" else 1  # universal_poker's actions: 0 fold, 1 call, 2 raise
    table.action_probability_array[:] = 0.0
    table.action_probability_array[:, 1] = ~legal[:, wanted]
    table.action_probability_array[:, wanted] = legal[:, wanted]
    expected = exploitability.nash_conv(spiel, table) / 2
    exact = exact_values(agent_class(name)(LEDUC, seed=1), LEDUC)
    assert exact.exploitability == pytest.approx(expected, abs=1e-9)
    for lbr, best in zip(exact.lbr, exact.best_response, strict=True):
        assert lbr <= best + 1e-9
    assert exact.lbr_mean > 0.5 * exact.exploitability


def test_play_through_the_engine_agrees_with_the_exact_value(tmp_path: Path) -> None:
    agent_seed_strategy = random_strategy(7)
    exact = exact_values(table_agent(tmp_path, "random7", agent_seed_strategy), LEDUC)
    result = evaluate(lambda: table_agent(tmp_path, "random7", agent_seed_strategy), LEDUC, [11], 500)
    mean = float(result.pair_values.mean())
    error = float(result.pair_values.std(ddof=1)) / np.sqrt(len(result.pair_values))
    assert abs(mean - exact.lbr_mean) < 4 * error, (mean, exact.lbr_mean, error)
    assert result.interval == pytest.approx(1.96 * error * 1000 / LEDUC.big_blind)


def test_win_probability_against_a_range_by_hand() -> None:
    """Leduc's deck is Q K A of hearts and spades (cards 42 46 50, 43 47 51). LBR holds Kh, no board
    yet; the range is Qh and Ks, equally weighted. Each holding meets the boards it shares no card
    with. Against Qh: boards Ah, As (high card) and Ks (LBR's pair) win, Qs (its pair) loses: 3/4.
    Against Ks: boards Qh, Ah, Qs, As all tie (same high card): 1/2. So (3/4 + 1/2) / 2 = 5/8."""
    qh, kh, ks = 42, 46, 47
    cards = np.array([[qh], [ks]], dtype=np.uint8)
    wp = win_probability(LEDUC, [kh], [], cards, np.array([1.0, 1.0]), 100, np.random.default_rng(0))
    assert wp == pytest.approx(5 / 8)


def test_win_probability_with_holdings_that_share_a_board_card() -> None:
    """Hold'em: LBR holds Ks Kd on Ad Ah As 8h; the range is Ac Kc and Jc Jd, equally weighted; the 46
    rivers are enumerated, a river that is one of a holding's cards left out for that holding (ranking
    Ac Kc with the river Ac, five aces, crashed the evaluator before). Ac Kc has four aces on each of its
    44 rivers: LBR's aces full of kings lose them all. Jc Jd has aces full of jacks (four aces with a jack
    on the river Ac): LBR's kings full, or four aces with a king, win all 44. So (0 + 1) / 2 = 1/2."""
    range_cards = np.array([parse_cards("AcKc"), parse_cards("JcJd")], dtype=np.uint8)
    hole, board = parse_cards("KsKd"), parse_cards("AdAhAs8h")
    wp = win_probability(HOLDEM, hole, board, range_cards, np.ones(2), 100, np.random.default_rng(0))
    assert wp == pytest.approx(1 / 2)


def test_acpc_lbr_runs_on_leduc(tmp_path: Path) -> None:
    out = tmp_path / "lbr.json"
    done = subprocess.run(
        [
            program("acpc-lbr"),
            "cfr",
            "--game",
            "leduc.limit.2p",
            "--hands",
            "200",
            "--seeds",
            "1,2",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "mbb/hand" in done.stdout
    report = json.loads(out.read_text())
    # --hands is deals per seed (two seeds), each deal played twice
    assert report["agent"] == "cfr" and report["deals"] == 2 * 200 and report["hands"] == 2 * 2 * 200


class Bare(Agent):
    name = "bare"


def test_acpc_lbr_refuses_an_agent_without_a_policy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(AGENTS, "bare", "tests.test_lbr:Bare")
    with pytest.raises(SystemExit) as exited:
        lbr_cli.main(["bare", "--game", "leduc.limit.2p"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bare" in err and "policy" in err


def test_acpc_lbr_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [program("acpc-lbr"), "cfr", "--game", "kuhn.limit.3p", "--hands", "5"], capture_output=True, text=True
    )
    assert done.returncode == 2  # a game LBR cannot measure: a usage error
    assert done.stderr.count("\n") == 1 and "heads-up" in done.stderr


def test_settings_first_round_defaults() -> None:
    assert Settings().responds_in(LEDUC, 0)
    assert not Settings().responds_in(load_game("holdem.limit.2p.reverse_blinds"), 0)
    assert Settings(first_round=True).responds_in(load_game("holdem.limit.2p.reverse_blinds"), 0)
