"""The fold-rate report on a hand-made log whose counts were worked out by hand, and on the logs of
``acpc-match`` runs, whose players the agents' names find."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from acpc_arena.dealer.arena.fold_rates import FoldCounts, fold_rates, format_rates, main
from tests.helpers.processes import program

# holdem.limit.2p.reverse_blinds: position 0 posts the big blind (10), position 1 the small (5) and acts
# first before the flop; the names alternate seats every hand. Alice's hands, as worked out by hand:
#  0  BB 7c2d  Bob raises, Alice folds                      faces a raise once, folds to it; folded
#  1  SB AsAh  Alice raises, Bob re-raises, Alice calls      faces a raise once, calls; shows down
#  2  BB 9s8s  Bob limps, Alice checks; flop: bet, raise, fold  never faces a pre-flop raise; folded
#  3  SB 7d2c  Alice raises, Bob re-raises, Alice folds      faces a raise once, folds to it; folded
#  4  BB KsKh  Bob limps, Alice raises, Bob folds            never faces a raise
#  5  SB 7h2s  Alice folds at once (the big blind is no raise)  folded
LOG = """\
# name/game/hands/seed test holdem.limit.2p.reverse_blinds.game 6 1
STATE:0:rf:7c2d|AsKd:-10|10:Alice|Bob
STATE:1:rrc/cc/cc/cc:KcQc|AsAh/2s3d4h/9c/Jd:-30|30:Bob|Alice
STATE:2:cc/rrf:9s8s|TdTc/2c5hKd:-20|20:Alice|Bob
STATE:3:rrf:AhKh|7d2c:20|-20:Bob|Alice
STATE:4:crf:KsKh|3c4d:10|-10:Alice|Bob
STATE:5:f:QdJd|7h2s:5|-5:Bob|Alice
SCORE:-15|15:Alice|Bob
"""


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "test.log"
    path.write_text(LOG)
    return path


def test_counts_by_class(log: Path) -> None:
    rows = fold_rates([log], "Alice", by="class")
    assert list(rows) == ["AA", "KK", "98s", "72o"]  # strongest first
    assert rows["AA"] == FoldCounts(hands=1, facing_raise=1, folded_to_raise=0, folded=0)
    assert rows["KK"] == FoldCounts(hands=1, facing_raise=0, folded_to_raise=0, folded=0)
    assert rows["98s"] == FoldCounts(hands=1, facing_raise=0, folded_to_raise=0, folded=1)
    assert rows["72o"] == FoldCounts(hands=3, facing_raise=2, folded_to_raise=2, folded=3)
    bob = fold_rates([log], "Bob", by="class")  # faces Alice's raise in hands 1 and 3 (re-raises), 4 (folds)
    assert sum(c.facing_raise for c in bob.values()) == 3
    assert sum(c.folded_to_raise for c in bob.values()) == 1 and bob["43o"].folded == 1


def test_counts_by_decile_and_the_table(log: Path) -> None:
    rows = fold_rates([log, log], "Alice")  # the same log twice: every count doubles
    assert rows["top 10%"] == FoldCounts(hands=4, facing_raise=2, folded_to_raise=0, folded=0)  # AA, KK
    assert rows["90-100%"] == FoldCounts(hands=6, facing_raise=4, folded_to_raise=4, folded=6)  # 72o
    assert list(rows) == ["top 10%", "40-50%", "90-100%"]  # 98s: its decile is not checked here
    table = format_rates(rows)
    assert "| top 10% | 4 | 2 | 0 (0.0%) | 0 (0.0%) |" in table
    assert "| 90-100% | 6 | 4 | 4 (100.0%) | 6 (100.0%) |" in table
    assert "| all | 12 | 6 | 4 (66.7%) | 8 (66.7%) |" in table


def test_unknown_player_is_a_one_line_error(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["Carol", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "Carol" in err
    assert main(["Alice", str(log), "--by", "class"]) == 0
    assert "| 72o | 3 | 2 | 2 (100.0%) | 3 (100.0%) |" in capsys.readouterr().out


def acpc_match(out: Path, a: str, b: str) -> list[Path]:
    """The two logs of a short ``acpc-match`` run of ``a`` against ``b`` (seed 1, 40 hands a seating)."""
    done = subprocess.run(
        [program("acpc-match"), "--a", a, "--b", b, "--seeds", "1", "--hands", "40", "--out", str(out), "--quiet",
         "--no-plots", "--in-process"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return sorted(out.glob("*.log"))


def test_an_agents_name_finds_its_side_in_acpc_match_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``acpc-match`` names the players a-rule and b-call. ``call`` never raises nor folds, so ``rule``
    never faces a pre-flop raise, and every hand that ends in a fold is one ``rule`` folded."""
    logs = acpc_match(tmp_path / "run", "rule", "call")
    bettings = [line.split(":")[2] for log in logs for line in log.read_text().splitlines() if line.startswith("STATE")]
    assert len(bettings) == 80
    folds = sum(betting.endswith("f") for betting in bettings)
    share = f"{100 * folds / 80:.1f}%"
    assert main(["rule", *map(str, logs)]) == 0
    assert f"| all | 80 | 0 | 0 (-) | {folds} ({share}) |" in capsys.readouterr().out
    assert main(["call", *map(str, logs)]) == 0  # faces rule's raises, folds to none
    assert re.search(r"^\| all \| 80 \| [1-9]\d* \| 0 \(0\.0%\) \| 0 \(0\.0%\) \|$", capsys.readouterr().out, re.M)
    assert main(["a-rule", *map(str, logs)]) == 0  # the name in the logs works as well
    assert f"| all | 80 | 0 | 0 (-) | {folds} ({share}) |" in capsys.readouterr().out


def test_a_name_in_no_log_or_on_both_sides_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = [str(log) for log in acpc_match(tmp_path / "run", "rule", "call")]
    assert main(["lstm_dqn", *logs]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'lstm_dqn'" in err and "the players are: a-rule, b-call" in err
    both = [str(log) for log in acpc_match(tmp_path / "self", "rule", "rule")]
    assert main(["rule", *both]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a-rule, b-rule" in err
    assert main(["b-rule", *both]) == 0
