"""The log reader's pieces that every reading shares (protocol/acpc_log.py): a log's lines, its header, the
game it names, and one hand read again from its line. What each should give is read from the file's text
here (Python's own ``gzip`` and ``str.split``), never from the code under test."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from acpc_arena.protocol.acpc_log import hand_on_line, header_game, log_lines, log_stamp, read_header
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game, shipped_game_path

COMPETITION = Path(__file__).parent / "data" / "competition_2017_nolimit.log"
NL = load_game("holdem.nolimit.2p.reverse_blinds")


def test_a_compressed_logs_lines_are_its_text_lines_but_blank_ones_numbered_in_the_file(tmp_path: Path) -> None:
    text = COMPETITION.read_text()
    lines = [*text.splitlines(), "", "   ", "SCORE:0|0:a|b"]  # two blank lines, the last one without newline
    log = tmp_path / "x.log"
    with gzip.open(log, "wt") as out:
        out.write("\n".join(lines))
    expected = [(number, line, number < len(lines)) for number, line in enumerate(lines, 1) if line.strip()]
    assert list(log_lines(log, b"")) == expected
    comments = [entry for entry in expected if entry[1].startswith("#") and not entry[1].startswith("# name/")]
    assert comments and list(log_lines(log)) == [entry for entry in expected if entry not in comments]


def test_a_hand_is_read_again_from_its_line(tmp_path: Path) -> None:
    lines = COMPETITION.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if line.startswith("STATE:2:"))
    fields = lines[number - 1].split(":")
    hand = hand_on_line(COMPETITION, NL, number)
    assert hand is not None and hand.line == number and hand.path == str(COMPETITION)
    assert hand.state.hand_id == 2
    assert hand.values == tuple(float(v) for v in fields[4].split("|"))
    assert hand.names == tuple(fields[5].split("|"))
    assert hand_on_line(COMPETITION, NL, len(lines) + 5) is None
    assert hand_on_line(COMPETITION, NL, 1) is None and hand_on_line(COMPETITION, NL, 2) is None  # comments
    damaged = tmp_path / "damaged.log"
    damaged.write_text("\n".join([*lines[: number - 1], "STATE:2:cc", *lines[number:]]))
    with pytest.raises(ProtocolError, match="not a whole STATE line"):
        hand_on_line(damaged, NL, number)


def test_a_check_is_called_every_ten_thousand_lines_on_the_way(tmp_path: Path) -> None:
    hand = next(line for line in COMPETITION.read_text().splitlines() if line.startswith("STATE"))
    log = tmp_path / "long.log"
    log.write_text((hand + "\n") * 25_000)
    calls: list[int] = []
    assert hand_on_line(log, NL, 25_000, lambda: calls.append(1)) is not None
    assert len(calls) == 2  # lines 10,000 and 20,000


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("STATE:0:cc/cc:...", "no '# name/game/hands/seed' header: not an ACPC log"),
        ("# name/game/hands/seed m g.game 10", "malformed header"),
        ("# name/game/hands/seed m g.game 10 x", "the header's hands and seed must be whole numbers"),
        ("# name/game/hands/seed m g.game 10 " + "9" * 21, "the header's hands and seed must be at most 20 digits"),
    ],
)
def test_a_header_that_is_none_says_why(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        read_header(line)


def test_the_headers_fields() -> None:
    header = read_header("# name/game/hands/seed m.a.b holdem.limit.2p.reverse_blinds.game 3000 " + "9" * 20)
    assert tuple(header) == ("m.a.b", "holdem.limit.2p.reverse_blinds.game", 3000, 10**20 - 1)


def test_the_game_a_header_names_is_found_beside_the_log_or_by_its_shipped_name(tmp_path: Path) -> None:
    shipped = load_game("leduc.limit.2p")
    assert header_game("elsewhere/leduc.limit.2p.game", tmp_path) == shipped  # a shipped game by its name
    source = shipped_game_path("leduc.limit.2p")
    assert source is not None
    shutil.copy(source, tmp_path / "mine.game")
    assert header_game("/nowhere/mine.game", tmp_path) == shipped  # beside the log, by its name alone
    assert header_game("/nowhere/other.game", tmp_path) is None


def test_a_logs_stamp_changes_when_it_grows(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    shutil.copy(COMPETITION, log)
    before = log_stamp(log)
    with log.open("a") as out:
        out.write("\n")
    assert log_stamp(log) != before and log_stamp(log)[0] == before[0] + 1
