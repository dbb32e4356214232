"""Training every agent (``acpc-train``, ``acpc-cfr``, ``make train AGENT=...``) and making its data.

This package sits above the agents and the arena: the trainers play against agents and fan
matches out to workers (``dealer.arena.fanout``). Nothing below imports it.

- ``cli``: ``acpc-train``, one command for every agent; ``shipped``: the settings that trained each
  shipped checkpoint; ``network_runs``: its runs of the networks; ``from_sidecar``: a run read back
  from a checkpoint's sidecar
- ``cfr_cli``, ``cfr``, ``cfr_public_chance``: ``acpc-cfr``; CFR's runs (those of ``acpc-train cfr``
  too); the resumable runs of public chance sampling
- ``dqn``, ``dqn_replay``: seed 000's Q-networks (LSTM_DQN and DQN), in-process against an opponent
  pool; their replay memory and targets
- ``nfq``, ``nfq_uct``: seed 003's online Q(lambda) trainer and its UCT reward
- ``schedules``: what those two online trainers do by the hand count (start seeded, explore less,
  refresh and save every N hands)
- ``ensemble``, ``ensemble_evolution``, ``ensemble_imitation``, ``ensemble_play``: seed 001's
  evolution of the policy networks, the starting network cloned from a teacher, the
  population's in-process play; ``ensemble_tables`` replays the seed's tables 3 and 4
- ``poker_cnn_data``, ``poker_cnn``, ``poker_cnn_evaluate``: seed 004's decision records from
  ACPC logs (``make data``), the imitation training, the evaluation through the dealer
- ``curves``: the training curves as images (CFR's exploitability, the ensemble's fitness)
"""
