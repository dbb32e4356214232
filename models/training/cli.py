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
- ``lstm_dqn``, ``dqn``: seed 000's networks on the limit hold'em game. The default, ``--preset
  average-policy``: the seed's network as an NFSP-style average-policy network learned by
  cross-entropy from the default ``cfr --argmax``'s demonstrations
  (``models/training/dqn_average_policy.py``; ``models/training/dqn_demonstrations.py`` records them
  first when missing, ``--data`` another file; ``--pretrain-steps``, default ``AVERAGE_POLICY_STEPS``;
  the ``strength`` encoding, ``AVERAGE_POLICY_ENCODING``), saved as ``lstm_dqn``/``dqn``; a stopped run
  goes on from its saved state. ``--preset tuned``: Q-learning (``models/training/dqn.py``; ``faithful``
  keeps the seed's learning rate; ``--reward mcts`` or ``chips``; ``--pool sound``, the default, is
  mostly ``cfr-ehs2`` and ``equity``; the defaults ``Q_HANDS``, ``Q_SEED``, ``Q_STRENGTH_WEIGHT``,
  ``Q_DOUBLE``, ``Q_MC_MIX``, ``Q_REPLAY_HANDS``) rebuilds ``lstm_dqn-sound`` (120,000 hands, seed 3, a
  replay memory of every hand) and ``dqn-sound`` (200,000 hands, seed 2, double DQN targets, mixed
  Monte Carlo targets with beta 0.5, a replay memory of the last 50,000 hands), both with the auxiliary
  strength loss (``--threads 1``, the default, on which a rerun gives the same weights). The
  checkpoints kept for comparison, each ``--preset tuned`` and: ``--seed 1 --mc-mix 0 --replay-hands
  500000`` rebuilds ``dqn-v3``, adding ``--no-double`` ``dqn-v2``, ``--strength-weight 0 --seed 1``
  ``lstm_dqn-v2`` and ``--pool v1 --strength-weight 0 --seed 1 --hands 120000`` ``lstm_dqn-v1``
  (``dqn-v1`` with ``--no-double --mc-mix 0 --replay-hands 500000`` too: the seed's targets and its
  replay capacity), ``--out`` saying where.
  ``--preset dqfd``: Deep Q-learning from Demonstrations (``models/training/dqn_dqfd.py``), the
  same demonstrations pre-trained on (``--pretrain-steps``, default
  ``DQFD_PRETRAIN_STEPS``), then ``--hands`` of its own play against the ``dqfd`` pool
  (``DQFD_HANDS``: none, the pre-trained network is the result), saved as ``lstm_dqn-dqfd``/``dqn-dqfd``;
  a stopped run goes on from its saved state.
- ``nfq``: the default ``nfq``, seed 003's network by Deep Q-learning from Demonstrations
  (``models/training/nfq_dqfd.py``: the default ``cfr --argmax``'s decisions of
  ``models/training/nfq_demonstrations.py``, recorded first when missing, ``--data`` another
  file; ``--pretrain-steps``; ``--hands`` of the seed's own training after it, default none;
  a stopped run goes on from its state under ``runs/nfq-dqfd``, or beside ``--out``); ``--preset faithful``:
  seed 003's configuration ``nfq-seed`` (``models/training/nfq.py``): online Q(lambda) with
  traces and the UCT reward against the ``sound`` pool (``--hands``, default
  ``NFQ_HANDS``; ``--reward chips`` drops the UCT reward, ``--lam`` and ``--window``
  set lambda and n: the ablations ``nfq-chips``, ``nfq-lambda0``, ``nfq-n1``; ``--seed``, ``--out``).
- ``poker_cnn``: the default Poker-CNN, the default limit ``cfr``'s argmax imitated
  over the teacher's recorded decisions (``models/training/poker_cnn_imitate.py``;
  the records of ``models/training/poker_cnn_teacher.py`` are made first when
  missing; a stopped run goes on from its saved state; ``--data``, ``--epochs``,
  ``--test-records``, ``--seed``, ``--out``); ``--preset faithful``: seed 004's
  configuration ``poker_cnn-seed`` on the records of ``make data``
  (``models/training/poker_cnn.py``; ``--records`` too).
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
from typing import Any

