"""The two-player pre-flop equity table behind the all-in adjustment: exact values from an independent
evaluator, the same figures as the plain enumeration on a real no-limit log, kept on disk between processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.completions import index_combinations
from acpc_arena.protocol.equity import (
    SHIPPED_TABLES,
    _preflop_counts,
    allin_expected_values,
    ended_all_in_early,
    expected_showdown_values,
    preflop_equity,
    suit_canonical,
)
from acpc_arena.protocol.evaluator import rank_hands_of_players
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.match_log import read_log
from acpc_arena.protocol.preflop_table import class_hands, hands, sign_sums
from tests.helpers.processes import play

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


@pytest.fixture
def no_shipped_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal computed when first seen and kept in the cache file, as for a deck with no shipped table."""
    import acpc_arena.protocol.equity as equity

    monkeypatch.setattr(equity, "SHIPPED_TABLES", tmp_path / "no-tables")


@pytest.mark.parametrize("source", ["shipped", "computed"])
@pytest.mark.parametrize(("first", "second", "wins", "ties"), POKER_EVAL)
def test_preflop_equity_is_poker_evals_exact_count(
    first: str, second: str, wins: int, ties: int, source: str, request: pytest.FixtureRequest
) -> None:
    if source == "computed":
        request.getfixturevalue("no_shipped_table")
    a, b = parse_cards(first), parse_cards(second)
    expected = (wins + ties / 2) / BOARDS
    assert preflop_equity(HOLDEM, a, b) == pytest.approx(expected, abs=1e-12)
    assert preflop_equity(HOLDEM, b, a) == pytest.approx(1 - expected, abs=1e-12)


def shipped() -> dict[tuple[int, ...], int]:
    with np.load(SHIPPED_TABLES / "preflop-equity-13x4.npz") as table:
        assert int(table["boards"]) == BOARDS
        return dict(zip(map(tuple, table["keys"].tolist()), table["twice_wins_plus_ties"].tolist(), strict=True))


def test_the_shipped_table_holds_every_deal_each_the_complement_of_its_mirror() -> None:
    table = shipped()
    rng = np.random.default_rng(7)
    for _ in range(500):
        cards = rng.choice(52, 4, replace=False).tolist()
        assert suit_canonical(HOLDEM, cards[:2], cards[2:]) in table
    keys = sorted(table)
    for index in rng.choice(len(keys), 5000, replace=False):
        key = keys[index]
        assert table[key] + table[suit_canonical(HOLDEM, key[2:], key[:2])] == 2 * BOARDS


def test_the_shipped_table_is_the_enumeration_of_each_deals_boards() -> None:
    table = shipped()
    keys = sorted(table)
    for index in np.random.default_rng(11).choice(len(keys), 3, replace=False):
        key = keys[index]
        assert _preflop_counts(HOLDEM, key[:2], key[2:]) == (table[key], BOARDS)


def test_the_builder_sums_the_sign_of_each_boards_showdown() -> None:
    """``sign_sums`` on a slice of the boards, against ranking each deal on each of those boards."""
    start, stop = 1_000_000, 1_001_000
    sums = sign_sums(HOLDEM, start, stop)
    boards = np.arange(52, dtype=np.uint8)[index_combinations(52, 5)[start:stop]]
    every, classes = hands(), class_hands(HOLDEM)
    rng = np.random.default_rng(3)
    for row, column in zip(rng.integers(len(classes), size=6), rng.integers(len(every), size=6), strict=True):
        first, second = every[classes[row]], every[column]
        if set(first) & set(second):
            continue
        clear = np.array([not set(board) & {*first, *second} for board in boards.tolist()])
        ranks = rank_hands_of_players(boards[clear], [first, second]).astype(int)
        expected = int(np.sign(ranks[:, 0] - ranks[:, 1]).sum()) - int((~clear).sum())
        assert sums[row, column] == expected


def test_a_damaged_shipped_table_only_costs_computing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import acpc_arena.protocol.equity as equity

    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "preflop-equity-13x4.npz").write_bytes(b"PK\x03\x04 not a zip")
    monkeypatch.setattr(equity, "SHIPPED_TABLES", tmp_path / "tables")
    wins, ties = POKER_EVAL[0][2:]
    value = preflop_equity(HOLDEM, parse_cards("AdAc"), parse_cards("KhKs"))
    assert value == pytest.approx((wins + ties / 2) / BOARDS, abs=1e-12)


@pytest.mark.usefixtures("no_shipped_table")
def test_suit_renamed_deals_share_one_entry_and_later_processes_read_it(tmp_path: Path) -> None:
    aces, kings = parse_cards("AdAc"), parse_cards("KhKs")
    value = preflop_equity(HOLDEM, aces, kings)
    assert preflop_equity(HOLDEM, parse_cards("AhAs"), parse_cards("KdKc")) == value  # d<->h, c<->s
    lines = next((tmp_path / "cache").glob("preflop-equity-*.txt")).read_text().splitlines()
    assert len(lines) == 1
    assert lines[0].split()[-2:] == [str(2 * 1_388_072 + 6_538), str(BOARDS)]
    code = (
        "from pathlib import Path; import acpc_arena.protocol.equity as equity; "
        "from acpc_arena.protocol.game import load_game; equity.SHIPPED_TABLES = Path('/no-tables'); "
        "print(len(equity.PreflopTable(load_game('holdem.nolimit.2p.reverse_blinds')).values))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1"


@pytest.mark.usefixtures("no_shipped_table")
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
        boards = unseen[index_combinations(len(unseen), 5)]
        ranks = rank_hands_of_players(boards, state.hole_cards)
        plain = expected_showdown_values(ranks, state.spent, state.folded)
        assert allin_expected_values(state) == pytest.approx(plain.tolist(), abs=1e-9)


def test_counts_cover_every_board() -> None:
    twice, boards = _preflop_counts(HOLDEM, parse_cards("2c2d"), parse_cards("2h2s"))
    assert boards == BOARDS
    assert twice == BOARDS  # swapping suits c<->h, d<->s swaps the hands: each wins as often, so 2 wins + ties = boards
