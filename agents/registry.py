"""Agent names and where their classes live (imported only when used).

A place is ``module:attribute``, the attribute a class or a dict of classes by agent name (the
style agents, made from their table: ``agents.styles.STYLE_AGENTS``).
"""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names alone: acpc-match --help starts without the engine (make bench SECTIONS=startup)
    from acpc_arena.agents.base import Agent

AGENTS: dict[str, str] = {
    "random": "acpc_arena.agents.baselines:RandomAgent",
    "call": "acpc_arena.agents.baselines:CallAgent",
    "raise": "acpc_arena.agents.baselines:RaiseAgent",
    "rule": "acpc_arena.agents.baselines:RuleAgent",
    "equity": "acpc_arena.agents.baselines:EquityAgent",
    "cfr": "acpc_arena.agents.cfr:CFRAgent",
    "lstm_dqn": "acpc_arena.agents.dqn:LSTMDQNAgent",
    "dqn": "acpc_arena.agents.dqn:DQNAgent",
    "nfq": "acpc_arena.agents.nfq:NFQAgent",
    "poker_cnn": "acpc_arena.agents.poker_cnn:PokerCNNAgent",
    "o1": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o2": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o3": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o4": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o5": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o6": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o7": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o8": "acpc_arena.agents.styles:STYLE_AGENTS",
    "o_random": "acpc_arena.agents.styles:RandomStyleAgent",
    "ensemble": "acpc_arena.agents.ensemble:EnsembleAgent",
    "human": "acpc_arena.agents.human:HumanAgent",
    "spar_equity": "acpc_arena.agents.sparring.limit:SparEquity",
    "spar_tag": "acpc_arena.agents.sparring.limit:SparTAG",
    "spar_lag": "acpc_arena.agents.sparring.limit:SparLAG",
    "spar_station": "acpc_arena.agents.sparring.limit:SparStation",
    "spar_rock": "acpc_arena.agents.sparring.limit:SparRock",
    "spar_bluffer": "acpc_arena.agents.sparring.limit:SparBluffer",
    "spar_shove10": "acpc_arena.agents.sparring.nolimit:SparShove10",
    "spar_shove30": "acpc_arena.agents.sparring.nolimit:SparShove30",
    "spar_shove60": "acpc_arena.agents.sparring.nolimit:SparShove60",
    "spar_overbet": "acpc_arena.agents.sparring.nolimit:SparOverbet",
    "spar_minraise": "acpc_arena.agents.sparring.nolimit:SparMinRaise",
    "spar_limper": "acpc_arena.agents.sparring.nolimit:SparLimper",
    "spar_fractions": "acpc_arena.agents.sparring.nolimit:SparFractions",
    "spar_oddsize": "acpc_arena.agents.sparring.nolimit:SparOddSize",
    "spar_fuzz": "acpc_arena.agents.sparring.nolimit:SparFuzz",
}


def agent_class(name: str) -> type[Agent]:
    """The class registered as ``name``."""
    try:
        target = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}") from None
    module, _, attribute = target.partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.startswith("acpc_arena"):
            raise
        raise ValueError(
            f"agent {name!r} needs {exc.name}, which is not installed (pip install 'acpc-arena[agents]')"
        ) from None
    return found[name] if isinstance(found, dict) else found


def add_agent_options(parser: argparse.ArgumentParser, argv: list[str]) -> type[Agent] | None:
    """Add the options of the agent that ``argv`` names first (as its first positional) to ``parser``.

    Returns that agent's class, or None when ``argv`` names no known agent (``parser`` then reports it).
    """
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("agent", nargs="?")
    known, _ = first.parse_known_args(argv)
    if known.agent not in AGENTS:
        return None
    cls = agent_class(known.agent)
    cls.add_arguments(parser.add_argument_group(f"options of {known.agent}"))
    return cls
