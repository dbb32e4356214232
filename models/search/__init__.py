"""Search against the ACPC example player, as the seeds' rewards do it.

- ``example_player``: the example player's probabilities of fold, call and raise (the ``random``
  agent plays them; the searches model their opponent by them)
- ``mcts``: seed 000's MCTS-based reward, the UCT value of each starting hand

NFQ's UCT reward is ``models.training.nfq_uct``.
"""
