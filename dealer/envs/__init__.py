"""Reinforcement-learning environments over the match engine (``pip install 'acpc-arena[gym]'``): a
PettingZoo AEC environment for any ACPC game (``aec.PokerAECEnv``), and a Gymnasium single-agent
environment whose other seats are agents (``single.PokerGymEnv``)."""

try:
    import gymnasium  # noqa: F401 (the extra's packages, found or named in one line)
    import pettingzoo  # noqa: F401
except ModuleNotFoundError as exc:
    raise ModuleNotFoundError(f"acpc_arena.dealer.envs needs {exc.name}: pip install 'acpc-arena[gym]'") from None

from acpc_arena.dealer.envs.aec import PokerAECEnv
from acpc_arena.dealer.envs.single import PokerGymEnv
from acpc_arena.dealer.envs.table import EpisodeOverError, IllegalActionError

__all__ = ["EpisodeOverError", "IllegalActionError", "PokerAECEnv", "PokerGymEnv"]
