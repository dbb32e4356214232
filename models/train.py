"""``make train AGENT=...``: retrain a shipped checkpoint from scratch with this project's own code.

    python -m models.train cfr [--iterations N] [--deals K]

- ``cfr``: chance-sampled CFR+ (``mccfr``) on ``holdem.limit.2p.reverse_blinds``
  with the improved and the traditional 9 buckets (``cfr-improved``,
  ``cfr-traditional``), and exact CFR+ on Kuhn (2 and 3 players) and Leduc.
"""

from __future__ import annotations

import argparse
import sys

from models.checkpoints import checkpoint_path

HOLDEM = "holdem.limit.2p.reverse_blinds"


def train_cfr(iterations: int, deals: int) -> None:
    from models.cfr.cli import train

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", choices=["cfr"])
    parser.add_argument("--iterations", type=int, default=None, help="CFR iterations (default 8000)")
    parser.add_argument("--deals", type=int, default=64, help="deals sampled per CFR iteration")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.agent == "cfr":
        train_cfr(args.iterations or 8000, args.deals)


if __name__ == "__main__":
    main()
