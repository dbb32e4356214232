"""The fold-rate report on a hand-made log whose counts were worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from acpc_arena.dealer.arena.fold_rates import FoldCounts, fold_rates, format_rates, main

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
