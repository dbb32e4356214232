"""``acpc-train``'s runs of the networks (``lstm_dqn``, ``dqn``, ``nfq``, ``poker_cnn``, ``ensemble``): the
shipped checkpoint's settings (``shipped``) overridden by the options, and a network rebuilt from its sidecar.

Each run is called through its trainer's module (``dqn.train``), so that a test may replace the trainer.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from acpc_arena.models.training import (
    dqn,
    dqn_average_policy,
    dqn_demonstrations,
    dqn_dqfd,
    ensemble,
    nfq,
    nfq_dqfd,
    poker_cnn,
    poker_cnn_imitate,
    poker_cnn_teacher,
)
from acpc_arena.models.training.from_sidecar import recorded_config
from acpc_arena.models.training.shipped import (
    AVERAGE_POLICY_ENCODING,
    AVERAGE_POLICY_STEPS,
    DQFD_DROPOUT,
    DQFD_ENCODING,
    DQFD_EPSILON,
    DQFD_HANDS,
    DQFD_LR_DECAY,
    DQFD_PRETRAIN_STEPS,
    DQFD_REPLAY_HANDS,
    NFQ_HANDS,
    Q_DOUBLE,
    Q_HANDS,
    Q_MC_MIX,
    Q_REPLAY_HANDS,
    Q_STRENGTH_WEIGHT,
    checkpoint_path,
)
from acpc_arena.protocol.commands import usage_error


def train_q(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train lstm_dqn|dqn``: seed 000's Q-network ``args.agent``."""
    network = args.agent
    if args.preset == "dqfd":
        train_dqfd(args, out_dir)
        return
    if args.preset in (None, "average-policy"):
        train_average_policy(args, out_dir)
        return
    overrides = {
        "reward": args.reward,
        "seed": args.seed,
        "hands": args.hands or Q_HANDS[network],
        "threads": args.threads,
        "strength_weight": Q_STRENGTH_WEIGHT[network] if args.strength_weight is None else args.strength_weight,
        "double": Q_DOUBLE[network] if args.double is None else args.double,
        "monte_carlo_mix": Q_MC_MIX[network] if args.mc_mix is None else args.mc_mix,
        "replay_capacity": Q_REPLAY_HANDS[network] if args.replay_hands is None else args.replay_hands,
    }
    try:
        config = dqn.config_for(network, args.preset, args.pool or "sound", **overrides)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    out = args.out or checkpoint_path(f"{network}-sound", out_dir).with_suffix(".pt")
    path, stats = dqn.train(config, out, save_every=5000)
    print(f"saved {path}: {stats}")


