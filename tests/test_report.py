"""Scoring logs: the statistics against values worked out independently."""

from __future__ import annotations

import itertools
import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.dealer.arena.estimates import Z95, estimate
from acpc_arena.dealer.arena.reports import build_report, verdict
from acpc_arena.dealer.commands import report as report_cli
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.equity import allin_expected_values, ended_all_in_early, expected_showdown_values
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.match_log import read_log
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import format_log_line, format_score_line

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
NL = load_game("holdem.nolimit.2p.reverse_blinds")


def write_log(
    path: Path, game_name: str, seed: int, seat_names: tuple[str, str], hands: list[tuple[State, list[float]]]
) -> None:
    """An ACPC log of finished hands (positions rotate one seat per hand, as the dealer's do)."""
    lines = [
        f"# name/game/hands/seed {path.stem} {game_name} {len(hands)} {seed}",
        "#--t_response 600000",
        "#--t_hand 600000",
        "#--t_per_hand 7000",
    ]
    totals = [0.0, 0.0]
    for hand_id, (state, values) in enumerate(hands):
        names = [seat_names[(p + hand_id) % 2] for p in range(2)]
        lines.append(format_log_line(state, values, names))
        for p in range(2):
            totals[(p + hand_id) % 2] += values[p]
    lines.append(format_score_line(totals, seat_names))
    path.write_text("\n".join(lines) + "\n")


def folded_hand(game: Game, hand_id: int, winner: int) -> tuple[State, list[float]]:
    """A hand the loser folds at once; ``winner`` is the position that wins the blinds."""
    state = State(game, hand_id, [parse_cards("2c3d"), parse_cards("4h5s")], parse_cards("6c7d8h9sTc"))
    if state.current_player == winner:
        state.apply(Action(RAISE, state.legal_actions().min_raise_to if game.no_limit else 0))
    state.apply(Action(FOLD))
    return state, state.values()


def test_estimate_matches_the_formula() -> None:
    samples = np.array([10.0, -5.0, 0.0, 20.0, -10.0])
    est = estimate(samples, big_blind=10)
    mean, sd = samples.mean(), samples.std(ddof=1)
    assert est.chips_per_hand == pytest.approx(mean)
    assert est.chips_ci95 == pytest.approx((mean - Z95 * sd / math.sqrt(5), mean + Z95 * sd / math.sqrt(5)))
    assert est.mbb_per_hand == pytest.approx(100 * mean)  # limit: big blind 10 -> 1 chip = 100 mbb
    assert estimate(samples, big_blind=100).mbb_per_hand == pytest.approx(10 * mean)  # no-limit: big blind 100


@pytest.mark.parametrize(
    ("name", "big_blind"), [("holdem.limit.2p.reverse_blinds", 10), ("holdem.nolimit.2p.reverse_blinds", 100)]
)
def test_mbb_units_on_logs(tmp_path: Path, name: str, big_blind: int) -> None:
    """Worked by hand. Position 0 posts the big blind, position 1 the small blind and acts first.
    A hand that position 0 wins: position 1 folds, position 0 takes the small blind (half a big
    blind). One that position 1 wins: it raises, position 0 folds, position 1 takes the big blind."""
    game = load_game(name)
    # Position 0 wins the even hands of the first match, position 1 every hand of the second.
    first = [folded_hand(game, h, winner=h % 2) for h in range(6)]
    second = [folded_hand(game, h, winner=1) for h in range(6)]
    write_log(tmp_path / "a1.log", name, 7, ("A", "B"), first)
    write_log(tmp_path / "a2.log", name, 7, ("B", "A"), second)
    report = build_report([read_log(tmp_path / "a1.log"), read_log(tmp_path / "a2.log")], a="A")
    # First match, A in seat 1: A is position 0 in the even hands and wins 1/2 big blind, position 1
    # in the odd ones and wins 1 big blind. Second match, A in seat 2: A is position 1 in the even
    # hands and wins 1 big blind, position 0 in the odd ones and loses 1.
    a_first = [0.5, 1, 0.5, 1, 0.5, 1]
    a_second = [1, -1, 1, -1, 1, -1]
    assert [m["a_seat"] for m in report.to_json()["matches"]] == [1, 2]
    assert report.matches[0].chips_a == pytest.approx(4.5 * big_blind)
    assert report.matches[0].mbb_per_hand_a == pytest.approx(750)  # 0.75 big blinds a hand
    assert report.matches[1].mbb_per_hand_a == pytest.approx(0)
    assert report.matches[0].win_rate_a == 1 and report.matches[1].win_rate_a == 0.5
    # Duplicate samples: (0.5 + 1) / 2 and (1 - 1) / 2 in turn, a mean of 0.375 big blinds.
    pairs = [(x + y) / 2 for x, y in zip(a_first, a_second, strict=True)]
    assert pairs == [0.75, 0, 0.75, 0, 0.75, 0]
    half = Z95 * statistics.stdev(pairs) / math.sqrt(6)
    assert report.duplicate.mbb_per_hand == pytest.approx(375)
    assert report.duplicate.ci95 == pytest.approx((1000 * (0.375 - half), 1000 * (0.375 + half)))
    assert report.duplicate.chips_per_hand == pytest.approx(0.375 * big_blind)
    assert report.per_hand.mbb_per_hand == pytest.approx(375)  # 4.5 big blinds over 12 hands
    assert report.duplicate_pairs == 6
    assert report.to_json()["big_blind"] == game.big_blind == big_blind


