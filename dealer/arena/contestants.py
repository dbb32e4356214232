"""A run's contestants: an agent named by its spec (``agents.registry``: a shipped agent or a plugin, played
by ``acpc-agent`` or in process), any command line, or an external bot that connects by itself; building a
contestant's agent and checking it before a run."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from acpc_arena.agents.base import Agent
from acpc_arena.agents.options import parsed_options
from acpc_arena.agents.registry import agent_class, agent_seed, check_spec, spec_label
from acpc_arena.dealer.arena.options import check_command
from acpc_arena.dealer.server.logfiles import check_player_name
from acpc_arena.protocol.game import Game


@dataclass(frozen=True)
class Contestant:
    """One side of a run."""

    label: str
    """``a``, ``b``, ``c``, ... in seat order of the first rotation."""
    agent: str | None = None
    """An agent's spec (``acpc-agent`` runs it): a shipped agent's name, an installed entry point's, or a
    ``module:Class`` or ``file.py:Class`` (its path absolute: ``registry.absolute_spec``)."""
    command: str | None = None
    """A command line template for any other bot."""
    external: bool = False
    """The bot connects by itself to the port the run prints."""
    args: tuple[str, ...] = ()
    """Extra options for the agent."""
    title: str | None = None
    """What to call the player (default: the agent's ``spec_label``, the program's name, or ``external``)."""
    allowed_from: tuple[str, ...] | None = None
    """An external bot: the addresses it may connect from (None: any); a connection from another is closed."""
    plain: bool = False
    """Named ``title`` alone in the logs, without the label (the C benchmark server's names)."""

    def __post_init__(self) -> None:
        if self.command is not None:
            check_command(self.command)
        check_player_name(self.name)

    @property
    def name(self) -> str:
        """The player's name in the logs."""
        default = "external" if self.external else Path(shlex.split(self.command or "cmd")[0]).name
        if self.plain and self.title:
            return self.title
        return f"{self.label}-{self.title or (spec_label(self.agent) if self.agent else default)}"

    def agent_seed(self, seed: int) -> int:
        """The seed of an agent's own random choices in the matches of deal seed ``seed``."""
        return agent_seed(seed, ord(self.label) - ord("a"))

    def build_line(self, game_path: Path) -> list[str]:
        """``acpc-agent``'s arguments (without the program) that build the agent for the game, as
        ``check_agent`` does (seed 0), and play nothing (``acpc-agent --build``)."""
        return [str(self.agent), "--build", "--game", str(game_path), "--seed", "0", *self.args]

    def command_line(self, host: str, port: int, game_path: Path, seed: int) -> list[str]:
        fill = {"host": host, "port": str(port), "game": str(game_path), "seed": str(seed)}
        if self.command is not None:
            return [part.format(**fill) for part in shlex.split(self.command)]
        program = str(Path(sys.executable).parent / "acpc-agent")
        seed_option = ["--seed", str(self.agent_seed(seed))]
        return [program, str(self.agent), host, str(port), "--game", str(game_path), *seed_option, *self.args]


class _RaisingParser(argparse.ArgumentParser):
    """A parser whose errors are ValueErrors, not an exit."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def build_agent(contestant: Contestant, game: Game, seed: int | None) -> Agent:
    """The agent ``contestant`` names, built as ``acpc-agent`` builds it: its options
    (``contestant.args``) parsed by the agent's own parser, ``seed`` its random choices' seed.

    Raises ValueError for options the agent does not take; the agent's own errors propagate.
    """
    if contestant.agent is None:
        raise ValueError(f"{contestant.name} is a command or an external bot, not an agent built here")
    cls = agent_class(contestant.agent)
    parser = _RaisingParser(prog=f"acpc-agent {contestant.agent}", add_help=False)
    parser.add_argument("--name", default=None)
    cls.add_arguments(parser)
    return cls(game, seed, **parsed_options(cls.Options, parser.parse_args(list(contestant.args))))


class AgentCannotPlay(ValueError):
    """An agent that cannot play the run's game with its options: one line naming it, the game and why."""

    def __init__(self, contestant: Contestant, game_file: str, reason: str) -> None:
        given = " ".join([str(contestant.agent), *contestant.args])
        super().__init__(f"agent {contestant.name} ({given}) cannot play {game_file}: {reason}")


def check_agent(contestant: Contestant, game: Game, game_file: str) -> None:
    """Build the agent once for ``game`` with its options, as ``acpc-agent`` would, before any match.

    Raises ``AgentSpecError`` (one line) for a spec that names no usable agent (``registry.check_spec``),
    and ``AgentCannotPlay`` when it cannot play the game (an unknown or bad option, a checkpoint for
    another game, the wrong input planes). Commands and external bots are not checked. (A run's neural
    agents over TCP are built by its warm process instead: ``warm_agents.WarmAgents.check``.)
    """
    if contestant.agent is None:
        return
    check_spec(contestant.agent)  # a spec that names no agent, a dependency not installed: told as it is
    try:
        build_agent(contestant, game, 0)
    except Exception as exc:  # any agent's failure to start is reported in the same one line
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise AgentCannotPlay(contestant, game_file, reason) from None
