"""The match engine's rules without sockets or clocks: it is told what arrived and when (a fake clock
that the test moves), and answers what to send and until when it waits.

Expected values are worked out by hand from the ACPC dealer's rules (``dealer.c``): the deadline of
a reply is the time its question went plus the least of ``t_response``, what is left of ``t_hand``
this hand and of ``t_per_hand`` x hands this match; a reply past it ends the match; a reply that
echoes another state is ignored; an unreadable or illegal action is played as a call and counted.
"""

from __future__ import annotations

import re

import pytest

from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.lines import SeatError, SeatFailure
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, WarningKind
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import Action


class Recorder(MatchObserver):
    """The warnings and actions the engine reports."""

    def __init__(self) -> None:
        self.warnings: list[tuple[int | None, WarningKind]] = []
        self.actions: list[tuple[int, str, float]] = []

    def warning(self, seat: int | None, kind: WarningKind, text: str) -> None:
        self.warnings.append((seat, kind))

    def action_taken(self, seat: int, action: Action, seconds: float) -> None:
        self.actions.append((seat, action.kind.name, seconds))


class ListLog:
    """A log sink that keeps its lines."""

    next_hand = 0
    last_record = ""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def kuhn(
    hands: int = 3,
    t_response_ms: int = 600_000,
    t_hand_ms: int = 600_000,
    t_per_hand_ms: int = 7_000,
    max_invalid_actions: int = 2**32 - 1,
) -> MatchConfig:
    """Two-player Kuhn with the limits given (the others the dealer's defaults)."""
    return MatchConfig(
        "m",
        load_game("kuhn.limit.2p"),
        "kuhn.limit.2p",
        hands,
        7,
        ("a", "b"),
        max_invalid_actions=max_invalid_actions,
        t_response_ms=t_response_ms,
        t_hand_ms=t_hand_ms,
        t_per_hand_ms=t_per_hand_ms,
    )


def started(config: MatchConfig, observer: MatchObserver | None = None, log: ListLog | None = None) -> MatchEngine:
    engine = MatchEngine(config, observer, log)
    for seat in (0, 1):
        assert engine.version_received(seat, b"VERSION:2.0.0\r\n")
    engine.start(0.0)
    return engine


def ask(engine: MatchEngine, at: float) -> tuple[bytes, int, float]:
    """Send the current messages at clock ``at``; the acting seat's message, its seat and deadline."""
    messages = engine.messages()
    for seat, _, _, noted in messages:
        if noted:
            engine.sent(seat, at, 1000.0 + at)
    asked = engine.next_reply()
    assert asked is not None
    return next(data for seat, data, _, _ in messages if seat == asked[0]), asked[0], asked[1]


def reply(message: bytes, action: str) -> bytes:
    return message.rstrip(b"\r\n") + b":" + action.encode() + b"\r\n"


def test_the_handshake_skips_comments_takes_a_minor_version_and_refuses_another_major() -> None:
    observer = Recorder()
    engine = MatchEngine(kuhn(), observer)
    assert not engine.version_received(0, b"# a comment\r\n")
    assert engine.version_received(0, b"VERSION:2.0.0\r\n")
    assert engine.version_received(1, b"VERSION:2.3.0\n")
    assert observer.warnings == [(1, WarningKind.VERSION)]
    with pytest.raises(SeatError) as refused:
        engine.version_received(1, b"VERSION:3.0.0\r\n")
    assert refused.value.kind == SeatFailure.VERSION


def test_the_first_message_goes_to_the_acting_seat_first_and_only_it_is_noted() -> None:
    engine = started(kuhn())
    messages = engine.messages()
    # Kuhn: the first hand's first player (position 0) is seat 0 (seats rotate from hand 0)
    assert [(seat, noted, held) for seat, _, held, noted in messages] == [(0, True, False), (1, False, False)]
    assert re.fullmatch(rb"MATCHSTATE:0:0::[2-9TJQKA][shdc]\|\r\n", messages[0][1])
    assert re.fullmatch(rb"MATCHSTATE:1:0::\|[2-9TJQKA][shdc]\r\n", messages[1][1])


