"""Seed 003: NFQ, a one-hidden-layer tanh Q-network trained online by Q(lambda) with eligibility
traces over a window of observations, its reward fused with UCT over determinised worlds.

- ``features``: the observation vector and the PN-step window
- ``network``: the Q-network, closed-form gradients, the eligibility traces
- ``uct``: the 3-armed-bandit UCT over sampled worlds (the delayed reward)
- ``training``: the in-process trainer (``make train AGENT=nfq``)
"""
