"""``acpc-cfr``: solve a limit game with CFR and measure what was solved.

    acpc-cfr solve --game GAME [--algorithm cfr|cfr+|mccfr] [--iterations N] --out FILE
                   [--abstraction exact|traditional|improved|improved-recall|ehs2-F-T-R]
                   [--deals K] [--seed S] [--every K] [--save-every K]
    acpc-cfr exploitability FILE

Small games (Kuhn, Leduc, every deal enumerable) default to the exact card
abstraction and print their exploitability every ``--every`` iterations;
hold'em defaults to ``ehs2-50-50-50`` (169 starting hands, then 50 E[HS^2]
buckets a round; see ``abstraction.py``) and chance-sampled CFR+ (``mccfr``,
``--deals`` per iteration). ``--save-every K`` saves the average strategy every K
iterations too, so that a long run can be stopped and still leave a checkpoint.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from acpc_arena.models.cfr.abstraction import all_deals, sample_deals
from acpc_arena.models.cfr.checkpoint import (
    ABSTRACTIONS,
    DEFAULT_HOLDEM_ABSTRACTION,
    CheckpointError,
    load_policy,
    make_abstraction,
    save_policy,
)
from acpc_arena.models.cfr.solver import ALGORITHMS, Solver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

EXACT_DEALS_LIMIT = 200_000


def deal_count(game: Game) -> int:
    """How many deals a game has (hole cards of every player, then the board), for choosing exact or sampled."""
    from math import comb

    left, count = len(game.deck), 1
    for _ in range(game.num_players):
        count *= comb(left, game.num_hole_cards)
        left -= game.num_hole_cards
    return count * comb(left, game.total_board_cards)


def train(
    game_name: str,
    algorithm: str,
    iterations: int,
    out: Path,
    abstraction_name: str | None = None,
    deals: int = 32,
    seed: int = 0,
    every: int = 0,
    show_progress: bool = True,
    save_every: int = 0,
) -> tuple[Path, Solver]:
    """Run a solver and save its average strategy; returns the checkpoint path and the solver."""
    game = load_game(game_name)
    game_text = resolve_game_path(game_name).read_text()
    tree = build_tree(game)  # refuses no-limit games first
    small = deal_count(game) <= EXACT_DEALS_LIMIT
    abstraction_name = abstraction_name or ("exact" if small else DEFAULT_HOLDEM_ABSTRACTION)
    abstraction = make_abstraction(game, abstraction_name)
    exact = abstraction_name == "exact"
    if not exact and algorithm != "mccfr":
        raise ValueError("an abstracted game is solved by sampling deals: use --algorithm mccfr")
    rng = np.random.default_rng(seed)
    sampled = algorithm == "mccfr"
    every_deal = all_deals(game) if exact else None
    solver = Solver(
        tree,
        abstraction,
        algorithm,
        worlds=None if sampled else every_deal,
        sampler=(lambda: sample_deals(game, deals, rng)) if sampled else None,
        dtype=np.float32 if sampled and not exact else np.float64,
    )
    evaluator = solver if not sampled else (Solver(tree, abstraction, "cfr+", worlds=every_deal) if exact else None)
    started = time.perf_counter()

    def extra() -> dict[str, object]:
        return {
            "game_name": game_name,
            "deals_per_iteration": len(every_deal) if every_deal is not None and not sampled else deals,
            "seed": seed,
            "seconds": round(time.perf_counter() - started, 3),
        }

    history: list[tuple[int, float]] = []
    with tqdm(total=iterations, unit="it", disable=not show_progress, file=sys.stderr, mininterval=0.5) as bar:
        for i in range(1, iterations + 1):
            solver.iterate(1)
            bar.update(1)
            if evaluator is not None and every and (i % every == 0 or i == iterations):
                value = evaluator.exploitability(solver.average_strategy())
                history.append((i, value))
                bar.write(f"iteration {i}: exploitability {value:.6g}")
            if save_every and i % save_every == 0 and i < iterations:
                save_policy(out, solver, game_text, abstraction_name, extra())
                bar.write(f"iteration {i}: saved {Path(out).with_suffix('.npz')}")
    final = extra()
    if evaluator is not None:
        final["exploitability"] = evaluator.exploitability(solver.average_strategy())
        final["exploitability_history"] = history
    return save_policy(out, solver, game_text, abstraction_name, final), solver


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="acpc-cfr", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="run CFR and save the average strategy")
    solve.add_argument("--game", required=True, help="game file or shipped game (limit games)")
    solve.add_argument("--algorithm", choices=ALGORITHMS, default="cfr+")
    solve.add_argument("--iterations", type=int, default=1000)
    solve.add_argument("--abstraction", default=None, help=f"one of {', '.join(ABSTRACTIONS)}")
    solve.add_argument("--deals", type=int, default=32, help="deals sampled per iteration (mccfr)")
    solve.add_argument("--seed", type=int, default=0)
    solve.add_argument("--every", type=int, default=100, help="print the exploitability every K iterations")
    solve.add_argument("--save-every", type=int, default=0, help="also save every K iterations")
    solve.add_argument("--out", type=Path, required=True)
    exploit = commands.add_parser("exploitability", help="exploitability of a saved strategy (exact games)")
    exploit.add_argument("checkpoint", type=Path)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "solve":
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
            )
            print(f"saved {path} ({solver.num_infosets} information sets, {solver.iterations} iterations)")
        else:
            policy = load_policy(args.checkpoint)
            if policy.meta["abstraction"] != "exact":
                raise ValueError(
                    f"{args.checkpoint} abstracts the cards ({policy.meta['abstraction']}): its exploitability in the "
                    "real game cannot be computed exactly here"
                )
            evaluator = Solver(policy.tree, policy.abstraction, "cfr+", worlds=all_deals(policy.game))
            nash_conv = evaluator.nash_conv(policy.strategy)
            print(f"exploitability {nash_conv / policy.game.num_players:.9g} (NashConv {nash_conv:.9g})")
    except (ProtocolError, CheckpointError, ValueError) as exc:
        print(f"acpc-cfr: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
