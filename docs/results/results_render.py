"""Writing a page from its runs' files: the tables of each kind of section, the replay check and the
page's header (``regenerate.py``)."""

from __future__ import annotations

import datetime
import json
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from results_runs import (
    Run,
    command_runs,
    git,
    lbr_run,
    match_command,
    match_run,
    play,
    record,
    round_robin_run,
    runs_of,
    sessions,
    tree_changes,
)
from results_sections import (
    REPO,
    RESULTS,
    RUNS,
    Commands,
    Differences,
    Lbr,
    Matches,
    Page,
    RoundRobin,
    Side,
)

from acpc_arena.dealer.arena.estimates import estimate
from acpc_arena.protocol.match_log import read_log

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


def table_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table_header(cells: list[str], numeric_from: int = 1) -> list[str]:
    return [
        table_row(cells),
        table_row(["---" if i < numeric_from else "---:" for i in range(len(cells))]),
    ]


def render_matches(page: str, section: Matches) -> list[str]:
    folder = f"runs/results/{page}/{section.slug}/ROW-vs-COLUMN"
    template = shlex.join(match_command(section, "ROW", "", "COLUMN", "", folder))
    options = [
        side for side in dict.fromkeys((*section.rows, *section.columns)) if side.args or side.label != side.agent
    ]
    lines = [
        f"Each cell is `{template}`"
        + (" (with `--a-args` and `--b-args` giving the options below)" if options else "")
        + f": the row's duplicate mbb/h against the column with its 95% interval, over "
        f"{len(section.seeds) * section.hands:,} hand pairs"
        + ("; beside it or below it, the all-in-adjusted figure" if section.allin else "")
        + (
            "; beside it, AIVAT's duplicate figure with its interval (the [AIVAT guide](../guides/aivat.md))"
            if section.aivat
            else ""
        )
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

    def aivat(row: Side, column: Side) -> str:
        figure = _report(match_run(page, section, row, column))["aivat"]
        return f"unavailable: {figure['unavailable']}" if "unavailable" in figure else interval(figure)

    if len(section.rows) == 1:  # one agent against many: a line per opponent
        row = section.rows[0]
        lines += table_header(
            [
                f"{row.label} against",
                "duplicate mbb/h",
                *(["all-in adjusted"] if section.allin else []),
                *(["AIVAT duplicate mbb/h"] if section.aivat else []),
            ]
        )
        for column in section.columns:
            lines.append(
                table_row(
                    [
                        column.label,
                        cell(row, column),
                        *([adjusted(row, column)] if section.allin else []),
                        *([aivat(row, column)] if section.aivat else []),
                    ]
                )
            )
    else:
        lines += table_header(["agent", *[f"vs {c.label}" for c in section.columns]])
        for row in section.rows:
            cells = [
                cell(row, c)
                + (f"<br>{adjusted(row, c)}" if section.allin and cell(row, c) else "")
                + (f"<br>AIVAT {aivat(row, c)}" if section.aivat and cell(row, c) else "")
                for c in section.columns
            ]
            lines.append(table_row([row.label, *cells]))
    if options:
        lines += ["", "The agents:", ""]
        for side in options:
            lines.append(f"- {side.label}: {_agent(side).replace('{column}', 'COLUMN')}")
    if section.by_seed:
        for row in section.rows:
            for column in section.columns:
                report = _report(match_run(page, section, row, column))
                lines += [
                    "",
                    f"{row.label} against {column.label}, seed by seed (chips won by {row.label}):",
                    "",
                ]
                lines += table_header(
                    [
                        "seed",
                        f"{row.label} in seat 1",
                        f"{row.label} in seat 2",
                        "duplicate mbb/h",
                    ]
                )
                for seed in section.seeds:
                    seats = {m["a_seat"]: m["chips_a"] for m in report["matches"] if m["seed"] == seed}
                    per_seed = next(s for s in report["per_seed"] if s["seed"] == seed)
                    lines.append(
                        table_row(
                            [
                                str(seed),
                                _chips(seats[1]),
                                _chips(seats[2]),
                                interval(per_seed["duplicate"]),
                            ]
                        )
                    )
                lines.append(table_row(["all", "", "", interval(report["duplicate"])]))
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
    lines += table_header(["agent", *[f"`{n}`" for n in order], "average"])
    for name in order:
        cells = [f"`{name}`"]
        cells += ["" if other == name else plus_minus(table["crosstable"][name][other]) for other in order]
        cells.append(f"**{plus_minus(table['average'][name])}**")
        lines.append(table_row(cells))
    lines += [
        "",
        f"![the crosstable as a heatmap]({copy_image(run.folder / 'crosstable.png', page, section.slug)})",
    ]
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
    lines += table_header(["difference", *[f"vs {c.label}" for c in table.columns]])
    for first, second in section.pairs:
        cells = [f"{first} − {second}"]
        for column in table.columns:
            if (first, column.label) in table.skip or (
                second,
                column.label,
            ) in table.skip:
                cells.append("")
                continue
            a, big_blind = duplicate_pairs(match_run(page, table, rows[first], column))
            b, _ = duplicate_pairs(match_run(page, table, rows[second], column))
            if len(a) != len(b):
                raise RuntimeError(f"{first} and {second} against {column.label} played different deals")
            cells.append(interval(estimate(a - b, big_blind).to_json()))
        lines.append(table_row(cells))
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
    lines += table_header(["agent", "LBR mbb/h [95% CI]", "hands"])
    for row, deals in section.rows:
        result = json.loads((lbr_run(page, section, row, deals).folder / "lbr.json").read_text())
        half = result["ci95"]  # the half-width of the 95% interval
        estimate = {
            "mbb_per_hand": result["mbb_per_hand"],
            "ci95": [result["mbb_per_hand"] - half, result["mbb_per_hand"] + half],
        }
        label = row.label if _agent(row) in (row.label, f"`{row.label}`") else f"{row.label} ({_agent(row)})"
        lines.append(table_row([label, interval(estimate), f"{result['hands']:,}"]))
    return lines


def copy_image(source: Path, page: str, slug: str) -> str:
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
    results = []
    for run in chosen:
        scratch = run.folder.parent / (run.folder.name + ".verify")
        replay = play(Run(scratch, (*run.command[:-1], str(scratch))))
        same = all(_report(run)[key] == _report(Run(scratch, ()))[key] for key in FIGURES)
        results.append(
            {
                "command": run.shown(),
                "same": same,
                "wall_seconds": replay["wall_seconds"],
            }
        )
        shutil.rmtree(scratch)
    verified = {
        "commit": git("rev-parse", "HEAD").strip(),
        "date": datetime.date.today().isoformat(),
        "uncommitted_changes": tree_changes(),
        "runs": results,
    }
    (RUNS / page.name / "verify.json").write_text(json.dumps(verified, indent=2) + "\n")
    return verified


def _played_before(run: Run, moment: float) -> bool:
    path = run.folder / "run.json"
    return path.exists() and path.stat().st_mtime < moment


def _verification(page: Page, commit: str) -> list[str]:
    """The page's line on its last replay (``verify``), if any: only a replay at the page's own commit from a
    clean tree, so that the page names one commit."""
    path = RUNS / page.name / "verify.json"
    if not path.exists():
        return []
    verified = json.loads(path.read_text())
    if verified["commit"] != commit or verified["uncommitted_changes"]:
        return []
    replayed_at = path.stat().st_mtime
    current = {run.shown(): run for run in runs_of(page)}
    verified["runs"] = [  # the replays of runs the page still shows, as they were recorded when replayed
        r for r in verified["runs"] if r["command"] in current and _played_before(current[r["command"]], replayed_at)
    ]
    if not verified["runs"]:
        return []
    same = sum(r["same"] for r in verified["runs"])
    line = (
        f"- Replayed on {verified['date']}: {same} of {len(verified['runs'])} of these runs, chosen across the "
        "page, played again gave the same estimates to the last bit"
    )
    differ = [f"`{r['command']}`" for r in verified["runs"] if not r["same"]]
    return [line + (f"; these did not: {', '.join(differ)}." if differ else ".")]


class PageRefused(RuntimeError):
    """A page that would not say honestly which code played its figures: it is not written."""


def one_commit(name: str, records: list[dict[str, Any]]) -> str:
    """The one commit at which every session of every run of the page was played from a clean tree; else
    ``PageRefused`` saying what to replay."""
    played = [session for r in records for session in sessions(r)]
    commits = sorted({str(s["commit"]) for s in played if s["commit"] is not None})
    if any(s["commit"] is None for s in played):
        raise PageRefused(
            f"{name}: a resumed run holds matches of a session that was not recorded (its commit is unknown); "
            f"delete its folder under runs/results/{name}/ and run `make results PAGES={name}`"
        )
    if len(commits) > 1:
        raise PageRefused(
            f"{name}: its runs were played at {len(commits)} commits ({', '.join(c[:10] for c in commits)}), "
            f"and a page names one: run `make results PAGES={name}` from a clean tree to play them again at HEAD"
        )
    changed = sorted({path for s in played for path in s.get("uncommitted_changes") or []})
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise PageRefused(
            f"{name}: some runs were played with uncommitted changes ({shown}): commit them, then run "
            f"`make results PAGES={name}` to play those runs again"
        )
    return commits[0]


def wall_time(records: list[dict[str, Any]]) -> str:
    """The runs' wall time: every session of a resumed run counted."""
    played = [session for r in records for session in sessions(r)]
    hours = sum(s["wall_seconds"] or 0 for s in played) / 3600
    resumed = sum(len(sessions(r)) > 1 for r in records)
    text = f"{hours:.1f} hours"
    if resumed:
        text += f" (with every session of the {resumed} run{'s' if resumed > 1 else ''} stopped and resumed)"
    return text


def render(page: Page) -> str:
    records = [r for r in (record(run) for run in runs_of(page)) if r is not None]
    date = max((r["date"] for r in records), default=datetime.date.today().isoformat())
    lines = [f"# {page.title}", ""]
    lines += [
        f"<!-- Written by `python docs/results/regenerate.py --pages {page.name}` from the runs it names; "
        "do not edit by hand. -->",
        "",
        page.about,
        "",
    ]
    if records:
        commit = one_commit(page.name, records)
        first = min(s["date"] for r in records for s in sessions(r))
        machines = sorted({r["machine"] for r in records})
        lines += [
            f"- Played: {first if first == date else f'{first} to {date}'}, at commit {commit[:10]} (a clean tree).",
            f"- Machine: {'; '.join(machines)}.",
            f"- Wall time of the runs: {wall_time(records)}. Regenerate: `make results PAGES={page.name}`.",
            *_verification(page, commit),
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
        elif isinstance(section, Commands):
            lines += section.render({name: run.folder for name, run in command_runs(page.name, section).items()})
        else:
            lines += section.render(REPO / "models" / "checkpoints")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write(page: Page) -> Path:
    """Write the page as ``docs/results/<name>.md`` (its earlier versions are in git's history); refused
    (``PageRefused``) where the tree has uncommitted changes or the runs name more than one commit."""
    changed = tree_changes()
    if changed:
        raise PageRefused(
            f"{page.name}: the tree has uncommitted changes ({', '.join(changed[:5])}"
            + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            + "): a page is written from a clean tree only"
        )
    text = render(page)
    path = RESULTS / f"{page.name}.md"
    path.write_text(f"(results-{page.name})=\n" + text)
    return path
