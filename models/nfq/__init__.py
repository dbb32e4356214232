"""Seed 003: NFQ, a one-hidden-layer tanh Q-network trained online by Q(lambda) with eligibility
traces over a window of observations, its reward fused with UCT over determinised worlds.

- ``features``: the observation vector and the PN-step window
- ``network``: the Q-network, closed-form gradients, the eligibility traces

The trainer and its UCT reward are ``models.training.nfq`` and ``models.training.nfq_uct``.
"""
