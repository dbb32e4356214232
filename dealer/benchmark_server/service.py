"""What ``acpc-bm-server`` does around the server itself: the config's users put in the database
(``add_config_users``), and the server run in a trio run of its own until Ctrl-C (``run_server``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import trio

from acpc_arena.dealer.benchmark_server.config import BmConfig
from acpc_arena.dealer.benchmark_server.passwords import check_password, hash_password
from acpc_arena.dealer.benchmark_server.server import BmServer
from acpc_arena.dealer.benchmark_server.store import Store, StoreError


def add_config_users(store: Store, config: BmConfig) -> None:
    """The config's ``user`` lines into the database: a new user added, a changed password stored."""
    for name, password in config.users.items():
        stored = store.password_hash(name)
        if stored is None:
            with contextlib.suppress(StoreError):  # another server sharing the database added it meanwhile
                store.add_user(name, hash_password(password))
        elif not check_password(stored, password):
            store.set_password(name, hash_password(password))


def run_server(server: BmServer, listening: Callable[[int], None]) -> OSError | None:
    """Serve until Ctrl-C (whose KeyboardInterrupt is raised), ``listening`` told the port once the server
    listens; returns the error that kept it from listening (an address that cannot be listened on, such as
    999.1.1.1, a port in use), or None. An OSError or a database error while it serves is raised."""
    not_listening: list[OSError] = []

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            try:
                port = await nursery.start(server.serve)
            except OSError as exc:
                not_listening.append(exc)
                nursery.cancel_scope.cancel()
                return
            listening(port)

    trio.run(run)
    return not_listening[0] if not_listening else None
