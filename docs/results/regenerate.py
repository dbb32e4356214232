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
machine, wall time of each session) and reused while their command and commit are unchanged, so a page
is rewritten without replaying and a killed regeneration picks up where it stopped.

A page names one commit: its runs are played from a clean tree (no uncommitted change to a tracked
file, apart from the pages and images this script writes), and a run recorded at another commit than
HEAD is played again. A page whose runs were played at several commits, or with uncommitted changes,
is not written: the script says which and exits with status 1.

``--verify N`` replays N of a page's matches, spread over it, and compares their estimates with the
recorded ones to the last bit; the page says how many agreed (a replay at its own commit only).

A page is written as ``docs/results/<name>.md`` with the label ``results-<name>`` that the rest of
the docs link to; its earlier versions are in git's history.

The pages are defined in ``results_pages.py``, out of the section kinds and seeds of
``results_sections.py`` and the agents of ``results_agents.py``; ``results_runs.py`` plays and records
the runs, ``results_render.py`` writes the tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any

from results_pages import PAGES
from results_render import PageRefused, verify, write
from results_runs import Run, git, play_all, record, runs_of, sessions, tree_changes
from results_sections import REPO


def at_head(recorded: dict[str, Any] | None, head: str) -> bool:
    """Whether a run's record is of a finished run whose every session played HEAD from a clean tree."""
    return recorded is not None and all(
        s["commit"] == head and not s.get("uncommitted_changes") for s in sessions(recorded)
    )


def to_play(runs: list[Run], head: str) -> list[Run]:
    """The runs without a finished record at HEAD. A folder with a session at another commit (finished,
    failed or stopped) is removed first: a tournament would otherwise keep its matches. A stopped session at
    HEAD is kept, for the tournament to resume."""
    stale = [run for run in runs if not at_head(record(run), head)]
    for run in stale:
        path = run.folder / "run.json"
        if path.exists() and not all(
            s["commit"] == head and not s.get("uncommitted_changes") for s in sessions(json.loads(path.read_text()))
        ):
            shutil.rmtree(run.folder)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", default=None, help="comma-separated page names (default: all)")
    parser.add_argument("--list", action="store_true", help="print the pages and their runs' commands")
    parser.add_argument(
        "--write-only",
        action="store_true",
        help="write the pages from the runs already played",
    )
    parser.add_argument(
        "--verify",
        type=int,
        default=0,
        metavar="N",
        help="replay N of each page's matches and compare (default 0)",
    )
    args = parser.parse_args(argv)
    known = {page.name: page for page in PAGES}
    names = args.pages.split(",") if args.pages else list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown page {', '.join(unknown)}; pages: {', '.join(known)}")
    if args.list:
        for name in names:
            print(f"{name}: {known[name].title}")
            for run in runs_of(known[name]):
                print(f"  {run.shown()}")
        return 0
    changed = tree_changes()
    if changed:
        print(
            f"regenerate.py: the tree has uncommitted changes ({', '.join(changed[:5])}"
            + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            + "): commit them first, so that a page names the one commit its runs played",
            file=sys.stderr,
        )
        return 1
    head = git("rev-parse", "HEAD").strip()
    for name in names:
        page = known[name]
        try:
            if not args.write_only:
                play_all(to_play(list(runs_of(page)), head), name)
            if args.verify:
                verify(page, args.verify)
            print(write(page).relative_to(REPO))
        except PageRefused as refused:
            print(f"regenerate.py: {refused}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
