"""The two-player pre-flop equity table behind the all-in adjustment: exact values from an independent
evaluator, the same figures as the plain enumeration on a real no-limit log, kept on disk between processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.dealer.arena.report import read_log
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.equity import (
    _index_combinations,
    _preflop_counts,
    allin_expected_values,
    ended_all_in_early,
    expected_showdown_values,
    preflop_equity,
)
from acpc_arena.protocol.evaluator import rank_hands_of_players
from acpc_arena.protocol.game import load_game
from tests.processes import play

HOLDEM = load_game("holdem.nolimit.2p.reverse_blinds")
BOARDS = 1_712_304  # C(48, 5)

# GNU poker-eval's hcmp2 (https://brainwagon.org/2005/04/09/texas-holdem-trivia): wins and ties of the first hand
POKER_EVAL = [
    ("AdAc", "KhKs", 1_388_072, 6_538),
    ("AdAc", "Td9d", 1_338_249, 6_912),
    ("AdAc", "QcJh", 1_450_987, 6_554),
]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACPC_ARENA_CACHE", str(tmp_path / "cache"))
    import acpc_arena.protocol.equity as equity

    monkeypatch.setattr(equity, "_PREFLOP_TABLES", {})


@pytest.mark.parametrize(("first", "second", "wins", "ties"), POKER_EVAL)
def test_preflop_equity_is_poker_evals_exact_count(first: str, second: str, wins: int, ties: int) -> None:
    a, b = parse_cards(first), parse_cards(second)
    expected = (wins + ties / 2) / BOARDS
    assert preflop_equity(HOLDEM, a, b) == pytest.approx(expected, abs=1e-12)
    assert preflop_equity(HOLDEM, b, a) == pytest.approx(1 - expected, abs=1e-12)


def test_suit_renamed_deals_share_one_entry_and_later_processes_read_it(tmp_path: Path) -> None:
    aces, kings = parse_cards("AdAc"), parse_cards("KhKs")
    value = preflop_equity(HOLDEM, aces, kings)
    assert preflop_equity(HOLDEM, parse_cards("AhAs"), parse_cards("KdKc")) == value  # d<->h, c<->s
    lines = next((tmp_path / "cache").glob("preflop-equity-*.txt")).read_text().splitlines()
    assert len(lines) == 1
    assert lines[0].split()[-2:] == [str(2 * 1_388_072 + 6_538), str(BOARDS)]
    code = (
        "from acpc_arena.protocol.equity import PreflopTable; from acpc_arena.protocol.game import load_game; "
        "print(len(PreflopTable(load_game('holdem.nolimit.2p.reverse_blinds')).values))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1"


def test_a_cut_line_in_the_table_file_is_ignored(tmp_path: Path) -> None:
    aces, kings = parse_cards("AdAc"), parse_cards("KhKs")
    preflop_equity(HOLDEM, aces, kings)
    path = next((tmp_path / "cache").glob("preflop-equity-*.txt"))
    path.write_text(path.read_text() + "1 2 3")
    import acpc_arena.protocol.equity as equity

    equity._PREFLOP_TABLES.clear()
    assert preflop_equity(HOLDEM, aces, kings) == pytest.approx((1_388_072 + 6_538 / 2) / BOARDS, abs=1e-12)


def test_a_real_no_limit_logs_all_in_values_are_the_plain_enumerations(tmp_path: Path) -> None:
    status, _, err = play(tmp_path, "holdem.nolimit.2p.reverse_blinds", 300, 11, [("random", ["--seed", "3"])] * 2)
    assert status == 0, err
    match = read_log(next(tmp_path.glob("*.log")))
    preflop = [h for h in match.hands if ended_all_in_early(h.state) and not any(h.state.actions[1:])]
    assert len(preflop) >= 3
    for hand in preflop[:3]:
        state = hand.state
        held = {card for hole in state.hole_cards for card in hole}
        unseen = np.array([c for c in HOLDEM.deck if c not in held], dtype=np.uint8)
        boards = unseen[_index_combinations(len(unseen), 5)]
        ranks = rank_hands_of_players(boards, state.hole_cards)
        plain = expected_showdown_values(ranks, state.spent, state.folded)
        assert allin_expected_values(state) == pytest.approx(plain.tolist(), abs=1e-9)


def test_counts_cover_every_board() -> None:
    twice, boards = _preflop_counts(HOLDEM, parse_cards("2c2d"), parse_cards("2h2s"))
    assert boards == BOARDS
    assert twice == BOARDS  # swapping suits c<->h, d<->s swaps the hands: each wins as often, so 2 wins + ties = boards
