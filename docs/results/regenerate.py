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

The pages are defined in ``results_pages.py``, out of the section kinds and seeds of
``results_sections.py``; ``results_runs.py`` plays and records the runs, ``results_render.py``
writes the tables.
"""

from __future__ import annotations

import argparse
import sys

from results_pages import PAGES
from results_render import verify, write
from results_runs import play_all, record, runs_of
from results_sections import REPO


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
