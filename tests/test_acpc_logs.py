"""Reading ACPC logs as the competitions published them (protocol/acpc_log.py).

The logs: tests/data/competition_2017_nolimit.log, made by hand in the 2017 competition's
format (its first three hands are the excerpt that the Poker-CNN paper quotes; the others'
values were worked out by hand and agree with tests/helpers/hand_values.py), the paper's own
excerpt with its ``;`` separators, and the C dealer's logs (tests/fixtures/c_dealer) with
the players renamed, seats rotating, the header dropped or naming a game file that is not
here, compressed, and damaged line by line. What each should give is read from the text
here (splitting fields), never from the code under test.
"""

from __future__ import annotations

import bz2
import gzip
import resource
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from acpc_arena.protocol.acpc_log import AcpcLogReader, Problem, parse_hand_line
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game
from tests.helpers.logs import NAMES, competition_copy, write_long_log

DATA = Path(__file__).parent / "data"
COMPETITION = DATA / "competition_2017_nolimit.log"
PAPER = DATA / "poker_cnn_paper_excerpt.log"
NL = load_game("holdem.nolimit.2p.reverse_blinds")


def read(
    path: Path, game_name: str | None = None
) -> tuple[list[tuple[str, ...]], list[tuple[float, ...]], AcpcLogReader]:
    """Names and values of every hand the reader yields, and the reader (for its problems)."""
    reader = AcpcLogReader(path, load_game(game_name) if game_name else None)
    hands = list(reader)
    return [h.names for h in hands], [h.values for h in hands], reader


