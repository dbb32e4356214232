"""Playing a page's runs: each run's command, its ``run.json`` record (command, commit, date, machine,
wall time), and whether a recorded run is current (``regenerate.py``)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from results_sections import BIN, REPO, RUNS, Commands, Lbr, Matches, Page, RoundRobin, Side

# --- running -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One command whose output folder is ``folder``."""

    folder: Path
    command: tuple[str, ...]

    def shown(self) -> str:
        """The command as a user types it (the installed command's name, the folder relative to the repository)."""
        words = [Path(self.command[0]).name, *self.command[1:]]
        return shlex.join(w.replace(str(REPO) + "/", "") for w in words)


def _seeds(seeds: Iterable[int]) -> str:
    return ",".join(map(str, seeds))


def match_command(section: Matches, a: str, a_args: str, b: str, b_args: str, folder: str) -> list[str]:
    command = ["acpc-match", "--a", a] + (["--a-args", a_args] if a_args else []) + ["--b", b]
    command += ["--b-args", b_args] if b_args else []
    command += [
        "--game",
        section.game,
        "--seeds",
        _seeds(section.seeds),
        "--hands",
        str(section.hands),
    ]
    command += ["--aivat"] if section.aivat else []
    return [*command, "--workers", "2", "--quiet", "--no-plots", "--out", folder]


def match_run(page: str, section: Matches, row: Side, column: Side) -> Run:
    folder = RUNS / page / section.slug / f"{_slug(row.label)}-vs-{_slug(column.label)}"
    command = match_command(section, row.agent, row.options(column), column.agent, column.args, str(folder))
    return Run(folder, (str(BIN / command[0]), *command[1:]))


def round_robin_run(page: str, section: RoundRobin) -> Run:
    folder = RUNS / page / section.slug
    command = [str(BIN / "acpc-tournament")]
    plain = [e.agent for e in section.entrants if not e.args and e.label == e.agent]
    if plain:
        command += ["--agents", ",".join(plain)]
    for e in section.entrants:
        if e.args or e.label != e.agent:
            command += ["--agent", f"{e.label}={e.agent} {e.args}".strip()]
    command += [
        "--game",
        section.game,
        "--seeds",
        _seeds(section.seeds),
        "--hands",
        str(section.hands),
    ]
    command += ["--workers", "2", "--out", str(folder)]
    return Run(folder, tuple(command))


def lbr_run(page: str, section: Lbr, row: Side, deals: int) -> Run:
    folder = RUNS / page / section.slug / _slug(row.label)
    command = [
        str(BIN / "acpc-lbr"),
        row.agent,
        *shlex.split(row.args),
        *shlex.split(section.lbr_args),
    ]
    command += [
        "--game",
        section.game,
        "--hands",
        str(deals),
        "--seeds",
        _seeds(section.seeds),
        "--seed",
        "1",
    ]
    command += ["--quiet", "--json", str(folder / "lbr.json")]
    return Run(folder, tuple(command))


def command_runs(page: str, section: Commands) -> dict[str, Run]:
    """The runs of a ``Commands`` section by name, each in its own folder."""
    runs = {}
    for name, words in section.runs:
        folder = RUNS / page / section.slug / _slug(name)
        runs[name] = Run(folder, (str(BIN / words[0]), *(w.replace("{out}", str(folder)) for w in words[1:])))
    return runs


def runs_of(page: Page) -> Iterator[Run]:
    for section in page.sections:
        if isinstance(section, Commands):
            yield from command_runs(page.name, section).values()
        if isinstance(section, Matches):
            for row in section.rows:
                for column in section.columns:
                    if (row.label, column.label) not in section.skip:
                        yield match_run(page.name, section, row, column)
        elif isinstance(section, RoundRobin):
            yield round_robin_run(page.name, section)
        elif isinstance(section, Lbr):
            for row, deals in section.rows:
                yield lbr_run(page.name, section, row, deals)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_")


def git(*args: str) -> str:
    """What ``git ARGS`` prints, whole (``status --porcelain`` lines start with a space)."""
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def machine() -> str:
    """CPU model, cores, OS and the versions that decide the figures."""
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        import torch

        torch_version = f", torch {torch.__version__}"
    except ImportError:
        torch_version = ""
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}{torch_version}"
    )


def written_here(path: str) -> bool:
    """Whether a path is one this script writes (a results page or its images), which may change while a
    regeneration writes page after page."""
    return path.startswith("docs/results/") and (path.endswith(".md") or path.startswith("docs/results/images/"))


def tree_changes() -> list[str]:
    """The tracked files changed since the last commit (a rename counts its new path), apart from the pages
    and images this script writes: a page's runs are played and written from a clean tree only."""
    changed = {line[3:].split(" -> ")[-1] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()}
    return sorted(path for path in changed if not written_here(path))


