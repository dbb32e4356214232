"""PHH export round trip: ACPC log -> ``acpc-report --phh`` -> pokerkit loads and replays
every hand -> its payoffs (finishing minus starting stacks) are the log's values.

The logs: the C dealer's (tests/fixtures/c_dealer: heads-up limit and no-limit, 3-player
limit and no-limit), this project's own matches through ``acpc-match`` (tests/data/
acpc_match_*: limit and no-limit, the two seatings of seed 7) and the hand-made
competition log (tests/data/competition_2017_nolimit.log). The expected values, names
and hand numbers are read off the log text; pokerkit replays the files on its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pokerkit import HandHistory

from acpc_arena.dealer.commands import report as report_cli
from acpc_arena.protocol.game import load_game

TESTS = Path(__file__).parent
LOGS = {
    "c-limit-2p": (TESTS / "fixtures/c_dealer/holdem.limit.2p.reverse_blinds.log", "holdem.limit.2p.reverse_blinds"),
    "c-nolimit-2p": (
        TESTS / "fixtures/c_dealer/holdem.nolimit.2p.reverse_blinds.log",
        "holdem.nolimit.2p.reverse_blinds",
    ),
    "c-limit-3p": (TESTS / "fixtures/c_dealer/holdem.limit.3p.log", "holdem.limit.3p"),
    "c-nolimit-3p": (TESTS / "fixtures/c_dealer/holdem.nolimit.3p.log", "holdem.nolimit.3p"),
    "match-limit": (TESTS / "data/acpc_match_limit/seed7-a2.log", "holdem.limit.2p.reverse_blinds"),
    "match-nolimit": (TESTS / "data/acpc_match_nolimit/seed7-a1.log", "holdem.nolimit.2p.reverse_blinds"),
    "competition": (TESTS / "data/competition_2017_nolimit.log", "holdem.nolimit.2p.reverse_blinds"),
}
FAST_HANDS = 12
SPLIT_POT = "STATE:71:"
"""A 3-player no-limit hand whose pot splits into halves of chips (9275.5 each)."""


def trimmed(log: Path, hands: int | None, folder: Path) -> Path:
    """The log's header and its first ``hands`` hands (all when None), plus any split-pot hand."""
    lines = log.read_text().splitlines()
    states = [line for line in lines if line.startswith("STATE")]
    kept = states if hands is None else states[:hands] + [line for line in states if line.startswith(SPLIT_POT)]
    path = folder / log.name
    path.write_text("\n".join([line for line in lines if line.startswith("#")] + kept) + "\n")
    return path


def export(log: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = folder / "phh"
    report_cli.main(["--phh", str(out), str(log)])
    captured = capsys.readouterr()
    assert captured.err == "", captured.err
    return out / f"{log.stem}.phhs"


def check_round_trip(log: Path, game_name: str, phhs: Path) -> None:
    game = load_game(game_name)
    lines = [line for line in log.read_text().splitlines() if line.startswith("STATE")]
    with open(phhs, "rb") as file:
        histories = list(HandHistory.load_all(file))
    assert len(histories) == len(lines)
    for line, hh in zip(lines, histories, strict=True):
        _, hand, _, _, values_text, names_text = line.split(":")
        values = [float(v) for v in values_text.split("|")]
        assert hh.hand == int(hand) and hh.players == names_text.split("|")
        states = iter(hh)  # pokerkit's state after each step (one object, changed in place)
        final = next(states)
        assert list(final.bets) == list(game.blind), line  # the blinds posted: position p's ACPC blind
        for state in states:
            final = state
        assert not final.status
        payoffs = [end - start for end, start in zip(final.stacks, final.starting_stacks, strict=True)]
        assert list(final.stacks) == hh.finishing_stacks
        if all(v.is_integer() for v in values):
            assert payoffs == values, line
        else:  # an odd chip: pokerkit gives it to one winner, the ACPC dealer half to each
            assert all(abs(p - v) < 1 for p, v in zip(payoffs, values, strict=True)) and sum(payoffs) == 0, line


@pytest.mark.parametrize("name", sorted(LOGS))
def test_round_trip_first_hands(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    log, game_name = LOGS[name]
    small = trimmed(log, FAST_HANDS, tmp_path)
    check_round_trip(small, game_name, export(small, tmp_path, capsys))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LOGS))
def test_round_trip_every_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    log, game_name = LOGS[name]
    check_round_trip(log, game_name, export(log, tmp_path, capsys))


def test_the_heads_up_blinds_as_pokerkit_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ACPC ``blind = 100 50``: position 0 (PHH p1) posts the big blind and acts first after
    the flop; PHH lists the blinds from the small one and pokerkit reverses them heads-up."""
    log, _ = LOGS["competition"]
    with open(export(trimmed(log, 1, tmp_path), tmp_path, capsys), "rb") as file:
        (hh,) = HandHistory.load_all(file)
    assert hh.blinds_or_straddles == [50, 100] and hh.min_bet == 100 and hh.starting_stacks == [20000, 20000]
    # STATE:0:cc/cc/cr200c/cr400f: the small blind (position 1) calls first, position 0 opens the flop
    betting = [a for a in hh.actions if not a.startswith("d ")]
    assert betting[:4] == ["p2 cc", "p1 cc", "p1 cc", "p2 cc"]
    assert betting[-3:] == ["p1 cc", "p2 cbr 200", "p1 f"]  # raise to 400 in the hand is 200 in the river's betting


def test_a_game_phh_cannot_hold_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = TESTS / "fixtures/c_dealer/kuhn.limit.2p.log"
    report_cli.main(["--phh", str(tmp_path), str(log)])
    captured = capsys.readouterr()
    assert "no hands written" in captured.out
    assert "Texas hold'em games only" in captured.err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("names", "players"),
    [
        ((b"J\xc3\xbcrgen", b"\xff"), ["J\u00fcrgen", "\\xff"]),  # UTF-8 as it is; a lone byte as \xff
        ((b"x'", b'a\\b"c'), ["x'", 'a\\b"c']),  # what a TOML literal string holds, as it is
        ((b"a'''b", b"$x"), ["a\\x27\\x27\\x27b", "$x"]),  # no literal string holds ''': each ' as \x27
    ],
)
def test_names_any_bytes_are_written_as_toml_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], names: tuple[bytes, bytes], players: list[str]
) -> None:
    """The competition log's first hand under other names: pokerkit (tomllib) reads the file back."""
    log, _ = LOGS["competition"]
    lines = log.read_bytes().split(b"\n")
    hand = lines[4].replace(b"Slumbot_2pn_2017", names[0]).replace(b"SimpleRule_2pn_2017", names[1])
    renamed = tmp_path / "renamed.log"
    renamed.write_bytes(b"\n".join([*lines[:4], hand, b""]))
    with open(export(renamed, tmp_path, capsys), "rb") as file:
        (hh,) = HandHistory.load_all(file)
    assert hh.players == players
