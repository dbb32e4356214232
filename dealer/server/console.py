"""The ACPC dealer's standard-error output, line for line.

Without ``-q``: ``STARTED at``, every ``TO``/``FROM`` message, the seconds each
seat has used every 100 hands, ``FINISHED at``. Always: warnings (rate-limited
per seat, see ``warning_limit``) and errors. Output is buffered and flushed at
the end of every hand and at every warning.
"""

from __future__ import annotations

import io
import sys
from typing import TextIO

from acpc_arena.dealer.server.logfiles import format_stamp
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult, WarningKind
from acpc_arena.dealer.server.warning_limit import WarningLimiter
from acpc_arena.protocol.state import State


class ConsoleObserver(MatchObserver):
    """Writes what the C dealer writes to standard error."""

    def __init__(self, quiet: bool, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.wants_messages = not quiet
        if stream is None:
            stream = io.TextIOWrapper(
                io.BufferedWriter(io.FileIO(sys.stderr.fileno(), "w", closefd=False), 1 << 16),
                encoding="latin-1",
                newline="",
                write_through=False,
            )
        self.out = stream
        self.limiter = WarningLimiter()

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        if not self.quiet:
            self.out.write(f"STARTED at {format_stamp(stamp)}\n")

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        if not self.quiet:
            self.out.write(f"TO {seat + 1} at {format_stamp(stamp)} {line}")

    def message_received(self, seat: int, stamp: float, line: str) -> None:
        if not self.quiet:
            self.out.write(f"FROM {seat + 1} at {format_stamp(stamp)} {line}")

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        lines = self.limiter.admit(seat, kind, text)
        if lines:
            self.out.write("".join(f"WARNING: {line}\n" for line in lines))
            self.out.flush()

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        if not self.quiet:
            self.out.flush()

    def time_report(self, seconds_used: list[float]) -> None:
        if not self.quiet:
            for seat, seconds in enumerate(seconds_used):
                self.out.write(f"Seconds cumulatively spent in match for seat {seat}: {int(seconds)}\n")

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        for line in self.limiter.summary():
            self.out.write(f"WARNING: {line}\n")
        if result.error is not None:
            error = result.error
            self.out.write(f"ERROR: {error}\n")
        elif not self.quiet:
            self.out.write(f"FINISHED at {format_stamp(stamp)}\n")
        self.out.flush()

    def line(self, text: str) -> None:
        """Any other line (the header, the score, errors before the match)."""
        self.out.write(text if text.endswith("\n") else text + "\n")
        self.out.flush()
