"""``acpc-agent AGENT HOST PORT [--game GAME] [--seed N] [--name NAME] [agent options]``.

Connects agent AGENT (a shipped name, package.module:Class, path/file.py:Class or an installed entry
point) to an ACPC dealer at HOST:PORT and plays until the dealer closes the connection. ``--game`` names
a game file or a shipped game (default: the agent's own, usually ``holdem.limit.2p.reverse_blinds``);
``--seed`` makes the agent's random choices repeatable; ``--name`` labels its messages.

``acpc-agent --check AGENT [--hands N] [--seed N] [--game GAME] [agent options]`` plays N hands (300) of
every shipped game the agent claims (or GAME) and checks the promises of the agent API
(``agents.checking``); ``acpc-agent --list`` prints every name a plain agent name reaches and where it
comes from.

``acpc-agent AGENT --build [--game GAME] [--seed N] [agent options]`` builds the agent for the game (its
options parsed, its checkpoint loaded) and ends, playing nothing: status 0, or 2 with the reason in one line
(the arena's runner checks its neural agents so, in their warm process, before a run's first match).

``acpc-agent --warm AGENT ...`` imports the agents named once, then plays each match asked for on standard
input in a child process of its own, forked (``agents.warm``: the arena's runner starts one a run, so that
torch is imported once, not once a match).

Exit status: 2 for a usage error (an agent spec that names no agent, an unknown game, a bad option, a
checkpoint that is missing or cannot be used), 1 when it cannot connect or the connection is lost, or
when ``--check`` finds a broken promise, 130 or 143 on Ctrl-C or SIGTERM (``protocol.commands``).
"""

from __future__ import annotations

import argparse
import os
import sys

from acpc_arena.agents.base import Agent
from acpc_arena.agents.checking import check_agent
from acpc_arena.agents.client import ClientSession, play_at
from acpc_arena.agents.options import parsed_options
from acpc_arena.agents.registry import add_agent_options, check_spec, spec_sources
from acpc_arena.agents.warm import serve_warm
from acpc_arena.protocol.commands import (
    FAILED,
    CommandParser,
    number,
    plain,
    run_command,
    usage_error,
)
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    run_command("acpc-agent", lambda: _warm(argv[1:]) if argv[:1] == ["--warm"] else run(argv))


def _warm(specs: list[str]) -> int:
    """``--warm``: serve the requests of standard input (``agents.warm``) until their end."""
    try:
        serve_warm(specs, main)
    except ValueError as exc:  # a spec that names no agent, an agent whose dependencies are not installed
        usage_error(f"ERROR: {exc}")
    return 0


def run(argv: list[str]) -> int:
    """Build the agent and play (or check it, or list the agents); returns the exit status (``protocol.commands``)."""
    parser = _parser()
    try:
        cls = add_agent_options(parser, argv)
    except ValueError as exc:  # a spec that names no agent, an agent whose dependencies are not installed
        usage_error(f"ERROR: {exc}")
    args = parser.parse_args(argv)
    if args.list:
        for name, source in sorted(spec_sources().items()):
            print(f"{name}: {source}")
        return 0
    if cls is None:
        parser.error("the agent is required (a shipped name, module:Class, file.py:Class or an entry point)")
    if args.check:
        return _check(args, cls)
    if args.build:
        return _build(args, cls)
    if args.host is None or args.port is None:
        parser.error("HOST and PORT are required (or --check to check the agent)")
    return _play(args, cls)


def _parser() -> CommandParser:
    parser = CommandParser(prog="acpc-agent", description=" ".join(map(plain, __doc__.split("\n\n")[1:3])))
    parser.add_argument("agent", nargs="?", help="which agent plays: a shipped name, module:Class, file.py:Class")
    parser.add_argument("host", nargs="?")
    parser.add_argument("port", nargs="?", type=int)
    parser.add_argument("--game", default=None, help="game definition file or shipped game name")
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent's random choices")
    parser.add_argument("--name", default=None, help="name shown in the agent's messages")
    checking = parser.add_argument_group("checking the agent API's promises")
    checking.add_argument("--check", action="store_true", help="play the games the agent claims and check it")
    checking.add_argument(
        "--hands", type=number(int, lambda n: n > 0, "a positive number"), default=300, help="hands a game"
    )
    checking.add_argument("--list", action="store_true", help="print every agent name and where it comes from")
    checking.add_argument("--build", action="store_true", help="build the agent for the game, then end (no play)")
    return parser


def _check(args: argparse.Namespace, cls: type[Agent]) -> int:
    """``--check``: the report, a line each; 0 if every promise is kept, else 1."""
    try:
        check_spec(args.agent)
        if args.game is not None:
            load_game(args.game)
    except (ValueError, ProtocolError) as exc:
        usage_error(f"ERROR: {exc}")
    seed = 1 if args.seed is None else args.seed
    print(f"checking {args.agent} ({cls.__name__}): {args.hands} hands a game, seed {seed}", flush=True)
    report = check_agent(args.agent, parsed_options(cls.Options, args), hands=args.hands, seed=seed, game=args.game)
    for line in report.lines():
        print(line)
    return 0 if report.ok else FAILED


def _build(args: argparse.Namespace, cls: type[Agent]) -> int:
    """``--build``: the agent built as ``_play`` builds it, then the end; any failure is the usage status with
    its first line (a shipped agent's process ends at once: ``_end_now``)."""
    try:
        cls(load_game(args.game or cls.default_game), args.seed, **parsed_options(cls.Options, args))
    except Exception as exc:  # whatever stops the agent from starting, in one line
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        usage_error(f"ERROR: {reason}")
    if cls.__module__.startswith("acpc_arena."):
        _end_now(0)
    return 0


def _play(args: argparse.Namespace, cls: type[Agent]) -> int:
    """Connect the agent to the dealer and play until it closes the connection."""
    options = parsed_options(cls.Options, args)
    name = args.name or args.agent
    try:
        game = load_game(args.game or cls.default_game)
        agent = cls(game, args.seed, **options)  # a bad option or checkpoint fails here
    except (ProtocolError, ValueError, OSError) as exc:
        usage_error(f"ERROR: {name}: {exc}")
    status = play_at(ClientSession(agent), args.host, args.port, name)
    if cls.__module__.startswith("acpc_arena."):
        _end_now(status)
    return status


def _end_now(status: int) -> None:
    """End the process as a warm child does (``agents.warm``): output flushed, then ``os._exit``. A shipped
    agent keeps nothing past its match, and the interpreter's teardown of torch's modules costs a neural
    agent's process about 0.3 s of CPU. An agent of another package ends normally (its ``atexit`` handlers run)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