def train_dqfd(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train lstm_dqn|dqn --preset dqfd``: the Q-network by DQfD (``dqn_dqfd``; the demonstrations of
    ``dqn_demonstrations`` are recorded first when missing), saved as ``NETWORK-dqfd``."""
    network = args.agent
    overrides = {
        "reward": args.reward,
        "seed": args.seed,
        "hands": DQFD_HANDS[network] if args.hands is None else args.hands,
        "threads": args.threads,
        "strength_weight": args.strength_weight or 0.0,
        "double": Q_DOUBLE[network] if args.double is None else args.double,
        "monte_carlo_mix": Q_MC_MIX[network] if args.mc_mix is None else args.mc_mix,
        "replay_capacity": DQFD_REPLAY_HANDS if args.replay_hands is None else args.replay_hands,
        "epsilon_start": DQFD_EPSILON,
        "epsilon_end": 0.0,
        "encoding": DQFD_ENCODING[network],
        "dropout": DQFD_DROPOUT[network] if args.dropout is None else args.dropout,
    }
    dqfd = dqn_dqfd.DQfDConfig(
        demonstrations=args.data or dqn_dqfd.DEMONSTRATIONS,
        pretrain_steps=DQFD_PRETRAIN_STEPS[network] if args.pretrain_steps is None else args.pretrain_steps,
        lambda_e=lambda_e(args, dqn_dqfd.DQfDConfig.lambda_e),
        lr_decay=DQFD_LR_DECAY[network] if args.lr_decay is None else args.lr_decay,
    )
    try:
        config = dqn.config_for(network, "tuned", args.pool or "dqfd", **overrides)
        if args.data is None and not Path(dqfd.demonstrations).exists():
            folder = Path(dqfd.demonstrations).parent
            dqn_demonstrations.make_demonstrations(folder, dqn_demonstrations.SHARDS, dqn_demonstrations.HANDS)
        out = args.out or checkpoint_path(f"{network}-dqfd", out_dir).with_suffix(".pt")
        path, stats = dqn_dqfd.train(config, dqfd, out)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: {stats}")


def train_average_policy(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train lstm_dqn|dqn --preset average-policy``: the NFSP-style average-policy network beside the
    ``NETWORK-dqfd`` Q-network (``dqn_average_policy``; the demonstrations recorded first when missing)."""
    network = args.agent
    q_learning = {
        "--hands": args.hands, "--pool": args.pool, "--strength-weight": args.strength_weight,
        "--double/--no-double": args.double, "--mc-mix": args.mc_mix, "--replay-hands": args.replay_hands,
        "--lambda-e": args.lambda_e, "--dropout": args.dropout, "--lr-decay": args.lr_decay,
    }  # fmt: skip
    if given := [flag for flag, value in q_learning.items() if value is not None]:
        usage_error(
            f"acpc-train: error: {', '.join(given)} set Q-learning (--preset tuned, faithful or dqfd), not the"
            f" {network} average-policy network (the default --preset average-policy)"
        )
    steps = AVERAGE_POLICY_STEPS[network] if args.pretrain_steps is None else args.pretrain_steps
    settings = dqn_average_policy.average_policy_config(args.data or dqn_dqfd.DEMONSTRATIONS, steps)
    overrides = {"seed": args.seed, "threads": args.threads, "encoding": AVERAGE_POLICY_ENCODING}
    try:
        config = dqn.config_for(network, "tuned", "dqfd", **overrides)
        if args.data is None and not Path(settings.demonstrations).exists():
            folder = Path(settings.demonstrations).parent
            dqn_demonstrations.make_demonstrations(folder, dqn_demonstrations.SHARDS, dqn_demonstrations.HANDS)
        out = args.out or checkpoint_path(network, out_dir).with_suffix(".pt")
        path, stats = dqn_average_policy.train(config, settings, out, f"{network}-dqfd")
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: {stats}")


def lambda_e(args: argparse.Namespace, default: float) -> float:
    """DQfD's ``--lambda-e``, ``default`` when not given; a weight not above 0 is a usage error."""
    if args.lambda_e is None:
        return default
    if not args.lambda_e > 0:
        usage_error(f"acpc-train: error: --lambda-e must be above 0, not {args.lambda_e}")
    return float(args.lambda_e)


def train_nfq(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train nfq``: the default ``nfq``, seed 003's network by DQfD (``nfq_dqfd``: the demonstrations of
    ``nfq_demonstrations`` recorded first when missing; a stopped run goes on from its state under
    ``runs/nfq-dqfd``, or beside ``--out``); ``--preset faithful``: seed 003's configuration (``nfq-seed``) and
    its ablations."""
    if args.preset == "faithful":
        train_nfq_seed(args, out_dir)
        return
    if args.reward == "chips" or args.lam is not None or args.window is not None:
        usage_error("acpc-train: error: --reward chips, --lam and --window change seed 003's configuration: add "
                    "--preset faithful")  # fmt: skip
    dqfd = nfq_dqfd.DQfDConfig(
        demonstrations=args.data or nfq_dqfd.DEMONSTRATIONS,
        pretrain_steps=nfq_dqfd.DQfDConfig.pretrain_steps if args.pretrain_steps is None else args.pretrain_steps,
        lambda_e=lambda_e(args, nfq_dqfd.DQfDConfig.lambda_e),
    )
    try:
        config = nfq_dqfd.phase3_config(args.hands or 0, seed=args.seed)
        out = args.out or checkpoint_path("nfq", out_dir).with_suffix(".pt")
        work = nfq_dqfd.DEFAULT_WORK if args.out is None else Path(args.out).parent  # the state beside --out
        path, stats = nfq_dqfd.train(config, dqfd, out, work)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: {stats}")


def train_nfq_seed(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train nfq --preset faithful``: seed 003's configuration, online Q(lambda) with the UCT reward."""
    overrides = {
        "hands": args.hands or NFQ_HANDS,
        "reward": "chips" if args.reward == "chips" else "uct",
        "seed": args.seed,
        **({"lam": args.lam} if args.lam is not None else {}),
        **({"window": args.window} if args.window is not None else {}),
    }
    try:
        config = nfq.config_for(args.pool or "sound", **overrides)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    out = args.out or checkpoint_path("nfq-seed", out_dir).with_suffix(".pt")
    path, stats = nfq.train(config, out, save_every=2000)
    print(f"saved {path}: {stats}")


def train_poker_cnn(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train poker_cnn``: the default Poker-CNN (``poker_cnn_imitate``; the teacher's records are made
    first when missing); ``--preset faithful``: the seed's configuration (``poker_cnn-seed``)."""
    if args.preset == "faithful":
        train_poker_cnn_seed(args, out_dir)
        return
    config = poker_cnn_imitate.ImitateConfig(seed=args.seed)
    config.data = args.data or config.data
    config.epochs = args.epochs or config.epochs
    config.test_records = args.test_records or config.test_records
    try:
        if not Path(config.data).exists() and args.data is None:
            poker_cnn_teacher.make_data(Path(config.data).parent, poker_cnn_teacher.SHARDS, poker_cnn_teacher.HANDS)
        out = args.out or checkpoint_path("poker_cnn", out_dir).with_suffix(".pt")
        path, summary = poker_cnn_imitate.train_default(config, out)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: held-out accuracy {summary['held_out_accuracy']['all']:.3f}")


def train_poker_cnn_seed(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train poker_cnn --preset faithful``: seed 004's configuration on the records of ``poker_cnn_data``."""
    config = poker_cnn.Config(seed=args.seed)
    config.data = args.data or config.data
    config.epochs = args.epochs or config.epochs
    config.records = config.records if args.records is None else args.records
    config.test_records = args.test_records or config.test_records
    try:
        out = args.out or checkpoint_path("poker_cnn-seed", out_dir).with_suffix(".pt")
        path, summary = poker_cnn.train(config, out)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")
    print(f"saved {path}: mean held-out accuracy {summary['mean_held_out_accuracy']:.3f}")


def train_ensemble(args: argparse.Namespace) -> None:
    """``acpc-train ensemble``: seed 001's networks and library, by evolution."""
    defaults = ensemble.DEFAULTS
    config = ensemble.EvolutionConfig(
        population=args.population or defaults.population,
        generations=args.generations or defaults.generations,
        deals=args.deals or defaults.deals,
        base_deals=args.base_deals or defaults.base_deals,
        library_hands=args.library_hands or defaults.library_hands,
        seed=args.seed,
        teacher_hands=defaults.teacher_hands if args.teacher_hands is None else args.teacher_hands,
    )
    try:
        ensemble.main_options(config, args.out, args.concurrency, args.ray, args.clone_only)
    except ValueError as exc:
        usage_error(f"acpc-train: error: {exc}")


def train_network(args: argparse.Namespace, out_dir: Path | None) -> None:
    """``acpc-train AGENT`` for a network ``args.agent``."""
    if args.agent == "nfq":
        train_nfq(args, out_dir)
    elif args.agent == "poker_cnn":
        train_poker_cnn(args, out_dir)
    elif args.agent == "ensemble":
        train_ensemble(args)
    else:
        train_q(args, out_dir)


def rebuild_network(recorded: dict[str, Any], path: Path, target: Path) -> Path:
    """Train the Q-network the sidecar ``recorded`` (read from ``path``) describes into ``target``; ``ValueError``
    (one line naming ``path``) for a kind ``--from-sidecar`` does not rebuild. Returns the checkpoint's path."""
    kind, network, config = recorded.get("kind"), recorded.get("network"), recorded.get("config")
    if (
        kind == "q-network"
        and network in ("lstm_dqn", "dqn")
        and isinstance(config, dict)
        and "average_policy" in recorded
    ):
        settings = recorded_config(dqn_dqfd.DQfDConfig, recorded["average_policy"], {}, path)
        config_ = recorded_config(dqn.TrainConfig, config, dqn.POOLS, path)
        saved, _ = dqn_average_policy.train(config_, settings, target, str(recorded.get("q_network", "")))
        return saved
    if kind == "q-network" and network in ("lstm_dqn", "dqn") and isinstance(config, dict) and "dqfd" in recorded:
        dqfd = recorded_config(dqn_dqfd.DQfDConfig, recorded["dqfd"], {}, path)
        saved, _ = dqn_dqfd.train(recorded_config(dqn.TrainConfig, config, dqn.POOLS, path), dqfd, target)
        return saved
    if kind == "q-network" and network in ("lstm_dqn", "dqn") and isinstance(config, dict):
        saved, _ = dqn.train(recorded_config(dqn.TrainConfig, config, dqn.POOLS, path), target, save_every=5000)
        return saved
    if kind == "q-network" and network == "nfq" and isinstance(config, dict) and "dqfd" in recorded:
        dqfd = recorded_config(nfq_dqfd.DQfDConfig, recorded["dqfd"], {}, path)
        nfq_config = recorded_config(nfq.NFQConfig, config, dqn.POOLS, path)
        saved, _ = nfq_dqfd.train(nfq_config, dqfd, target, nfq_dqfd.DEFAULT_WORK)
        return saved
    if kind == "q-network" and network == "nfq" and isinstance(config, dict):
        saved, _ = nfq.train(recorded_config(nfq.NFQConfig, config, dqn.POOLS, path), target, save_every=2000)
        return saved
    what = f"{kind} ({network})" if network else str(kind)
    raise ValueError(
        f"{path}: --from-sidecar rebuilds CFR, lstm_dqn, dqn and nfq checkpoints, not a {what} "
        "(acpc-train poker_cnn and acpc-train ensemble rebuild those)"
    )
