"""``play`` and ``acpc-match`` are one pipeline (``pipeline.play_run``): its typed result counts what the
run played, and both put the same run figures in their reports."""

from __future__ import annotations

import json
from pathlib import Path

from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.match_run import MatchRequest, Side, run_spec
from acpc_arena.dealer.arena.pipeline import play_run
from acpc_arena.dealer.arena.run_progress import RunProgress
from acpc_arena.dealer.commands import match as match_cli

RUN_FIELDS = [
    "elapsed_seconds",
    "scoring_seconds",
    "cpu_seconds",
    "hands_per_second",
    "concurrency",
    "failed",
    "partial",
    "changed_actions",
]
"""The run's figures in ``report.json``, in its order (docs/reference/commands/acpc-match.md)."""


def _request(out: Path, seeds: tuple[int, ...], hands: int) -> MatchRequest:
    sides = (Side("a", "raise"), Side("b", "call"), Side("c", None))
    return MatchRequest(
        sides=sides, game="kuhn.limit.2p", seeds=seeds, hands=hands, out=out, concurrency=1, host="127.0.0.1",
        t_response_ms=10000, t_hand_ms=60000, t_per_hand_ms=7000, external_timeout=60.0, in_process=True,
        workers=None, ray=None, web=None, web_linger=0.0, metrics_port=None, metrics_linger=0.0, metrics_push=None,
        aivat=False, plots=False, quiet=True, command="acpc-match",
    )  # fmt: skip


def test_the_typed_result_counts_the_run(tmp_path: Path) -> None:
    """Two seeds, each in both seatings, 7 hands a match: 4 matches and 28 hands, none failed or left."""
    spec = run_spec(_request(tmp_path / "run", (3, 4), 7))
    result = play_run(spec, RunProgress(spec, None, quiet=True), aivat=False)
    assert result.report is not None
    assert (result.matches, len(result.outcomes), result.hands) == (4, 4, 28)
    assert result.failed == [] and result.unfinished_matches == [] and not result.partial
    assert result.changed_actions == {"a-raise": {"invalid": 0, "fixed": 0}, "b-call": {"invalid": 0, "fixed": 0}}
    assert list(result.fields()) == RUN_FIELDS
    assert result.report.extra == result.fields()
    assert [m["hands"] for m in result.report.to_json()["matches"]] == [7, 7, 7, 7]


def test_play_and_acpc_match_report_the_same_run(tmp_path: Path) -> None:
    """The same seeds give the same figures, and the same run fields after ``play``'s ``in_process``."""
    report = play(("raise", "call"), "kuhn.limit.2p", seeds=(5, 6), hands=9, aivat=False)
    argv = ["--a", "raise", "--b", "call", "--game", "kuhn.limit.2p", "--seeds", "5,6", "--hands", "9"]
    assert match_cli.run([*argv, "--in-process", "--no-aivat", "--no-plots", "--quiet", "--out", str(tmp_path)]) == 0
    written = json.loads((tmp_path / "report.json").read_text())
    played = report.to_json()
    assert played["hands_played"] == written["hands_played"] == 36
    assert (played["mbb_per_hand"], played["ci95"]) == (written["mbb_per_hand"], written["ci95"])
    assert list(report.extra) == ["in_process", *RUN_FIELDS]
    assert [key for key in written if key in RUN_FIELDS] == RUN_FIELDS
    assert written["changed_actions"] == report.extra["changed_actions"]