@pytest.mark.parametrize(
    ("samples", "expected"),
    [
        # mean 2 chips = +200 mbb/h (big blind 10); sample sd sqrt(4/3) = 1.1547, standard error 0.57735,
        # half-width 1.96 x 0.57735 = 1.1316 chips = 113.2 mbb/h: [+86.8, +313.2], above 0.
        ([1.0, 1.0, 3.0, 3.0], "A (a-x) wins: +200.0 mbb/h for A, 95% CI [+86.8, +313.2] excludes 0 (duplicate)"),
        # The same, negated: below 0, B wins.
        ([-1.0, -1.0, -3.0, -3.0], "B (b-y) wins: -200.0 mbb/h for A, 95% CI [-313.2, -86.8] excludes 0 (duplicate)"),
        # mean 1 chip = +100 mbb/h; deviations -4, 0, 1, 3: sd sqrt(26/3) = 2.9439, standard error 1.4720,
        # half-width 2.8850 chips = 288.5 mbb/h: [-188.5, +388.5], which holds 0.
        (
            [-3.0, 1.0, 2.0, 4.0],
            "no significant difference at 95%: +100.0 mbb/h for A, 95% CI [-188.5, +388.5] includes 0 (duplicate)",
        ),
    ],
)
def test_the_verdict_names_a_winner_only_when_the_interval_excludes_0(samples: list[float], expected: str) -> None:
    est = estimate(np.array(samples), big_blind=10)
    mean = statistics.fmean(samples)
    half = statistics.NormalDist().inv_cdf(0.975) * statistics.stdev(samples) / math.sqrt(len(samples))
    assert f"[{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}]" in expected  # the hand computation, rechecked
    assert verdict(est, "a-x", "b-y", "duplicate") == expected


def test_no_hands_get_no_verdict() -> None:
    assert verdict(estimate(np.array([]), big_blind=10), "a-x", "b-y", "per hand") == "no hands to score: no verdict"