def test_the_deadline_is_the_least_of_the_response_hand_and_match_budgets() -> None:
    # t_response 5 s, t_hand 3 s, t_per_hand 2 s x 3 hands = 6 s: the hand's 3 s bind first
    engine = started(kuhn(t_response_ms=5000, t_hand_ms=3000, t_per_hand_ms=2000))
    message, seat, deadline = ask(engine, at=10.0)
    assert (seat, deadline) == (0, 13.0)
    assert engine.receive(reply(message, "c"), 12.0, 1012.0)  # 2 s used this hand and match
    message, seat, deadline = ask(engine, at=20.0)
    assert (seat, deadline) == (1, 23.0)  # seat 1 has used nothing yet
    assert engine.receive(reply(message, "r"), 22.5, 1022.5)  # a bet: seat 0 to call or fold
    message, seat, deadline = ask(engine, at=30.0)
    assert (seat, deadline) == (0, 31.0)  # seat 0: 3 - 2 s left of its hand


def test_a_reply_past_its_deadline_ends_the_match() -> None:
    engine = started(kuhn(t_response_ms=1000))
    message, _, deadline = ask(engine, at=5.0)
    assert deadline == 6.0
    with pytest.raises(SeatError) as late:
        engine.receive(reply(message, "c"), 6.25, 1006.25)
    assert (late.value.seat, late.value.kind) == (0, SeatFailure.TIMEOUT)


def test_ignored_lines_and_invalid_actions_are_counted_as_the_c_dealer_counts_them() -> None:
    observer = Recorder()
    engine = started(kuhn(max_invalid_actions=1), observer)
    message, seat, _ = ask(engine, at=0.0)
    assert not engine.receive(b"# thinking\r\n", 0.1, 0.1)
    other_hand = message.replace(b":0:0:", b":0:5:", 1)
    assert not engine.receive(reply(other_hand, "c"), 0.1, 0.1)  # another state: ignored
    assert engine.receive(reply(message, "x"), 0.2, 0.2)  # unreadable: a call, counted
    assert observer.warnings == [(0, WarningKind.UNREQUESTED), (0, WarningKind.BAD_ACTION)]
    assert engine.result.invalid_actions == [1, 0]
    assert observer.actions == []  # told once the next question is out, while its player thinks
    message, seat, _ = ask(engine, at=1.0)
    [(seat_acted, kind, seconds)] = observer.actions
    assert (seat_acted, kind) == (0, "CALL") and seconds == pytest.approx(0.2)
    assert seat == 1
    assert engine.receive(reply(message, "r"), 1.5, 1.5)
    message, seat, _ = ask(engine, at=2.0)
    with pytest.raises(SeatError) as spent:  # a second invalid action, one allowed
        engine.receive(reply(message, "x"), 2.5, 2.5)
    assert spent.value.kind == SeatFailure.INVALID_ACTIONS


def test_a_hand_ends_logged_with_its_values_and_the_seats_rotate() -> None:
    log = ListLog()
    engine = started(kuhn(hands=2), log=log)
    for at, action in ((0.0, "c"), (1.0, "r")):  # seat 0 checks, seat 1 bets
        message, _, _ = ask(engine, at)
        assert engine.receive(reply(message, action), at + 0.1, at + 0.1)
    message, seat, _ = ask(engine, at=2.0)
    assert seat == 0
    assert engine.receive(reply(message, "f"), 2.1, 2.1)  # seat 0 folds its ante of 1
    assert engine.next_reply() is None  # the hand is over: its last states to send, then the next hand
    assert [seat for seat, _, _, _ in engine.messages()] == [0, 1]
    assert len(log.lines) == 1 and log.lines[0].endswith(":-1|1:a|b")
    engine.next_hand()
    _, seat, _ = ask(engine, at=1.0)
    assert seat == 1  # hand 1: seat 1 plays position 0
    assert engine.result.totals == [-1.0, 1.0]
