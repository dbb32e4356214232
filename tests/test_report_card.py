"""acpc-eval's report cards against the separate commands they stand for: real runs in Kuhn poker.

A card's figures against a reference are those of ``acpc-match --a BOT --b REFERENCE`` on the
same seeds and hands (duplicate and AIVAT), its LBR figure that of ``acpc-lbr`` on the same seeds
with the same agent seed, the bots named as plugins (``module:Class``) in all three commands.
Cards rank as the results pages rank a round robin: by the mean of the duplicate figures against the
references. A resumed card plays only the matches it misses; a TCP bot's card and a
bot without ``policy`` have duplicate results and say why they have no LBR.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from acpc_arena.dealer.arena.report_card import rank
from acpc_arena.dealer.web.app import WebApp
from acpc_arena.dealer.web.http import Request
from tests.helpers.processes import program

GAME = "kuhn.limit.2p"
SEEDS = "1,2"
HANDS = "40"
LBR_DEALS = "30"
PLUGINS = {
    "call": "acpc_arena.agents.baselines:CallAgent",
    "equity": "acpc_arena.agents.baselines:EquityAgent",
    "cfr": "acpc_arena.agents.cfr:CFRAgent",
}
"""The shipped agents, each named as a plugin through its module path."""
DEAL = ["--game", GAME, "--seeds", SEEDS, "--hands", HANDS]


def run(*command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def card(out: Path, *args: str, references: str = "random,rule") -> dict[str, Any]:
    """The report.json of ``acpc-eval ARGS`` in ``out``, on the test's deals."""
    done = run(
        program("acpc-eval"), *args, *DEAL, "--references", references, "--lbr-hands", LBR_DEALS,
        "--out", str(out), "--quiet", "--no-plots", "--concurrency", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads((out / "report.json").read_text())
    return result


def match(out: Path, agent: str, reference: str) -> dict[str, Any]:
    """The report.json of ``acpc-match --a AGENT --b REFERENCE`` on the test's deals."""
    done = run(program("acpc-match"), "--a", agent, "--b", reference, *DEAL, "--out", str(out), "--no-plots", "--quiet")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads((out / "report.json").read_text())
    return result


def lbr(out: Path, agent: str) -> dict[str, Any]:
    """``acpc-lbr AGENT``'s JSON on the test's seeds, the agent seeded as the card seeds it."""
    path = out / f"lbr-{agent.rpartition(':')[2]}.json"
    done = run(
        program("acpc-lbr"), agent, "--game", GAME, "--seeds", SEEDS, "--hands", LBR_DEALS, "--agent-seed", "1",
        "--json", str(path), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(path.read_text())
    return result


NAMED = ("player", "known", "corrections", "seconds", "cpu_seconds")
"""What AIVAT's figures say besides numbers: the players' names (a shipped agent's name in a run of the
shipped agent, a plugin's class in the card) and the time taken (wall and CPU)."""


def check_equal(matchup: dict[str, Any], separate: dict[str, Any]) -> None:
    """The card's figures against a reference are ``acpc-match``'s."""
    assert matchup["duplicate"] == separate["duplicate"]
    assert matchup["per_hand"] == separate["per_hand"]
    figures = {k: v for k, v in matchup["aivat"].items() if k not in NAMED}
    assert figures == {k: v for k, v in separate["aivat"].items() if k not in NAMED}
    assert "mbb_per_hand" in figures


def test_a_plugins_card_has_the_figures_of_acpc_match_and_acpc_lbr(tmp_path: Path) -> None:
    report = card(tmp_path / "card", PLUGINS["equity"], references="rule")
    assert report["card"]["references"] == ["rule"]
    separate_match = match(tmp_path / "rule", PLUGINS["equity"], "rule")
    check_equal(report["matchups"]["rule"], separate_match)
    assert report["matchups"]["rule"]["aivat"]["known"] == separate_match["aivat"]["known"]  # both policies
    separate = lbr(tmp_path, PLUGINS["equity"])
    got = report["card"]["lbr"]
    assert (got["mbb_per_hand"], got["ci95"], got["hands"]) == (
        separate["mbb_per_hand"],
        separate["ci95"],
        separate["hands"],
    )
    # where it wins and loses: the three endings add up to the per-hand figure, every hand counted once
    outcomes = report["card"]["outcomes"]
    assert sum(o["hands"] for o in outcomes.values()) == 2 * 2 * int(HANDS)
    per_hand = report["matchups"]["rule"]["per_hand"]["mbb_per_hand"]
    assert sum(o["mbb_per_hand"] for o in outcomes.values()) == pytest.approx(per_hand)


@pytest.mark.slow
def test_cards_rank_as_the_separate_runs_rank_their_bots(tmp_path: Path) -> None:
    references = "random,rule,raise"
    cards, averages = {}, {}
    for name, spec in PLUGINS.items():
        cards[name] = card(tmp_path / f"card-{name}", spec, references=references)
        duplicates = []
        for reference in references.split(","):
            separate = match(tmp_path / f"{name}-{reference}", spec, reference)
            check_equal(cards[name]["matchups"][reference], separate)
            duplicates.append(separate["duplicate"]["mbb_per_hand"])
        averages[name] = sum(duplicates) / len(duplicates)
        assert cards[name]["card"]["average"]["mbb_per_hand"] == pytest.approx(averages[name])
        separate_lbr = lbr(tmp_path, spec)
        assert cards[name]["card"]["lbr"]["mbb_per_hand"] == separate_lbr["mbb_per_hand"]
    assert rank(cards) == sorted(averages, key=lambda name: -averages[name])
    # in Kuhn, against these references, the exploiting heuristic wins most and calling loses
    assert rank(cards) == ["equity", "cfr", "call"]


@pytest.mark.slow  # make test-slow: the card resumes as a tournament does (tests/test_tournament.py, make test)
def test_a_resumed_card_plays_only_the_matches_it_misses(tmp_path: Path) -> None:
    out = tmp_path / "card"
    first = card(out, PLUGINS["call"])
    kept = out / "CallAgent-vs-random" / "seed1-a1.log"
    cut = out / "CallAgent-vs-rule" / "seed2-a2.log"
    cut.write_text(cut.read_text()[: len(cut.read_text()) // 2])  # a match cut short
    (out / "CallAgent-vs-random" / "seed2-a1.log").unlink()  # a match not played
    stamp = kept.stat().st_mtime_ns
    done = run(
        program("acpc-eval"), PLUGINS["call"], *DEAL, "--references", "random,rule", "--lbr-hands", LBR_DEALS,
        "--out", str(out), "--quiet", "--no-plots", "--concurrency", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "8 matches (6 already played" in done.stderr and "playing 2" in done.stderr
    assert kept.stat().st_mtime_ns == stamp
    second = json.loads((out / "report.json").read_text())
    for reference in ("random", "rule"):
        check_equal(second["matchups"][reference], first["matchups"][reference])
    assert second["card"]["lbr"] == first["card"]["lbr"]


def test_a_tcp_bots_card_has_no_lbr_and_says_why(tmp_path: Path) -> None:
    command = f"{program('acpc-agent')} call {{host}} {{port}} --game {{game}}"
    report = card(tmp_path / "card", "--cmd", command, references="rule")
    assert report["card"]["lbr"] is None
    assert "over TCP" in report["card"]["notes"]["lbr"]
    # calling is calling over TCP too: the duplicate figure of the shipped agent in process
    separate = match(tmp_path / "rule", "call", "rule")
    assert report["matchups"]["rule"]["duplicate"] == separate["duplicate"]
    assert report["matchups"]["rule"]["aivat"]["known"] == ["b-rule"]


ACT_ONLY = """
from acpc_arena.agents.api import CALL_ACTION, Action, Agent, MatchState

class CallOnly(Agent):
    default_game = "kuhn.limit.2p"

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION
"""


def test_a_bot_without_policy_has_duplicate_results_and_says_why_it_has_no_lbr(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(ACT_ONLY)
    out = tmp_path / "card"
    report = card(out, f"{bot}:CallOnly", references="rule")
    notes = report["card"]["notes"]
    assert report["card"]["lbr"] is None and "no policy method" in notes["lbr"]
    assert "references' policies only" in notes["aivat"]
    assert report["matchups"]["rule"]["duplicate"] == match(tmp_path / "rule", "call", "rule")["duplicate"]
    # the card shows on the web view's Results page
    app = WebApp([out], tmp_path / "web")
    results = [entry["id"] for entry in app.files(Request("GET", "/api/files", {}))["results"]]
    assert "0/report.json" in results
    shown = app.result(Request("GET", "/api/result", {"f": "0/report.json"}))
    assert shown["data"]["card"]["bot"] == "CallOnly"
