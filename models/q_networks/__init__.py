"""Seed 000's Q-networks and what plays them (seed 004's Poker-CNN shares them).

- ``encoding``: the card image of a player's view (16 planes of 17x17)
- ``networks``: ``LSTMDQN``, ``DQN`` and ``PokerCNN`` over that image
- ``checkpoint``: torch weights with a JSON sidecar, loaded within size limits (NFQ's and the
  ensemble's networks load through it too)
- ``row_passes``: network passes of one shape, whose every row is the same alone or batched on any CPU

Their trainers are ``models.training.dqn`` and ``models.training.poker_cnn``.
"""