from acpc_arena.dealer.arena.fanout import add_ray_option
from acpc_arena.dealer.arena.options import add_concurrency
from acpc_arena.models import checkpoints
from acpc_arena.models.training.from_sidecar import cfr_arguments, read_recorded, sidecar_of
from acpc_arena.models.training.shipped import (
    CFR_CHECKPOINTS,
    DQFD_LAMBDA_E,
    DQFD_LR_DECAY,
    DQFD_PRETRAIN_STEPS,
    EHS2_ITERATIONS,
    NFQ_LAMBDA_E,
    NFQ_PRETRAIN_STEPS,
    NL_ITERATIONS,
    OUT_DIR,
    PCS_ITERATIONS,
    Q_HANDS,
    Q_SEED,
    checkpoint_path,
)
from acpc_arena.protocol.commands import CommandParser, plain, refuse_input_as_output, run_command, usage_error


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-train", lambda: _train(argv))


def _parser() -> CommandParser:
    """``acpc-train``'s command line."""
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
    add_q_options(parser)
    add_data_and_output_options(parser)
    return parser


def _decay(text: str) -> tuple[int, int]:
    """``--lr-decay START:HALF_LIFE``: two whole numbers, the half-life above 0."""
    try:
        start, half_life = (int(part) for part in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected START:HALF_LIFE (two whole numbers), not {text!r}") from None
    if start < 0 or half_life <= 0:
        raise argparse.ArgumentTypeError(f"START must be 0 or more and HALF_LIFE above 0, not {text!r}")
    return start, half_life


def _decay_text(decay: tuple[int, int] | None) -> str:
    return "none" if decay is None else f"{decay[0]}:{decay[1]}"


def add_q_options(parser: argparse.ArgumentParser) -> None:
    """The Q-networks' and NFQ's options (and ``--seed``)."""
    parser.add_argument(
        "--preset",
        choices=["tuned", "faithful", "dqfd", "average-policy"],
        default=None,
        help="lstm_dqn|dqn: average-policy (the default) learns the NFSP-style average-policy network from the"
        " default cfr's demonstrations, saved as NETWORK; tuned or faithful Q-learning against a pool, saved as"
        " NETWORK-sound; dqfd Deep Q-learning from the same demonstrations, saved as NETWORK-dqfd; nfq and"
        " poker_cnn: faithful trains the seed's configuration (nfq-seed, poker_cnn-seed)",
    )
    parser.add_argument(
        "--pretrain-steps",
        type=int,
        default=None,
        help=f"DQfD's pre-training steps on the demonstrations (lstm_dqn|dqn --preset dqfd: default "
        f"{DQFD_PRETRAIN_STEPS['lstm_dqn']}, {DQFD_PRETRAIN_STEPS['dqn']}; nfq: {NFQ_PRETRAIN_STEPS})",
    )
    parser.add_argument(
        "--lambda-e",
        type=float,
        default=None,
        help="DQfD's weight of the large-margin supervised loss (lstm_dqn|dqn --preset dqfd: default "
        f"{DQFD_LAMBDA_E:g}; nfq: {NFQ_LAMBDA_E:g})",
    )
    parser.add_argument(
        "--dropout",
        type=float,
        default=None,
        help="the dropout while training, 0 to 1 (lstm_dqn|dqn --preset dqfd: default the seed's 0.5)",
    )
    parser.add_argument(
        "--lr-decay",
        type=_decay,
        default=None,
        metavar="START:HALF_LIFE",
        help="DQfD's pre-training learning rate halves every HALF_LIFE steps after step START (lstm_dqn|dqn"
        " --preset dqfd: default " + ", ".join(f"{net} {_decay_text(d)}" for net, d in DQFD_LR_DECAY.items()) + ")",
    )
    parser.add_argument(
        "--hands",
        type=int,
        default=None,
        help=f"Q-network training hands (default lstm_dqn {Q_HANDS['lstm_dqn']}, dqn {Q_HANDS['dqn']})",
    )
    parser.add_argument(
        "--pool",
        choices=["sound", "v1", "dqfd"],
        default=None,
        help="Q-network training opponents (default sound; --preset dqfd: dqfd)",
    )
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


def add_data_and_output_options(parser: argparse.ArgumentParser) -> None:
    """Poker-CNN's and the ensemble's options, and where to write."""
    parser.add_argument(
        "--data",
        default=None,
        help="Poker-CNN records (default runs/poker_cnn-default/records.npz; faithful: runs/poker_cnn/records.npz); "
        "DQfD's demonstrations (lstm_dqn|dqn --preset dqfd, nfq)",
    )
    parser.add_argument("--epochs", type=int, default=None, help="Poker-CNN epochs (default 3; faithful: 12 a fold)")
    parser.add_argument("--records", type=int, default=None, help="faithful Poker-CNN's records used (240000; 0: all)")
    parser.add_argument(
        "--test-records", type=int, default=None, help="Poker-CNN held-out records (100000; faithful 40000)"
    )
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


def _train(argv: list[str] | None) -> None:
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if (args.agent is None) == (args.from_sidecar is None):
        parser.error("give an agent to train or --from-sidecar NAME|FILE, not both")
    refuse_input_as_output("acpc-train", {"--out": args.out}, [args.data, args.from_sidecar])
    if args.seed is None:
        args.seed = Q_SEED.get(args.agent, 1)
    out_dir = None if args.install else args.out_dir
    redirected = out_dir is not None and args.out is None
    if args.from_sidecar is not None:
        train_from_sidecar(args, out_dir)
        return
    if args.agent == "ensemble" and redirected:
        args.out = str(out_dir)
    if args.agent in ("cfr", "cfr-nl"):
        run_cfr(args, out_dir)
    else:
        run_network(args, out_dir)
    if redirected:
        print(
            f"the shipped checkpoints are unchanged; to use these, copy them from {out_dir}/ into "
            f"{checkpoints.FOLDER}/ or train again with --install (make train AGENT={args.agent} INSTALL=1)"
        )


Rebuild = tuple[dict[str, Any], Path, Path]
"""What ``--from-sidecar`` trains again: the sidecar's record, the sidecar's path, the checkpoint to write."""


def run_cfr(args: argparse.Namespace, out_dir: Path | None, rebuild: Rebuild | None = None) -> Path | None:
    """``acpc-train cfr|cfr-nl``, or the CFR run a sidecar recorded (``rebuild``: returns its checkpoint)."""
    from acpc_arena.models.training import cfr  # numpy and the solvers: not for acpc-train --help

    if rebuild is not None:
        recorded, _, target = rebuild
        return cfr.train(out=target, **cfr_arguments(recorded))[0]
    if args.agent == "cfr":
        iterations, deals = args.iterations or 8000, args.deals or 64
        cfr.train_shipped_limit(iterations, deals, args.ehs2_iterations, args.only, args.pcs_iterations, out_dir)
    else:
        cfr.train_shipped_nolimit(args.iterations or NL_ITERATIONS, args.deals or 256, out_dir)
    return None


def run_network(args: argparse.Namespace, out_dir: Path | None, rebuild: Rebuild | None = None) -> Path | None:
    """``acpc-train`` of a network, or the network run a sidecar recorded (``rebuild``: returns its checkpoint)."""
    from acpc_arena.models.training import network_runs  # torch: not for acpc-train --help

    if rebuild is not None:
        return network_runs.rebuild_network(*rebuild)
    network_runs.train_network(args, out_dir)
    return None


def train_from_sidecar(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train --from-sidecar NAME|FILE``: the run a checkpoint's sidecar recorded, into ``--out`` or
    ``out_dir``."""
    sidecar = sidecar_of(args.from_sidecar)
    try:
        recorded = read_recorded(sidecar)
        if recorded.get("kind") == "cfr-average-strategy":
            target = Path(args.out) if args.out else checkpoint_path(sidecar.stem, out_dir)
            path = run_cfr(args, out_dir, (recorded, sidecar, target))
        else:
            target = Path(args.out) if args.out else checkpoint_path(sidecar.stem, out_dir).with_suffix(".pt")
            path = run_network(args, out_dir, (recorded, sidecar, target))
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}")
    if out_dir is not None and args.out is None:
        print(
            f"the shipped checkpoints are unchanged; to use it, pass --checkpoint {path}, copy it (and its .json) into "
            f"{checkpoints.FOLDER}/ or train again with --install"
        )


if __name__ == "__main__":
    main()
