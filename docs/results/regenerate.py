"""Write the measured-results pages of the docs from the runs each page names.

    python docs/results/regenerate.py                      # every page (hours on 2 cores)
    python docs/results/regenerate.py --pages limit-round-robin,nolimit-agents
    python docs/results/regenerate.py --list               # the pages and their runs' commands
    python docs/results/regenerate.py --write-only --verify 3   # replay 3 matches a page, then rewrite

A page is a list of sections; each section names its runs (``acpc-match``, ``acpc-tournament``
or ``acpc-lbr`` command lines, or the shipped checkpoints' training records) and a text saying
what they measure. Every figure on a page is read from the files those runs wrote
(``report.json``, ``crosstable.json``, the LBR JSON, a checkpoint's sidecar): nothing is typed by
hand. Runs are kept under ``runs/results/<page>/`` with a ``run.json`` (command, commit, date,
machine, wall time) and reused while their command is unchanged, so a page is rewritten without
replaying and a killed regeneration picks up where it stopped.

``--verify N`` replays N of a page's matches, spread over it, at the current commit and compares
their estimates with the recorded ones to the last bit; the page says how many agreed.

A page is written as ``docs/results/<date>-<name>.md``, the date the newest of its runs was
played; earlier dated pages of the same name stay as the record. The newest carries the label
``results-<name>`` that the rest of the docs link to.
"""

from __future__ import annotations

import argparse
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
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.dealer.arena.estimates import estimate
from acpc_arena.dealer.arena.logreading import read_log

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "docs" / "results"
RUNS = REPO / "runs" / "results"
BIN = Path(sys.executable).parent

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
TABLE_SEEDS = (1, 234, 6666)
"""The deal seeds of the tables (no agent's selection or tuning used them)."""
SPARRING_SEEDS = (9101, 9102, 9103)
"""The deal seeds of the sparring tables (no table, no agent's selection or tuning used them)."""
NOLIMIT_SEEDS = (7301, 7302, 7303)
"""The deal seeds of the no-limit tables with the sparring suite (no table, no agent's selection or tuning
used them; the all-in guard's settings were chosen on 7101 to 7103)."""


# --- what a page is made of -------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """An agent with its options, and the label a table shows for it.

    ``{column}`` in ``args`` is replaced by the column's agent (a counter chosen per opponent)."""

    label: str
    agent: str
    args: str = ""

    def options(self, column: Side | None = None) -> str:
        return self.args.replace("{column}", column.agent) if column else self.args


@dataclass(frozen=True)
class Matches:
    """A table of duplicate ``acpc-match`` runs: each row agent against each column agent."""

    slug: str
    title: str
    about: str
    rows: tuple[Side, ...]
    columns: tuple[Side, ...]
    game: str = LIMIT
    seeds: tuple[int, ...] = TABLE_SEEDS
    hands: int = 2000
    allin: bool = False
    """Also show the all-in-adjusted figures (no-limit)."""
    by_seed: bool = False
    """One line per seed as well (for a table of one cell)."""
    skip: frozenset[tuple[str, str]] = frozenset()
    """(row label, column label) cells not played."""


@dataclass(frozen=True)
class RoundRobin:
    """An ``acpc-tournament``: every pair of entrants in duplicate, and the crosstable."""

    slug: str
    title: str
    about: str
    entrants: tuple[Side, ...]
    game: str = LIMIT
    seeds: tuple[int, ...] = TABLE_SEEDS
    hands: int = 2000


@dataclass(frozen=True)
class Lbr:
    """``acpc-lbr`` for each row agent: local best response's winnings against it."""

    slug: str
    title: str
    about: str
    rows: tuple[tuple[Side, int], ...]
    """Each agent with the number of deals of its run (each played in both positions)."""
    game: str = LIMIT
    seeds: tuple[int, ...] = (1,)
    lbr_args: str = ""
    """``acpc-lbr``'s own options for every row (e.g. ``--first-round lbr``)."""


@dataclass(frozen=True)
class Sidecars:
    """Figures recorded by training runs, read from the shipped checkpoints' JSON sidecars."""

    slug: str
    title: str
    about: str
    render: Callable[[Path], list[str]]
    """Markdown lines from the checkpoints folder."""


@dataclass(frozen=True)
class Differences:
    """Rows of a ``Matches`` table compared on the same deals: for each pair of rows and each column, the
    first row's duplicate result minus the second's, deal by deal, with its 95% interval (the luck of the
    cards mostly cancels, so the interval is narrower than either cell's)."""

    slug: str
    title: str
    about: str
    matches: Matches
    pairs: tuple[tuple[str, str], ...]
    """(row label, row label) pairs: the first minus the second."""


Section = Matches | RoundRobin | Lbr | Sidecars | Differences


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    about: str
    sections: tuple[Section, ...] = field(default_factory=tuple)


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


def _match_command(section: Matches, a: str, a_args: str, b: str, b_args: str, folder: str) -> list[str]:
    command = ["acpc-match", "--a", a] + (["--a-args", a_args] if a_args else []) + ["--b", b]
    command += ["--b-args", b_args] if b_args else []
    command += ["--game", section.game, "--seeds", _seeds(section.seeds), "--hands", str(section.hands)]
    return [*command, "--workers", "2", "--quiet", "--no-plots", "--out", folder]


