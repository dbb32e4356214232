"""Where the compiled dealer lets Python run the handlers of the signals that have arrived.

CPython runs a signal's Python handler (Ctrl-C's ``KeyboardInterrupt``, ``acpc-dealer``'s SIGTERM
handler) from its bytecode loop, at the next instruction it executes. Code compiled with mypyc
(``protocol.native``: the dealer's blocking loop) executes none, so a signal that arrives while the
loop computes between two replies would wait until the loop next enters interpreted code, which a
blocking ``recv`` for a seat that never answers may not do for a day. This module is never compiled:
the loop calls ``run_signal_handlers`` before each blocking read, and the first instruction of this
interpreted function runs whatever handlers are pending (raising what they raise). A signal arriving
during the read itself interrupts the system call, and the socket module runs its handler then.
"""

from __future__ import annotations


def run_signal_handlers() -> None:
    """Enter the interpreter once: CPython runs the pending signals' handlers here."""
    return None
