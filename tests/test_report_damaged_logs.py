"""``acpc-report`` on damaged logs: each one is scored up to its good hands or refused in one clear line.

The logs are made from the first hands of the C dealer's own logs (tests/fixtures/c_dealer):
cut at every byte, with bad headers, names that are not the match's players, bad numbers,
non-ASCII bytes, and seeded random one-byte damage. What each should give is worked out here
from the log text alone (splitting lines and fields), never from the code under test.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from acpc_arena.dealer.commands import report as report_cli

FIXTURES = Path(__file__).parent / "fixtures" / "c_dealer"
HANDS = 8


def small_log(game: str) -> tuple[bytes, list[str]]:
    """The C dealer's header and first hands of ``game``, then a SCORE line summed here; and its lines."""
    lines = (FIXTURES / f"{game}.log").read_text().splitlines()
    header, hands = lines[:4], [line for line in lines if line.startswith("STATE")][:HANDS]
    seats = hands[0].split(":")[5].split("|")  # in hand 0, position p is seat p
    totals = dict.fromkeys(seats, 0)
    for line in hands:
        values, names = line.split(":")[4:6]
        for name, value in zip(names.split("|"), values.split("|"), strict=True):
            totals[name] += int(value)
    score = f"SCORE:{'|'.join(str(totals[s]) for s in seats)}:{'|'.join(seats)}"
    lines = [*header, *hands, score]
    return ("\n".join(lines) + "\n").encode(), lines


def value_of(line: str, name: str) -> int:
    values, names = line.split(":")[4:6]
    return int(values.split("|")[names.split("|").index(name)])


@dataclass
class Scored:
    code: int
    out: str
    err: str
    report: dict[str, Any]


def score(folder: Path, name: str, data: bytes, capsys: pytest.CaptureFixture[str]) -> Scored:
    """``acpc-report`` (in this process) on a log holding ``data``."""
    log, out = folder / f"{name}.log", folder / f"{name}.json"
    log.write_bytes(data)
    code = 0
    try:
        report_cli.main([str(log), "--json", str(out)])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    report = json.loads(out.read_text()) if code == 0 else {}
    return Scored(code, captured.out, captured.err, report)


def refusal_problem(scored: Scored, name: str, expected: str) -> str | None:
    """Why ``scored`` is not a refusal in one line naming the log and saying ``expected``."""
    lines = scored.err.splitlines()
    if scored.code != 2:
        return f"{name}: exit {scored.code}, expected a refusal: {scored.err or scored.out[:200]!r}"
    if len(lines) != 1 or not lines[0].startswith("acpc-report: ") or f"{name}.log" not in lines[0]:
        return f"{name}: not one clear line: {scored.err!r}"
    if expected not in lines[0]:
        return f"{name}: {lines[0]!r} does not say {expected!r}"
    return None


def scored_problem(scored: Scored, name: str, hands: int, chips: int, finished: bool) -> str | None:
    """Why ``scored`` is not a score of ``hands`` hands worth ``chips`` to seat 1."""
    if scored.code != 0:
        return f"{name}: exit {scored.code}: {scored.err!r}"
    match = scored.report["matches"][0]
    got = (match["hands"], match["chips_a"], match["finished"])
    if got != (hands, chips, finished):
        return f"{name}: scored {got}, expected {(hands, chips, finished)}"
    return None


@pytest.mark.parametrize("game", ["holdem.limit.2p.reverse_blinds", "kuhn.limit.2p"])
def test_cut_at_every_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str) -> None:
    """A log cut at byte k: the hands whose line lies whole in the first k bytes are scored, the cut
    line is left out and said so; with no whole hand, one clear line. A line that lacks only its
    newline counts when a line before it is a whole hand line (a line cut inside its last name
    cannot otherwise be told from a whole one)."""
    data, lines = small_log(game)
    seat_1 = lines[4].split(":")[5].split("|")[0]
    ends, offset = [], 0
    for line in lines:
        ends.append(offset + len(line))  # where the line's text ends (its newline is at that offset)
        offset += len(line) + 1
    problems = []
    for k in range(len(data) + 1):
        whole = [line for line, end in zip(lines, ends, strict=True) if end < k]
        if k in ends and any(line.startswith("STATE") for line in whole):
            whole.append(lines[ends.index(k)])
        hands = [line for line in whole if line.startswith("STATE")]
        name = f"cut{k}"
        scored = score(tmp_path, name, data[:k], capsys)
        if not hands:
            problem = refusal_problem(scored, name, "")
        else:
            chips = sum(value_of(line, seat_1) for line in hands)
            finished = any(line.startswith("SCORE") for line in whole)
            problem = scored_problem(scored, name, len(hands), chips, finished)
            at_boundary = k in ends or data[:k].endswith(b"\n")
            says_cut = "incomplete last line left out" in scored.err
            if problem is None and says_cut == at_boundary:
                problem = f"{name}: says the last line was cut: {says_cut}, cut inside a line: {not at_boundary}"
        if problem:
            problems.append(problem)
    assert len(data) > 300
    assert not problems, f"{len(problems)} of {len(data) + 1} cuts: " + "\n".join(problems[:20])