def match_run(page: str, section: Matches, row: Side, column: Side) -> Run:
    folder = RUNS / page / section.slug / f"{_slug(row.label)}-vs-{_slug(column.label)}"
    command = _match_command(section, row.agent, row.options(column), column.agent, column.args, str(folder))
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
    command += ["--game", section.game, "--seeds", _seeds(section.seeds), "--hands", str(section.hands)]
    command += ["--workers", "2", "--out", str(folder)]
    return Run(folder, tuple(command))


def lbr_run(page: str, section: Lbr, row: Side, deals: int) -> Run:
    folder = RUNS / page / section.slug / _slug(row.label)
    command = [str(BIN / "acpc-lbr"), row.agent, *shlex.split(row.args), *shlex.split(section.lbr_args)]
    command += ["--game", section.game, "--hands", str(deals), "--seeds", _seeds(section.seeds), "--seed", "1"]
    command += ["--quiet", "--json", str(folder / "lbr.json")]
    return Run(folder, tuple(command))


def runs_of(page: Page) -> Iterator[Run]:
    for section in page.sections:
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


def _git(*args: str) -> str:
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


def _plays(path: str) -> bool:
    """Whether a changed file is code that plays (the packages), not tests, docs or build files."""
    return path.split("/", 1)[0] in ("protocol", "dealer", "agents", "models") and path.endswith(".py")


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
    changed = sorted({line[3:] for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()})
    start = time.monotonic()
    done = subprocess.run(run.command, cwd=REPO, capture_output=True, text=True)
    recorded = {
        "command": run.shown(),
        "returncode": done.returncode,
        "date": datetime.date.today().isoformat(),
        "commit": _git("rev-parse", "HEAD").strip(),
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


# --- writing -------------------------------------------------------------------------------


def _signed(value: float) -> str:
    """``+157``, ``-12``, ``0``: a whole number of mbb/h with its sign."""
    return "0" if round(value) == 0 else f"{value:+,.0f}"


def _chips(value: float) -> str:
    """``+4,085``, ``-9,275.5``: chips, whole unless a pot was split into half chips."""
    return f"{value:+,.0f}" if float(value).is_integer() else f"{value:+,.1f}"


def interval(estimate: dict[str, Any]) -> str:
    """``+157 [+96, +218]``: mbb/h with its 95% interval."""
    low, high = estimate["ci95"]
    return f"{_signed(estimate['mbb_per_hand'])} [{_signed(low)}, {_signed(high)}]"


def plus_minus(estimate: dict[str, Any] | None) -> str:
    """``+157 ±61``: mbb/h with the half-width of its 95% interval."""
    if estimate is None:
        return "-"
    low, high = estimate["ci95"]
    return f"{_signed(estimate['mbb_per_hand'])} ±{(high - low) / 2:,.0f}"


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _header(cells: list[str], numeric_from: int = 1) -> list[str]:
    return [_row(cells), _row(["---" if i < numeric_from else "---:" for i in range(len(cells))])]


def render_matches(page: str, section: Matches) -> list[str]:
    folder = f"runs/results/{page}/{section.slug}/ROW-vs-COLUMN"
    template = shlex.join(_match_command(section, "ROW", "", "COLUMN", "", folder))
    options = [
        side for side in dict.fromkeys((*section.rows, *section.columns)) if side.args or side.label != side.agent
    ]
    lines = [
        f"Each cell is `{template}`"
        + (" (with `--a-args` and `--b-args` giving the options below)" if options else "")
        + f": the row's duplicate mbb/h against the column with its 95% interval, over "
        f"{len(section.seeds) * section.hands:,} hand pairs"
        + ("; beside it or below it, the all-in-adjusted figure" if section.allin else "")
        + ".",
        "",
    ]

    def cell(row: Side, column: Side) -> str:
        if (row.label, column.label) in section.skip:
            return ""
        report = _report(match_run(page, section, row, column))
        return interval(report["duplicate"])

    def adjusted(row: Side, column: Side) -> str:
        report = _report(match_run(page, section, row, column))
        return interval(report["allin_adjusted_duplicate"])

    if len(section.rows) == 1:  # one agent against many: a line per opponent
        row = section.rows[0]
        lines += _header([f"{row.label} against", "duplicate mbb/h", *(["all-in adjusted"] if section.allin else [])])
        for column in section.columns:
            lines.append(_row([column.label, cell(row, column), *([adjusted(row, column)] if section.allin else [])]))
    else:
        lines += _header(["agent", *[f"vs {c.label}" for c in section.columns]])
        for row in section.rows:
            cells = [
                cell(row, c) + (f"<br>{adjusted(row, c)}" if section.allin and cell(row, c) else "")
                for c in section.columns
            ]
            lines.append(_row([row.label, *cells]))
    if options:
        lines += ["", "The agents:", ""]
        for side in options:
            lines.append(f"- {side.label}: {_agent(side).replace('{column}', 'COLUMN')}")
    if section.by_seed:
        for row in section.rows:
            for column in section.columns:
                report = _report(match_run(page, section, row, column))
                lines += ["", f"{row.label} against {column.label}, seed by seed (chips won by {row.label}):", ""]
                lines += _header(["seed", f"{row.label} in seat 1", f"{row.label} in seat 2", "duplicate mbb/h"])
                for seed in section.seeds:
                    seats = {m["a_seat"]: m["chips_a"] for m in report["matches"] if m["seed"] == seed}
                    per_seed = next(s for s in report["per_seed"] if s["seed"] == seed)
                    lines.append(_row([str(seed), _chips(seats[1]), _chips(seats[2]), interval(per_seed["duplicate"])]))
                lines.append(_row(["all", "", "", interval(report["duplicate"])]))
    return lines


def _report(run: Run) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((run.folder / "report.json").read_text())
    return report


def render_round_robin(page: str, section: RoundRobin) -> list[str]:
    run = round_robin_run(page, section)
    table = json.loads((run.folder / "crosstable.json").read_text())
    order = table["entrants"]
    lines = [
        f"`{run.shown()}`: {len(order) * (len(order) - 1) // 2} pairs, each seed in both seatings. "
        "A cell is the row's duplicate mbb/h against the column ± the half-width of its 95% interval; "
        "the last column is the row's mean against the field, ranked by it.",
        "",
    ]
    lines += _header(["agent", *[f"`{n}`" for n in order], "average"])
    for name in order:
        cells = [f"`{name}`"]
        cells += ["" if other == name else plus_minus(table["crosstable"][name][other]) for other in order]
        cells.append(f"**{plus_minus(table['average'][name])}**")
        lines.append(_row(cells))
    lines += ["", f"![the crosstable as a heatmap]({_copy_image(run.folder / 'crosstable.png', page, section.slug)})"]
    return lines


def duplicate_pairs(run: Run) -> tuple[np.ndarray, int]:
    """The row agent's duplicate samples of a match run (chips, one per deal: the mean of its two seatings),
    seed by seed in order, read from the run's logs; and the game's big blind."""
    name = _report(run)["a"]
    by_seed: dict[int, dict[int, np.ndarray]] = {}
    big_blind = 0
    for path in sorted(run.folder.glob("*.log")):
        match = read_log(path)
        big_blind = match.game.big_blind
        by_seed.setdefault(match.seed, {})[match.seat_of(name)] = match.values_of(name)
    pairs = []
    for seed in sorted(by_seed):
        seats = by_seed[seed]
        n = min(len(seats[0]), len(seats[1]))
        pairs.append((seats[0][:n] + seats[1][:n]) / 2)
    return np.concatenate(pairs), big_blind


def render_differences(page: str, section: Differences) -> list[str]:
    table = section.matches
    rows = {row.label: row for row in table.rows}
    lines = [
        f"From the runs of the table above (`{table.slug}`): each cell is the first agent's duplicate mbb/h "
        "minus the second's against the column, deal by deal over the same deals, with its 95% interval "
        "(plain results, not all-in adjusted). An interval that includes zero does not tell the two apart.",
        "",
    ]
    lines += _header(["difference", *[f"vs {c.label}" for c in table.columns]])
    for first, second in section.pairs:
        cells = [f"{first} − {second}"]
        for column in table.columns:
            if (first, column.label) in table.skip or (second, column.label) in table.skip:
                cells.append("")
                continue
            a, big_blind = duplicate_pairs(match_run(page, table, rows[first], column))
            b, _ = duplicate_pairs(match_run(page, table, rows[second], column))
            if len(a) != len(b):
                raise RuntimeError(f"{first} and {second} against {column.label} played different deals")
            cells.append(interval(estimate(a - b, big_blind).to_json()))
        lines.append(_row(cells))
    return lines


def _agent(side: Side) -> str:
    return f"`{side.agent} {side.args}`" if side.args else f"`{side.agent}`"


def render_lbr(page: str, section: Lbr) -> list[str]:
    command = lbr_run(page, section, Side("AGENT", "AGENT"), 0).command
    words = ["acpc-lbr", "AGENT [options]", *command[2:]]
    words[words.index("--hands") + 1] = "DEALS"
    lines = [
        f"Each row is `{' '.join(words).replace(str(REPO) + '/', '')}`: LBR's winnings against the agent in "
        "mbb/h with the 95% interval, over both positions of each deal.",
        "",
    ]
    lines += _header(["agent", "LBR mbb/h [95% CI]", "hands"])
    for row, deals in section.rows:
        result = json.loads((lbr_run(page, section, row, deals).folder / "lbr.json").read_text())
        half = result["ci95"]  # the half-width of the 95% interval
        estimate = {
            "mbb_per_hand": result["mbb_per_hand"],
            "ci95": [result["mbb_per_hand"] - half, result["mbb_per_hand"] + half],
        }
        label = row.label if row.label == row.agent and not row.args else f"{row.label} ({_agent(row)})"
        lines.append(_row([label, interval(estimate), f"{result['hands']:,}"]))
    return lines


def _copy_image(source: Path, page: str, slug: str) -> str:
    """Copy a run's image beside the page; the link the page uses."""
    target = RESULTS / "images" / f"{page}-{slug}{source.suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return f"images/{target.name}"


FIGURES = ("duplicate", "allin_adjusted_duplicate", "per_hand")
"""The estimates of ``report.json`` a replay must give again, to the last bit."""


def verify(page: Page, count: int) -> dict[str, Any]:
    """Replay ``count`` of the page's match runs, spread over it, at the current commit into scratch folders,
    and compare their estimates with the recorded ones; written to ``runs/results/<page>/verify.json``."""
    runs = [run for run in runs_of(page) if Path(run.command[0]).name == "acpc-match" and record(run)]
    chosen = runs[:: max(1, len(runs) // count)][:count]
    if not chosen:  # a page of tournaments, LBR runs or sidecars
        return {}
    changed = [line[3:] for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()]
    results = []
    for run in chosen:
        scratch = run.folder.parent / (run.folder.name + ".verify")
        replay = play(Run(scratch, (*run.command[:-1], str(scratch))))
        same = all(_report(run)[key] == _report(Run(scratch, ()))[key] for key in FIGURES)
        results.append({"command": run.shown(), "same": same, "wall_seconds": replay["wall_seconds"]})
        shutil.rmtree(scratch)
    verified = {
        "commit": _git("rev-parse", "HEAD").strip(),
        "date": datetime.date.today().isoformat(),
        "uncommitted_changes": [path for path in changed if _plays(path)],
        "runs": results,
    }
    (RUNS / page.name / "verify.json").write_text(json.dumps(verified, indent=2) + "\n")
    return verified


def _played_before(run: Run, moment: float) -> bool:
    path = run.folder / "run.json"
    return path.exists() and path.stat().st_mtime < moment


def _verification(page: Page) -> list[str]:
    """The page's line on its last replay (``verify``), if any."""
    path = RUNS / page.name / "verify.json"
    if not path.exists():
        return []
    verified = json.loads(path.read_text())
    replayed_at = path.stat().st_mtime
    current = {run.shown(): run for run in runs_of(page)}
    verified["runs"] = [  # the replays of runs the page still shows, as they were recorded when replayed
        r for r in verified["runs"] if r["command"] in current and _played_before(current[r["command"]], replayed_at)
    ]
    if not verified["runs"]:
        return []
    same = sum(r["same"] for r in verified["runs"])
    line = (
        f"- Replayed on {verified['date']} at commit {verified['commit'][:10]}"
        + (" with uncommitted changes to the code that plays" if verified["uncommitted_changes"] else "")
        + f": {same} of {len(verified['runs'])} of these runs, chosen across the page, gave the same estimates "
        "to the last bit"
    )
    differ = [f"`{r['command']}`" for r in verified["runs"] if not r["same"]]
    return [line + (f"; these did not: {', '.join(differ)}." if differ else ".")]


def render(page: Page) -> str:
    records = [r for r in (record(run) for run in runs_of(page)) if r is not None]
    date = max((r["date"] for r in records), default=datetime.date.today().isoformat())
    lines = [f"(results-{page.name}-{date})=", f"# {page.title} ({date})", ""]
    lines += [
        f"<!-- Written by `python docs/results/regenerate.py --pages {page.name}` from the runs it names; "
        "do not edit by hand. -->",
        "",
        page.about,
        "",
    ]
    if records:
        history = _git("rev-list", "HEAD").split()
        commits = sorted({r["commit"] for r in records}, key=lambda c: -history.index(c) if c in history else 0)
        changed = sorted({path for r in records for path in r["uncommitted_changes"] if _plays(path)})
        machines = sorted({r["machine"] for r in records})
        hours = sum(r["wall_seconds"] for r in records) / 3600
        resumed = any(r.get("resumed") for r in records)
        lines += [
            f"- Played: {min(r['date'] for r in records)} to {date}, at commit"
            + ("s " if len(commits) > 1 else " ")
            + ", ".join(c[:10] for c in commits)
            + (
                f"; some runs with uncommitted changes to the code that plays: {', '.join(f'`{p}`' for p in changed)}"
                if changed
                else ""
            )
            + ".",
            f"- Machine: {'; '.join(machines)}.",
            f"- Wall time of the runs: {hours:.1f} hours"
            + (" (a run resumed after a stop counts its last part only)" if resumed else "")
            + f". Regenerate: `make results PAGES={page.name}`.",
            *_verification(page),
            "",
        ]
    for section in page.sections:
        lines += [f"## {section.title}", "", section.about, ""]
        if isinstance(section, Matches):
            lines += render_matches(page.name, section)
        elif isinstance(section, RoundRobin):
            lines += render_round_robin(page.name, section)
        elif isinstance(section, Lbr):
            lines += render_lbr(page.name, section)
        elif isinstance(section, Differences):
            lines += render_differences(page.name, section)
        else:
            lines += section.render(REPO / "models" / "checkpoints")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write(page: Page) -> Path:
    """Write the page under its date; the newest page of its name gets the name's label."""
    text = render(page)
    date = text.split("\n", 1)[0].removeprefix(f"(results-{page.name}-").removesuffix(")=")
    path = RESULTS / f"{date}-{page.name}.md"
    label = f"(results-{page.name})=\n"
    for older in RESULTS.glob(f"*-{page.name}.md"):
        if older != path and older.read_text().startswith(label):
            older.write_text(older.read_text().removeprefix(label))
    path.write_text(label + text)
    return path


# --- the pages -----------------------------------------------------------------------------


def _sides(*names: str) -> tuple[Side, ...]:
    return tuple(Side(n, n) for n in names)


STYLES = _sides("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o_random")
NOLIMIT_SUITE = _sides(
    "spar_shove10",
    "spar_shove30",
    "spar_shove60",
    "spar_overbet",
    "spar_minraise",
    "spar_limper",
    "spar_fractions",
    "spar_oddsize",
)


def cfr_checkpoints(folder: Path) -> list[str]:
    """The CFR checkpoints' training records."""
    lines = _header(
        [
            "checkpoint",
            "game",
            "abstraction",
            "algorithm",
            "iterations",
            "sampled an iteration",
            "information sets",
            "seconds",
            "exploitability (exact, chips/hand)",
        ],
        numeric_from=4,
    )
    for path in sorted(folder.glob("cfr-*.json")):
        d = json.loads(path.read_text())
        exploitability = f"{d['exploitability']:.2e}" if d.get("exploitability") is not None else "-"
        lines.append(
            _row(
                [
                    f"`{path.stem}`",
                    d["game_name"],
                    d["abstraction"],
                    d["algorithm"],
                    f"{d['iterations']:,}",
                    f"{d['deals_per_iteration']:,} deals" if "deals_per_iteration" in d else "1 board, every hand",
                    f"{d['infosets']:,}",
                    f"{d['seconds']:,.0f}",
                    exploitability,
                ]
            )
        )
    lines += [
        "",
        "Kuhn and Leduc are solved over every deal, so their exploitability is exact; hold'em's is not "
        "computable exactly (see the LBR page for a lower bound).",
    ]
    return lines


def poker_cnn_folds(folder: Path) -> list[str]:
    """Poker-CNN's cross-validation: accuracy per fold and round, beside always predicting the commonest action."""
    d = json.loads((folder / "poker_cnn.json").read_text())
    rounds = ["all", "preflop", "flop", "turn", "river"]
    lines = [
        f"Training: `acpc-train poker_cnn` with {d['config']['records']:,} records ({d['config']['test_records']:,} "
        f"of them the test set), {d['config']['folds']} folds, {d['config']['epochs']} epochs, seed "
        f"{d['config']['seed']}; teacher `{d['data']['teacher']} {d['data']['teacher_args']}`. Accuracy on each "
        "fold's held-out records, in brackets always predicting the most common action of that round:",
        "",
    ]
    lines += _header(["fold", "held out", *rounds, "test set, all"])
    for fold in d["training"]["folds"]:
        acc, base = fold["held_out_accuracy"], fold["held_out_majority"]
        cells = [f"{acc[r]:.1%} ({base[r]:.1%})" for r in rounds]
        lines.append(
            _row(
                [
                    str(fold["fold"]),
                    f"{fold['held_out_records']:,}",
                    *cells,
                    f"{fold['test_accuracy']['all']:.1%} ({fold['test_majority']['all']:.1%})",
                ]
            )
        )
    return lines


def network_trainings(folder: Path) -> list[str]:
    """The Q-networks' and NFQ's training records."""
    lines = _header(["checkpoint", "pool", "hands trained", "seconds", "created", "commit"], numeric_from=2)
    for path in sorted([*folder.glob("dqn*.json"), *folder.glob("lstm_dqn*.json"), *folder.glob("nfq*.json")]):
        d = json.loads(path.read_text())
        pool = d.get("config", {}).get("pool") or "v1 (" + ", ".join(d.get("opponents") or []) + ")"
        lines.append(
            _row(
                [
                    f"`{path.stem}`",
                    pool,
                    f"{d['stats']['hands']:,}",
                    f"{d['stats']['seconds']:,.0f}",
                    d["created"][:10],
                    d["git_commit"][:10],
                ]
            )
        )
    return lines


def ensemble_evolution(folder: Path) -> list[str]:
    d = json.loads((folder / "ensemble-networks.json").read_text())
    return [
        f"`acpc-train ensemble`: {d['hands']:,} hands of evolution in {d['wall_seconds']:,.0f} s of wall time "
        f"({d['workers']} workers, {d['hands_per_second']:,.0f} hands/s of play). Fitness of the best individual "
        "per generation, each network's evolution:",
        "",
        f"![fitness]({_copy_image(folder / 'ensemble-fitness.png', 'training', 'ensemble')})",
    ]


NOLIMIT_TABLE_3 = Matches(
    "table-3",
    "Seed 001, table 3: the ensemble's parts against the styles and the suite",
    "A_tar is the counter network evolved against the column's style; A_base the network evolved "
    "against all eight; A_ave the counters' plain average; A_int their similarity-weighted mixture; "
    "A* (the default) A_int where the opponent model has seen the betting line, A_base elsewhere; "
    "`clone` the network evolution started from (the `cfr-nl` teacher cloned), so A_base and A* "
    "against it is what evolution adds. Every row plays with the all-in guard except the last, "
    "A* as seed 001 has it.",
    (
        Side("A_tar", "ensemble", "--mode a_tar --style {column}"),
        Side("A_base", "ensemble", "--mode a_base"),
        Side("A_ave", "ensemble", "--mode a_ave"),
        Side("A_int", "ensemble", "--mode a_int"),
        Side("A*", "ensemble"),
        Side("clone", "ensemble", "--mode clone"),
        Side("A*, no guard", "ensemble", "--allin-guard off"),
    ),
    (*STYLES, *NOLIMIT_SUITE),
    game=NOLIMIT,
    seeds=NOLIMIT_SEEDS,
    allin=True,
    skip=frozenset({("A_tar", side.label) for side in (STYLES[-1], *NOLIMIT_SUITE)}),
)


PAGES: tuple[Page, ...] = (
    Page(
        "limit-round-robin",
        "Limit hold'em: every shipped agent against every other",
        "Heads-up limit hold'em (`holdem.limit.2p.reverse_blinds`), the default checkpoint of every agent that "
        "plays it, on the tables' deal seeds 1, 234 and 6666.",
        (
            RoundRobin(
                "round-robin",
                "Round robin",
                "Every pair in duplicate, 2,000 hands a seat and seed (6,000 hand pairs a cell).",
                _sides("random", "call", "raise", "rule", "equity", "cfr", "lstm_dqn", "dqn", "nfq", "poker_cnn"),
            ),
        ),
    ),
    Page(
        "limit-checkpoints",
        "Limit hold'em: the seed systems' tables and their checkpoints",
        "The tables of the seed systems on heads-up limit hold'em, redone in duplicate through the dealer on "
        "the tables' deal seeds 1, 234 and 6666. `cfr` is the default checkpoint unless the row names another.",
        (
            Matches(
                "seed-002",
                "Seed 002: CFR's card abstractions against the baselines",
                "The seed's traditional and improved nine-bucket abstractions, the improved one played by its "
                "most likely action, the E[HS²] abstraction of 50 buckets a round, and the default exact E[HS²] one.",
                (
                    Side("traditional 9 buckets", "cfr", "--checkpoint cfr-traditional"),
                    Side("improved 9 buckets", "cfr", "--checkpoint cfr-improved"),
                    Side("improved, argmax", "cfr", "--checkpoint cfr-improved --argmax"),
                    Side("cfr-ehs2", "cfr", "--checkpoint cfr-ehs2"),
                    Side("cfr-ehs2-exact (default)", "cfr"),
                ),
                _sides("call", "raise", "random", "rule", "equity"),
            ),
            Matches(
                "table-4-2",
                "Seed 000, table 4-2: LSTM-DQN against DQN",
                "The shipped pair head to head, 3,000 hands a seat and seed.",
                _sides("lstm_dqn"),
                _sides("dqn"),
                hands=3000,
                by_seed=True,
            ),
            Matches(
                "networks",
                "The networks against the baselines and CFR",
                "Each learned agent's default checkpoint; `cfr-improved` is seed 002's improved nine buckets.",
                _sides("lstm_dqn", "dqn", "nfq", "poker_cnn"),
                (
                    *_sides("equity", "rule", "cfr"),
                    Side("cfr-improved", "cfr", "--checkpoint cfr-improved"),
                    *_sides("random", "call", "raise"),
                ),
            ),
            Matches(
                "nfq-ablations",
                "Seed 003: NFQ and its ablations",
                "`nfq` (a window of 3 observations, lambda 0.7, the UCT reward mixed in with beta 0.5) and the "
                "same training with one part removed: no UCT reward (`nfq-chips`), no eligibility traces "
                "(`nfq-lambda0`), one observation (`nfq-n1`).",
                (
                    Side("nfq", "nfq"),
                    Side("nfq-chips", "nfq", "--checkpoint nfq-chips"),
                    Side("nfq-lambda0", "nfq", "--checkpoint nfq-lambda0"),
                    Side("nfq-n1", "nfq", "--checkpoint nfq-n1"),
                ),
                (*_sides("random", "call", "raise", "rule", "dqn", "lstm_dqn", "cfr"), Side("nfq (shipped)", "nfq")),
                skip=frozenset({("nfq", "nfq (shipped)")}),
            ),
            Matches(
                "poker-cnn-teacher",
                "Seed 004: Poker-CNN against its teacher",
                "The imitation network against the CFR strategy whose decisions it was trained on, played by "
                "its most likely action as when it made the training data.",
                _sides("poker_cnn"),
                (Side("teacher (cfr-ehs2, argmax)", "cfr", "--checkpoint cfr-ehs2 --argmax"),),
            ),
        ),
    ),
    Page(
        "limit-sparring",
        "Limit hold'em: the default CFR and every limit agent against the sparring suite",
        "Heads-up limit hold'em against the limit sparring suite (`agents/sparring/`, heuristic bots nobody "
        "tuned an agent on) and `equity`, in duplicate on deal seeds 9101, 9102 and 9103, which no table and "
        "no choice of a checkpoint used: the default CFR 3,000 hands a seat, every limit agent 1,000.",
        (
            Matches(
                "cfr",
                "The default CFR",
                "`cfr` is `cfr-ehs2-exact` (public chance sampling, exact E[HS²] buckets), played by its most likely "
                "action (purified).",
                (Side("cfr (default)", "cfr"),),
                _sides("spar_equity", "spar_tag", "spar_lag", "spar_station", "spar_rock", "spar_bluffer", "equity"),
                seeds=SPARRING_SEEDS,
                hands=3000,
            ),
            Matches(
                "every-agent",
                "Every limit agent against the suite",
                "Each shipped limit agent (its default checkpoint; `cfr --sample`, the default CFR sampling its "
                "average strategy instead of playing its most likely action; and the earlier CFR checkpoints: "
                "`cfr-ehs2`, the previous default, and seed 002's `cfr-improved` and `cfr-traditional`) against "
                "the same bots, "
                "1,000 hands a seat on the same deal seeds (the default CFR's row is the first 1,000 hands of "
                "its table above).",
                (
                    Side("cfr (default)", "cfr"),
                    Side("cfr --sample", "cfr", "--sample"),
                    Side("cfr-ehs2", "cfr", "--checkpoint cfr-ehs2"),
                    Side("cfr-improved", "cfr", "--checkpoint cfr-improved"),
                    Side("cfr-traditional", "cfr", "--checkpoint cfr-traditional"),
                    *_sides("dqn", "lstm_dqn", "poker_cnn", "nfq", "equity", "rule"),
                ),
                _sides("spar_equity", "spar_tag", "spar_lag", "spar_station", "spar_rock", "spar_bluffer", "equity"),
                seeds=SPARRING_SEEDS,
                hands=1000,
                skip=frozenset({("equity", "equity")}),
            ),
        ),
    ),
    Page(
        "limit-superseded-checkpoints",
        "Limit hold'em: the earlier networks kept for comparison",
        "The seed's own configuration of the Q-networks (`lstm_dqn-v1`, `dqn-v1`: the seed's pool and loss) "
        "and the intermediate networks shipped for comparison, against the yardsticks, on the tables' seeds.",
        (
            Matches(
                "q-networks",
                "Earlier Q-networks",
                "`--checkpoint NAME` selects each; the defaults are on the limit-checkpoints page.",
                tuple(
                    Side(name, name.split("-")[0], f"--checkpoint {name}")
                    for name in ("lstm_dqn-v1", "lstm_dqn-v2", "dqn-v1", "dqn-v2", "dqn-v3")
                ),
                _sides("equity", "rule", "cfr", "random", "call", "raise"),
            ),
        ),
    ),
    Page(
        "nolimit-agents",
        "No-limit hold'em: CFR, the ensemble, the styles and the sparring suite",
        "Heads-up no-limit hold'em (`holdem.nolimit.2p.reverse_blinds`: stacks of 200 big blinds), 2,000 hands "
        "a seat and seed. The agents' tables are played on deal seeds 7301, 7302 and 7303, which no table and no "
        "choice of a setting used, against seed 001's styles, the baselines and the no-limit sparring suite "
        "(`agents/sparring/nolimit.py`: shovers of their top 10%, 30% and 60%, an overbettor, a min-raiser, a "
        "limp-caller, a pot-fraction equity bot and an odd-size bot, none tuned against an agent here). "
        "No-limit results swing with all-ins; the all-in-adjusted figure values each hand that ended all in "
        "before the river at its expectation over the boards still to come.",
        (
            Matches(
                "cfr-nl",
                "`cfr` (the `cfr-nl` checkpoint) against the styles, the baselines and the suite",
                "The abstract no-limit strategy (pot-fraction bets, all-in, E[HS²] buckets) with the all-in guard.",
                (Side("cfr", "cfr"),),
                (*STYLES, *_sides("call", "raise", "random", "rule", "equity"), *NOLIMIT_SUITE),
                game=NOLIMIT,
                seeds=NOLIMIT_SEEDS,
                allin=True,
            ),
            NOLIMIT_TABLE_3,
            Differences(
                "table-3-parts",
                "What each part of the ensemble adds",
                "The rows of table 3 compared on the same deals: what evolution adds (A_base and A* against the "
                "clone it started from), what the opponent model's integration adds over the base network (A* "
                "against A_base), what the similarity weighting adds over the plain average of the counters "
                "(A_int and A* against A_ave), and what the all-in guard changes (A* against A* without it).",
                NOLIMIT_TABLE_3,
                (
                    ("A_base", "clone"),
                    ("A*", "clone"),
                    ("A*", "A_base"),
                    ("A_int", "A_ave"),
                    ("A*", "A_ave"),
                    ("A*", "A*, no guard"),
                ),
            ),
            Matches(
                "table-4",
                "Seed 001, table 4: the ensemble against the other agents",
                "A* against the baselines and the other shipped agents (the Q-networks play no-limit with "
                "pot-sized raises; they were trained on limit hold'em).",
                (Side("A*", "ensemble"),),
                _sides("random", "call", "raise", "rule", "equity", "cfr", "lstm_dqn", "dqn"),
                game=NOLIMIT,
                seeds=NOLIMIT_SEEDS,
                allin=True,
            ),
            RoundRobin(
                "styles",
                "Seed 001's styles against each other",
                "The eight styles, O_random and two baselines, 1,000 hands a seat on the tables' deal seeds 1, 234 "
                "and 6666.",
                (*STYLES, *_sides("raise", "random")),
                game=NOLIMIT,
                hands=1000,
            ),
        ),
    ),
    Page(
        "lbr",
        "Local best response against every agent",
        "LBR (`acpc-lbr`) plays each deal in both positions against the agent, choosing each of its actions "
        "by the best immediate response to the agent's range (from the agent's own policy), assuming the "
        "agent then checks or calls to the end. Its winnings are a lower bound on the agent's exploitability: "
        "a high figure shows a weakness; a figure near or below zero says LBR found none, not that there is "
        "none. In limit hold'em, LBR's first table only checks or calls before the flop (as in Lisý and "
        "Bowling's limit runs); the second lets it bet and raise there too.",
        (
            Lbr(
                "limit",
                "Limit hold'em",
                "Deal seed 1; LBR checks or calls before the flop.",
                (
                    (Side("cfr", "cfr"), 250),
                    (Side("cfr --sample", "cfr", "--sample"), 250),
                    (Side("cfr-improved", "cfr", "--checkpoint cfr-improved"), 250),
                    (Side("cfr-traditional", "cfr", "--checkpoint cfr-traditional"), 250),
                    (Side("poker_cnn", "poker_cnn"), 250),
                    (Side("nfq", "nfq"), 250),
                    (Side("dqn", "dqn"), 250),
                    (Side("lstm_dqn", "lstm_dqn"), 250),
                    (Side("rule", "rule"), 100),
                    (Side("equity", "equity"), 100),
                    (Side("call", "call"), 250),
                    (Side("raise", "raise"), 250),
                    (Side("random", "random"), 250),
                ),
            ),
            Lbr(
                "limit-preflop",
                "Limit hold'em, LBR betting before the flop",
                "Deal seed 1; before the flop LBR chooses among fold, call and raise as on the later rounds, "
                "by its equity against the agent's range (`--first-round lbr`). `cfr-ehs2` is the previous "
                "default checkpoint.",
                (
                    (Side("cfr", "cfr"), 500),
                    (Side("cfr --sample", "cfr", "--sample"), 500),
                    (Side("cfr-ehs2", "cfr", "--checkpoint cfr-ehs2"), 500),
                    (Side("cfr-improved", "cfr", "--checkpoint cfr-improved"), 500),
                    (Side("cfr-traditional", "cfr", "--checkpoint cfr-traditional"), 500),
                    (Side("poker_cnn", "poker_cnn"), 500),
                    (Side("nfq", "nfq"), 500),
                    (Side("dqn", "dqn"), 500),
                    (Side("lstm_dqn", "lstm_dqn"), 500),
                    (Side("rule", "rule"), 200),
                    (Side("equity", "equity"), 200),
                    (Side("call", "call"), 500),
                    (Side("raise", "raise"), 500),
                    (Side("random", "random"), 500),
                ),
                lbr_args="--first-round lbr",
            ),
            Lbr(
                "nolimit",
                "No-limit hold'em",
                "Deal seed 1; LBR bets half the pot, the pot or all in.",
                (
                    (Side("cfr", "cfr"), 250),
                    (Side("ensemble", "ensemble"), 250),
                    (Side("ensemble, no all-in guard (seed 001's A*)", "ensemble", "--allin-guard off"), 250),
                    *((s, 250) for s in STYLES[:-1]),
                    (Side("equity", "equity"), 100),
                    (Side("rule", "rule"), 100),
                    (Side("call", "call"), 250),
                    (Side("raise", "raise"), 250),
                    (Side("random", "random"), 250),
                ),
                game=NOLIMIT,
            ),
        ),
    ),
    Page(
        "training",
        "What the shipped checkpoints' training runs recorded",
        "Read from the JSON sidecar written beside each checkpoint in `models/checkpoints/` by the training "
        "command that made it (`make train AGENT=...`; the sidecar records the options, the commit and the "
        "figures the run measured).",
        (
            Sidecars("cfr", "CFR", "`acpc-cfr solve` runs (`make train AGENT=cfr`, `AGENT=cfr-nl`).", cfr_checkpoints),
            Sidecars(
                "poker-cnn",
                "Poker-CNN's cross-validation",
                "`make data`, then `make train AGENT=poker_cnn`.",
                poker_cnn_folds,
            ),
            Sidecars("networks", "The Q-networks and NFQ", "`make train AGENT=lstm_dqn|dqn|nfq`.", network_trainings),
            Sidecars("ensemble", "The ensemble's evolution", "`make train AGENT=ensemble`.", ensemble_evolution),
        ),
    ),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", default=None, help="comma-separated page names (default: all)")
    parser.add_argument("--list", action="store_true", help="print the pages and their runs' commands")
    parser.add_argument("--write-only", action="store_true", help="write the pages from the runs already played")
    parser.add_argument(
        "--verify", type=int, default=0, metavar="N", help="replay N of each page's matches and compare (default 0)"
    )
    args = parser.parse_args(argv)
    known = {page.name: page for page in PAGES}
    names = args.pages.split(",") if args.pages else list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown page {', '.join(unknown)}; pages: {', '.join(known)}")
    for name in names:
        page = known[name]
        if args.list:
            print(f"{name}: {page.title}")
            for run in runs_of(page):
                print(f"  {run.shown()}")
            continue
        if not args.write_only:
            play_all([run for run in runs_of(page) if record(run) is None], name)
        if args.verify:
            verify(page, args.verify)
        print(write(page).relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
