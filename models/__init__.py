"""Learning: the CFR solver (``models.cfr``), seed 000's Q-networks (``networks``,
``encoding``, ``mcts``, ``dqn_training``), their checkpoints (``checkpoints/``)
and ``python -m acpc_arena.models.train AGENT`` (``make train AGENT=...``)."""
