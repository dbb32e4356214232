"""Agent names and where their classes live (imported only when used)."""

from __future__ import annotations

import importlib

from agents.base import Agent

AGENTS: dict[str, str] = {
    "random": "agents.baselines:RandomAgent",
    "call": "agents.baselines:CallAgent",
    "raise": "agents.baselines:RaiseAgent",
    "rule": "agents.baselines:RuleAgent",
    "cfr": "agents.cfr:CFRAgent",
    "lstm_dqn": "agents.dqn:LSTMDQNAgent",
    "dqn": "agents.dqn:DQNAgent",
}


def agent_class(name: str) -> type[Agent]:
    """The class registered as ``name``."""
    try:
        target = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}") from None
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
