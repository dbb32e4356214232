"""Learning: the CFR solver (``cfr``), the ACPC example player's probabilities (``example_player``),
hand strength as a percentile (``preflop``, ``postflop``), seed 000's Q-networks (``networks``,
``encoding``, ``mcts``, ``q_checkpoint``), the networks of seeds 001 and 003 (``ensemble``,
``nfq``), the shipped checkpoints (``checkpoints/``) and, above the agents and the arena,
``training``: what retrains them (``acpc-train``, ``make train AGENT=...``)."""
