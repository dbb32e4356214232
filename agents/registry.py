"""Agent specs: the shipped agents' names, and plugins (imported only when used).

A spec names an agent class in one of four ways:

- a shipped agent's name (``cfr``), found in ``AGENTS``: ``module:attribute``, the attribute a class or
  a dict of classes by agent name (the style agents, ``agents.styles.STYLE_AGENTS``);
- ``package.module:Class``, a class importable from the Python path;
- ``path/to/file.py:Class``, a class in a file outside any package (loaded under a module name of its
  own, so the same file is loaded once);
- the name of an entry point in the group ``acpc_arena.agents`` of an installed distribution
  (``[project.entry-points."acpc_arena.agents"] mybot = "mybot:MyBot"`` in its ``pyproject.toml``).

A spec that names no agent (a missing file or class, something that is not an ``Agent`` subclass, an
import that fails, an entry point named like a shipped agent) is an ``AgentSpecError``: one line naming
the spec and the cause. A shipped name is resolved without reading the installed distributions (a
command's start stays quick); ``check_spec`` also refuses a shipped name that an entry point takes.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names alone: acpc-match --help starts without the engine (make bench SECTIONS=startup)
    from importlib.metadata import EntryPoint

    from acpc_arena.agents.base import Agent

ENTRY_POINT_GROUP = "acpc_arena.agents"
"""The entry-point group in which installed distributions register their agents."""

AGENTS: dict[str, str] = {
    "random": "acpc_arena.agents.baselines:RandomAgent",
    "call": "acpc_arena.agents.baselines:CallAgent",
    "raise": "acpc_arena.agents.baselines:RaiseAgent",
    "rule": "acpc_arena.agents.baselines:RuleAgent",
    "equity": "acpc_arena.agents.baselines:EquityAgent",
    "cfr": "acpc_arena.agents.cfr:CFRAgent",
    "cfr_exploit": "acpc_arena.agents.cfr_exploit:CFRExploitAgent",
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


def agent_seed(seed: int, index: int) -> int:
    """The seed of the agent of contestant ``index`` (0 for the first) in the matches of deal seed ``seed``: each
    agent's random choices repeat with the deal, and differ from the others' (``acpc-match``'s rule)."""
    return seed * 100 + index + 1


class AgentSpecError(ValueError):
    """A spec that names no usable agent; the message is one line naming the spec and the cause."""

    def __init__(self, spec: str, cause: str) -> None:
        super().__init__(f"agent {spec!r}: {cause}")
        self.spec = spec


def agent_class(spec: str) -> type[Agent]:
    """The agent class ``spec`` names (a shipped name, ``module:Class``, ``file.py:Class`` or an entry point)."""
    if spec in AGENTS:
        return _shipped(spec)
    if ":" in spec:
        return _checked(spec, named_object(spec))
    entry = entry_points().get(spec)
    if entry is None:
        known = ", ".join(sorted(AGENTS))
        raise AgentSpecError(
            spec, f"not a shipped agent ({known}), a module:Class, a file.py:Class or an installed entry point"
        )
    try:
        found = entry.load()
    except Exception as exc:
        raise AgentSpecError(spec, f"its entry point {entry.value} fails to load: {cause_line(exc)}") from None
    return _checked(spec, found)


def named_object(spec: str) -> object:
    """The object ``package.module:name`` or ``path/file.py:name`` names (a file loaded once, under a module
    name of its own); an ``AgentSpecError`` where there is none."""
    place, _, attribute = spec.rpartition(":")
    module = _file_module(spec, place) if _is_file(place) else _import(spec, place)
    return _attribute(spec, module, attribute)


def is_spec(text: str) -> bool:
    """Whether ``text`` has the form of an agent spec other than a command (not whether it loads)."""
    return text in AGENTS or ":" in text or text in entry_points()


def absolute_spec(spec: str, folder: Path | None = None) -> str:
    """``spec`` with the relative path of a ``path/file.py:Class`` made absolute, taken in ``folder`` (default:
    the current one), so that another process, started elsewhere, loads the same file; any other spec as it is."""
    place, colon, attribute = spec.rpartition(":")
    if not colon or not _is_file(place):
        return spec
    return f"{((folder or Path()) / Path(place).expanduser()).absolute()}:{attribute}"


def spec_label(spec: str) -> str:
    """A short name for what ``spec`` names, fit for a player's name (no ``:`` or ``/``): the class's name of a
    ``module:Class`` or ``file.py:Class``, the name itself of a shipped agent or an entry point."""
    return spec.rpartition(":")[2] if ":" in spec else spec


def check_spec(spec: str) -> type[Agent]:
    """``agent_class``, a shipped name refused too when an installed entry point takes it."""
    refuse_taken_name(spec)
    return agent_class(spec)


def refuse_taken_name(spec: str) -> None:
    """``AgentSpecError`` for a shipped agent's name that an installed entry point takes too (nothing imported)."""
    if spec in AGENTS and spec in entry_points():
        where = entry_points()[spec].value
        raise AgentSpecError(spec, f"an installed entry point ({where}) takes this shipped agent's name: rename it")


def spec_sources() -> dict[str, str]:
    """Every agent a plain name reaches, and where it comes from (``acpc-agent --list``)."""
    sources = {name: "shipped" for name in AGENTS}
    for name, entry in entry_points().items():
        dist = entry.dist.name if entry.dist is not None else "an installed distribution"
        if name in AGENTS:
            sources[name] = f"shipped; REFUSED: {dist}'s entry point {entry.value} takes this name too"
        else:
            sources[name] = f"entry point of {dist} ({entry.value})"
    return sources


@cache
def entry_points() -> dict[str, EntryPoint]:
    """The installed distributions' agents (group ``acpc_arena.agents``) by name, read once."""
    from importlib import metadata  # reading the installed distributions: only for a name that is not shipped

    return {entry.name: entry for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _shipped(name: str) -> type[Agent]:
    module, _, attribute = AGENTS[name].partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.startswith("acpc_arena"):
            raise
        raise ValueError(
            f"agent {name!r} needs {exc.name}, which is not installed (pip install 'acpc-arena[agents]')"
        ) from None
    return found[name] if isinstance(found, dict) else found


def _is_file(place: str) -> bool:
    """Whether the part of a spec before its ``:`` names a file (``path/file.py``), not a module."""
    return place.endswith(".py") or "/" in place or "\\" in place


def _import(spec: str, module: str) -> object:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            raise AgentSpecError(spec, f"no module named {exc.name!r} on the Python path") from None
        raise AgentSpecError(spec, f"importing {module} fails: {cause_line(exc)}") from None
    except Exception as exc:
        raise AgentSpecError(spec, f"importing {module} fails: {cause_line(exc)}") from None


@cache
def _file_module(spec: str, place: str) -> object:
    """The module of the file ``place``, loaded once a file (under ``acpc_arena_plugin_<hash of its path>``)."""
    path = Path(place).expanduser().resolve()
    if not path.is_file():
        raise AgentSpecError(spec, f"no file {place}")
    name = "acpc_arena_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentSpecError(spec, f"{place} is not a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # before it runs: its dataclasses and pickles find it
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise AgentSpecError(spec, f"loading {place} fails: {cause_line(exc)}") from None
    return module


def _attribute(spec: str, module: object, attribute: str) -> object:
    """``module.attribute``, or the spec's error naming what the module holds."""
    try:
        return getattr(module, attribute)
    except AttributeError:
        where = getattr(module, "__file__", None) or getattr(module, "__name__", "the module")
        raise AgentSpecError(spec, f"{where} has no {attribute!r}") from None


def _checked(spec: str, found: object) -> type[Agent]:
    from acpc_arena.agents.base import Agent  # the engine: not for a command's --help

    if not (isinstance(found, type) and issubclass(found, Agent)):
        raise AgentSpecError(spec, f"{found!r} is not a subclass of acpc_arena.agents.api.Agent")
    return found


def cause_line(exc: BaseException) -> str:
    """An exception in one line: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return type(exc).__name__ + (f": {text[0]}" if text else "")


def add_agent_options(parser: argparse.ArgumentParser, argv: list[str]) -> type[Agent] | None:
    """Add the options of the agent that ``argv`` names first (as its first positional) to ``parser``.

    Returns that agent's class, or None when ``argv`` names no agent (``parser`` then reports it); a spec
    that names no usable agent is an ``AgentSpecError``.
    """
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("agent", nargs="?")
    known, _ = first.parse_known_args(argv)
    if known.agent is None or known.agent.startswith("-"):
        return None
    cls = agent_class(known.agent)
    cls.add_arguments(parser.add_argument_group(f"options of {known.agent}"))
    return cls
