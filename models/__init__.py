"""Learning, a package each: the CFR solver (``cfr``), seed 000's Q-networks with their card image,
checkpoints and row-independent passes (``q_networks``), the networks of seeds 001 and 003
(``ensemble``, ``nfq``), hand strength as a percentile (``hand_strength``), the ACPC example player's
probabilities and the MCTS values searched against it (``search``), the shipped checkpoints
(``checkpoints``) and, above the agents and the arena, ``training``: what trains every agent
(``acpc-train``, ``acpc-cfr``, ``make train AGENT=...``)."""
