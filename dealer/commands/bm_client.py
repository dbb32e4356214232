"""``acpc-bm HOST PORT USER PW games|run|rerun|logs|jobs ...``: ``bm_run_matches`` for users without the C tools.

The same arguments and output: ``run 2pl|2pn|3pl SCRIPT RUNS TAG SEED P1 P2 [P3]`` starts ``SCRIPT HOST
PORT`` for each run's ``local`` seat; ``logs J.I`` prints a run's log, ``jobs`` your jobs.

``--timeout S`` (default 60) bounds the wait for each of the server's lines, ``--run-timeout S`` (default a
day) that while a job is queued or played. A refused logon, a server silent too long, a line or a log too
long (``ACPC_ARENA_MAX_LOG_BYTES``) end the command with one line and status 1. Against the C ``bm_server``,
``games``, ``jobs`` and ``run`` are asked in its session's words (``logs`` and ``rerun`` it does not have).
"""

from __future__ import annotations

import sys

from acpc_arena.dealer.benchmark_server.client import BmClient, BmError, Refused
from acpc_arena.protocol.commands import FAILED, plain, run_command, usage_error

USAGE = (
    "usage: acpc-bm [--timeout S] [--run-timeout S] HOST PORT USER PW games"
    " | run|rerun 2pl|2pn|3pl SCRIPT RUNS|INDEX TAG SEED P1 P2 [P3]"
    " | logs J[.I] | jobs"
)


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-bm", lambda: request(sys.argv[1:] if argv is None else argv))


def request(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        print(plain(__doc__.split("\n\n", 1)[1].strip()))
        return 0
    timeouts, argv = _timeouts(argv)
    if len(argv) < 5:
        usage_error("acpc-bm: error: too few arguments (see acpc-bm --help)")
    host, port_text, user, password, *words = argv
    if not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5 and 0 < int(port_text) < 65536):
        usage_error(f"acpc-bm: invalid port {port_text[:20]!r}: a whole number from 1 to 65535")
    if not all(word.isascii() and word.isprintable() and " " not in word for word in argv):
        usage_error("acpc-bm: every argument is sent as one ASCII word")
    client = BmClient(host, int(port_text), user, password, *timeouts)
    try:
        if words[0].lower() == "logs":
            client.log(" ".join(words[1:]), sys.stdout.buffer)
            sys.stdout.flush()
        elif words[0].lower() in ("run", "rerun"):
            client.run(words)
        else:
            for line in client.lines(words):
                print(line, flush=True)
    except Refused as exc:
        print(f"acpc-bm: {host}:{port_text}: logon refused: {exc}", file=sys.stderr)
        return FAILED
    except BmError as exc:
        print(f"acpc-bm: {host}:{port_text}: {exc}", file=sys.stderr)
        return FAILED
    except (OSError, UnicodeError) as exc:  # a host name no resolver takes (999.1.1.1) included
        print(f"acpc-bm: {host}:{port_text}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return FAILED
    finally:
        for bot in client.started:
            bot.wait()
    print("Server closed connection", file=sys.stderr)
    return 0


def _timeouts(argv: list[str]) -> tuple[tuple[float, float], list[str]]:
    """The leading ``--timeout S`` and ``--run-timeout S`` (seconds above 0), and the arguments after them."""
    values = {"--timeout": 60.0, "--run-timeout": 86400.0}
    while argv[:1] and argv[0] in values:
        if len(argv) < 2:
            usage_error(f"acpc-bm: {argv[0]} takes a number of seconds")
        try:
            seconds = float(argv[1])
        except ValueError:
            seconds = -1.0
        if not 0 < seconds < 10**7:
            usage_error(f"acpc-bm: {argv[0]} must be a number of seconds above 0: {argv[1][:20]!r}")
        values[argv[0]] = seconds
        argv = argv[2:]
    return (values["--timeout"], values["--run-timeout"]), argv
