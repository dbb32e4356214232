"""``acpc-eval``: a bot's report card, against the reference gauntlet of its game.

    acpc-eval SPEC [--quick | --thorough] [--game GAME] [--out DIR] [--args 'OPTIONS']
    acpc-eval --cmd './mybot {host} {port}' [--game GAME] ...

The bot (an agent spec: a shipped name, package.module:Class, path/file.py:Class or an
installed entry point; or, with --cmd, any ACPC bot's command line) plays each reference of
its game in duplicate, with AIVAT wherever a policy is known, and LBR measures it where it
gives its policy. The card (report.json, report.md and its plots) is written in the output
folder and summed up on one screen. Running the same command again continues an interrupted
card: finished matches are kept (the folder is a tournament's, see acpc-tournament).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from acpc_arena.dealer.arena import options
from acpc_arena.dealer.arena.card_run import CardRequest, run_card
from acpc_arena.dealer.lbr.evaluation import evaluate
from acpc_arena.protocol.commands import CommandParser, plain, refuse_input_as_output, run_command


def _references(text: str) -> tuple[str, ...]:
    references = tuple(name.strip() for name in text.split(",") if name.strip())
    if not references:
        raise argparse.ArgumentTypeError(f"--references takes shipped agents separated by commas: {text!r}")
    return references


def _words(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--args {text!r}: {str(exc).lower()}") from None


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-eval", description=plain(__doc__.split("\n\n")[2]))
    p.add_argument("agent", nargs="?", default=None, help="the bot: an agent spec (or give --cmd)")
    p.add_argument(
        "--args", type=_words, default=(), metavar="'OPTIONS'", help="the agent's own options, e.g. '--argmax'"
    )
    p.add_argument(
        "--cmd",
        type=options.command_template,
        default=None,
        help="a bot's command line instead, {host} {port} filled in (no LBR)",
    )
    p.add_argument("--name", default=None, help="what the card calls the bot (default: from the spec)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--quick",
        dest="preset",
        action="store_const",
        const="quick",
        help="about 2 minutes on 2 cores: 4 references, few hands",
    )
    budget.add_argument(
        "--thorough",
        dest="preset",
        action="store_const",
        const="thorough",
        help="every reference, 3 seeds of 3000 hands",
    )
    p.set_defaults(preset="default")
    p.add_argument(
        "--game",
        default=None,
        help="game file or shipped game (default: the agent's own; holdem.limit.2p.reverse_blinds for --cmd)",
    )
    p.add_argument(
        "--references", type=_references, default=None, help="shipped agents to play instead of the game's gauntlet"
    )
    p.add_argument(
        "--seeds", type=options.seed_list, default=None, help="comma-separated deal seeds (default: the preset's)"
    )
    p.add_argument("--hands", type=options.hand_count, default=None, help="hands a match (default: the preset's)")
    p.add_argument(
        "--lbr-hands", type=options.positive_int, default=None, help="LBR deals a seed (default: the preset's)"
    )
    p.add_argument(
        "--out", type=Path, default=None, help="output folder (default cards/<name>-<preset>); resumed if it exists"
    )
    options.add_concurrency(p, "matches played, each in a worker process,", old=False)
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bars (drawn only on a terminal)")
    return p


def run(argv: list[str]) -> int:
    """Make the card ``argv`` asks for (or what it still misses); returns the exit status."""
    p = parser()
    args = p.parse_args(argv)
    if (args.agent is None) == (args.cmd is None):
        p.error("give the bot as an agent spec or as --cmd, one of them")
    refuse_input_as_output("acpc-eval", {"--out": args.out}, [args.game])
    request = CardRequest(
        agent=args.agent, args=args.args, cmd=args.cmd, name=args.name, game=args.game, preset=args.preset,
        references=args.references, seeds=args.seeds, hands=args.hands, lbr_hands=args.lbr_hands, out=args.out,
        concurrency=args.concurrency, plots=not args.no_plots, quiet=args.quiet,
    )  # fmt: skip
    return run_card(request, evaluate)


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-eval", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
