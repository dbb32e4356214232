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


def source() -> tuple[str, list[str]]:
    """The commit the runs play and the files changed since it."""
    changed = sorted({line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()})
    return git("rev-parse", "HEAD").strip(), changed


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


def play(run: Run) -> dict[str, Any]:
    """Run the command and write its ``run.json``: into a fresh folder, except a tournament's, which
    ``acpc-tournament`` resumes (its finished matches kept)."""
    if run.folder.exists() and Path(run.command[0]).name != "acpc-tournament":
        shutil.rmtree(run.folder)
    resumed = run.folder.exists() and any(run.folder.glob("*/*.log"))
    run.folder.mkdir(parents=True, exist_ok=True)
    commit, changed = source()
    start = time.monotonic()
    done = subprocess.run(run.command, cwd=REPO, capture_output=True, text=True)
    recorded = {
        "command": run.shown(),
        "returncode": done.returncode,
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "uncommitted_changes": changed,
        "machine": machine(),
        "wall_seconds": round(time.monotonic() - start, 1),
        "resumed": resumed,
        "stdout_tail": done.stdout[-4000:],
        "stderr_tail": done.stderr[-4000:],
    }
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
