"""``make train AGENT=...``: retrain a shipped checkpoint from scratch with this project's own code.

    acpc-train cfr [--iterations N] [--deals K]
    acpc-train cfr-nl [--iterations N] [--deals K]

The checkpoints are written under ``--out-dir`` (default ``runs/train``), never over the
shipped ones unless ``--install`` is given (``make train AGENT=... INSTALL=1``); the
command prints how to install what it wrote.

- ``cfr``: on ``holdem.limit.2p.reverse_blinds``, first ``cfr-ehs2-exact`` (the
  default agent): public chance sampling DCFR (``pcs-dcfr``) with ``PCS_ABSTRACTION``,
  ``--pcs-iterations`` boards (default ``PCS_ITERATIONS``), training seed 1, its
  state saved every 50 iterations beside the checkpoint so that the same command
  run again after a kill goes on from there; then chance-sampled CFR+ (``mccfr``):
  ``cfr-ehs2`` (``ehs2-50-50-50``, ``--ehs2-iterations``,
  default 8000, 64 deals each), seed 002's improved and traditional 9 buckets
  (``cfr-improved``, ``cfr-traditional``, ``--iterations``, default 8000), and exact
  CFR+ on Kuhn (2 and 3 players) and Leduc. ``--only NAME`` rebuilds one of them.
  The sidecars record each run's time.
- ``cfr-nl``: chance-sampled discounted CFR (``mcdcfr``) on
  ``holdem.nolimit.2p.reverse_blinds`` (``cfr-nl``): bets ``NL_BETS`` with
  ``NL_RAISE_CAP`` pot raises a round and all-in, ``NL_ABSTRACTION`` card
  buckets, batches of 256 deals drawn from a pool of ``NL_POOL`` deals whose
  buckets and all-in shares are computed once; the abstract-game exploitability
  is estimated every 500 iterations on 1,000 + 1,000 other deals.
- ``lstm_dqn``, ``dqn``: seed 000's Q-networks on the limit hold'em game
  (``models/training/dqn.py``; ``--preset tuned`` is what is shipped, ``faithful``
  keeps the seed's learning rate; ``--reward mcts`` or ``chips``; ``--pool sound``,
  the default, is mostly ``cfr-ehs2`` and ``equity``; the defaults (``Q_HANDS``,
  ``Q_SEED``, ``Q_STRENGTH_WEIGHT``, ``Q_DOUBLE``, ``Q_MC_MIX``, ``Q_REPLAY_HANDS``) rebuild the shipped
  ``lstm_dqn`` (120,000 hands, seed 3, a replay memory of every hand) and ``dqn`` (200,000
  hands, seed 2, double DQN targets, mixed Monte Carlo targets with beta 0.5, a replay memory
  of the last 50,000 hands), both with the auxiliary strength loss (``--threads 1``, the
  default, on which a rerun gives the same weights). The checkpoints kept for comparison:
  ``--seed 1 --mc-mix 0 --replay-hands 500000`` rebuilds ``dqn-v3``, adding ``--no-double``
  ``dqn-v2``, ``--strength-weight 0 --seed 1`` ``lstm_dqn-v2`` and ``--pool v1 --strength-weight
  0 --seed 1 --hands 120000`` ``lstm_dqn-v1`` (``dqn-v1`` with ``--no-double --mc-mix 0
  --replay-hands 500000`` too: the seed's targets and its replay capacity), ``--out`` saying where.
- ``nfq``: seed 003's NFQ agent (``models/training/nfq.py``): online Q(lambda) with
  traces and the UCT reward against the ``sound`` pool (``--hands``, default
  ``NFQ_HANDS``; ``--reward chips`` drops the UCT reward, ``--lam`` and ``--window``
  set lambda and n: the ablations ``nfq-chips``, ``nfq-lambda0``, ``nfq-n1``; ``--seed``, ``--out``).
- ``poker_cnn``: seed 004's Poker-CNN on the decision records of ``make data``
  (``models/training/poker_cnn.py``; ``--data``, ``--epochs``, ``--records``,
  ``--test-records``, ``--seed``, ``--out``).
- ``--from-sidecar NAME|FILE`` (no agent): the run a checkpoint's JSON sidecar recorded, its
  settings and seed (``models/training/from_sidecar.py``): ``acpc-train --from-sidecar
  dqn-v2`` rebuilds a checkpoint the wheel does not ship from the sidecar it does.
- ``ensemble``: seed 001's eight counter networks, the base network and the
  feature library on ``holdem.nolimit.2p.reverse_blinds`` by evolution
  (``models/training/ensemble.py``; ``--population``, ``--generations``,
  ``--deals``, ``--base-deals``, ``--library-hands``, ``--teacher-hands``;
  ``--concurrency N`` evolves N networks at once, ``--ray [ADDRESS]`` as Ray tasks).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acpc_arena.dealer.arena.fanout import add_ray_option
from acpc_arena.dealer.arena.options import add_concurrency
from acpc_arena.models import checkpoints
from acpc_arena.protocol.commands import CommandParser, plain, refuse_input_as_output, run_command, usage_error

OUT_DIR: Path | None = Path("runs/train")
"""Where training writes its checkpoints; None: over the shipped ones (``--install``). Set from the options."""


def checkpoint_path(name: str) -> Path:
    """Where training writes checkpoint ``name`` (``.npz``; the networks change the suffix)."""
    shipped = checkpoints.checkpoint_path(name)
    if OUT_DIR is None:
        return shipped
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    return OUT_DIR / shipped.name


HOLDEM = "holdem.limit.2p.reverse_blinds"
EHS2_ITERATIONS = 8000
PCS_ITERATIONS = 1450
PCS_ABSTRACTION = "ehs2-exact-200-150-100"
CFR_CHECKPOINTS = (
    "cfr-ehs2-exact",
    "cfr-ehs2",
    "cfr-improved",
    "cfr-traditional",
    "cfr-kuhn",
    "cfr-kuhn3p",
    "cfr-leduc",
)
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
NL_BETS = "1,3/1/1/1"
NL_RAISE_CAP = 2
NL_ABSTRACTION = "ehs2-50-50-50"
NL_POOL = 20000
NL_ITERATIONS = 12000


def train_cfr(
    iterations: int,
    deals: int,
    ehs2_iterations: int = EHS2_ITERATIONS,
    only: str | None = None,
    pcs_iterations: int = PCS_ITERATIONS,
) -> None:
    from acpc_arena.models.cfr.checkpoint import DEFAULT_HOLDEM_ABSTRACTION
    from acpc_arena.models.cfr.cli import train

    if only in (None, "cfr-ehs2-exact"):
        out = checkpoint_path("cfr-ehs2-exact")
        path, _ = train(HOLDEM, "pcs-dcfr", pcs_iterations, out, PCS_ABSTRACTION, seed=1, save_every=50)
        print(f"saved {path}")
    holdem = (
        ("cfr-ehs2", DEFAULT_HOLDEM_ABSTRACTION, ehs2_iterations),
        ("cfr-improved", "improved", iterations),
        ("cfr-traditional", "traditional", iterations),
    )
    for name, abstraction, count in holdem:
        if only in (None, name):
            path, _ = train(HOLDEM, "mccfr", count, checkpoint_path(name), abstraction, deals, seed=1, save_every=500)
            print(f"saved {path}")
    for name, game, count in (
        ("cfr-kuhn", "kuhn", 2000),
        ("cfr-kuhn3p", "kuhn.limit.3p", 2000),
        ("cfr-leduc", "leduc", 3000),
    ):
        if only in (None, name):
            path, _ = train(game, "cfr+", count, checkpoint_path(name), "exact", every=500)
            print(f"saved {path}")


def train_cfr_nl(iterations: int, deals: int) -> None:
    from acpc_arena.models.cfr.cli import train

    path, _ = train(
        NOLIMIT,
        "mcdcfr",
        iterations,
        checkpoint_path("cfr-nl"),
        NL_ABSTRACTION,
        deals,
        seed=1,
        every=500,
        save_every=100,
        bets=NL_BETS,
        raise_cap=NL_RAISE_CAP,
        check_deals=1000,
        pool=NL_POOL,
    )
    print(f"saved {path}")


Q_HANDS = {"lstm_dqn": 120_000, "dqn": 200_000}
"""Training hands of each shipped Q-network against the ``sound`` pool (``--hands`` overrides; a checkpoint
is saved every 5,000)."""

Q_SEED = {"lstm_dqn": 3, "dqn": 2}
"""Training seed of each shipped Q-network (``--seed`` overrides; every other training's default is 1)."""

Q_STRENGTH_WEIGHT = {"lstm_dqn": 50.0, "dqn": 50.0}
"""Default weight of the auxiliary hand-strength loss (``models/training/dqn.py``) for each Q-network: the
shipped checkpoints' (``--strength-weight 0`` is the seed's loss alone, as the ``v1`` checkpoints)."""

Q_DOUBLE = {"lstm_dqn": False, "dqn": True}
"""Whether each shipped Q-network was trained with double DQN targets (``--double``/``--no-double`` override)."""

Q_MC_MIX = {"lstm_dqn": 0.0, "dqn": 0.5}
"""beta of the mixed Monte Carlo targets (``models/training/dqn.py``) each shipped Q-network was trained with
(``--mc-mix`` overrides; 0: the seed's Q-learning targets). The DQN's go with the short replay memory below."""

Q_REPLAY_HANDS = {"lstm_dqn": 500_000, "dqn": 50_000}
"""Hands the replay memory of each shipped Q-network kept, the latest (``--replay-hands`` overrides): the LSTM
its whole run, the DQN its last 50,000 hands, so that the returns mixed into its targets come from play close
to its own."""


def train_q(
    network: str,
    preset: str,
    hands: int | None,
    reward: str,
    out: str | None,
    seed: int,
    pool: str = "sound",
    threads: int = 1,
    strength_weight: float | None = None,
    double: bool | None = None,
    mc_mix: float | None = None,
    replay_hands: int | None = None,
) -> None:
    from acpc_arena.models.training.dqn import config_for, train

    overrides = {
        "reward": reward,
        "seed": seed,
        "hands": hands or Q_HANDS[network],
        "threads": threads,
        "strength_weight": Q_STRENGTH_WEIGHT[network] if strength_weight is None else strength_weight,
        "double": Q_DOUBLE[network] if double is None else double,
        "monte_carlo_mix": Q_MC_MIX[network] if mc_mix is None else mc_mix,
        "replay_capacity": Q_REPLAY_HANDS[network] if replay_hands is None else replay_hands,
    }
    try:
        config = config_for(network, preset, pool, **overrides)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    path, stats = train(config, out or checkpoint_path(network).with_suffix(".pt"), save_every=5000)
    print(f"saved {path}: {stats}")


NFQ_HANDS = 200_000
"""NFQ's training hands (``--hands`` overrides)."""


def train_nfq(args: argparse.Namespace) -> None:
    from acpc_arena.models.training.nfq import config_for, train

    overrides = {
        "hands": args.hands or NFQ_HANDS,
        "reward": "chips" if args.reward == "chips" else "uct",
        "seed": args.seed,
        **({"lam": args.lam} if args.lam is not None else {}),
        **({"window": args.window} if args.window is not None else {}),
    }
    try:
        config = config_for(args.pool, **overrides)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    path, stats = train(config, args.out or checkpoint_path("nfq").with_suffix(".pt"), save_every=2000)
    print(f"saved {path}: {stats}")


def train_poker_cnn(
    data: str | None, epochs: int | None, records: int | None, test_records: int | None, seed: int, out: str | None
) -> None:
    from acpc_arena.models.training.poker_cnn import Config, train

    config = Config(seed=seed)
    config.data = data or config.data
    config.epochs = epochs or config.epochs
    config.records = config.records if records is None else records
    config.test_records = test_records or config.test_records
    try:
        path, summary = train(config, out or checkpoint_path("poker_cnn").with_suffix(".pt"))
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: mean held-out accuracy {summary['mean_held_out_accuracy']:.3f}")


def train_ensemble(args: argparse.Namespace) -> None:
    from acpc_arena.models.training.ensemble import DEFAULTS, EvolutionConfig, main_options

    config = EvolutionConfig(
        population=args.population or DEFAULTS.population,
        generations=args.generations or DEFAULTS.generations,
        deals=args.deals or DEFAULTS.deals,
        base_deals=args.base_deals or DEFAULTS.base_deals,
        library_hands=args.library_hands or DEFAULTS.library_hands,
        seed=args.seed,
        teacher_hands=DEFAULTS.teacher_hands if args.teacher_hands is None else args.teacher_hands,
    )
    try:
        main_options(config, args.out, args.concurrency, args.ray, args.clone_only)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")


def train_from_sidecar(given: str, out: str | None, redirected: bool) -> None:
    from acpc_arena.models.training.from_sidecar import cfr_arguments, read_recorded, rebuild_network, sidecar_of

    sidecar = sidecar_of(given)
    try:
        recorded = read_recorded(sidecar)
        if recorded.get("kind") == "cfr-average-strategy":
            from acpc_arena.models.cfr.cli import train

            path, _ = train(out=Path(out) if out else checkpoint_path(sidecar.stem), **cfr_arguments(recorded))
        else:
            target = Path(out) if out else checkpoint_path(sidecar.stem).with_suffix(".pt")
            path = rebuild_network(recorded, sidecar, target)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}")
    if redirected:
        print(
            f"the shipped checkpoints are unchanged; to use it, pass --checkpoint {path}, copy it (and its .json) into "
            f"{checkpoints.FOLDER}/ or train again with --install"
        )


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-train", lambda: _train(argv))


