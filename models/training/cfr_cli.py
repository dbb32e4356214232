"""``acpc-cfr``: solve a poker game with CFR and measure what was solved.

    acpc-cfr solve --game GAME [--algorithm cfr|cfr+|dcfr|mccfr|mcdcfr] [--iterations N] --out FILE
                   [--abstraction exact|traditional|improved|improved-recall|ehs2-F-T-R]
                   [--deals K] [--seed S] [--every K] [--save-every K]
                   [--bets FRACTIONS] [--raise-cap K] [--check-deals K]
    acpc-cfr exploitability FILE
    acpc-cfr curve FILE --out PNG
    acpc-cfr turn-table [CHECKPOINT] [--processes N]

Small games (Kuhn, Leduc, every deal enumerable) default to the exact card
abstraction and print their exploitability every ``--every`` iterations;
hold'em defaults to ``ehs2-50-50-50`` (169 starting hands, then 50 E[HS^2]
buckets a round; see ``models.cfr.abstraction``), which a sampling algorithm solves:
``--algorithm mccfr`` (chance-sampled CFR+) or ``mcdcfr``, ``--deals`` per
iteration (the default algorithm, ``cfr+``, enumerates every deal and is refused
there). Ctrl-C (or SIGTERM) stops a run after the iteration under way and saves
the average strategy reached to ``--out``, its sidecar saying how many
iterations it has (exit status 130, or 143); a new run starts from the
beginning. ``--save-every K`` saves it every K iterations too, so that a run
killed outright still leaves a checkpoint.

No-limit games are solved on an abstract betting tree (``models.cfr.nolimit``): fold,
call, the pot fractions of ``--bets`` (``1,3/1/1/1``: pre-flop raises of one and
three pots, one pot after; rounds separated by ``/``), at most ``--raise-cap``
of them a round, and all-in. Their exploitability in the abstract game is
estimated every ``--every`` iterations by best responses over the abstraction on
``--check-deals`` fixed deals, in sample and held out (``sampled_exploitability``).

``turn-table`` builds the turn bucket table of an ``ehs2-exact`` checkpoint (default the
shipped ``cfr-ehs2-exact``) into the cache folder (``models.cfr.turn_table``), with
``--processes`` worker processes (default one a core); until it exists the ``cfr`` agent
computes its turn keys instead (the same keys, slower). A table already there and sound is
kept; a damaged one is built again.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets, all_deals
from acpc_arena.models.cfr.checkpoint import ABSTRACTIONS, load_policy, played_rows
from acpc_arena.models.cfr.nolimit import DEFAULT_BETS, DEFAULT_RAISE_CAP
from acpc_arena.models.cfr.pool import PooledKeys, keyed_pool
from acpc_arena.models.cfr.public_chance import ALGORITHMS as PUBLIC_CHANCE_ALGORITHMS
from acpc_arena.models.cfr.solver import ALGORITHMS, Solver, sampled_exploitability
from acpc_arena.models.cfr.turn_table import TurnTableError, build_table, canonical_turns, load_table, table_path
from acpc_arena.models.checkpoints import CheckpointError, checkpoint_path, resolve_checkpoint
from acpc_arena.models.training.cfr import train
from acpc_arena.protocol.commands import (
    FAILED,
    USAGE,
    CommandParser,
    number,
    plain,
    refuse_input_as_output,
    run_command,
)
from acpc_arena.protocol.errors import ProtocolError

_positive = number(int, lambda v: v > 0, "a whole number above 0")
_count = number(int, lambda v: v >= 0, "a whole number, 0 or more")


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-cfr", lambda: run(sys.argv[1:] if argv is None else argv))


def _parser() -> CommandParser:
    """``acpc-cfr``'s command line: ``solve``, ``exploitability``, ``curve`` and ``turn-table``."""
    parser = CommandParser(prog="acpc-cfr", description=plain(__doc__.split("\n\n")[0]))
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="run CFR and save the average strategy")
    solve.add_argument("--game", required=True, help="game file or shipped game")
    solve.add_argument("--algorithm", choices=ALGORITHMS + PUBLIC_CHANCE_ALGORITHMS, default="cfr+")
    solve.add_argument("--iterations", type=_positive, default=1000)
    solve.add_argument("--abstraction", default=None, help=f"one of {', '.join(ABSTRACTIONS)}")
    solve.add_argument("--deals", type=_positive, default=32, help="deals sampled per iteration (mccfr, mcdcfr)")
    solve.add_argument("--seed", type=int, default=0)
    solve.add_argument("--every", type=_count, default=100, help="print the exploitability every K iterations")
    solve.add_argument("--save-every", type=_count, default=0, help="also save every K iterations")
    solve.add_argument("--bets", default=None, help=f"no-limit pot fractions per round (default {DEFAULT_BETS})")
    solve.add_argument(
        "--raise-cap",
        type=_count,
        default=None,
        help=f"no-limit pot-fraction raises per round (default {DEFAULT_RAISE_CAP})",
    )
    solve.add_argument(
        "--check-deals", type=_positive, default=2000, help="no-limit: deals of each exploitability estimate"
    )
    solve.add_argument("--pool", type=_count, default=0, help="draw deals from a pool of K with cached keys (sampled)")
    solve.add_argument("--out", type=Path, required=True)
    exploit = commands.add_parser("exploitability", help="exploitability of a saved strategy (exact games)")
    exploit.add_argument("checkpoint", type=Path)
    exploit.add_argument(
        "--deals",
        type=_count,
        default=0,
        help="abstracted cards: estimate in the abstract game over K + K sampled deals",
    )
    curve = commands.add_parser("curve", help="plot the exploitability a training run recorded (PNG)")
    curve.add_argument("checkpoint", type=Path)
    curve.add_argument("--out", type=Path, required=True)
    table = commands.add_parser("turn-table", help="build the turn bucket table of an ehs2-exact checkpoint")
    table.add_argument("checkpoint", nargs="?", default=DEFAULT_TURN_TABLE, help=f"default {DEFAULT_TURN_TABLE}")
    table.add_argument("--processes", type=_count, default=0, help="worker processes (default 0: one a core)")
    return parser


