"""The results pages' generator (``docs/results/regenerate.py``): a page names one commit, its runs played
from a clean tree, or it is not written; a resumed run's wall time counts every session."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"
sys.path.insert(0, str(RESULTS))


def _module(name: str) -> Any:
    """A module of ``docs/results/`` (a script's folder, not a package: imported by name, untyped here)."""
    return importlib.import_module(name)


regenerate = _module("regenerate")
results_render = _module("results_render")
results_runs = _module("results_runs")
results_sections = _module("results_sections")

A, B = "a" * 40, "b" * 40


def session(commit: str | None, seconds: float | None, changed: list[str] | None = None) -> dict[str, Any]:
    return {"date": "2026-11-28", "commit": commit, "uncommitted_changes": changed or [], "wall_seconds": seconds}


def run_record(*sessions: dict[str, Any]) -> dict[str, Any]:
    return {
        "command": "x",
        "returncode": 0,
        "date": "2026-11-28",
        "machine": "a machine",
        "commit": sessions[-1]["commit"],
        "sessions": list(sessions),
    }


def test_one_commit_is_the_commit_of_every_session() -> None:
    records = [run_record(session(A, 10)), run_record(session(A, 5), session(A, 7))]
    assert results_render.one_commit("p", records) == A


def test_runs_at_two_commits_refuse_the_page_naming_both() -> None:
    records = [run_record(session(A, 10)), run_record(session(B, 10))]
    with pytest.raises(results_render.PageRefused, match=r"2 commits \(aaaaaaaaaa, bbbbbbbbbb\)"):
        results_render.one_commit("p", records)


def test_a_resumed_run_across_two_commits_refuses_the_page() -> None:
    with pytest.raises(results_render.PageRefused, match="2 commits"):
        results_render.one_commit("p", [run_record(session(A, 10), session(B, 10))])


def test_uncommitted_changes_refuse_the_page() -> None:
    records = [run_record(session(A, 10)), run_record(session(A, 10, ["agents/cfr.py"]))]
    with pytest.raises(results_render.PageRefused, match=r"uncommitted changes \(agents/cfr.py\)"):
        results_render.one_commit("p", records)


def test_an_old_record_of_a_resumed_run_has_an_unrecorded_session_and_is_refused() -> None:
    old = {"command": "x", "returncode": 0, "date": "2026-11-26", "commit": A, "uncommitted_changes": []}
    old |= {"wall_seconds": 300.0, "resumed": True}
    assert [s["commit"] for s in results_runs.sessions(old)] == [None, A]
    with pytest.raises(results_render.PageRefused, match="not recorded"):
        results_render.one_commit("p", [old])


def test_wall_time_counts_every_session_of_a_resumed_run() -> None:
    records = [run_record(session(A, 3240), session(A, 3600)), run_record(session(A, 360))]
    assert results_render.wall_time(records) == "2.0 hours (with every session of the 1 run stopped and resumed)"
    assert results_render.wall_time([run_record(session(A, 360))]) == "0.1 hours"


def test_the_pages_own_files_do_not_make_the_tree_unclean() -> None:
    assert results_runs.written_here("docs/results/lbr.md")
    assert results_runs.written_here("docs/results/images/lbr-x.png")
    assert not results_runs.written_here("docs/results/results_render.py")
    assert not results_runs.written_here("agents/cfr.py")


def _page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *records: dict[str, Any]) -> Any:
    """A page of one section of ``len(records)`` runs recorded as given, its runs under ``tmp_path``."""
    monkeypatch.setattr(results_runs, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(results_render, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(results_render, "RESULTS", tmp_path)
    section = results_sections.Commands(
        "s", "Section", "About.", tuple((f"r{i}", ("true",)) for i in range(len(records))), lambda _: ["body"]
    )
    page = results_sections.Page("p", "A page", "About the page.", (section,))
    for run, recorded in zip(results_runs.command_runs("p", section).values(), records, strict=True):
        run.folder.mkdir(parents=True)
        (run.folder / "run.json").write_text(json.dumps(recorded | {"command": run.shown()}))
    return page


def test_a_page_of_runs_at_one_commit_names_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(tmp_path, monkeypatch, run_record(session(A, 1800)), run_record(session(A, 900), session(A, 900)))
    text = results_render.render(page)
    header = [line for line in text.splitlines() if line.startswith("- ")]
    assert header[0] == "- Played: 2026-11-28, at commit aaaaaaaaaa (a clean tree)."
    assert header[2].startswith("- Wall time of the runs: 1.0 hours (with every session of the 1 run stopped")
    assert text.count("aaaaaaaaaa") == 1 and "commits" not in text


def test_a_page_of_runs_at_two_commits_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(tmp_path, monkeypatch, run_record(session(A, 60)), run_record(session(B, 60)))
    monkeypatch.setattr(results_render, "tree_changes", list)
    with pytest.raises(results_render.PageRefused, match="2 commits"):
        results_render.write(page)
    assert not (tmp_path / "p.md").exists()


def test_a_page_is_written_from_a_clean_tree_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(tmp_path, monkeypatch, run_record(session(A, 60)))
    monkeypatch.setattr(results_render, "tree_changes", lambda: ["agents/cfr.py"])
    with pytest.raises(results_render.PageRefused, match=r"uncommitted changes \(agents/cfr.py\)"):
        results_render.write(page)
    monkeypatch.setattr(results_render, "tree_changes", list)
    path = results_render.write(page)
    assert path == tmp_path / "p.md" and path.read_text().startswith("(results-p)=\n# A page\n")


def test_regenerate_refuses_an_unclean_tree(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(regenerate, "tree_changes", lambda: ["agents/cfr.py"])
    assert regenerate.main(["--write-only", "--pages", "aivat"]) == 1
    assert "uncommitted changes (agents/cfr.py)" in capsys.readouterr().err


def test_a_run_recorded_at_another_commit_is_played_again() -> None:
    assert regenerate.at_head(run_record(session(A, 1)), A)
    assert not regenerate.at_head(run_record(session(B, 1)), A)
    assert not regenerate.at_head(run_record(session(A, 1), session(B, 1)), A)
    assert not regenerate.at_head(run_record(session(A, 1, ["agents/cfr.py"])), A)
    assert not regenerate.at_head(None, A)


def test_a_resumed_tournament_keeps_its_earlier_sessions(tmp_path: Path) -> None:
    command = tmp_path / "acpc-tournament"  # resumed, not cleared, as acpc-tournament's folder is
    command.write_text("#!/bin/sh\nexit 0\n")
    command.chmod(0o755)
    run = results_runs.Run(tmp_path / "out", (str(command),))
    (run.folder / "pair").mkdir(parents=True)
    (run.folder / "pair" / "m.log").write_text("")
    (run.folder / "run.json").write_text(json.dumps({**run_record(session(A, 600.0)), "returncode": 1}))
    recorded = results_runs.play(run)
    assert recorded["resumed"] and recorded["sessions"][0]["commit"] == A
    assert len(recorded["sessions"]) == 2 and recorded["wall_seconds"] >= 600.0
    assert json.loads((run.folder / "run.json").read_text())["sessions"] == recorded["sessions"]


def test_a_folder_played_at_another_commit_is_cleared_and_one_stopped_at_head_kept(tmp_path: Path) -> None:
    old, stopped, done = (
        results_runs.Run(tmp_path / name, ("acpc-tournament",)) for name in ("old", "stopped", "done")
    )
    for run, recorded in (
        (old, {**run_record(session(B, 60)), "returncode": 1}),
        (stopped, {**run_record(session(A, None)), "returncode": None}),
        (done, run_record(session(A, 60))),
    ):
        (run.folder / "pair").mkdir(parents=True)
        (run.folder / "run.json").write_text(json.dumps({**recorded, "command": run.shown()}))
    assert regenerate.to_play([old, stopped, done], A) == [old, stopped]
    assert not old.folder.exists() and (stopped.folder / "pair").exists() and (done.folder / "pair").exists()


def test_a_table_with_aivat_asks_for_it_and_shows_its_figure_or_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results_runs, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(results_render, "RUNS", tmp_path / "runs")
    Side = results_sections.Side
    section = results_sections.Matches(
        "s", "Section", "About.", (Side("x", "cfr"),), (Side("y", "call"), Side("z", "equity")), aivat=True
    )
    reports = {
        "y": {"duplicate": {"mbb_per_hand": 250.0, "ci95": [200.0, 300.0]},
              "aivat": {"mbb_per_hand": 240.4, "ci95": [229.6, 251.2]}},
        "z": {"duplicate": {"mbb_per_hand": -12.0, "ci95": [-60.0, 36.0]},
              "aivat": {"unavailable": "hand 3: no policy"}},
    }  # fmt: skip
    for column in section.columns:
        run = results_runs.match_run("p", section, section.rows[0], column)
        assert "--aivat" in run.command
        run.folder.mkdir(parents=True)
        (run.folder / "report.json").write_text(json.dumps(reports[column.label]))
    lines = results_render.render_matches("p", section)
    assert "| x against | duplicate mbb/h | AIVAT duplicate mbb/h |" in lines
    assert "| y | +250 [+200, +300] | +240 [+230, +251] |" in lines
    assert "| z | -12 [-60, +36] | unavailable: hand 3: no policy |" in lines
