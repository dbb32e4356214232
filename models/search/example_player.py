"""The ACPC example player's way of acting: fold, call and raise with fixed probabilities.

The ``random`` agent (``agents.baselines``) plays it; the rollouts of the MCTS values
(``models.search.mcts``) and NFQ's UCT reward model their opponent by it.
"""

FOLD_PROBABILITY = 0.06
EXAMPLE_PLAYER_PROBABILITIES = (FOLD_PROBABILITY, (1.0 - FOLD_PROBABILITY) * 0.5, (1.0 - FOLD_PROBABILITY) * 0.5)
"""The ACPC example player's probabilities of fold, call and raise (index by ``ActionKind``), as its
source sets them; each decision drops the invalid ones and scales the rest to sum to 1."""