def _train(argv: list[str] | None) -> None:
    global OUT_DIR
    parser = CommandParser(prog="acpc-train", description=plain(__doc__.split("\n\n")[0]))
    parser.add_argument(
        "agent", nargs="?", choices=["cfr", "cfr-nl", "lstm_dqn", "dqn", "nfq", "poker_cnn", "ensemble"]
    )
    parser.add_argument(
        "--from-sidecar",
        metavar="NAME|FILE",
        default=None,
        help="train again what a checkpoint's JSON sidecar recorded (its settings and seed), instead of an agent's"
        " defaults: a shipped checkpoint's name (cfr-improved, dqn-v1, ...) or a sidecar file",
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help=f"9-bucket CFR iterations (default 8000; cfr-nl {NL_ITERATIONS})"
    )
    parser.add_argument(
        "--ehs2-iterations", type=int, default=EHS2_ITERATIONS, help=f"default CFR's iterations ({EHS2_ITERATIONS})"
    )
    parser.add_argument(
        "--pcs-iterations",
        type=int,
        default=PCS_ITERATIONS,
        help=f"the default limit CFR's public chance sampling iterations ({PCS_ITERATIONS})",
    )
    parser.add_argument("--only", choices=CFR_CHECKPOINTS, default=None, help="rebuild this CFR checkpoint alone")
    parser.add_argument(
        "--deals",
        type=int,
        default=None,
        help="deals sampled per CFR iteration (64; cfr-nl 256); ensemble: duplicate deals per evaluation (400)",
    )
    parser.add_argument("--preset", choices=["tuned", "faithful"], default="tuned", help="Q-network hyperparameters")
    parser.add_argument(
        "--hands",
        type=int,
        default=None,
        help=f"Q-network training hands (default lstm_dqn {Q_HANDS['lstm_dqn']}, dqn {Q_HANDS['dqn']})",
    )
    parser.add_argument("--pool", choices=["sound", "v1"], default="sound", help="Q-network training opponents")
    parser.add_argument(
        "--reward", choices=["mcts", "chips"], default="mcts", help="Q-network reward (nfq: mcts is its UCT reward)"
    )
    parser.add_argument("--lam", type=float, default=None, help="NFQ's trace decay lambda (default 0.7)")
    parser.add_argument("--window", type=int, default=None, help="NFQ's window of observations n (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="training seed (default 1; Q-networks: Q_SEED)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="Q-network training's torch threads (default 1, as the shipped ones: a rerun gives the same weights)",
    )
    parser.add_argument(
        "--strength-weight",
        type=float,
        default=None,
        help="Q-networks: weight of the auxiliary hand-strength loss (default: Q_STRENGTH_WEIGHT, the shipped"
        " checkpoint's; 0: the seed's loss alone)",
    )
    parser.add_argument(
        "--double",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Q-networks: double DQN targets (default: Q_DOUBLE, the shipped checkpoint's)",
    )
    parser.add_argument(
        "--mc-mix",
        type=float,
        default=None,
        help="Q-networks: beta of the mixed Monte Carlo targets, 0 to 1 (default: Q_MC_MIX, the shipped"
        " checkpoint's; 0: the seed's Q-learning targets)",
    )
    parser.add_argument(
        "--replay-hands",
        type=int,
        default=None,
        help="Q-networks: hands the replay memory keeps, the latest (default: Q_REPLAY_HANDS, the shipped"
        " checkpoint's)",
    )
    parser.add_argument("--data", default=None, help="Poker-CNN records (default runs/poker_cnn/records.npz)")
    parser.add_argument("--epochs", type=int, default=None, help="Poker-CNN epochs per fold (default 12)")
    parser.add_argument("--records", type=int, default=None, help="Poker-CNN records used (default 240000; 0: all)")
    parser.add_argument("--test-records", type=int, default=None, help="Poker-CNN test records (default 40000)")
    parser.add_argument("--population", type=int, default=None, help="ensemble population (default 16)")
    parser.add_argument("--generations", type=int, default=None, help="ensemble generations per network (40)")
    parser.add_argument("--base-deals", type=int, default=None, help="ensemble base network's deals per opponent (200)")
    parser.add_argument("--library-hands", type=int, default=None, help="ensemble library hands per style (10000)")
    parser.add_argument(
        "--teacher-hands",
        type=int,
        default=None,
        help="ensemble: hands of the cloned cfr teacher per style (10000; 0: random starting networks, the seed's)",
    )
    parser.add_argument(
        "--clone-only",
        action="store_true",
        help="ensemble: only the starting network, the teacher cloned (ensemble-clone.pt), for --mode clone",
    )
    add_concurrency(parser, "ensemble: networks evolved", default=2)
    add_ray_option(parser, "--concurrency", "ensemble: evolve the networks as Ray tasks", "the same networks")
    parser.add_argument("--out", default=None, help="where to save (default: under --out-dir)")
    parser.add_argument(
        "--out-dir", type=Path, default=OUT_DIR, help="folder of the checkpoints trained (default runs/train)"
    )
    parser.add_argument(
        "--install", action="store_true", help="write over the shipped checkpoints in models/checkpoints/"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if (args.agent is None) == (args.from_sidecar is None):
        parser.error("give an agent to train or --from-sidecar NAME|FILE, not both")
    refuse_input_as_output("acpc-train", {"--out": args.out}, [args.data, args.from_sidecar])
    if args.seed is None:
        args.seed = Q_SEED.get(args.agent, 1)
    OUT_DIR = None if args.install else args.out_dir
    redirected = OUT_DIR is not None and args.out is None
    if args.from_sidecar is not None:
        train_from_sidecar(args.from_sidecar, args.out, redirected)
        return
    if args.agent == "ensemble" and redirected:
        args.out = str(OUT_DIR)
    if args.agent == "cfr":
        train_cfr(args.iterations or 8000, args.deals or 64, args.ehs2_iterations, args.only, args.pcs_iterations)
    elif args.agent == "cfr-nl":
        train_cfr_nl(args.iterations or NL_ITERATIONS, args.deals or 256)
    elif args.agent == "nfq":
        train_nfq(args)
    elif args.agent == "poker_cnn":
        train_poker_cnn(args.data, args.epochs, args.records, args.test_records, args.seed, args.out)
    elif args.agent == "ensemble":
        train_ensemble(args)
    else:
        train_q(
            args.agent, args.preset, args.hands, args.reward, args.out, args.seed, args.pool, args.threads,
            args.strength_weight, args.double, args.mc_mix, args.replay_hands,
        )  # fmt: skip
    if redirected:
        print(
            f"the shipped checkpoints are unchanged; to use these, copy them from {OUT_DIR}/ into "
            f"{checkpoints.FOLDER}/ or train again with --install (make train AGENT={args.agent} INSTALL=1)"
        )


if __name__ == "__main__":
    main()
