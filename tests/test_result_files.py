"""The files the commands write as their results, on a disk that fills up.

A result (``report.json``, a plot, the crosstable, a pair's report) is written whole or
not at all: on a full disk the file of the run before stays as it was, and the command
says in one line what it could not write. The disk is a real one, a small tmpfs filled
to its last page (root and mount needed; skipped elsewhere), and, without one, a
failing ``fsync`` in this process.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from acpc_arena.dealer.commands import match as match_cli
from tests.helpers.processes import program, small_tmpfs

RESULTS = ["report.json", "cumulative-seed-5.png", "cumulative.png"]
MATCH = ["--a", "call", "--b", "raise", "--game", "kuhn", "--seeds", "5", "--hands", "20", "--in-process"]
TOURNAMENT = ["--agents", "call,raise,random", "--game", "kuhn", "--seeds", "5", "--hands", "20", "--workers", "1"]
ENOSPC = os.strerror(errno.ENOSPC)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs."""
    with small_tmpfs(tmp_path / "disk", "2m") as disk:
        yield disk


def fill(disk: Path) -> None:
    """Write a file on ``disk`` until the disk is full."""
    page = b"\0" * 4096
    with open(disk / "filler", "wb", buffering=0) as file:
        while True:
            try:
                file.write(page)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                return


def contents(folder: Path, names: list[str]) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in names}


def mark(folder: Path, names: list[str]) -> dict[str, bytes]:
    """Put a short text of its own in each file (a file smaller than the next run's: writing that one over
    it would need more room than it frees), and return the files' contents."""
    for name in names:
        (folder / name).write_text(f"the last run's {name}\n")
    return contents(folder, names)


def run(command: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([program(command), *args, "--quiet"], capture_output=True, text=True, timeout=300)


def test_acpc_match_on_a_full_disk_keeps_the_last_runs_report_and_plots(small_disk: Path) -> None:
    out = small_disk / "run"
    done = run("acpc-match", *MATCH, "--out", str(out))
    assert done.returncode == 0, done.stderr
    before = mark(out, RESULTS)
    fill(small_disk)
    # Played again: the logs take the pages of the old ones (the same hands), the results find none.
    done = run("acpc-match", *MATCH, "--out", str(out))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"acpc-match: could not write the plot {out / 'cumulative-seed-5.png'}: {ENOSPC}",
        f"acpc-match: could not write {out / 'report.json'}: {ENOSPC}",
    ]
    assert contents(out, RESULTS) == before
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []  # no temporary left


@pytest.mark.slow  # make test-slow: the same writer as acpc-match's, which the test before checks on a full disk
def test_acpc_tournament_on_a_full_disk_keeps_the_last_runs_crosstable(small_disk: Path) -> None:
    out = small_disk / "t"
    done = run("acpc-tournament", *TOURNAMENT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    results = ["crosstable.json", "crosstable.md", "crosstable.png"]
    reports = [f"{pair}/report.json" for pair in ("call-vs-raise", "call-vs-random", "raise-vs-random")]
    before = mark(out, results + reports)
    fill(small_disk)
    done = run("acpc-tournament", *TOURNAMENT, "--out", str(out))  # every match played: only results written
    assert done.returncode == 1
    assert done.stderr.splitlines()[1:] == [
        *(f"acpc-tournament: could not write {out / report}: {ENOSPC}" for report in reports),
        *(f"acpc-tournament: could not write {out / name}: {ENOSPC}" for name in results),
    ]
    assert contents(out, results + reports) == before


def test_a_failing_fsync_leaves_the_report_and_plots_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where no disk can be filled: the last step of every write, ``fsync``, fails as a full disk makes it."""
    out = tmp_path / "run"
    assert match_cli.run([*MATCH, "--quiet", "--out", str(out)]) == 0
    before = mark(out, RESULTS)

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, ENOSPC)

    monkeypatch.setattr(os, "fsync", full)
    capsys.readouterr()
    assert match_cli.run([*MATCH, "--quiet", "--out", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"acpc-match: could not write the plot {out / 'cumulative-seed-5.png'}: {ENOSPC}",
        f"acpc-match: could not write {out / 'report.json'}: {ENOSPC}",
    ]
    assert contents(out, RESULTS) == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []
