"""What each shipped checkpoint was trained with: the settings ``acpc-train`` runs by default, and where
it writes what it trains.

Nothing here needs numpy or torch: ``acpc-train --help`` shows these defaults.
"""

from __future__ import annotations

from pathlib import Path

from acpc_arena.models import checkpoints

OUT_DIR = Path("runs/train")
"""Where training writes its checkpoints by default (``--out-dir``; ``--install``: over the shipped ones)."""

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
CFR_GAMES = (("cfr-kuhn", "kuhn", 2000), ("cfr-kuhn3p", "kuhn.limit.3p", 2000), ("cfr-leduc", "leduc", 3000))
"""(checkpoint, game, iterations) of the exact CFR+ checkpoints."""
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
NL_BETS = "1,3/1/1/1"
NL_RAISE_CAP = 2
NL_ABSTRACTION = "ehs2-50-50-50"
NL_POOL = 20000
NL_ITERATIONS = 12000

AVERAGE_POLICY_STEPS = {"lstm_dqn": 12_000, "dqn": 12_000}
"""Training steps of the default ``lstm_dqn`` and ``dqn``, the average-policy networks
(``models/training/dqn_average_policy.py``; ``--pretrain-steps`` overrides)."""

AVERAGE_POLICY_ENCODING = "strength"
"""Input planes of the default ``lstm_dqn`` and ``dqn`` (``models/q_networks/history_encoding.py``): the seed's,
the betting history and the hand's strength."""

Q_HANDS = {"lstm_dqn": 120_000, "dqn": 200_000}
"""Training hands of ``lstm_dqn-sound`` and ``dqn-sound``, the Q-networks of ``--preset tuned`` against the
``sound`` pool (``--hands`` overrides; a checkpoint is saved every 5,000)."""

Q_SEED = {"lstm_dqn": 3, "dqn": 2}
"""Training seed of each network of seed 000 (``--seed`` overrides; every other training's default is 1): the
``-sound`` networks' and the defaults'."""

Q_STRENGTH_WEIGHT = {"lstm_dqn": 50.0, "dqn": 50.0}
"""Default weight of the auxiliary hand-strength loss (``models/training/dqn.py``) for each Q-network: the
``-sound`` checkpoints' (``--strength-weight 0`` is the seed's loss alone, as the ``v1`` checkpoints)."""

Q_DOUBLE = {"lstm_dqn": False, "dqn": True}
"""Whether each ``-sound`` Q-network was trained with double DQN targets (``--double``/``--no-double`` override)."""

Q_MC_MIX = {"lstm_dqn": 0.0, "dqn": 0.5}
"""beta of the mixed Monte Carlo targets (``models/training/dqn.py``) each ``-sound`` Q-network was trained with
(``--mc-mix`` overrides; 0: the seed's Q-learning targets). The DQN's go with the short replay memory below."""

Q_REPLAY_HANDS = {"lstm_dqn": 500_000, "dqn": 50_000}
"""Hands the replay memory of each ``-sound`` Q-network kept, the latest (``--replay-hands`` overrides): the LSTM
its whole run, the DQN its last 50,000 hands, so that the returns mixed into its targets come from play close
to its own."""

DQFD_PRETRAIN_STEPS = {"lstm_dqn": 3_000, "dqn": 18_000}
"""Pre-training steps (64 demonstration episodes each) of ``--preset dqfd`` (``models/training/dqn_dqfd.py``;
``--pretrain-steps`` overrides; a rerun with more goes on from a finished run's saved state): the shipped
``-dqfd`` networks' (the LSTM's are what the time its run had allowed, not a choice among others)."""

DQFD_LAMBDA_E = 10.0
"""Weight of DQfD's large-margin supervised loss J_E in ``--preset dqfd`` (``--lambda-e`` overrides): not the
paper's 1, since the Q-learning loss, in squared big blinds, is some 16 on the demonstrations (with 1 the network
learnt to call and nothing else in its first 2,000 steps)."""

DQFD_LR_DECAY: dict[str, tuple[int, int] | None] = {"lstm_dqn": None, "dqn": None}
"""(start, half-life) in steps of ``--preset dqfd``'s pre-training learning-rate decay (``--lr-decay``
overrides): None, a constant rate."""

DQFD_DROPOUT: dict[str, float | None] = {"lstm_dqn": None, "dqn": None}
"""The dropout of ``--preset dqfd``'s training (``--dropout`` overrides): None, the seed's 0.5."""

DQFD_HANDS = {"lstm_dqn": 0, "dqn": 0}
"""Hands of the learner's own play after pre-training, ``--preset dqfd`` (``--hands`` overrides): none, the
pre-trained network is the result (phase 3, as configured, does worse on the selection seeds)."""

DQFD_REPLAY_HANDS = 50_000
"""Hands of its own play the replay memory of ``--preset dqfd`` keeps (``--replay-hands`` overrides)."""

DQFD_ENCODING = {"lstm_dqn": "seed", "dqn": "history"}
"""Input planes of ``--preset dqfd``'s networks (``models/q_networks/history_encoding.py``): the DQN's are the
seed's and the betting history, which the demonstrator's strategy depends on and the seed's planes show only in
part; the LSTM's are the seed's, those its shipped ``lstm_dqn-dqfd`` network was trained on."""

DQFD_EPSILON = 0.05
"""Exploration of ``--preset dqfd``'s own play, falling from this to 0 over the hands."""

NFQ_HANDS = 200_000
"""NFQ's training hands, ``--preset faithful`` (``nfq-seed``; ``--hands`` overrides)."""

NFQ_LAMBDA_E = 1.0
"""Weight of J_E in the default ``nfq``'s DQfD (``--lambda-e`` overrides): the paper's (``nfq_dqfd``)."""

NFQ_PRETRAIN_STEPS = 150_000
"""The default ``nfq``'s pre-training steps on the demonstrations (``models/training/nfq_dqfd.py``;
``--pretrain-steps`` overrides), chosen on deal seeds 8201 to 8203."""


def checkpoint_path(name: str, out_dir: Path | None) -> Path:
    """Where training writes checkpoint ``name`` (``.npz``; the networks change the suffix): in ``out_dir``, or
    over the shipped one where ``out_dir`` is None (``--install``)."""
    shipped = checkpoints.checkpoint_path(name)
    if out_dir is None:
        return shipped
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir / shipped.name