def damaged_variants(lines: list[str]) -> list[tuple[str, list[str], str | None]]:
    """(name, lines, what the refusal says, or None where the log must still score in full)."""
    header = lines[0].split(" ")
    variants: list[tuple[str, list[str], str | None]] = []

    def with_line(index: int, text: str) -> list[str]:
        return [*lines[:index], text, *lines[index + 1 :]]

    # The header: hands and seed that are not whole numbers, fields missing or extra, unknown games.
    for field, position in (("hands", 4), ("seed", 5)):
        for bad in ("abc", "-1", "3.5", "1e3", "0x10", "+5", "\u0663", "12\u00b2", "\x00"):
            broken = list(header)
            broken[position] = bad
            variants.append((f"header-{field}-{bad.encode().hex()}", with_line(0, " ".join(broken)), "header"))
    variants += [
        ("header-missing", lines[1:], "not an ACPC log"),
        ("header-short", with_line(0, " ".join(header[:5])), "malformed header"),
        ("header-long", with_line(0, " ".join([*header, "9"])), "malformed header"),
        ("header-empty-field", with_line(0, " ".join(header[:5]) + "  "), "malformed header"),
    ]
    for game in ("nowhere.game", "/", ".", "h\u00f6ldem.game", "a\x00b", "holdem.limit.3p"):
        broken = list(header)
        broken[3] = game
        expected = "line 5" if game == "holdem.limit.3p" else "cannot find the game"
        variants.append((f"header-game-{game.encode().hex()}", with_line(0, " ".join(broken)), expected))
    variants.append(("header-twice", [lines[0], *lines], None))

    # Names: hand lines naming other players, or the match's players in the wrong places.
    names = lines[4].split(":")[5].split("|")
    first, second = names
    for index in range(4, 4 + HANDS):
        fields = lines[index].split(":")
        for bad in (f"{first}|Carol", f"{second}|{second}", first, f"{first}|{second}|Carol", "",
                    f"{first}|{second.lower()}", f"{first}\u00e9|{second}", f"{first}|{second} "):  # fmt: skip
            if sorted(bad.split("|")) == sorted(names):
                continue
            text = ":".join([*fields[:5], bad])
            variants.append((f"names-{index}-{bad.encode().hex()}", with_line(index, text), f"line {index + 1}"))
        swapped = ":".join([*fields[:5], "|".join(fields[5].split("|")[::-1])])
        variants.append((f"names-{index}-swapped", with_line(index, swapped), "SCORE"))
    score_fields = lines[-1].split(":")
    for bad in (f"{first}|Carol", f"{first}|{first}", first):
        text = ":".join([*score_fields[:2], bad])
        variants.append((f"score-names-{bad}", with_line(len(lines) - 1, text), "" if "|" in bad else "line"))
    renamed = [line.replace(first, f"{first}\u00ef") for line in lines]  # non-ASCII, but the same throughout
    variants.append(("names-non-ascii-throughout", renamed, None))

    # Numbers: values that are not numbers, not the hand's, or not two; hand numbers; SCORE totals.
    for index in range(4, 4 + HANDS):
        fields = lines[index].split(":")
        one, other = (int(v) for v in fields[4].split("|"))
        for bad in ("x|5", "nan|nan", "inf|-inf", "1e400|-1e400", f"{other}|{one}", f"{one}", f"{one}|{other}|0",
                    "", f"{one + 1}|{other - 1}", f"{one}|{other}|"):  # fmt: skip
            text = ":".join([*fields[:4], bad, fields[5]])
            variants.append((f"values-{index}-{bad}", with_line(index, text), f"line {index + 1}"))
        for hand_id in ("x", "-1", "99", str(10**20), ""):
            text = ":".join([fields[0], hand_id, *fields[2:]])
            variants.append((f"hand-id-{index}-{hand_id}", with_line(index, text), f"line {index + 1}"))
    totals = [int(v) for v in score_fields[1].split("|")]
    for bad in (f"{totals[0] + 1}|{totals[1]}", "x|y", "nan|nan", f"{totals[1]}|{totals[0]}", str(totals[0])):
        text = ":".join([score_fields[0], bad, score_fields[2]])
        variants.append((f"score-totals-{bad}", with_line(len(lines) - 1, text), "SCORE"))

    # Lines out of place, missing or doubled; stray text; line endings.
    variants += [
        ("hand-missing", [*lines[:6], *lines[7:]], "line 7"),
        ("hand-doubled", [*lines[:7], lines[6], *lines[7:]], "line 8"),
        ("hands-swapped", [*lines[:5], lines[6], lines[5], *lines[7:]], "line 6"),
        ("line-after-score", [*lines, lines[5]], "after the SCORE line"),
        ("stray-text", [*lines[:6], "hello", *lines[6:]], "line 7"),
        ("stray-binary", [*lines[:6], "\x00\x01\x02", *lines[6:]], "line 7"),
        ("state-lowercase", with_line(6, "s" + lines[6][1:]), "line 7"),
        ("blank-lines", [*lines[:6], "", "   ", *lines[6:]], None),
        ("crlf", [line + "\r" for line in lines], None),
        ("no-final-newline-score", lines, None),  # written below without its last newline
    ]
    for index in (4, 8, 11):
        garbage = lines[index][:20] + "\u00ff\u00fe" + lines[index][20:]
        variants.append((f"non-ascii-in-hand-{index}", with_line(index, garbage), f"line {index + 1}"))
    return variants


