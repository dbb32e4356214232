"""``acpc-bm-user add|passwd|quota|list``: the benchmark server's users, in its database.

The password is read from the terminal (asked twice), or from the first line of standard input.
"""

from __future__ import annotations

import getpass
import sys
from pathlib import Path

from acpc_arena.dealer.benchmark_server.config import check_name
from acpc_arena.dealer.benchmark_server.database import DATABASE_ERRORS, is_url, shown
from acpc_arena.dealer.benchmark_server.passwords import hash_password
from acpc_arena.dealer.benchmark_server.store import DEFAULT_DB, Store, StoreError
from acpc_arena.protocol.commands import FAILED, CommandParser, number, plain, run_command, usage_error


def main(argv: list[str] | None = None) -> None:
    run_command("acpc-bm-user", lambda: manage(sys.argv[1:] if argv is None else argv))


def read_password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            usage_error("acpc-bm-user: the two passwords differ")
        password = first
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if not password or any(c.isspace() for c in password) or not password.isascii():
        usage_error("acpc-bm-user: a password is one word of ASCII characters (it is sent as one)")
    return password


def quota(text: str) -> int | None:
    return None if text == "none" else number(int, lambda n: n >= 0, "a whole number or none")(text)


def manage(argv: list[str]) -> int:
    p = CommandParser(prog="acpc-bm-user", description=plain(__doc__.split("\n\n")[0]))
    p.add_argument(
        "--db", default=str(DEFAULT_DB), help=f"the server's SQLite file or postgresql:// URL (default {DEFAULT_DB})"
    )
    commands = p.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="add a user")
    add.add_argument("name")
    add.add_argument("--quota", type=quota, default=None, help="the runs the user may ask for in all (default none)")
    commands.add_parser("passwd", help="change a user's password").add_argument("name")
    limit = commands.add_parser("quota", help="set a user's quota of runs")
    limit.add_argument("name")
    limit.add_argument("runs", type=quota, help="a whole number, or none")
    commands.add_parser("list", help="the users, their quotas and the runs they asked for")
    args = p.parse_args(argv)
    if args.command == "list" and not is_url(args.db) and not Path(args.db).exists():
        usage_error(f"acpc-bm-user: no database {args.db}")
    try:
        store = Store(args.db)
    except DATABASE_ERRORS as exc:
        usage_error(f"acpc-bm-user: database {shown(args.db)}: {str(exc).strip().splitlines()[0]}")
    try:
        if args.command == "list":
            for name, runs, used in store.users():
                print(f"{name} {used} runs of {'no quota' if runs is None else runs}")
            return 0
        try:
            check_name(args.name, "user name")
        except ValueError as exc:
            usage_error(f"acpc-bm-user: {exc}")
        if args.command == "add":
            store.add_user(args.name, hash_password(read_password()), args.quota)
        elif args.command == "passwd":
            if store.password_hash(args.name) is None:
                raise StoreError(f"no user {args.name}")
            store.set_password(args.name, hash_password(read_password()))
        else:
            store.set_quota(args.name, args.runs)
    except StoreError as exc:
        print(f"acpc-bm-user: {exc}", file=sys.stderr)
        return FAILED
    except DATABASE_ERRORS as exc:
        print(f"acpc-bm-user: database {shown(args.db)}: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return FAILED
    finally:
        store.close()
    return 0
