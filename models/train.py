"""``make train AGENT=...``: retrain a shipped checkpoint from scratch with this project's own code.

    python -m acpc_arena.models.train cfr [--iterations N] [--deals K]

- ``cfr``: chance-sampled CFR+ (``mccfr``) on ``holdem.limit.2p.reverse_blinds``
  with the improved and the traditional 9 buckets (``cfr-improved``,
  ``cfr-traditional``), and exact CFR+ on Kuhn (2 and 3 players) and Leduc.
- ``lstm_dqn``, ``dqn``: seed 000's Q-networks on the limit hold'em game
  (``models/dqn_training.py``; ``--preset tuned`` is what is shipped, ``faithful``
  keeps the seed's learning rate; ``--reward mcts`` or ``chips``).
"""

from __future__ import annotations

import argparse
import sys

from acpc_arena.models.checkpoints import checkpoint_path

HOLDEM = "holdem.limit.2p.reverse_blinds"


def train_cfr(iterations: int, deals: int) -> None:
    from acpc_arena.models.cfr.cli import train

    for name, game, extra in (
        ("cfr-kuhn", "kuhn", 2000),
        ("cfr-kuhn3p", "kuhn.limit.3p", 2000),
        ("cfr-leduc", "leduc", 3000),
    ):
        path, _ = train(game, "cfr+", extra, checkpoint_path(name), "exact", every=500)
        print(f"saved {path}")
    for abstraction in ("improved", "traditional"):
        path, _ = train(HOLDEM, "mccfr", iterations, checkpoint_path(f"cfr-{abstraction}"), abstraction, deals, seed=1)
        print(f"saved {path}")


def train_q(network: str, preset: str, hands: int | None, reward: str, out: str | None, seed: int) -> None:
    from acpc_arena.models.dqn_training import config_for, train

    overrides = {"reward": reward, "seed": seed} | ({"hands": hands} if hands else {})
    config = config_for(network, preset, **overrides)
    path, stats = train(config, out or checkpoint_path(network).with_suffix(".pt"))
    print(f"saved {path}: {stats}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m acpc_arena.models.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", choices=["cfr", "lstm_dqn", "dqn"])
    parser.add_argument("--iterations", type=int, default=None, help="CFR iterations (default 8000)")
    parser.add_argument("--deals", type=int, default=64, help="deals sampled per CFR iteration")
    parser.add_argument("--preset", choices=["tuned", "faithful"], default="tuned", help="Q-network hyperparameters")
    parser.add_argument("--hands", type=int, default=None, help="Q-network training hands (default 120000)")
    parser.add_argument("--reward", choices=["mcts", "chips"], default="mcts", help="Q-network reward")
    parser.add_argument("--seed", type=int, default=1, help="Q-network training seed (the shipped ones: 1)")
    parser.add_argument("--out", default=None, help="where to save (default: the shipped checkpoint)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.agent == "cfr":
        train_cfr(args.iterations or 8000, args.deals)
    else:
        train_q(args.agent, args.preset, args.hands, args.reward, args.out, args.seed)


if __name__ == "__main__":
    main()
