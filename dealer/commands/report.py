"""``acpc-report LOG...``: the figures of ``acpc-match`` recomputed from ACPC logs.

Any ACPC dealer's logs can be scored (ours or the C dealer's): chips, mbb/h and the
share of hands won per match, and, for matches of the same seed with the seats exchanged,
the duplicate estimate with its 95% interval, plus the all-in-adjusted figures.
Logs of three or more players give every player's figures, duplicate over the
matches of a seed that put every player in every seat equally often (the
rotations ``acpc-match`` plays).

``--player NAME`` scores one player by name over any ACPC logs, the competitions'
published ones included (``.log``, ``.log.gz``, ``.log.bz2``), whatever their seat
in each hand; ``--phh OUT_DIR`` exports the logs' hands to PHH files (one file per
log, never two logs into one). Both read the logs line by line, and a bad line is
reported with its file and line number, skipped, and counted; it never stops the run.

A log named twice (or by two paths, or through a link) is read once, and said so.
Logs are read within the limits of ``protocol/files.py`` (docs/reference/limits.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acpc_arena.protocol.commands import CommandParser, plain, run_command
from acpc_arena.protocol.files import InputError, check_regular

LOG_SUFFIXES = (".log", ".log.gz", ".log.bz2")
"""The names of ACPC logs ``acpc-report`` reads in a folder it is given."""


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-report", lambda: score_logs(sys.argv[1:] if argv is None else argv))


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-report", description=plain(__doc__.split("\n\n")[0]))
    p.add_argument(
        "logs",
        nargs="+",
        type=Path,
        help="ACPC logs (.log, .log.gz or .log.bz2), or a folder of them such as the run acpc-match wrote",
    )
    p.add_argument("--a", default=None, help="the player to score (default: seat 1 of the first log)")
    p.add_argument(
        "--player", default=None, help="score this player by name over any ACPC logs, competition logs included"
    )
    p.add_argument("--phh", type=Path, default=None, metavar="OUT_DIR", help="export the logs to PHH files in OUT_DIR")
    p.add_argument(
        "--game",
        default=None,
        help="game file, if the logs' headers name none found here (inferred otherwise, with --player or --phh)",
    )
    p.add_argument(
        "--aivat",
        action="append",
        default=[],
        metavar="PLAYER",
        help="add AIVAT's estimate, with this player's policy known: its name in the logs (acpc-match's "
        "<label>-<agent>, such as a-cfr), =SPEC for a plugin ('a-MyBot=mybot.py:MyBot'), then its agent's "
        "options if any ('a-cfr --argmax'); repeat for both",
    )
    p.add_argument(
        "--aivat-decoys",
        type=int,
        default=None,
        metavar="N",
        help="with --aivat: a known player's range holds its dealt holding and N others (default: every holding "
        "in Kuhn and Leduc, 40 others in hold'em)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the report as JSON to this file")
    p.add_argument("--plots", type=Path, default=None, help="write PNG plots to this folder")
    return p


def score_logs(argv: list[str]) -> int:
    """Score the logs ``argv`` names and print the tables; returns the exit status (``protocol.commands``)."""
    p = parser()
    args = p.parse_args(argv)
    logs = _distinct_logs(p, _logs_in_folders(p, args.logs))
    from acpc_arena.dealer.arena.report_logs import ReportRequest, report_logs  # numpy, pokerkit: not for --help

    request = ReportRequest(
        logs=logs, a=args.a, player=args.player, phh=args.phh, game=args.game, aivat=args.aivat,
        aivat_decoys=args.aivat_decoys, json=args.json, plots=args.plots,
    )  # fmt: skip
    return report_logs(request)


def _logs_in_folders(parser: argparse.ArgumentParser, paths: list[Path]) -> list[Path]:
    """``paths`` with each folder replaced by the ACPC logs in it (not in its subfolders), by name: the
    folder of an ``acpc-match`` run gives its matches' logs. A folder without one is a usage error."""
    logs: list[Path] = []
    for path in paths:
        if not path.is_dir():
            logs.append(path)
            continue
        found = sorted(p for p in path.iterdir() if p.name.endswith(LOG_SUFFIXES) and p.is_file())
        if not found:
            parser.error(f"no ACPC logs ({', '.join(LOG_SUFFIXES)}) in the folder {path}")
        logs += found
    return logs


def _distinct_logs(parser: argparse.ArgumentParser, logs: list[Path]) -> list[Path]:
    """The logs named, each file once (two names of one file, or a link to it, count once, said on
    standard error); a usage error for one that is missing or not a regular file (a FIFO, a folder)."""
    missing: list[str] = []
    first_name: dict[tuple[int, int], Path] = {}
    for log in logs:
        try:
            status = check_regular(log)
        except FileNotFoundError:
            missing.append(str(log))
            continue
        except InputError as exc:
            parser.error(str(exc))
        except OSError as exc:
            parser.error(f"cannot read {log}: {exc.strerror or exc}")
        key = (status.st_dev, status.st_ino)
        if key in first_name:
            print(f"acpc-report: {log} is the same file as {first_name[key]}: counted once", file=sys.stderr)
        else:
            first_name[key] = log
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    return list(first_name.values())


if __name__ == "__main__":
    main()
