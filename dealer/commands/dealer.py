"""``acpc-dealer``: the ACPC dealer's command line, served with trio.

    acpc-dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]

Options as the ACPC ``dealer``: ``-f`` fixed seats, ``-l``/``-L`` log file off/on
(on by default), ``-p p1port,p2port,...``, ``-q`` quiet, ``-t``/``-T`` transaction
file off/on (off by default), ``-a`` append to the log and transaction files (and
replay the transaction file), ``--t_response MS``, ``--t_hand MS``,
``--t_per_hand MS``, ``--start_timeout MS``. Extras: ``--host`` (bind address,
default 127.0.0.1; ``0.0.0.0`` to listen everywhere as the C dealer does),
``--metrics-port PORT``, ``--metrics-linger SECONDS``, ``--log-format text|json|console``, ``--max-invalid N``,
``--batch-messages`` (hold the messages to a seat that is not to act until it
must act: fewer system calls, but not when the C dealer sends them), ``--web PORT``
(the table live in a browser, and the log's folder in the replayer, served by a
process of their own: see ``pages``) and ``--web-linger SECONDS`` (the pages stay
up that long after the match).

``gameDefFile`` may name a shipped game (``holdem.limit.2p.reverse_blinds``).
The listening ports go to standard output first, then the final ``SCORE`` line;
the exit status is 0 when every hand was played and 1 otherwise (a usage error
too, as the C dealer's). Ctrl-C or SIGTERM ends the match with one line on standard
error, the log keeping the hands played, and status 130 or 143.
"""

from __future__ import annotations

import sys

from acpc_arena.dealer.server.match_config import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS
from acpc_arena.protocol.commands import plain, run_command

USAGE = """usage: dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]
  -f use fixed dealer button at table
  -l/L disable/enable log file - enabled by default
  -p player1_port,player2_port,... [default is random]
  -q only print errors, warnings, and final value to stderr
  -t/T disable/enable transaction file - disabled by default
  -a append to log/transaction files - disabled by default
  --t_response [milliseconds] maximum time per response
  --t_hand [milliseconds] maximum player time per hand
  --t_per_hand [milliseconds] maximum average player time for match
  --start_timeout [milliseconds] maximum time to wait for players to connect
    <0 [default] is no timeout
extras of acpc-dealer:
  --host ADDRESS bind address [default 127.0.0.1]
  --metrics-port PORT serve Prometheus metrics on /metrics
  --metrics-linger SECONDS keep serving the final metrics this long after the match [default 0]
  --log-format text|json|console standard error as the C dealer's lines [text] or structured events
  --max-invalid N end the match after N invalid actions by one seat [default unlimited]
  --batch-messages hold messages to a seat until it must act [default: send each at once]
"""
"""The C ``dealer``'s usage (its own words, ``usage: dealer``), printed as it prints it for a command line
with too few arguments."""


def help_text() -> str:
    """``acpc-dealer --help``: one usage line, the description, then every option with its default."""
    usage, c_options = USAGE.split("\n", 1)
    paragraphs = __doc__.strip().split("\n\n")
    description = plain(f"{paragraphs[0]}\n\n{paragraphs[-1]}")
    defaults = (
        f"  [defaults: --t_response {DEFAULT_T_RESPONSE_MS}, --t_hand {DEFAULT_T_HAND_MS}, "
        f"--t_per_hand {DEFAULT_T_PER_HAND_MS}; each also spelled with hyphens, --t-response ...]\n"
    )
    extras = (
        "  --web PORT the table live in a browser, and the log's folder in the replayer [default: none]\n"
        "  --web-linger SECONDS keep the pages up this long after the match [default 0]\n"
    )
    return (
        f"{usage.replace('usage: dealer', 'usage: acpc-dealer')}\n\n{description}\n\noptions as the C dealer's:\n"
        + (c_options.replace("extras of acpc-dealer:\n", defaults + "extras of acpc-dealer:\n") + extras)
    )


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if any(arg in ("-h", "--help") for arg in argv):
        sys.stdout.write(help_text())
        sys.exit(0)
    from acpc_arena.dealer.commands.dealer_options import UsageError, parse_args  # the game files: not for --help

    try:
        options = parse_args(argv)
    except UsageError as exc:
        if str(exc):
            print(f"ERROR: {exc}", file=sys.stderr)
        else:
            sys.stdout.write(USAGE)
        sys.exit(1)
    from acpc_arena.dealer.commands.dealer_serving import serve_then_linger  # the engine: not for a usage error

    run_command("acpc-dealer", lambda: serve_then_linger(options))


if __name__ == "__main__":
    main()
