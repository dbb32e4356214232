"""``acpc-bm-server CONFIG``: the benchmark server of a C ``bm_server.config``, its jobs kept in a database."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acpc_arena.dealer.benchmark_server.config import read_config
from acpc_arena.dealer.benchmark_server.database import DATABASE_ERRORS, shown
from acpc_arena.dealer.benchmark_server.pages import refused_page
from acpc_arena.dealer.benchmark_server.server import BmServer, ServerOptions
from acpc_arena.dealer.benchmark_server.service import add_config_users, run_server
from acpc_arena.dealer.benchmark_server.store import DEFAULT_DB, LEASE_S, Store
from acpc_arena.dealer.benchmark_server.web import start_web
from acpc_arena.protocol.commands import (
    FAILED,
    CommandParser,
    number,
    plain,
    refuse_input_as_output,
    run_command,
    usage_error,
)
from acpc_arena.protocol.files import InputError


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-bm-server", lambda: serve(sys.argv[1:] if argv is None else argv))


def parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="acpc-bm-server", description=plain(__doc__.split("\n\n")[0]))
    positive = number(int, lambda n: n > 0, "a whole number above 0")
    seconds = number(float, lambda s: s > 0, "a number of seconds above 0")
    p.add_argument("config", type=Path, help="the bm_server.config (the C server's format)")
    p.add_argument("--db", default=str(DEFAULT_DB), help=f"a SQLite file or a postgresql:// URL (default {DEFAULT_DB})")
    p.add_argument("--logs", type=Path, default=Path("logs"), help="the folder of the runs' logs (default logs)")
    p.add_argument("--host", default="0.0.0.0", help="the address to listen on (default all)")
    p.add_argument("--announce", default=None, help="the host name sent in RUN lines (default this machine's)")
    p.add_argument("--max-connections", type=positive, default=256, help="connections at once (default 256)")
    p.add_argument("--max-user-connections", type=positive, default=8, help="one user's connections (default 8)")
    p.add_argument("--max-pending-jobs", type=positive, default=16, help="one user's unfinished jobs (default 16)")
    p.add_argument("--login-timeout", type=seconds, default=30.0, help="seconds to send the first line (default 30)")
    p.add_argument(
        "--send-timeout",
        type=seconds,
        default=30.0,
        help="seconds a client may take to read a line or a piece of a log",
    )
    p.add_argument(
        "--c-logs",
        action="store_true",
        help="also append each run's log to LOGS/USER.TAG.log, its players named USER and BOT (the C server's layout)",
    )
    p.add_argument(
        "--run-from-any-address",
        action="store_true",
        help="let a LOCAL seat's port take its bot from any address (the C server's way, for clients behind NAT),"
        " not only from the address that asked for the run",
    )
    p.add_argument("--failure-delay", type=seconds, default=1.0, help="seconds before a failed logon is answered")
    p.add_argument(
        "--lease",
        type=seconds,
        default=LEASE_S,
        help="seconds after which a run a stopped server was playing is played again (the same on every server"
        " sharing a database)",
    )
    p.add_argument("--max-address-connections", type=positive, default=32, help="one address's connections at once")
    p.add_argument(
        "--max-address-logons", type=positive, default=16, help="one address's connections not logged in yet, at once"
    )
    p.add_argument("--logon-failures", type=positive, default=5, help="failed logons per address or name (default 5)")
    p.add_argument("--logon-window", type=seconds, default=60.0, help="... in this many seconds (default 60)")
    port = number(int, lambda n: 0 <= n < 65536, "a port from 0 to 65535")
    p.add_argument("--web", type=port, metavar="PORT", help="serve the queue, results and /metrics on PORT (0: any)")
    p.add_argument("--web-host", default="127.0.0.1", help="the web page's address (default 127.0.0.1)")
    return p


def serve(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    database = None if "://" in args.db else args.db
    refuse_input_as_output("acpc-bm-server", {"--db": database, "--logs": args.logs}, [args.config])
    try:
        config = read_config(args.config)
    except InputError as exc:  # exit 1, as bm_server.c's EXIT_FAILURE for a config it cannot use
        print(f"acpc-bm-server: {exc}", file=sys.stderr)
        return FAILED
    try:
        store = Store(args.db)
        add_config_users(store, config)
    except DATABASE_ERRORS as exc:
        usage_error(f"acpc-bm-server: database {shown(args.db)}: {str(exc).strip().splitlines()[0]}")
    options = ServerOptions(
        host=args.host,
        announce=args.announce,
        logs=args.logs,
        max_connections=args.max_connections,
        max_user_connections=args.max_user_connections,
        max_pending_jobs=args.max_pending_jobs,
        login_timeout=args.login_timeout,
        logon_failures=args.logon_failures,
        logon_window=args.logon_window,
        send_timeout=args.send_timeout,
        failure_delay=args.failure_delay,
        lease=args.lease,
        run_from_any=args.run_from_any_address,
        c_logs=args.c_logs,
        max_address_connections=args.max_address_connections,
        max_address_logons=args.max_address_logons,
    )
    server = BmServer(config, store, options)
    pages = None
    if args.web is not None:
        try:
            pages = start_web(args.db, args.web_host, args.web, lambda: refused_page(server.refused), config)
        except OSError as exc:
            store.close()
            usage_error(f"acpc-bm-server: --web {args.web_host}:{args.web}: {exc.strerror or exc}")
        print(f"web page on {pages.url}", flush=True)

    try:
        error = run_server(server, lambda port: print(f"starting server on port {port}", flush=True))
    except OSError as exc:
        print(f"acpc-bm-server: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except DATABASE_ERRORS as exc:
        print(f"acpc-bm-server: database {shown(args.db)}: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        if pages is not None:
            pages.close()
        store.close()
    if error is not None:
        print(
            f"acpc-bm-server: cannot listen on {args.host} port {config.port}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    return 0