def fields(line: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Names and values of a STATE line, split by hand."""
    parts = line.replace(";", ":").split(":")
    return tuple(parts[5].split("|")), tuple(float(v) for v in parts[4].split("|"))


def test_the_2017_format_with_names_rotating_seats(tmp_path: Path) -> None:
    names, values, reader = read(COMPETITION)
    expected = [fields(line) for line in COMPETITION.read_text().splitlines() if line.startswith("STATE")]
    assert names == [e[0] for e in expected]
    assert values == [e[1] for e in expected]
    assert reader.problem_count == 0
    assert reader.header is not None and reader.header.name == "Slumbot_2pn_2017.SimpleRule_2pn_2017.0.0"
    assert reader.game == NL
    # Seats rotate: Slumbot is position 0 in even hands, 1 in odd ones; worked out by hand,
    # Slumbot wins -200 -50 -300 +250 +20000 +0 +300 = 20000, as the SCORE line says.
    assert [n.index("Slumbot_2pn_2017") for n in names] == [0, 1, 0, 1, 0, 1, 0]
    assert sum(v[n.index("Slumbot_2pn_2017")] for n, v in zip(names, values, strict=True)) == 20000
    assert reader.score is not None and reader.score.totals == (20000, -20000)


def test_the_semicolon_variant_and_the_game_inferred() -> None:
    """The paper's lines (``;`` before the cards, no header): no-limit is told by the
    raise sizes and by the fold losing a 50-chip small blind."""
    names, values, reader = read(PAPER)
    assert reader.problem_count == 0
    assert reader.game == NL
    assert values == [(-200, 200), (50, -50), (-300, 300)]
    assert names[1] == ("SimpleRule_2pn_2017", "Slumbot_2pn_2017")
    same_with_colons = [line.replace(";", ":") for line in PAPER.read_text().splitlines()]
    assert [parse_hand_line(line, NL).values for line in same_with_colons] == values


@pytest.mark.parametrize(
    "game", ["holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds", "holdem.limit.3p"]
)
@pytest.mark.parametrize("header", ["none", "unknown game file", "semicolons"])
def test_competition_copies_of_the_c_dealers_logs(tmp_path: Path, game: str, header: str) -> None:
    """Limit, no-limit (raise-to sizes, 20000 stacks) and 3-player limit: every hand read,
    the game inferred from the hands when the header does not name one found here."""
    head = "# name/game/hands/seed match.0.0 /home/acpc/games/unknown.game 300 0" if header != "none" else None
    lines = competition_copy(game, head)
    if header == "semicolons":
        lines = [
            line.replace(":", ";", 5) if line.startswith("STATE") and i % 2 else line for i, line in enumerate(lines)
        ]
    path = tmp_path / "match.0.0.log"
    path.write_text("\n".join(lines) + "\n")
    names, values, reader = read(path)
    expected = [fields(line) for line in lines if line.startswith("STATE")]
    assert len(expected) == 300
    assert list(zip(names, values, strict=True)) == expected
    assert reader.game == load_game(game)
    assert reader.problem_count == 0, reader.problems[:3]
    assert reader.score is not None and set(reader.score.names) <= set(NAMES.values())


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress])
def test_compressed_logs_read_as_the_plain_one(tmp_path: Path, compress: object) -> None:
    lines = competition_copy("holdem.nolimit.2p.reverse_blinds")
    data = ("\n".join(lines) + "\n").encode()
    plain, packed = tmp_path / "m.log", tmp_path / "m.log.packed"
    plain.write_bytes(data)
    packed.write_bytes(compress(data))  # type: ignore[operator]
    assert read(plain)[:2] == read(packed)[:2]
    assert len(read(packed)[0]) == 300


def test_the_game_given_wins_over_inference(tmp_path: Path) -> None:
    """A no-limit log read as limit: every hand's betting is refused, each reported."""
    names, _, reader = read(PAPER, "holdem.limit.2p.reverse_blinds")
    assert names == []
    assert reader.problem_count == 3
    assert [p.line for p in reader.problems] == [1, 2, 3]


def test_a_trailing_comment_after_the_names_is_ignored(tmp_path: Path) -> None:
    """DeepStack's logs, "ACPC format with an added timestamp": ``... :DeepStack|player # 1479132064.35509``."""
    path = tmp_path / "deepstack.log"
    path.write_text(
        "STATE:19:r200c/cr400c/cr850f:9hQc|5dQd/4h4c6c/4s:-400|400:DeepStack|player.account # 1479132064.35509\n"
    )
    names, values, reader = read(path)
    assert names == [("DeepStack", "player.account")] and values == [(-400, 400)]
    assert reader.problem_count == 0


# -- damaged logs ----------------------------------------------------------------

GOOD = competition_copy("holdem.nolimit.2p.reverse_blinds")[:12]
"""Twelve good hands of a competition log (no header, game inferred from them)."""

DAMAGE: dict[str, tuple[Callable[[str], str], str]] = {
    # what is done to a good line -> what the problem must say
    "truncated": (lambda line: line[: line.index(":", 8) + 4], "STATE line"),
    "impossible betting": (lambda line: line.replace(":", ":f/", 2).replace(":f/", ":", 1), "invalid action"),
    "unknown card": (lambda line: line[: line.index("|") - 2] + "Xx" + line[line.index("|") :], "card"),
    "repeated card": (lambda line: _repeat_card(line), "repeated"),
    "values do not sum to zero": (lambda line: _set_values(line, "-100|50"), "sum to zero"),
    "values do not follow": (lambda line: _set_values(line, "-12345|12345"), "cards and betting give"),
    "names missing": (lambda line: line.rsplit("|", 1)[0], "names"),
    "not a log line": (lambda line: "Connection reset by peer", "not a line of an ACPC log"),
}


def _set_values(line: str, values: str) -> str:
    parts = line.split(":")
    parts[4] = values
    return ":".join(parts)


def _repeat_card(line: str) -> str:
    parts = line.split(":")
    cards = parts[3]
    parts[3] = cards[:2] + cards[:2] + cards[4:]  # the first hole card twice
    return ":".join(parts)


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_bad_line_is_reported_with_its_line_and_skipped(tmp_path: Path, kind: str) -> None:
    damage, says = DAMAGE[kind]
    lines = list(GOOD)
    bad_index = 6
    lines[bad_index] = damage(lines[bad_index])
    path = tmp_path / "damaged.log"
    path.write_text("\n".join(lines) + "\n")
    names, values, reader = read(path)
    expected = [fields(line) for i, line in enumerate(GOOD) if i != bad_index]
    assert list(zip(names, values, strict=True)) == expected
    assert reader.problem_count == 1
    (problem,) = reader.problems
    assert problem.path == str(path) and problem.line == bad_index + 1
    assert says in problem.reason, problem.reason
    assert "\n" not in str(problem)


def test_every_kind_of_damage_in_one_file_with_the_score_line(tmp_path: Path) -> None:
    """All the damage at once, with the header and SCORE line: the good hands are kept,
    each bad line named, and the SCORE totals found not to be the sums of what was read."""
    header = "# name/game/hands/seed m holdem.nolimit.2p.reverse_blinds.game 300 0"
    lines = [header, *GOOD]
    damaged_numbers = []
    for k, (damage, _) in enumerate(DAMAGE.values()):
        index = 2 + k  # lines 3.. of the file
        lines[index] = damage(lines[index])
        damaged_numbers.append(index + 1)
    seats = GOOD[0].split(":")[5].split("|")
    totals = dict.fromkeys(seats, 0.0)
    for line in GOOD:
        for name, value in zip(*fields(line), strict=True):
            totals[name] += value
    lines.append(f"SCORE:{'|'.join(f'{totals[s]:g}' for s in seats)}:{'|'.join(seats)}")
    path = tmp_path / "damaged.log"
    path.write_text("\n".join(lines) + "\n")
    names, _, reader = read(path)
    assert len(names) == len(GOOD) - len(DAMAGE)
    assert [p.line for p in reader.problems] == [*damaged_numbers, len(lines)]
    assert "SCORE totals" in reader.problems[-1].reason
    assert reader.problem_count == len(DAMAGE) + 1


def test_a_last_line_cut_short_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "cut.log"
    cut = GOOD[5][:-3]  # inside the last name: still a well-formed line, but for a name never seen
    path.write_text("\n".join(GOOD[:5]) + "\n" + cut)
    names, _, reader = read(path)
    assert len(names) == 5
    assert [p.line for p in reader.problems] == [6]
    assert "cut short" in reader.problems[0].reason
    whole = tmp_path / "whole.log"
    whole.write_text("\n".join(GOOD[:6]))  # the last line whole, only its newline missing
    assert len(read(whole)[0]) == 6 and read(whole)[2].problem_count == 0


@pytest.mark.parametrize("suffix", ["gz", "bz2"])
def test_a_compressed_log_cut_short_keeps_its_good_hands(tmp_path: Path, suffix: str) -> None:
    """bzip2 compresses 100 kB blocks at level 1: a log of several blocks, cut inside its last ones."""
    plain = tmp_path / "m.log"
    write_long_log(plain, 3000)
    lines = plain.read_text().splitlines()
    data = plain.read_bytes()
    packed = gzip.compress(data) if suffix == "gz" else bz2.compress(data, compresslevel=1)
    path = tmp_path / f"m.log.{suffix}"
    path.write_bytes(packed[: len(packed) * 2 // 3])
    problems: list[Problem] = []
    reader = AcpcLogReader(path, on_problem=problems.append)
    hands = list(reader)
    assert 100 < len(hands) < 3000
    assert [(h.names, h.values) for h in hands] == [fields(line) for line in lines[: len(hands)]]
    assert problems == reader.problems and len(problems) >= 1
    assert "cannot read the file" in problems[-1].reason


def test_a_file_that_fits_no_game_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "noise.log"
    path.write_text("STATE:0:zz:AsKs|QsJs:1|-1:a|b\nhello\n")
    names, _, reader = read(path)
    assert names == [] and reader.problem_count == 1
    assert reader.problems[0].line == 0 and "--game" in reader.problems[0].reason
    missing = AcpcLogReader(tmp_path / "absent.log")
    assert list(missing) == [] and "cannot read the file" in missing.problems[0].reason


def test_parse_hand_line_refuses_a_hand_not_over() -> None:
    with pytest.raises(ProtocolError, match="stops before the hand is over"):
        parse_hand_line("STATE:0:cc/c:7c4s|2hQh/Ac5h3c:0|0:a|b", NL)


# -- constant memory ---------------------------------------------------------------


def peak_memory_reading(path: Path) -> tuple[int, int]:
    """Hands read and the peak of Python memory allocated while reading them."""
    tracemalloc.start()
    count = sum(1 for _ in AcpcLogReader(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return count, peak


def test_memory_does_not_grow_with_the_log(tmp_path: Path) -> None:
    short, long = tmp_path / "short.log", tmp_path / "long.log"
    write_long_log(short, 150)
    write_long_log(long, 1500)
    (n_short, peak_short), (n_long, peak_long) = peak_memory_reading(short), peak_memory_reading(long)
    assert (n_short, n_long) == (150, 1500)
    assert peak_long < peak_short * 1.5 + 100_000


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_a_million_lines_in_constant_memory(tmp_path: Path) -> None:
    """The process's peak resident memory, taken before and after reading a million hands
    (written compressed, a line at a time, so writing raises no peak of its own)."""
    path = tmp_path / "million.log.gz"
    source = write_long_log(path, 1_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    reader = AcpcLogReader(path)
    totals: dict[str, float] = {}
    for hand in reader:
        for name, value in zip(hand.names, hand.values, strict=True):
            totals[name] = totals.get(name, 0.0) + value
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert reader.hands_read == 1_000_000 and reader.problem_count == 0
    assert grown < 50_000, f"the peak grew by {grown} kB"
    expected: dict[str, float] = {}
    for i in range(1_000_000):
        for name, value in zip(*fields(source[i % len(source)]), strict=True):
            expected[name] = expected.get(name, 0.0) + value
    assert totals == expected
