"""``acpc-match`` finds an agent that cannot play the game once, before any match starts: one line
naming the agent, the checkpoint's game and the game being played, and no match played."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.matches import run_match


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--a", "cfr", "--a-args", "--checkpoint cfr-leduc", "--b", "random"],
            [
                "agent a-cfr (cfr --checkpoint cfr-leduc) cannot play holdem.limit.2p.reverse_blinds",
                "checkpoint cfr-leduc is for leduc.limit.2p, not for holdem.limit.2p.reverse_blinds",
            ],
        ),
        (
            ["--a", "random", "--b", "rule", "--b-args", "--threshold high"],
            ["agent b-rule (rule --threshold high) cannot play", "argument --threshold: invalid"],
        ),
        (
            ["--a", "random", "--b", "equity", "--b-args", "--no-such-option"],
            ["agent b-equity (equity --no-such-option)", "unrecognized arguments: --no-such-option"],
        ),
    ],
)
def test_an_agent_that_cannot_play_is_one_line_before_any_match(
    tmp_path: Path, args: list[str], expected: list[str]
) -> None:
    done, report = run_match(tmp_path, *args, "--hands", "20", "--seeds", "1,2")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for part in expected:
        assert part in lines[0]
    assert not report
    assert not list((tmp_path / "run").glob("*.log"))  # no match started


def test_a_checkpoint_for_the_game_played_passes_the_check(tmp_path: Path) -> None:
    done, report = run_match(
        tmp_path, "--a", "cfr", "--a-args", "--checkpoint cfr-leduc", "--b", "call", "--game", "leduc.limit.2p",
        "--hands", "20", "--seeds", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert report["hands_played"] == 40
