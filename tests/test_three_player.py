"""Three-player runs: ``acpc-match`` plays each seed's three seat rotations with the same cards,
and ``acpc-match`` and ``acpc-report`` give every player's duplicate mbb/h with its interval.

The expected figures are computed here from the logs' STATE lines alone: the rotation
by hand (contestant k of A, B, C sits in seat (k + r) mod 3 in rotation r), every
hand's values summing to zero, the duplicate sample of a hand the mean of a player's
results over the three rotations.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers.matches import card_sections, mean_and_ci95_mbb, run_match, values_of
from tests.helpers.processes import program

PLAYERS = ["a-cfr", "b-random", "c-call"]
SEATS_BY_ROTATION = {1: PLAYERS, 2: ["c-call", "a-cfr", "b-random"], 3: ["b-random", "c-call", "a-cfr"]}
"""Seat order of each match ``seed<s>-a<r>``: A in seat r, B and C after it around the table."""
KUHN_BIG_BLIND = 1  # kuhn.limit.3p: blind = 1 1 1
SEEDS = (5, 77)
HANDS = 240


def score_names(log: Path) -> list[str]:
    """The players by seat, from the log's SCORE line."""
    line = next(line for line in log.read_text().splitlines() if line.startswith("SCORE"))
    return line.split(":")[2].split("|")


def hand_value_sums(log: Path) -> list[float]:
    return [
        sum(float(v) for v in line.split(":")[4].split("|"))
        for line in log.read_text().splitlines()
        if line.startswith("STATE")
    ]


@pytest.fixture(scope="module")
def kuhn3_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], str]:
    tmp = tmp_path_factory.mktemp("kuhn3")
    seeds = ",".join(map(str, SEEDS))
    done, report = run_match(
        tmp, "--a", "cfr", "--b", "random", "--c", "call", "--game", "kuhn.limit.3p", "--seeds", seeds,
        "--hands", str(HANDS), "--concurrency", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return tmp / "run", report, done.stdout


def test_each_seed_is_played_in_the_three_rotations_with_the_same_cards(
    kuhn3_run: tuple[Path, dict[str, object], str],
) -> None:
    out, _, _ = kuhn3_run
    for seed in SEEDS:
        logs = {r: out / f"seed{seed}-a{r}.log" for r in (1, 2, 3)}
        for rotation, log in logs.items():
            assert score_names(log) == SEATS_BY_ROTATION[rotation]
            assert all(abs(total) < 1e-9 for total in hand_value_sums(log))
        cards = [card_sections(log) for log in logs.values()]
        assert len(cards[0]) == HANDS
        assert cards[0] == cards[1] == cards[2]
    assert card_sections(out / f"seed{SEEDS[0]}-a1.log") != card_sections(out / f"seed{SEEDS[1]}-a1.log")


def test_every_players_duplicate_figures_follow_from_the_logs(kuhn3_run: tuple[Path, dict[str, object], str]) -> None:
    out, report, table = kuhn3_run
    samples: dict[str, list[float]] = {name: [] for name in PLAYERS}
    for seed in SEEDS:
        for name in PLAYERS:
            runs = [values_of(out / f"seed{seed}-a{r}.log", name) for r in (1, 2, 3)]
            samples[name] += [sum(hand) / 3 for hand in zip(*runs, strict=True)]
    for i in range(len(SEEDS) * HANDS):
        assert abs(sum(samples[name][i] for name in PLAYERS)) < 1e-9
    assert report["players"] == PLAYERS
    assert report["estimate"] == "duplicate"
    assert report["duplicate_samples"] == len(SEEDS) * HANDS
    for name in PLAYERS:
        mbb, ci = mean_and_ci95_mbb(samples[name], KUHN_BIG_BLIND)
        assert report["mbb_per_hand"][name] == pytest.approx(mbb, abs=1e-6)  # type: ignore[index]
        assert report["ci95"][name] == pytest.approx(ci, rel=1e-3)  # type: ignore[index]
        assert name in table
    assert sum(report["mbb_per_hand"].values()) == pytest.approx(0, abs=1e-6)  # type: ignore[attr-defined]
    assert (out / "cumulative.png").stat().st_size > 0


def test_acpc_report_scores_the_three_player_logs_alike(
    kuhn3_run: tuple[Path, dict[str, object], str], tmp_path: Path
) -> None:
    out, report, _ = kuhn3_run
    logs = sorted(str(p) for p in out.glob("seed*.log"))
    done = subprocess.run(
        [program("acpc-report"), *logs, "--json", str(tmp_path / "r.json")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "r.json").read_text())
    assert again["mbb_per_hand"] == report["mbb_per_hand"]
    assert again["ci95"] == report["ci95"]
    one_rotation_missing = [log for log in logs if not log.endswith("-a3.log")]
    done = subprocess.run([program("acpc-report"), *one_rotation_missing], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "per hand, 95% CI" in done.stdout  # no seed has all three rotations: no duplicate estimate


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--a", "cfr", "--b", "random", "--game", "kuhn.limit.3p"], "kuhn.limit.3p has 3 players: give --c"),
        (["--a", "cfr", "--b", "random", "--c", "call", "--game", "kuhn.limit.2p"], "--c is for games of 3 players"),
        (["--a", "human", "--b", "random"], "a person plays through --a-external"),
    ],
)
def test_sides_that_do_not_fit_the_game_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done, _ = run_match(tmp_path, *args, "--hands", "5", "--seeds", "1")
    assert done.returncode != 0
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
