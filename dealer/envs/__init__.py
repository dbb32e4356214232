"""Reinforcement-learning environments over the match engine (``pip install 'acpc-arena[gym]'``): a
PettingZoo AEC environment for any ACPC game, and a Gymnasium single-agent environment whose other seats
are agents."""
