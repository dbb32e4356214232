"""acpc-web: the arena's pages for the folders and logs given: replayer, results, and a seat to play a bot.

    acpc-web [PATH ...] [--port 8080] [--host 127.0.0.1] [--out runs/web] [--agent SPEC ...]

Each PATH is a run's folder (``acpc-match``'s or ``acpc-tournament``'s ``--out``), any
folder of ACPC logs, or one log (served alone); the default is ``runs``. The games a
person plays from the page are logged under ``--out``, which is served too. The page
offers the shipped agents and the installed plugins, and each ``--agent`` spec besides
(``package.module:Class`` or ``path/file.py:Class``, ``agents.registry``).
``acpc-match --web PORT`` serves the same pages with its matches live (from a process
of their own, ``side``). Ctrl-C (or SIGTERM) stops it (exit status 130, or 143).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from acpc_arena.agents.registry import absolute_spec, check_spec
from acpc_arena.dealer.arena import options
from acpc_arena.dealer.web.server import WebServer, web_app
from acpc_arena.protocol.commands import USAGE, CommandParser, Interrupted, plain, refuse_input_as_output, run_command

DEFAULT_PORT = 8080


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-web", lambda: serve_pages(sys.argv[1:] if argv is None else argv))


def serve_pages(argv: list[str]) -> int:
    """Serve the pages until Ctrl-C; returns 2, a usage error, when they cannot be served on the host and
    port asked."""
    parser = CommandParser(prog="acpc-web", description=plain(__doc__.split("\n\n")[0]))
    parser.add_argument("paths", nargs="*", type=Path, default=[Path("runs")], help="folders or logs to serve")
    parser.add_argument(
        "--port", type=options.port_or_any, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    parser.add_argument("--out", type=Path, default=Path("runs/web"), help="where a person's games are logged")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="an agent a person may play besides the shipped ones and the installed plugins: package.module:Class "
        "or path/file.py:Class (repeat for more)",
    )
    args = parser.parse_args(argv)
    try:
        for spec in args.agent:
            check_spec(spec)
    except ValueError as exc:  # a spec that names no agent: one line
        print(f"acpc-web: {exc}", file=sys.stderr)
        return USAGE
    refuse_input_as_output("acpc-web", {"--out": args.out}, [path for path in args.paths if path.is_file()])
    missing = [str(p) for p in args.paths if not p.exists() and p != Path("runs")]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    paths = [p for p in args.paths if p.exists()]
    try:
        server = WebServer(web_app(paths, args.out, tuple(absolute_spec(s) for s in args.agent)), args.host, args.port)
    except OSError as exc:
        print(f"acpc-web: could not serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return USAGE
    print(f"acpc-web: open {server.url} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        server.serve_for(math.inf)
    except* KeyboardInterrupt:
        raise Interrupted(f"the pages are down; the games played here are logged in {args.out}") from None
    return 0


if __name__ == "__main__":
    main()
