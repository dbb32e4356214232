"""What a match is told and produces, whatever drives it: its ``MatchConfig``, the ``MatchObserver``
that hears what happens (console lines, structured events, metrics, progress, pages), the
``WarningKind`` of what it warns about, and its ``MatchResult``.

The rules live in ``engine``; ``sync_match`` (blocking sockets), ``trio_match`` (trio) and
``arena.in_process`` (agents in the same process) drive it. A seat that disconnects, runs out
of time, sends an over-long line or runs out of invalid actions ends the match: the result
carries the error, every finished hand is already in the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from acpc_arena.dealer.server.lines import SeatError, SeatFailure
from acpc_arena.dealer.server.match_config import DEFAULT_T_HAND_MS as DEFAULT_T_HAND_MS
from acpc_arena.dealer.server.match_config import DEFAULT_T_PER_HAND_MS as DEFAULT_T_PER_HAND_MS
from acpc_arena.dealer.server.match_config import DEFAULT_T_RESPONSE_MS as DEFAULT_T_RESPONSE_MS
from acpc_arena.dealer.server.match_config import MAX_TIMEOUT_MS as MAX_TIMEOUT_MS
from acpc_arena.dealer.server.match_config import UINT32_MAX as UINT32_MAX
from acpc_arena.dealer.server.match_config import MatchConfig as MatchConfig
from acpc_arena.protocol.state import Action, State


class WarningKind(StrEnum):
    """What a warning is about (the C dealer's ``WARNING:`` lines, and ``version``)."""

    BAD_STATE = "bad_state"
    """A reply whose state could not be read (ignored)."""
    UNREQUESTED = "unrequested"
    """A reply to another state than the one sent (ignored)."""
    BAD_ACTION = "bad_action"
    """A reply whose action could not be read (changed to call; counts as invalid)."""
    INVALID_ACTION = "invalid_action"
    """An action the rules do not allow (changed to call; counts as invalid)."""
    RAISE_FIXED = "raise_fixed"
    """A no-limit raise below the minimum or above the stack (moved into range)."""
    VERSION = "version"
    """A newer minor protocol version than this server's."""


@dataclass
class MatchResult:
    """What a match produced, by seat."""

    totals: list[float]
    hands_played: int = 0
    invalid_actions: list[int] = field(default_factory=list)
    """Actions each seat sent that were unreadable or against the rules, played as a call instead."""
    fixed_actions: list[int] = field(default_factory=list)
    """No-limit raises each seat sent below the minimum or above its stack, played resized."""
    seconds_used: list[float] = field(default_factory=list)
    error: SeatError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class MatchObserver:
    """Receives what happens in a match; every method does nothing unless overridden."""

    wants_messages: bool = False
    """Whether ``message_sent`` and ``message_received`` should be called (they cost time)."""

    def match_started(self, config: MatchConfig, stamp: float) -> None: ...

    def message_sent(self, seat: int, stamp: float, line: str) -> None: ...

    def message_received(self, seat: int, stamp: float, line: str) -> None: ...

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None: ...

    def action_taken(self, seat: int, action: Action, seconds: float) -> None: ...

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        """``values`` by position in the hand, ``totals`` by seat."""

    def time_report(self, seconds_used: list[float]) -> None:
        """Every 100 hands, the seconds each seat has used so far."""

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None: ...


def reads_actions(observer: MatchObserver) -> bool:
    """Whether ``observer`` does anything with ``action_taken`` (the base class's does nothing)."""
    if isinstance(observer, Observers):
        return bool(observer.acting)
    return type(observer).action_taken is not MatchObserver.action_taken


class Observers(MatchObserver):
    """Several observers as one."""

    def __init__(self, observers: Sequence[MatchObserver]) -> None:
        self.observers = list(observers)
        self.wants_messages = any(o.wants_messages for o in self.observers)
        self.acting = [o for o in self.observers if reads_actions(o)]
        """The observers that read ``action_taken`` (called once an action: the others' is a no-op)."""

    def match_started(self, config: MatchConfig, stamp: float) -> None:
        for o in self.observers:
            o.match_started(config, stamp)

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        for o in self.observers:
            o.message_sent(seat, stamp, line)

    def message_received(self, seat: int, stamp: float, line: str) -> None:
        for o in self.observers:
            o.message_received(seat, stamp, line)

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        for o in self.observers:
            o.warning(seat, kind, text)

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        for o in self.acting:
            o.action_taken(seat, action, seconds)

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        for o in self.observers:
            o.hand_finished(config, state, values, totals)

    def time_report(self, seconds_used: list[float]) -> None:
        for o in self.observers:
            o.time_report(seconds_used)

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        for o in self.observers:
            o.match_finished(config, result, stamp)


__all__ = [
    "DEFAULT_T_HAND_MS",
    "DEFAULT_T_PER_HAND_MS",
    "DEFAULT_T_RESPONSE_MS",
    "MatchConfig",
    "MatchObserver",
    "MatchResult",
    "Observers",
    "SeatError",
    "SeatFailure",
    "WarningKind",
]
