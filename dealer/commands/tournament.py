"""``acpc-tournament``: a round robin of agents in duplicate, and its crosstable.

    acpc-tournament --agents random,call,raise,rule,cfr,lstm_dqn,dqn [--seeds 1,234,6666]
                    [--hands 2000] [--game GAME] [--out DIR] [--concurrency N] [--ray [ADDRESS]]
                    [--agent 'NAME=AGENT OPTIONS'] [--cmd 'NAME=COMMAND'] [--metrics-port PORT]

Every pair of entrants plays ``acpc-match``'s duplicate run (each seed in both
seatings). An agent is named by its spec: a shipped agent, ``package.module:Class``,
``path/file.py:Class`` or an installed plugin's name (``agents.registry``); a spec
of a class is an entrant named after the class (``NAME=`` names it otherwise). Each
match is played from start to end by one worker process, the agents inside it:
``--concurrency`` of them on this machine, or Ray tasks with ``--ray`` (a Ray
started here, or a running cluster's address). The output
folder holds each pair's logs and report and the crosstable (``crosstable.md``,
``crosstable.json``, ``crosstable.png``); the table is printed at the end.
Running the same command again resumes an interrupted tournament: finished
matches are kept, the rest are played (see ``tournament.py``); a log that is not its
match's record is moved aside and played again, and what the tournament never writes
refuses the run (``tournament_folder.py``). One run at a time holds the folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acpc_arena.dealer.arena import options
from acpc_arena.dealer.arena.fanout import add_ray_option
from acpc_arena.protocol.commands import CommandParser, plain, refuse_input_as_output, run_command


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-tournament", description=plain(__doc__.split("\n\n")[0]))
    p.add_argument(
        "--agents",
        default="",
        help="comma-separated agents, each an entrant: shipped ones (acpc-agent --list), package.module:Class, "
        "path/file.py:Class (named after the class) or installed plugins' names",
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="'[NAME=]AGENT OPTIONS'",
        help="an entrant with options, e.g. 'cfr-argmax=cfr --argmax' (repeat for more)",
    )
    p.add_argument(
        "--cmd",
        type=options.named_command,
        action="append",
        default=[],
        metavar="'NAME=COMMAND'",
        help="any ACPC bot's command line as an entrant, {host} {port} {game} {seed} filled in (repeat for more)",
    )
    options.add_deals(p, hands=2000)
    p.add_argument(
        "--out", type=Path, default=None, help="output folder (default tournaments/<time>); resumed if it exists"
    )
    options.add_concurrency(p, "matches played, each in a worker process,")
    add_ray_option(p, "--concurrency")
    options.add_metrics(p, "serve the final metrics this long")
    options.add_time_limits(p)
    options.add_run_outputs(
        p,
        aivat="add AIVAT's estimate to each cell, the agents' policies known (default: on in two-player "
        "Kuhn and Leduc; in hold'em it costs several times the matches' time)",
        plots="heatmap",
    )
    return p


def run(argv: list[str]) -> int:
    """Play the tournament ``argv`` asks for (or what it still misses); returns the exit status."""
    args = parser().parse_args(argv)
    refuse_input_as_output("acpc-tournament", {"--out": args.out}, [args.game])
    from acpc_arena.dealer.arena.tournament_run import TournamentRequest, run_tournament  # numpy, trio: not for --help

    request = TournamentRequest(
        agents=args.agents, agent=args.agent, cmd=args.cmd, game=args.game, seeds=args.seeds, hands=args.hands,
        out=args.out, concurrency=args.concurrency, ray=args.ray, metrics_port=args.metrics_port,
        metrics_linger=args.metrics_linger, t_response_ms=args.t_response, t_hand_ms=args.t_hand,
        t_per_hand_ms=args.t_per_hand, aivat=args.aivat, plots=not args.no_plots, quiet=args.quiet,
    )  # fmt: skip
    return run_tournament(request)


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-tournament", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
