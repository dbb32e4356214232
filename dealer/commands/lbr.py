"""``acpc-lbr AGENT [--game G] [--hands N] [--seeds 1,2] [agent options]``: local best response.

Plays the agent against local best response (``dealer/lbr/response.py``) in-process,
each seeded deal once with LBR in each position, and prints LBR's winnings in
mbb per hand with a 95% interval: a lower bound on the agent's exploitability.
``--exact`` (small limit games: Kuhn, Leduc) computes LBR's value and the exact
best response's instead of playing. The agent must give its policy
(``Agent.policy``); it is named by its spec: a shipped agent, ``package.module:Class``,
``path/file.py:Class`` or an installed plugin's name (``agents.registry``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from acpc_arena.agents.base import Agent, has_policy
from acpc_arena.agents.options import parsed_options
from acpc_arena.agents.registry import add_agent_options, check_spec
from acpc_arena.dealer.arena.options import add_seeds, positive_int
from acpc_arena.dealer.lbr.evaluation import evaluate
from acpc_arena.dealer.lbr.exact import exact_values
from acpc_arena.dealer.lbr.response import DEFAULT_FRACTIONS, DEFAULT_ROLLOUTS, Settings
from acpc_arena.protocol.commands import (
    FAILED,
    CommandParser,
    Interrupted,
    plain,
    refuse_input_as_output,
    run_command,
    shows_progress,
    usage_error,
)
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import write_atomic
from acpc_arena.protocol.game import Game, load_game


def _fractions(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(f) for f in text.split(",") if f.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"pot fractions must be numbers separated by commas: {text!r}") from None
    if any(not 0 < f < 1000 for f in values):
        raise argparse.ArgumentTypeError(f"pot fractions must be positive: {text!r}")
    return values


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-lbr", lambda: run(sys.argv[1:] if argv is None else argv))


def run(argv: list[str]) -> int:
    """Measure the agent ``argv`` names; returns the exit status (``protocol.commands``)."""
    parser = CommandParser(prog="acpc-lbr", description=plain(__doc__.split("\n\n")[1]))
    parser.add_argument(
        "agent",
        help="the agent to measure: a shipped one (acpc-agent --list), package.module:Class, path/file.py:Class "
        "or an installed plugin's name",
    )
    parser.add_argument("--game", default=None, help="game file or shipped game (default: the agent's own)")
    parser.add_argument("--hands", type=positive_int, default=1000, help="deals per seed (each played twice)")
    add_seeds(parser, default=(1,))
    parser.add_argument("--agent-seed", dest="seed", type=int, default=None, help="seed of the agent's random choices")
    parser.add_argument("--seed", dest="seed", type=int, help=argparse.SUPPRESS)  # the former --agent-seed
    parser.add_argument(
        "--fractions", type=_fractions, default=DEFAULT_FRACTIONS, help="no-limit raises besides all-in, in pots"
    )
    parser.add_argument("--rollouts", type=positive_int, default=DEFAULT_ROLLOUTS, help="board completions per equity")
    parser.add_argument(
        "--first-round",
        choices=("auto", "call", "lbr"),
        default="auto",
        help="LBR in the first round: check/call (hold'em's auto) or respond",
    )
    parser.add_argument("--exact", action="store_true", help="exact values by enumeration (Kuhn, Leduc)")
    parser.add_argument("--json", type=Path, default=None, help="also write the result to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error (shown only on a terminal)")
    try:
        cls = add_agent_options(parser, argv)
    except ValueError as exc:  # a spec that names no agent, an agent whose dependencies are not installed
        usage_error(f"ERROR: acpc-lbr: {exc}")
    args = parser.parse_args(argv)
    try:
        check_spec(args.agent)  # besides: a shipped name that an installed plugin takes too
    except ValueError as exc:
        usage_error(f"ERROR: acpc-lbr: {exc}")
    refuse_input_as_output("acpc-lbr", {"--json": args.json}, [args.game])
    assert cls is not None
    if not has_policy(cls):
        usage_error(f"ERROR: acpc-lbr: agent {args.agent!r} does not give its policy (Agent.policy)")
    options = parsed_options(cls.Options, args)
    first_round = {"auto": None, "call": False, "lbr": True}[args.first_round]
    settings = Settings(args.fractions, args.rollouts, first_round)
    try:
        game = load_game(args.game or cls.default_game)
        if game.num_players != 2:
            raise ValueError("local best response is for heads-up games")
        agent = cls(game, args.seed, **options)  # a bad checkpoint or option fails here, before any play
    except (ProtocolError, ValueError, OSError) as exc:
        usage_error(f"ERROR: acpc-lbr: {exc}")
    try:
        result = _measure(args, cls, agent, game, settings, options)
    except (ProtocolError, ValueError, OSError) as exc:
        print(f"ERROR: acpc-lbr: {exc}", file=sys.stderr)
        return FAILED
    if args.json:
        try:
            write_atomic(args.json, json.dumps(result, indent=2) + "\n")
        except OSError as exc:
            print(f"ERROR: acpc-lbr: could not write {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return FAILED
    return 0


def _measure(
    args: argparse.Namespace, cls: type[Agent], agent: Agent, game: Game, settings: Settings, options: dict[str, Any]
) -> dict[str, object]:
    """Play (or, ``--exact``, enumerate) the agent against LBR and print the result; returns it for ``--json``."""
    if args.exact:
        exact = exact_values(agent, game, settings)
        print(
            f"{args.agent}: LBR wins {exact.lbr_mean:.4f} chips/hand; "
            f"a best response wins {exact.exploitability:.4f} (exact)"
        )
        return {
            "agent": args.agent,
            "game": args.game or cls.default_game,
            "lbr_chips_per_hand": round(exact.lbr_mean, 6),
            "exploitability_chips_per_hand": round(exact.exploitability, 6),
        }

    played = [0, len(args.seeds) * args.hands]  # deals played so far, of all
    progressing = shows_progress(args.quiet)

    def progress(done: int, total: int) -> None:
        played[:] = [done, total]
        if progressing and (done % 50 == 0 or done == total):
            print(f"\r{done}/{total} deals", end="" if done < total else "\n", file=sys.stderr)

    try:
        outcome = evaluate(lambda: cls(game, args.seed, **options), game, args.seeds, args.hands, settings, progress)
    except KeyboardInterrupt:
        if progressing and played[0] >= 50:
            print(file=sys.stderr)  # the end of the progress line
        raise Interrupted(f"stopped after {played[0]} of {played[1]} deals; no result") from None
    print(
        f"{args.agent}: LBR wins {outcome.mbb_per_hand:.1f} ± {outcome.interval:.1f} mbb/hand "
        f"(95%, {2 * len(outcome.pair_values)} hands, {outcome.decisions} LBR decisions, "
        f"{outcome.seconds:.0f} s)"
    )
    return {"game": args.game or cls.default_game, **outcome.as_dict(), "agent": args.agent}


if __name__ == "__main__":
    main()
