"""The ACPC dealer: a match's rules, its drivers (blocking sockets and trio), the seats' connections, the
``.log`` and ``.tlog`` files, the console and the structured events."""

from acpc_arena.protocol.native import use_sources

use_sources()  # first: whether engine, sync_match, ... (native.COMPILED) load compiled or from their sources
