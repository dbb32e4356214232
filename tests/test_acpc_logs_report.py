"""``acpc-report --player NAME``: one player's results over competition-format logs.

The logs are real matches made into competition logs: a duplicate pair from ``acpc-match``
(tests/data/acpc_match_nolimit: seed 7, 60 hands per seating, the seats exchanged) and
the C dealer's 3-player log, with the players renamed, one of them compressed, some
lines damaged. The expected figures are worked out here from the log text (mean and
1.96 sample standard errors; duplicate pairs by hand number), apart from the code.
"""

from __future__ import annotations

import bz2
import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from acpc_arena.dealer.arena.reports import build_report
from acpc_arena.dealer.commands import report as report_cli
from acpc_arena.protocol.match_log import read_log

DATA = Path(__file__).parent / "data"
MATCH = DATA / "acpc_match_nolimit"
FIXTURES = Path(__file__).parent / "fixtures" / "c_dealer"
RENAME = {"a-rule": "Intermission_2pn_2017", "b-random": "Feste_2pn_2017"}


def rename(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        text = text.replace(old, new)
    return text


def values_by_hand(text: str, name: str) -> dict[int, float]:
    """``name``'s result in each hand of a log, read off its STATE lines."""
    results = {}
    for line in text.splitlines():
        if line.startswith("STATE"):
            parts = line.replace(";", ":").split(":")
            names, values = parts[5].split("|"), parts[4].split("|")
            if name in names:
                results[int(parts[1])] = float(values[names.index(name)])
    return results


def mbb_and_ci(samples: list[float], big_blind: int) -> tuple[float, list[float]]:
    mean = statistics.fmean(samples)
    half = 1.959963984540054 * statistics.stdev(samples) / math.sqrt(len(samples))
    return 1000 * mean / big_blind, [1000 * (mean - half) / big_blind, 1000 * (mean + half) / big_blind]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = 0
    try:
        report_cli.main(args)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def competition_pair(folder: Path) -> list[Path]:
    """The acpc-match pair as competition logs: renamed, the second one bzip2-compressed."""
    first = folder / "Intermission.Feste.7.0.log"
    second = folder / "Intermission.Feste.7.1.log.bz2"
    first.write_text(rename((MATCH / "seed7-a1.log").read_text(), RENAME))
    second.write_bytes(bz2.compress(rename((MATCH / "seed7-a2.log").read_text(), RENAME).encode()))
    return [first, second]


def test_a_player_scored_by_name_across_seats_and_duplicate_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = competition_pair(tmp_path)
    out = tmp_path / "report.json"
    code, table, err = run(["--player", "Intermission_2pn_2017", *map(str, logs), "--json", str(out)], capsys)
    assert code == 0, err
    assert err == ""
    report: dict[str, Any] = json.loads(out.read_text())
    texts = [rename((MATCH / name).read_text(), RENAME) for name in ("seed7-a1.log", "seed7-a2.log")]
    first, second = (values_by_hand(text, "Intermission_2pn_2017") for text in texts)
    samples = [*first.values(), *second.values()]
    mbb, ci = mbb_and_ci(samples, 100)
    assert report["per_hand"]["samples"] == 120
    assert report["per_hand"]["mbb_per_hand"] == pytest.approx(mbb)
    assert report["per_hand"]["ci95"] == pytest.approx(ci)
    pairs = [(first[i] + second[i]) / 2 for i in sorted(first)]
    dup_mbb, dup_ci = mbb_and_ci(pairs, 100)
    assert report["estimate"] == "duplicate" and report["duplicate_pairs"] == 60
    assert report["mbb_per_hand"] == pytest.approx(dup_mbb)
    assert report["ci95"] == pytest.approx(dup_ci)
    assert [log["seat"] for log in report["logs"]] == [1, 2]
    assert [log["chips"] for log in report["logs"]] == [sum(first.values()), sum(second.values())]
    assert list(report["by_opponent"]) == ["Feste_2pn_2017"]
    assert "Intermission_2pn_2017" in table and "duplicate, 95% CI" in table
    # The same pair of this dealer's logs, scored as this dealer's (acpc-report --a): the same duplicate figure.
    own = build_report([read_log(MATCH / "seed7-a1.log"), read_log(MATCH / "seed7-a2.log")], a="a-rule")
    assert own.duplicate.mbb_per_hand == pytest.approx(report["mbb_per_hand"])


def test_a_player_in_three_player_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The C dealer's 3-player limit log without its header: the game is inferred, the
    player's results gathered from all three positions."""
    names = {"Alice": "Hyperborean_3pl", "Bob": "Slumbot_3pl", "Carol": "Feste_3pl"}
    lines = (FIXTURES / "holdem.limit.3p.log").read_text().splitlines()
    text = rename("\n".join(line for line in lines if not line.startswith("#")), names)
    log = tmp_path / "three.log.txt"
    log.write_text(text + "\n")
    out = tmp_path / "report.json"
    code, _, err = run(["--player", "Slumbot_3pl", str(log), "--json", str(out)], capsys)
    assert code == 0, err
    report = json.loads(out.read_text())
    samples = list(values_by_hand(text, "Slumbot_3pl").values())
    mbb, ci = mbb_and_ci(samples, 10)
    assert report["game"] == "holdem.limit.3p" and report["estimate"] == "per-hand"
    assert report["mbb_per_hand"] == pytest.approx(mbb) and report["ci95"] == pytest.approx(ci)
    assert list(report["by_opponent"]) == ["Feste_3pl, Hyperborean_3pl"]
    assert report["logs"][0]["seat"] == 2  # Bob is seat 2 in the SCORE line


def test_bad_lines_are_named_skipped_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = competition_pair(tmp_path)
    lines = logs[0].read_text().splitlines()
    bad = {10: "STATE:5:r300", 20: "STATE:15:ff:AsKs|QsJs:1|-1:Feste_2pn_2017|Intermission_2pn_2017"}
    for number, text in bad.items():
        lines[number - 1] = text
    logs[0].write_text("\n".join(lines) + "\n")
    out = tmp_path / "report.json"
    code, _, err = run(["--player", "Intermission_2pn_2017", *map(str, logs), "--json", str(out)], capsys)
    assert code == 0, err
    messages = err.splitlines()
    assert [m for m in messages if ", line 10: " in m and str(logs[0]) in m]
    assert [m for m in messages if ", line 20: " in m and str(logs[0]) in m]
    assert [m for m in messages if "SCORE totals" in m]  # the SCORE line no longer adds up
    assert messages[-1].startswith("acpc-report: 3 problems")
    report = json.loads(out.read_text())
    assert report["per_hand"]["samples"] == 118
    assert report["duplicate_pairs"] == 58  # the two hands lost from one seating lose their pairs
    assert report["problems"] == 3


def test_refusals_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = competition_pair(tmp_path)
    code, _, err = run(["--player", "Nobody", *map(str, logs)], capsys)
    assert code == 2 and err.splitlines()[-1] == "acpc-report: no hands of 'Nobody' in these logs"
    code, _, err = run(["--player", "Feste_2pn_2017", "--a", "x", str(logs[0])], capsys)
    assert code == 2 and len(err.splitlines()) == 1