def source() -> tuple[str, list[str]]:
    """The commit the runs play and the files changed since it."""
    return git("rev-parse", "HEAD").strip(), tree_changes()


def plays_code(path: str) -> bool:
    """Whether a changed file is code that plays (the packages), not tests, docs or build files."""
    return path.split("/", 1)[0] in (
        "protocol",
        "dealer",
        "agents",
        "models",
    ) and path.endswith(".py")


def record(run: Run) -> dict[str, Any] | None:
    """The run's ``run.json`` if it finished with this command, else None."""
    path = run.folder / "run.json"
    if not path.exists():
        return None
    recorded: dict[str, Any] = json.loads(path.read_text())
    if recorded.get("command") != run.shown() or recorded.get("returncode") != 0:
        return None
    return recorded


def sessions(recorded: dict[str, Any]) -> list[dict[str, Any]]:
    """The sessions that played a run: one, or several where a stopped tournament was resumed (each with its
    commit, uncommitted changes, date and wall seconds). A record written before sessions were kept is one
    session; a resumed one of those has an earlier session nobody recorded (commit and seconds None)."""
    if "sessions" in recorded:
        return list(recorded["sessions"])
    session = {key: recorded.get(key) for key in ("date", "commit", "uncommitted_changes", "wall_seconds")}
    unrecorded = {"date": None, "commit": None, "uncommitted_changes": [], "wall_seconds": None}
    return [unrecorded, session] if recorded.get("resumed") else [session]


def _earlier_sessions(run: Run) -> list[dict[str, Any]]:
    """The sessions of a stopped run that ``play`` resumes, from its ``run.json``. A session stopped before it
    finished has the seconds from its start to the last file it wrote."""
    path = run.folder / "run.json"
    if not path.exists():
        return [{"date": None, "commit": None, "uncommitted_changes": [], "wall_seconds": None}]
    earlier = sessions(json.loads(path.read_text()))
    last = earlier[-1]
    if last.get("wall_seconds") is None and last.get("started") is not None:
        written = [p.stat().st_mtime for p in run.folder.rglob("*") if p.is_file() and p.name != "run.json"]
        last["wall_seconds"] = round(max(written, default=last["started"]) - last["started"], 1)
    return earlier


def play(run: Run) -> dict[str, Any]:
    """Run the command and write its ``run.json``: into a fresh folder, except a tournament's, which
    ``acpc-tournament`` resumes (its finished matches kept; the record keeps every session)."""
    if run.folder.exists() and Path(run.command[0]).name != "acpc-tournament":
        shutil.rmtree(run.folder)
    resumed = run.folder.exists() and any(run.folder.glob("*/*.log"))
    earlier = _earlier_sessions(run) if resumed else []
    run.folder.mkdir(parents=True, exist_ok=True)
    commit, changed = source()
    session: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "uncommitted_changes": changed,
        "started": time.time(),
        "wall_seconds": None,  # until it ends: a stopped session is timed when resumed
    }
    recorded: dict[str, Any] = {
        "command": run.shown(),
        "returncode": None,
        "date": session["date"],
        "commit": commit,
        "uncommitted_changes": changed,
        "machine": machine(),
        "resumed": resumed,
        "sessions": [*earlier, session],
    }
    (run.folder / "run.json").write_text(json.dumps(recorded, indent=2) + "\n")
    start = time.monotonic()
    done = subprocess.run(run.command, cwd=REPO, capture_output=True, text=True)
    session["wall_seconds"] = round(time.monotonic() - start, 1)
    known = [s["wall_seconds"] for s in recorded["sessions"]]
    recorded.update(
        returncode=done.returncode,
        wall_seconds=None if None in known else round(sum(known), 1),
        stdout_tail=done.stdout[-4000:],
        stderr_tail=done.stderr[-4000:],
    )
    (run.folder / "run.json").write_text(json.dumps(recorded, indent=2) + "\n")
    if done.returncode != 0:
        raise RuntimeError(f"{run.shown()} failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    return recorded


def play_all(runs: list[Run], page: str) -> None:
    """Play the runs: matches and tournaments one at a time (each uses two worker processes),
    LBR runs (one process each) two at a time."""
    for run in runs:
        if Path(run.command[0]).name != "acpc-lbr":
            print(f"{page}: {run.shown()}", file=sys.stderr, flush=True)
            play(run)
    single = [run for run in runs if Path(run.command[0]).name == "acpc-lbr"]
    for run in single:
        print(f"{page}: {run.shown()}", file=sys.stderr, flush=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(play, single))
