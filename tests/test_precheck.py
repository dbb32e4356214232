"""``acpc-match`` finds an agent that cannot play the game once, before any match starts: one line
naming the agent, the checkpoint's game and the game being played, and no match played. A neural agent
played over TCP is built for that check by the run's warm process, so the runner never imports torch."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acpc_arena.models.checkpoints import FOLDER
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


def test_a_damaged_checkpoint_of_a_neural_agent_over_tcp_is_one_line_before_any_match(tmp_path: Path) -> None:
    """lstm_dqn's description beside 1,000 bytes of weights: the warm process's build says so, and no match
    starts."""
    shutil.copy(FOLDER / "lstm_dqn.json", tmp_path / "broken.json")
    (tmp_path / "broken.pt").write_bytes(bytes(1000))
    done, report = run_match(
        tmp_path, "--a", "call", "--b", "lstm_dqn", "--b-args", f"--checkpoint {tmp_path / 'broken.pt'}",
        "--hands", "20", "--seeds", "1",
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        f"acpc-match: agent b-lstm_dqn (lstm_dqn --checkpoint {tmp_path / 'broken.pt'}) cannot play"
    )
    assert "damaged checkpoint" in lines[0] and "1,000" in lines[0]
    assert not report and not list((tmp_path / "run").glob("*.log"))


@pytest.mark.skipif(sys.platform != "linux", reason="a warm process forks: Linux only")
def test_a_neural_agent_over_tcp_is_checked_in_the_warm_process_not_the_runner(tmp_path: Path) -> None:
    """dqn with an option it does not take, over TCP: the warm process's build finds it (one line, status 2, no
    match) and torch is imported there, not in the runner."""
    argv = ["--a", "dqn", "--a-args", "--no-such-option", "--b", "call", "--hands", "10", "--seeds", "1", "--quiet"]
    script = (
        "import sys\n"
        "from acpc_arena.dealer.commands.match import main\n"
        "try:\n"
        f"    main({[*argv, '--out', str(tmp_path)]!r})\n"
        "finally:\n"
        "    print('torch' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "acpc-match: agent a-dqn (dqn --no-such-option) cannot play holdem.limit.2p.reverse_blinds: unrecognized "
        "arguments: --no-such-option",
        "False",
    ]
    assert not list(tmp_path.glob("*.log"))
