"""``acpc-match``: a duplicate run between two agents (or more), with a report, a table and plots.

    acpc-match --a AGENT --b AGENT [--c AGENT] [--seeds 1,234,6666] [--hands 3000] [--game GAME]
               [--out DIR] [--concurrency N] [--metrics-port PORT] [--metrics-linger S]
               [--metrics-push GATEWAY] [--a-args ARGS] [--b-args ARGS] [--a-cmd CMD]
               [--b-cmd CMD] [--a-external] [--b-external] [--c-args ARGS] [--c-cmd CMD]
               [--c-external] [--external-timeout S] [--in-process] [--workers] [--ray [ADDRESS]]

For every seed, A plays B once in each seat with the same cards (in a three-player
game, A, B and C play the seed's three rotations of the seats); each match starts
its agents afresh and plays over TCP with this process's dealer. An agent is named
by its spec: a shipped agent, ``package.module:Class``, ``path/file.py:Class`` or
an installed plugin's name (``agents.registry``). The output
folder gets every match's ACPC log, ``report.json``, PNG plots, and the agents'
standard error under ``agents/``; the table is printed at the end. With
``--in-process`` the agents play inside this process instead (the same
logs, several times the hands per second); with ``--workers`` each match is
played by one of ``--concurrency`` worker processes with the agents inside it, and with ``--ray``
by a Ray task on a cluster's node (``fanout``). Ctrl-C or
SIGTERM ends the run: the finished matches are reported (``report.json`` marked
partial) and every agent is stopped.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

from acpc_arena.dealer.arena import options
from acpc_arena.dealer.arena.fanout import add_ray_option
from acpc_arena.protocol.commands import CommandParser, plain, refuse_input_as_output, run_command


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-match", description=plain(__doc__.split("\n\n")[0]))
    _add_sides(p)
    options.add_deals(p, hands=3000)
    p.add_argument("--out", type=Path, default=None, help="output folder (default matches/<time>-<a>-vs-<b>)")
    options.add_concurrency(
        p,
        "matches (with --in-process, their network agents' decisions are batched together; with --workers, "
        "the worker processes)",
        old=False,
    )
    options.add_metrics(p, "keep serving the final metrics this long after the run, for a last scrape", push=True)
    p.add_argument(
        "--external-timeout",
        type=options.seconds,
        default=600.0,
        metavar="SECONDS",
        help="how long an --a-external/--b-external match waits for its bots to connect (default 600)",
    )
    p.add_argument(
        "--in-process",
        action="store_true",
        help="play the agents inside this process, not over TCP (the same logs, faster; "
        "--X-cmd and --X-external bots still connect over TCP)",
    )
    add_ray_option(p, "--concurrency")
    p.add_argument(
        "--workers",
        type=options.positive_int,
        nargs="?",
        const=0,
        default=None,
        metavar="N",
        help="play the matches in --concurrency worker processes of this machine, the agents inside them "
        "(the same logs; every core used, where --in-process plays in one thread; progress and metrics move a group "
        "of matches at a time; an N here is the former spelling of --concurrency N)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address the dealer listens on")
    options.add_time_limits(p)
    p.add_argument(
        "--web",
        type=options.port_or_any,
        default=None,
        metavar="PORT",
        help="serve the arena's pages on this port (0: any free): the tables live, then the logs and the report",
    )
    p.add_argument(
        "--web-linger",
        type=options.seconds,
        default=math.inf,
        metavar="SECONDS",
        help="with --web: keep the pages up this long after the run (default: until Ctrl-C)",
    )
    options.add_run_outputs(
        p,
        aivat="add AIVAT's estimate with the agents' policies known (default: on in two-player Kuhn and "
        "Leduc where both agents give their policy; in hold'em it costs several times the match's time)",
        plots="PNG plots",
    )
    return p


def _add_sides(p: argparse.ArgumentParser) -> None:
    """``--a``, ``--a-args``, ``--a-cmd``, ``--a-external``, and the same for B and C, a group each."""
    for side in options.SIDES:
        group = p.add_argument_group(f"agent {side.upper()}" + (" (three-player games)" if side == "c" else ""))
        group.add_argument(
            f"--{side}",
            help="an agent: a shipped one (acpc-agent --list), package.module:Class, path/file.py:Class or an "
            f"installed plugin's name; or a label for --{side}-cmd",
        )
        group.add_argument(f"--{side}-args", default="", help="options for the agent, e.g. '--argmax'")
        group.add_argument(
            f"--{side}-cmd",
            type=options.command_template,
            help="command line of any ACPC bot; {host} {port} {game} {seed} filled in ({host} and {port} needed)",
        )
        group.add_argument(
            f"--{side}-external", action="store_true", help="wait for the bot to connect to a printed port"
        )


def _join_option_values(argv: list[str]) -> list[str]:
    """``--a-args --argmax`` means ``--a-args=--argmax`` (argparse would take the value for an option)."""
    joined: list[str] = []
    items = iter(argv)
    for item in items:
        if item in [f"--{side}-{kind}" for side in options.SIDES for kind in ("args", "cmd")]:
            joined.append(f"{item}={next(items, '')}")
        else:
            joined.append(item)
    return joined


def run(argv: list[str]) -> int:
    """Play the run ``argv`` asks for; returns the exit status (``protocol.commands``)."""
    args = parser().parse_args(_join_option_values(argv))
    if args.workers == 0:  # --workers alone: --concurrency of them
        args.workers = args.concurrency
    refuse_input_as_output("acpc-match", {"--out": args.out}, [args.game])
    from acpc_arena.dealer.arena.match_run import (  # trio, numpy, the agents: not for --help
        MatchRequest,
        Side,
        run_match,
    )

    sides = tuple(
        Side(side, getattr(args, side), getattr(args, f"{side}_args"), getattr(args, f"{side}_cmd"),
             getattr(args, f"{side}_external"))
        for side in options.SIDES
    )  # fmt: skip
    request = MatchRequest(
        sides=sides, game=args.game, seeds=args.seeds, hands=args.hands, out=args.out, concurrency=args.concurrency,
        host=args.host, t_response_ms=args.t_response, t_hand_ms=args.t_hand, t_per_hand_ms=args.t_per_hand,
        external_timeout=args.external_timeout, in_process=args.in_process, workers=args.workers, ray=args.ray,
        web=args.web, web_linger=args.web_linger, metrics_port=args.metrics_port, metrics_linger=args.metrics_linger,
        metrics_push=args.metrics_push, aivat=args.aivat, plots=not args.no_plots, quiet=args.quiet,
        command=" ".join(shlex.quote(part) for part in [Path(sys.argv[0]).name, *argv]),
    )  # fmt: skip
    return run_match(request)


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-match", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
