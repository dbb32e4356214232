"""Seed 004's Poker-CNN, learned from ACPC hand logs.

- ``data``: the decision records of chosen players, read from ACPC logs (this
  project's own matches of a teacher, made by ``make data``, or any other logs),
  with a manifest.
- ``training``: the imitation targets, 4-fold cross-validation and the shipped
  checkpoint (``make train AGENT=poker_cnn``).

The network is ``models.networks.PokerCNN``; the agent ``agents/poker_cnn.py``.
"""
