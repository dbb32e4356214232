"""``python -m acpc_arena.agents.sparring.fuzz HOST PORT [--game GAME] [--seed N]``: ``spar_fuzz`` against
a dealer, its actions sent as drawn.

``acpc-agent spar_fuzz`` makes every action valid before sending it, as the client
runtime does for every agent; this one sends what ``spar_fuzz`` draws (raises over the
stack and under the minimum, folds with nothing owed, raises where none is allowed) for
the dealer to correct, as the ACPC dealer does: a raise size out of range is clamped
to the minimum or to all in with a warning (``raise of X increased to Y`` or
``decreased to Y``), and an action the rules do not allow (a fold with nothing owed,
a raise where none is allowed) becomes a call and counts as invalid (``--max-invalid``
of ``acpc-dealer`` ends the match after that many). The ACPC dealer has no option that
changes this. Use it as an ``acpc-match`` command:

    acpc-match --game holdem.nolimit.2p.reverse_blinds --a call --b fuzz \\
        --b-cmd 'python -m acpc_arena.agents.sparring.fuzz {host} {port} --game {game} --seed {seed}' ...

Exit status as ``acpc-agent``'s: 2 for a usage error, 1 when it cannot connect or the
connection is lost.
"""

from __future__ import annotations

import argparse
import sys

from acpc_arena.agents.client import ClientSession, play_at
from acpc_arena.agents.sparring.nolimit import SparFuzz
from acpc_arena.protocol.commands import run_command, usage_error
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import MatchState, format_action


class AsDrawnSession(ClientSession):
    """A client session that answers with ``spar_fuzz``'s action as drawn, not made valid."""

    agent: SparFuzz

    def reply(self, line: str, view: MatchState) -> str:
        return f"{line}:{format_action(self.agent.act_as_drawn(view), self.agent.game)}"


def run(argv: list[str]) -> int:
    """Connect and play until the dealer closes the connection; returns the exit status."""
    description = __doc__.split("\n\n")[1]
    parser = argparse.ArgumentParser(prog="python -m acpc_arena.agents.sparring.fuzz", description=description)
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--game", default=SparFuzz.default_game, help="game definition file or shipped game name")
    parser.add_argument("--seed", type=int, default=None, help="seed of its random choices")
    args = parser.parse_args(argv)
    try:
        agent = SparFuzz(load_game(args.game), args.seed)
    except (ProtocolError, ValueError, OSError) as exc:
        usage_error(f"ERROR: spar_fuzz: {exc}")
    return play_at(AsDrawnSession(agent), args.host, args.port, "spar_fuzz")


def main(argv: list[str] | None = None) -> None:
    run_command("spar_fuzz", lambda: run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
