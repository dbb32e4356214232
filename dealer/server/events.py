"""Structured event logging (``--log-format json|console``) with structlog.

Instead of the C dealer's plain lines, standard error carries one event per
line: ``match_started``, ``message`` (without ``-q``), ``warning`` (rate-limited
per seat and kind as on the console, with ``warnings_not_shown`` counts at the
end), ``hand_finished`` (without ``-q``), ``match_finished`` and ``error``, each
with the match name and the seat, player and figures it concerns.
"""

from __future__ import annotations

import sys
from typing import Any

import structlog

from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult, WarningKind
from acpc_arena.dealer.server.warning_limit import WarningLimiter
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import format_state


def make_logger(log_format: str) -> Any:
    """A structlog logger writing ``json`` or ``console`` lines to standard error."""
    renderer: Any
    if log_format == "json":
        renderer = structlog.processors.JSONRenderer(sort_keys=False)
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=False)
    return structlog.wrap_logger(
        structlog.PrintLogger(sys.stderr),
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        cache_logger_on_first_use=True,
    )


class EventObserver(MatchObserver):
    """Emits the match's events through a structlog logger."""

    def __init__(self, logger: Any, quiet: bool) -> None:
        self.logger = logger
        self.quiet = quiet
        self.wants_messages = not quiet
        self.log = logger
        self.limiter = WarningLimiter()

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        self.log = self.logger.bind(match=config.name)
        self.log.info(
            "match_started",
            game=config.game_file,
            hands=config.hands,
            seed=config.seed,
            players=list(config.players),
        )

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        if not self.quiet:
            self.log.debug("message", direction="to", seat=seat + 1, at=stamp, line=line.rstrip("\r\n"))

    def message_received(self, seat: int, stamp: float, line: str) -> None:
        if not self.quiet:
            self.log.debug("message", direction="from", seat=seat + 1, at=stamp, line=line.rstrip("\r\n"))

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        shown = self.limiter.admit(seat, kind, text)
        if shown:
            self.log.warning("warning", kind=str(kind), seat=None if seat is None else seat + 1, text=text)
        if len(shown) > 1:
            self.log.warning("warnings_limited", kind=str(kind), seat=None if seat is None else seat + 1, text=shown[1])

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        if not self.quiet:
            self.log.info("hand_finished", hand=state.hand_id, state=format_state(state), values=values)

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        for seat, kind, count in self.limiter.not_shown():
            self.log.warning("warnings_not_shown", kind=str(kind), seat=seat + 1, count=count)
        fields: dict[str, Any] = {
            "hands": result.hands_played,
            "totals": dict(zip(config.players, result.totals, strict=True)),
            "invalid_actions": result.invalid_actions,
        }
        if result.error is None:
            self.log.info("match_finished", **fields)
        else:
            self.log.error(
                "match_failed",
                seat=result.error.seat + 1,
                kind=str(result.error.kind),
                cause=result.error.cause,
                **fields,
            )