DEFAULT_TURN_TABLE = "cfr-ehs2-exact"
"""The checkpoint whose turn table ``acpc-cfr turn-table`` builds by default (the limit hold'em ``cfr``'s)."""


def run(argv: list[str]) -> int:
    """Solve, measure or plot as ``argv`` asks; returns the exit status (``protocol.commands``)."""
    args = _parser().parse_args(argv)
    inputs = [args.checkpoint] if args.command == "curve" else [getattr(args, "game", None)]
    refuse_input_as_output("acpc-cfr", {"--out": getattr(args, "out", None)}, inputs)
    try:
        if args.command == "solve":
            _solve(args)
        elif args.command == "turn-table":
            turn_table(args.checkpoint, args.processes)
        elif args.command == "curve":
            from acpc_arena.models.training.curves import plot_cfr_curve  # matplotlib: the [plots] extra

            print(f"saved {plot_cfr_curve(args.checkpoint, args.out)}")
        else:
            print(exploitability(args.checkpoint, args.deals))
    except (ProtocolError, CheckpointError, ValueError) as exc:
        print(f"acpc-cfr: {exc}", file=sys.stderr)
        return USAGE
    except OSError as exc:  # the output cannot be written
        print(f"acpc-cfr: {exc}", file=sys.stderr)
        return FAILED
    return 0


def _solve(args: argparse.Namespace) -> None:
    """``acpc-cfr solve``: train and save."""
    path, solver = train(
        args.game,
        args.algorithm,
        args.iterations,
        args.out,
        args.abstraction,
        args.deals,
        args.seed,
        args.every,
        save_every=args.save_every,
        bets=args.bets,
        raise_cap=args.raise_cap,
        check_deals=args.check_deals,
        pool=args.pool,
    )
    print(f"saved {path} ({solver.num_infosets} information sets, {solver.iterations} iterations)")


def turn_table(checkpoint: str, processes: int) -> Path:
    """``acpc-cfr turn-table``: build the turn table of ``checkpoint``'s edges unless a sound one is there."""
    path = resolve_checkpoint(checkpoint, ".npz") or checkpoint_path(DEFAULT_TURN_TABLE)
    abstraction = load_policy(path).abstraction
    if not isinstance(abstraction, ExactStrengthBuckets):
        raise ValueError(f"{path} has the {abstraction.name} abstraction: a turn table is for ehs2-exact-F-T-R")
    table = table_path(abstraction.edges[1])
    try:
        load_table(table)
        print(f"turn table of {path.stem}: {table} (up to date)")
        return table
    except FileNotFoundError:
        pass
    except TurnTableError as exc:
        print(f"acpc-cfr: {exc}: building it again", file=sys.stderr)
    workers = processes or os.cpu_count() or 1
    start, shown = time.perf_counter(), [0]

    def progress(done: int, total: int) -> None:
        if done * 10 // total > shown[0] or done == total:
            shown[0] = done * 10 // total
            print(f"turn table: {done:,} of {total:,} boards, {time.perf_counter() - start:.0f} s", file=sys.stderr)

    if workers == 1:
        build_table(abstraction.edges[1], table, progress=progress)
    else:  # fresh interpreters, not forks, for the workers (as poker_cnn's folds)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            build_table(abstraction.edges[1], table, mapper=pool.map, progress=progress)
    seconds, size = time.perf_counter() - start, table.stat().st_size / 2**20
    print(
        f"turn table of {path.stem}: {table} ({len(canonical_turns()):,} boards, {size:.1f} MiB, "
        f"{seconds:.0f} s, {workers} process{'es' if workers > 1 else ''})"
    )
    return table


def exploitability(checkpoint: Path, deals: int) -> str:
    """``acpc-cfr exploitability``'s line: exact for an exact checkpoint, estimated in the abstract game over
    ``deals`` + ``deals`` sampled deals for an abstracted one (``ValueError`` there without ``deals``)."""
    policy = load_policy(checkpoint)
    if policy.meta["abstraction"] != "exact" and deals:
        keyed = PooledKeys(policy.abstraction)
        samples = [keyed_pool(policy.game, policy.abstraction, deals, seed) for seed in (7_000_001, 7_000_002)]
        in_sample, held_out = sampled_exploitability(policy.tree, keyed, policy.strategy, *samples)
        big_blind = max(policy.game.blind) or 1
        return (
            f"abstract-game exploitability over {deals} + {deals} deals: {in_sample:.6g} in sample, "
            f"{held_out:.6g} held out (chips/hand; {1000 * in_sample / big_blind:.0f} and "
            f"{1000 * held_out / big_blind:.0f} mbb/hand)"
        )
    if policy.meta["abstraction"] != "exact":
        raise ValueError(
            f"{checkpoint} abstracts the cards ({policy.meta['abstraction']}): its exploitability in the "
            "real game cannot be computed exactly here (--deals K estimates it in the abstract game)"
        )
    evaluator = Solver(policy.tree, policy.abstraction, "cfr+", worlds=all_deals(policy.game))
    nash_conv = evaluator.nash_conv(played_rows(policy.strategy))  # as the agent plays it
    return f"exploitability {nash_conv / policy.game.num_players:.9g} (NashConv {nash_conv:.9g})"


if __name__ == "__main__":
    main()
