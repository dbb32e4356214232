"""``acpc-agent AGENT HOST PORT [--game GAME] [--seed N] [--name NAME] [agent options]``.

Connects agent AGENT to an ACPC dealer at HOST:PORT and plays until the dealer
closes the connection. ``--game`` names a game file or a shipped game (default:
the agent's own, usually ``holdem.limit.2p.reverse_blinds``); ``--seed`` makes
the agent's random choices repeatable; ``--name`` labels its messages.

Exit status: 2 for a usage error (an unknown agent or game, a bad option, a
checkpoint that is missing or cannot be used), 1 when it cannot connect or the
connection is lost, 130 or 143 on Ctrl-C or SIGTERM (``protocol.commands``).
"""

from __future__ import annotations

import sys

from acpc_arena.agents.client import ClientError, connect, play
from acpc_arena.agents.options import parsed_options
from acpc_arena.agents.registry import AGENTS, add_agent_options
from acpc_arena.protocol.commands import FAILED, CommandParser, Interrupted, plain, run_command, usage_error
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-agent", lambda: run(sys.argv[1:] if argv is None else argv))


def run(argv: list[str]) -> int:
    """Build the agent, connect and play; returns the exit status (``protocol.commands``)."""
    parser = CommandParser(prog="acpc-agent", description=plain(__doc__.split("\n\n")[1]))
    parser.add_argument("agent", choices=sorted(AGENTS), help="which agent plays")
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--game", default=None, help="game definition file or shipped game name")
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent's random choices")
    parser.add_argument("--name", default=None, help="name shown in the agent's messages")
    try:
        cls = add_agent_options(parser, argv)
    except ValueError as exc:  # an agent whose dependencies are not installed
        usage_error(f"ERROR: {exc}")
    args = parser.parse_args(argv)
    assert cls is not None
    options = parsed_options(cls.Options, args)
    name = args.name or args.agent
    try:
        game = load_game(args.game or cls.default_game)
        agent = cls(game, args.seed, **options)  # a bad option or checkpoint fails here
    except (ProtocolError, ValueError, OSError) as exc:
        usage_error(f"ERROR: {name}: {exc}")
    try:
        sock = connect(args.host, args.port)
    except ClientError as exc:
        print(f"ERROR: {name}: {exc}", file=sys.stderr)
        return FAILED
    try:
        play(agent, sock)
    except ClientError as exc:
        print(f"ERROR: {name}: {exc}", file=sys.stderr)
        return FAILED
    except (ConnectionError, OSError) as exc:
        print(f"ERROR: {name}: connection lost: {exc}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        raise Interrupted(f"{name} left the match") from None
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    main()