def test_the_table_has_a_verdict_and_explains_its_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The logs of ``test_mbb_units_on_logs`` on limit hold'em (big blind 10), through ``acpc-report``."""
    name = "holdem.limit.2p.reverse_blinds"
    write_log(tmp_path / "a1.log", name, 7, ("A", "B"), [folded_hand(LIMIT, h, winner=h % 2) for h in range(6)])
    write_log(tmp_path / "a2.log", name, 7, ("B", "A"), [folded_hand(LIMIT, h, winner=1) for h in range(6)])
    report_cli.main([str(tmp_path / "a1.log"), str(tmp_path / "a2.log"), "--a", "A"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split("  ")[-2:] == ["hands A won", "note"] and "win rate" not in "\n".join(lines)
    # A won every hand of the first match (6 of 6) and 3 of 6 in the second.
    rows = [line.split() for line in lines if line.split()[:2] in (["7", "1"], ["7", "2"])]
    assert rows == [["7", "1", "6", "+45", "+750.0", "100.0%"], ["7", "2", "6", "+0", "+0.0", "50.0%"]]
    # Duplicate samples 0.75, 0, 0.75, 0, 0.75, 0 big blinds: mean 375 mbb/h, sample sd 0.41079, standard
    # error 0.16771, half-width 1.96 x 0.16771 = 0.32870 big blinds = 328.7 mbb/h.
    assert "verdict: A (A) wins: +375.0 mbb/h for A, 95% CI [+46.3, +703.7] excludes 0 (duplicate)" in lines
    legend = lines[lines.index("columns:") :]
    assert [line.split("  ")[1] for line in legend[1:] if line[2:3] != " "] == [
        "A seat",
        "hands",
        "chips won by A",
        "mbb/h A",
        "hands A won",
        "note",
    ]
    assert any(line.strip().startswith("hands A won     the share of hands in which A won chips") for line in legend)


def test_allin_expectation_over_every_board() -> None:
    """A flop all-in valued by State.value over each of the 990 turn-river pairs."""
    holes = [parse_cards("AsKs"), parse_cards("QhQd")]
    board = parse_cards("Kc7s2d")
    state = State(NL, 0, holes, board + parse_cards("3c4c"))
    for action in (Action(CALL), Action(CALL), Action(RAISE, 20000), Action(CALL)):
        assert state.validate_action(action) == action
        state.apply(action)
    assert state.finished and ended_all_in_early(state)
    unseen = [c for c in NL.deck if c not in set(holes[0] + holes[1] + board)]
    total = np.zeros(2)
    count = 0
    for turn, river in itertools.combinations(unseen, 2):
        completed = State(NL, 0, holes, [*board, turn, river])
        for action in (Action(CALL), Action(CALL), Action(RAISE, 20000), Action(CALL)):
            assert completed.validate_action(action) == action
            completed.apply(action)
        total += completed.values()
        count += 1
    assert count == 990
    assert allin_expected_values(state) == pytest.approx(list(total / count))


def test_showdown_values_agree_with_the_engine_on_side_pots() -> None:
    game = load_game("holdem.nolimit.3p")
    rng = np.random.default_rng(1)
    for _ in range(200):
        deck = rng.permutation(52)
        holes = [list(deck[0:2]), list(deck[2:4]), list(deck[4:6])]
        board = list(deck[6:11])
        state = State(game, 0, holes, board)
        state.spent = [int(s) for s in rng.integers(1, 500, 3)]
        state.folded = [bool(f) for f in rng.random(3) < 0.3]
        state.folded[int(np.argmax(state.spent))] = False  # the biggest bettor never folded
        state.num_folded = sum(state.folded)
        if state.num_folded == 2:
            continue
        state.finished = True
        state.round = 3
        ranks = np.array([[rank_hand(h + board) for h in holes]])
        assert expected_showdown_values(ranks, state.spent, state.folded) == pytest.approx(state.values())


def test_reading_bad_logs(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text("not a log\n")
    with pytest.raises(ProtocolError, match="not an ACPC log"):
        read_log(tmp_path / "x.log")
    (tmp_path / "y.log").write_text("# name/game/hands/seed y nowhere.game 10 1\nSTATE:0:f:2c3d|4h5s:-5|5:A|B\n")
    with pytest.raises(ProtocolError, match="cannot find the game"):
        read_log(tmp_path / "y.log")
    broken = "# name/game/hands/seed y holdem.limit.2p.reverse_blinds 10 1\nSTATE:0:zz:2c3d|4h5s:-5|5:A|B\n"
    (tmp_path / "z.log").write_text(broken)
    with pytest.raises(ProtocolError, match=r"z\.log, line 2"):
        read_log(tmp_path / "z.log")
    with pytest.raises(ProtocolError, match="no logs"):
        build_report([])


def test_report_outputs_into_missing_or_blocked_places(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json into a folder not made yet makes it; --plots or --json at a file says so in one line
    after the table."""
    hands = [folded_hand(LIMIT, h, winner=0) for h in range(4)]
    write_log(tmp_path / "a1.log", "holdem.limit.2p.reverse_blinds", 7, ("A", "B"), hands)
    log = str(tmp_path / "a1.log")
    report_cli.main([log, "--json", str(tmp_path / "new" / "deeper" / "report.json")])
    assert json.loads((tmp_path / "new" / "deeper" / "report.json").read_text())["hands_played"] == 4
    (tmp_path / "file").write_text("mine\n")
    capsys.readouterr()
    for option, target, says in (("--plots", "file", "the plots into"), ("--json", "file/report.json", "")):
        with pytest.raises(SystemExit) as exit_:
            report_cli.main([log, option, str(tmp_path / target)])
        captured = capsys.readouterr()
        assert exit_.value.code == 1
        assert "A = A, B = B, game holdem.limit.2p.reverse_blinds" in captured.out  # the table is printed all the same
        lines = captured.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"acpc-report: cannot write {says}".rstrip())
    assert (tmp_path / "file").read_text() == "mine\n"


def test_a_run_folder_is_read_as_its_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``acpc-report matches/RUN/`` (the folder ``acpc-match`` prints) scores the logs in it: the rows of
    ``test_the_table_has_a_verdict_and_explains_its_columns``, whose logs these are; what else a run's
    folder holds (``report.json``, ``agents/``) is left alone."""
    name = "holdem.limit.2p.reverse_blinds"
    run = tmp_path / "run"
    (run / "agents").mkdir(parents=True)
    (run / "report.json").write_text("{}\n")
    write_log(run / "a1.log", name, 7, ("A", "B"), [folded_hand(LIMIT, h, winner=h % 2) for h in range(6)])
    write_log(run / "a2.log", name, 7, ("B", "A"), [folded_hand(LIMIT, h, winner=1) for h in range(6)])
    report_cli.main([f"{run}/", "--a", "A"])
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.split()[:2] in (["7", "1"], ["7", "2"])]
    assert rows == [["7", "1", "6", "+45", "+750.0", "100.0%"], ["7", "2", "6", "+0", "+0.0", "50.0%"]]


def test_a_folder_without_logs_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        report_cli.main([str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"acpc-report: error: no ACPC logs (.log, .log.gz, .log.bz2) in the folder {tmp_path} "
        "(see acpc-report --help)\n"
    )
