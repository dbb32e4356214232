"""``acpc-bm HOST PORT USER PW games|run|rerun|logs|jobs ...``: ``bm_run_matches`` for users without the C tools.

The same arguments and output: ``run 2pl|2pn|3pl SCRIPT RUNS TAG SEED P1 P2 [P3]`` starts ``SCRIPT HOST
PORT`` for each run's ``local`` seat; ``logs J.I`` prints a run's log, ``jobs`` your jobs.
"""

from __future__ import annotations

import sys

from acpc_arena.dealer.bm.client import BmClient
from acpc_arena.protocol.commands import FAILED, plain, run_command, usage_error

USAGE = (
    "usage: acpc-bm HOST PORT USER PW games | run|rerun 2pl|2pn|3pl SCRIPT RUNS|INDEX TAG SEED P1 P2 [P3]"
    " | logs J[.I] | jobs"
)


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-bm", lambda: request(sys.argv[1:] if argv is None else argv))


def request(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        print(plain(__doc__.split("\n\n", 1)[1].strip()))
        return 0
    if len(argv) < 5:
        usage_error("acpc-bm: error: too few arguments (see acpc-bm --help)")
    host, port_text, user, password, *words = argv
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        usage_error(f"acpc-bm: invalid port {port_text}")
    if not all(word.isascii() and word.isprintable() and " " not in word for word in argv):
        usage_error("acpc-bm: every argument is sent as one ASCII word")
    client = BmClient(host, int(port_text), user, password)
    try:
        if words[0].lower() == "logs":
            sys.stdout.buffer.write(client.log(" ".join(words[1:])))
            sys.stdout.flush()
        elif words[0].lower() in ("run", "rerun"):
            client.run(words)
        else:
            for line in client.lines(words):
                print(line, flush=True)
    except OSError as exc:
        print(f"acpc-bm: {host}:{port_text}: {exc.strerror or exc}", file=sys.stderr)
        return FAILED
    finally:
        for bot in client.started:
            bot.wait()
    print("Server closed connection", file=sys.stderr)
    return 0