def test_damaged_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, lines = small_log("holdem.limit.2p.reverse_blinds")
    seat_1 = lines[4].split(":")[5].split("|")[0]
    chips = sum(value_of(line, seat_1) for line in lines if line.startswith("STATE"))
    variants = damaged_variants(lines)
    problems = []
    for name, damaged, expected in variants:
        text = "\n".join(damaged) + ("" if name == "no-final-newline-score" else "\n")
        scored = score(tmp_path, name, text.encode(), capsys)
        if expected is None:
            problem = scored_problem(scored, name, HANDS, chips, True)
        else:
            problem = refusal_problem(scored, name, expected)
        if problem:
            problems.append(problem)
    assert len(variants) > 200
    assert not problems, f"{len(problems)} of {len(variants)} damaged logs: " + "\n".join(problems[:20])


def test_random_one_byte_damage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One byte replaced (seeded): the log scores exactly as undamaged, or is refused in one line.

    No single byte can change a hand's result and keep the log consistent: the values must
    follow from the cards and betting, the hands run 0, 1, 2, ... and the SCORE line sums them.
    """
    data, lines = small_log("holdem.limit.2p.reverse_blinds")
    seat_1 = lines[4].split(":")[5].split("|")[0]
    chips = sum(value_of(line, seat_1) for line in lines if line.startswith("STATE"))
    rng = random.Random(2024)
    alphabet = b":|/\n\r #0123456789-.crfAKQJT2shdcSTATESCORE\x00\x80\xff"
    problems = []
    refused = 0
    cases = 400
    for case in range(cases):
        damaged = bytearray(data)
        damaged[rng.randrange(len(data))] = rng.choice(alphabet)
        name = f"byte{case}"
        scored = score(tmp_path, name, bytes(damaged), capsys)
        if scored.code == 0:
            problem = scored_problem(scored, name, HANDS, chips, True)
        else:
            problem = refusal_problem(scored, name, "")
            refused += 1
        if problem:
            problems.append(f"{problem} (damaged: {bytes(damaged)!r})")
    assert not problems, f"{len(problems)} of {cases} damaged logs: " + "\n".join(problems[:10])
    assert refused > cases // 4  # most bytes of a log matter
