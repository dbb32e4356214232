"""``acpc-cfr``: solve a poker game with CFR and measure what was solved.

    acpc-cfr solve --game GAME [--algorithm cfr|cfr+|dcfr|mccfr|mcdcfr] [--iterations N] --out FILE
                   [--abstraction exact|traditional|improved|improved-recall|ehs2-F-T-R]
                   [--deals K] [--seed S] [--every K] [--save-every K]
                   [--bets FRACTIONS] [--raise-cap K] [--check-deals K]
    acpc-cfr exploitability FILE
    acpc-cfr curve FILE --out PNG

Small games (Kuhn, Leduc, every deal enumerable) default to the exact card
abstraction and print their exploitability every ``--every`` iterations;
hold'em defaults to ``ehs2-50-50-50`` (169 starting hands, then 50 E[HS^2]
buckets a round; see ``abstraction.py``), which a sampling algorithm solves:
``--algorithm mccfr`` (chance-sampled CFR+) or ``mcdcfr``, ``--deals`` per
iteration (the default algorithm, ``cfr+``, enumerates every deal and is refused
there). Ctrl-C (or SIGTERM) stops a run after the iteration under way and saves
the average strategy reached to ``--out``, its sidecar saying how many
iterations it has (exit status 130, or 143); a new run starts from the
beginning. ``--save-every K`` saves it every K iterations too, so that a run
killed outright still leaves a checkpoint.

No-limit games are solved on an abstract betting tree (``nolimit.py``): fold,
call, the pot fractions of ``--bets`` (``1,3/1/1/1``: pre-flop raises of one and
three pots, one pot after; rounds separated by ``/``), at most ``--raise-cap``
of them a round, and all-in. Their exploitability in the abstract game is
estimated every ``--every`` iterations by best responses over the abstraction on
``--check-deals`` fixed deals, in sample and held out (``sampled_exploitability``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets, all_deals, sample_deals
from acpc_arena.models.cfr.checkpoint import (
    ABSTRACTIONS,
    DEFAULT_HOLDEM_ABSTRACTION,
    load_policy,
    make_abstraction,
    save_policy,
)
from acpc_arena.models.cfr.nolimit import DEFAULT_BETS, DEFAULT_RAISE_CAP, BetAbstraction, build_nolimit_tree
from acpc_arena.models.cfr.pool import PooledKeys, draw, keyed_pool
from acpc_arena.models.cfr.public_chance import ALGORITHMS as PUBLIC_CHANCE_ALGORITHMS
from acpc_arena.models.cfr.public_chance import PublicChanceSolver
from acpc_arena.models.cfr.public_chance_training import train_public_chance
from acpc_arena.models.cfr.solver import ALGORITHMS, SAMPLED, Solver, sampled_exploitability
from acpc_arena.models.cfr.tree import BettingTree, build_tree
from acpc_arena.models.checkpoints import CheckpointError, read_sidecar
from acpc_arena.protocol.commands import (
    FAILED,
    USAGE,
    CommandParser,
    Interrupted,
    deferred_interrupts,
    number,
    plain,
    refuse_input_as_output,
    run_command,
    shows_progress,
)
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game, parse_game, resolve_game_path

EXACT_DEALS_LIMIT = 200_000
HOLDEM_LIMIT = "holdem.limit.2p.reverse_blinds"
DEFAULT_PUBLIC_CHANCE_ABSTRACTION = "ehs2-exact-200-150-100"


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
    show_progress: bool | None = None,
    save_every: int = 0,
    bets: str | None = None,
    raise_cap: int | None = None,
    check_deals: int = 2000,
    pool: int = 0,
) -> tuple[Path, Solver | PublicChanceSolver]:
    """Run a solver and save its average strategy; returns the checkpoint path and the solver.

    Ctrl-C or SIGTERM ends the run after the iteration under way: its average strategy is saved
    (the sidecar's ``iterations`` says how many, ``interrupted`` is true) and ``Interrupted``
    raised, saying where. The progress bar is drawn on a terminal alone (``show_progress`` None), or as
    ``show_progress`` says.
    """
    show_progress = shows_progress(False) if show_progress is None else show_progress
    game = load_game(game_name)
    game_text = resolve_game_path(game_name).read_text()
    if algorithm in PUBLIC_CHANCE_ALGORITHMS:
        return _train_public_chance(game, algorithm, iterations, out, abstraction_name, seed, save_every, show_progress)
    if game.no_limit:
        betting = BetAbstraction.parse(
            bets or DEFAULT_BETS, DEFAULT_RAISE_CAP if raise_cap is None else raise_cap, game.num_rounds
        )
        tree: BettingTree = build_nolimit_tree(game, betting)
    elif bets is not None or raise_cap is not None:
        raise ValueError("--bets and --raise-cap shape no-limit trees; this game is limit")
    else:
        tree = build_tree(game)
    small = deal_count(game) <= EXACT_DEALS_LIMIT
    abstraction_name = abstraction_name or ("exact" if small else DEFAULT_HOLDEM_ABSTRACTION)
    abstraction = make_abstraction(game, abstraction_name)
    exact = abstraction_name == "exact"
    if not exact and algorithm not in SAMPLED:
        raise ValueError("an abstracted game is solved by sampling deals: use --algorithm mccfr or mcdcfr")
    rng = np.random.default_rng(seed)
    sampled = algorithm in SAMPLED
    sampler = (lambda: sample_deals(game, deals, rng)) if sampled else None
    if pool and sampled and not exact:
        abstraction = PooledKeys(abstraction)
        pool_worlds = keyed_pool(game, abstraction.base, pool, seed)
        sampler = lambda: draw(pool_worlds, deals, rng)  # noqa: E731
    every_deal = all_deals(game) if exact else None
    solver = Solver(
        tree,
        abstraction,
        algorithm,
        worlds=None if sampled else every_deal,
        sampler=sampler,
        dtype=np.float32 if sampled and not exact else np.float64,
    )
    evaluator = solver if not sampled else (Solver(tree, abstraction, "cfr+", worlds=every_deal) if exact else None)
    checks = None
    if not exact and game.no_limit and every:
        keyed = abstraction if isinstance(abstraction, PooledKeys) else PooledKeys(abstraction)
        checks = tuple(keyed_pool(game, keyed.base, check_deals, seed + offset) for offset in (1_000_003, 2_000_003))
    started = time.perf_counter()

    def extra() -> dict[str, object]:
        return {
            "game_name": game_name,
            "deals_per_iteration": len(every_deal) if every_deal is not None and not sampled else deals,
            "seed": seed,
            **({"pool": pool} if isinstance(abstraction, PooledKeys) else {}),
            "seconds": round(time.perf_counter() - started, 3),
            **(
                {"sampled_exploitability_history": history, "sampled_exploitability_deals": check_deals}
                if checks
                else {}
            ),
        }

    history: list[tuple[float, ...]] = []
    with (
        deferred_interrupts() as interrupted,
        tqdm(total=iterations, unit="it", disable=not show_progress, file=sys.stderr, mininterval=0.5) as bar,
    ):
        for i in range(1, iterations + 1):
            solver.iterate(1)
            bar.update(1)
            if interrupted():
                break
            if evaluator is not None and every and (i % every == 0 or i == iterations):
                value = evaluator.exploitability(solver.average_strategy())
                history.append((i, value))
                bar.write(f"iteration {i}: exploitability {value:.6g}")
            if checks is not None and (i % every == 0 or i == iterations):
                in_sample, held_out = sampled_exploitability(tree, keyed, solver.average_strategy(), *checks)
                history.append((i, in_sample, held_out))
                bar.write(
                    f"iteration {i}: abstract-game exploitability {in_sample:.6g} in sample, {held_out:.6g} held out"
                )
            if save_every and i % save_every == 0 and i < iterations:
                save_policy(out, solver, game_text, abstraction_name, extra())
                bar.write(f"iteration {i}: saved {Path(out).with_suffix('.npz')}")
    if interrupted():
        recorded = {"exploitability_history": history} if evaluator is not None else {}
        path = save_policy(out, solver, game_text, abstraction_name, {**extra(), **recorded, "interrupted": True})
        raise Interrupted(f"the average strategy of {solver.iterations} iterations saved in {path}")
    final = extra()
    if evaluator is not None:
        final["exploitability"] = evaluator.exploitability(solver.average_strategy())
        final["exploitability_history"] = history
    return save_policy(out, solver, game_text, abstraction_name, final), solver


def _train_public_chance(
    game: Game,
    algorithm: str,
    iterations: int,
    out: Path,
    abstraction_name: str | None,
    seed: int,
    save_every: int,
    show_progress: bool,
) -> tuple[Path, Solver | PublicChanceSolver]:
    """``pcs-*``: heads-up limit hold'em with exact E[HS^2] buckets, resumable (``public_chance_training``)."""
    if game != load_game(HOLDEM_LIMIT):
        raise ValueError(f"--algorithm {algorithm} solves {HOLDEM_LIMIT} only")
    name = abstraction_name or DEFAULT_PUBLIC_CHANCE_ABSTRACTION
    counts = name.split("-")[2:] if name.startswith("ehs2-exact-") else []
    if len(counts) != 3 or not all(c.isdigit() and 0 < int(c) < 256 for c in counts):
        raise ValueError(f"--algorithm {algorithm} needs an ehs2-exact-F-T-R abstraction (1..255 buckets), not {name}")
    abstraction = ExactStrengthBuckets(game, (int(counts[0]), int(counts[1]), int(counts[2])))
    return train_public_chance(out, abstraction, iterations, algorithm, seed, save_every or 100, show_progress)


def plot_curve(checkpoint: Path, out: Path) -> Path:
    """The exploitability history in a checkpoint's description, against iterations, as a PNG."""
    meta = read_sidecar(Path(checkpoint).with_suffix(".npz"))
    sampled = meta.get("sampled_exploitability_history") or []
    exact = meta.get("exploitability_history") or []
    if not sampled and not exact:
        raise ValueError(f"{checkpoint}: no exploitability was recorded during training (train with --every K)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = parse_game(meta["game"], "checkpoint game")
    big_blind = max(game.blind) or 1
    figure, axes = plt.subplots(figsize=(7, 4))
    if sampled:
        iterations = [row[0] for row in sampled]
        for column, label in ((1, "best response on its own deals (overstates)"), (2, "same response on other deals")):
            axes.plot(iterations, [1000 * row[column] / big_blind for row in sampled], marker="o", label=label)
        deals = meta.get("sampled_exploitability_deals", "?")
        axes.set_title(f"abstract-game exploitability ({deals} + {deals} deals)")
        axes.legend()
    else:
        axes.plot([row[0] for row in exact], [1000 * row[1] / big_blind for row in exact], marker="o")
        axes.set_yscale("log")
        axes.set_title(f"{meta.get('game_name', '')}: exploitability")
    axes.set_xlabel("iterations")
    axes.set_ylabel("mbb/hand")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


_positive = number(int, lambda v: v > 0, "a whole number above 0")
_count = number(int, lambda v: v >= 0, "a whole number, 0 or more")


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-cfr", lambda: run(sys.argv[1:] if argv is None else argv))


def run(argv: list[str]) -> int:
    """Solve, measure or plot as ``argv`` asks; returns the exit status (``protocol.commands``)."""
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
    args = parser.parse_args(argv)
    inputs = [args.checkpoint] if args.command == "curve" else [getattr(args, "game", None)]
    refuse_input_as_output("acpc-cfr", {"--out": getattr(args, "out", None)}, inputs)
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
                bets=args.bets,
                raise_cap=args.raise_cap,
                check_deals=args.check_deals,
                pool=args.pool,
            )
            print(f"saved {path} ({solver.num_infosets} information sets, {solver.iterations} iterations)")
        elif args.command == "curve":
            print(f"saved {plot_curve(args.checkpoint, args.out)}")
        else:
            policy = load_policy(args.checkpoint)
            if policy.meta["abstraction"] != "exact" and args.deals:
                keyed = PooledKeys(policy.abstraction)
                samples = [
                    keyed_pool(policy.game, policy.abstraction, args.deals, seed) for seed in (7_000_001, 7_000_002)
                ]
                in_sample, held_out = sampled_exploitability(policy.tree, keyed, policy.strategy, *samples)
                big_blind = max(policy.game.blind) or 1
                print(
                    f"abstract-game exploitability over {args.deals} + {args.deals} deals: {in_sample:.6g} in sample, "
                    f"{held_out:.6g} held out (chips/hand; {1000 * in_sample / big_blind:.0f} and "
                    f"{1000 * held_out / big_blind:.0f} mbb/hand)"
                )
            elif policy.meta["abstraction"] != "exact":
                raise ValueError(
                    f"{args.checkpoint} abstracts the cards ({policy.meta['abstraction']}): its exploitability in the "
                    "real game cannot be computed exactly here (--deals K estimates it in the abstract game)"
                )
            else:
                evaluator = Solver(policy.tree, policy.abstraction, "cfr+", worlds=all_deals(policy.game))
                nash_conv = evaluator.nash_conv(policy.strategy)
                print(f"exploitability {nash_conv / policy.game.num_players:.9g} (NashConv {nash_conv:.9g})")
    except (ProtocolError, CheckpointError, ValueError) as exc:
        print(f"acpc-cfr: {exc}", file=sys.stderr)
        return USAGE
    except OSError as exc:  # the output cannot be written
        print(f"acpc-cfr: {exc}", file=sys.stderr)
        return FAILED
    return 0


if __name__ == "__main__":
    main()
