"""AIVAT: variance-reduced results from logs and the policies of the known players (``estimator``: one
hand; ``values``: the value function; ``logs``: over ACPC logs, per hand and duplicate)."""

from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable, HandEstimate, HandEstimator, Settings
from acpc_arena.dealer.arena.aivat.logs import AivatReport, aivat_estimates, shipped_agent

__all__ = [
    "AivatReport",
    "AivatUnavailable",
    "HandEstimate",
    "HandEstimator",
    "Settings",
    "aivat_estimates",
    "shipped_agent",
]
