"""The all-in adjustment's cache (``allin.AllinValues``): every value it gives back is the hand's own
enumeration (``protocol.equity.allin_expected_values``, called afresh here), it keeps at most its size,
the least recently used forgotten first, and a report built with a shared cache is the report built
without one. The hands are the all-in hands of a real duplicate pair (tests/data/acpc_match_nolimit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acpc_arena.dealer.arena import allin
from acpc_arena.dealer.arena.allin import AllinValues
from acpc_arena.dealer.arena.reports import build_report
from acpc_arena.protocol.equity import allin_expected_values, ended_all_in_early
from acpc_arena.protocol.match_log import read_log
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import LogHand

PAIR = [Path(__file__).parent / "data" / "acpc_match_nolimit" / f"seed7-a{seat}.log" for seat in (1, 2)]


def allin_hands() -> list[LogHand]:
    return [hand for path in PAIR for hand in read_log(path).hands if ended_all_in_early(hand.state)]


def test_every_value_given_back_is_the_hands_own_enumeration() -> None:
    """Both seatings deal the same cards, so hands of the second log are found under the first's keys:
    what comes back must still be each hand's own expected values, position by position."""
    cache = AllinValues()
    hands = allin_hands()
    assert hands
    for hand in hands:
        assert cache.expected(hand) == pytest.approx(allin_expected_values(hand.state), abs=1e-9)
    assert 0 < len(cache) < len(hands)  # some hands were met again


def test_the_least_recently_used_hand_is_forgotten_first(monkeypatch: pytest.MonkeyPatch) -> None:
    worked_out: list[int] = []

    def counted(state: State) -> list[float] | None:
        worked_out.append(state.hand_id)
        return allin_expected_values(state)

    monkeypatch.setattr(allin, "allin_expected_values", counted)
    first, second, third, fourth = [hand for hand in read_log(PAIR[0]).hands if ended_all_in_early(hand.state)][:4]
    cache = AllinValues(size=3)
    for hand in (first, second, third):
        cache.expected(hand)
    assert len(worked_out) == 3  # three different hands
    cache.expected(first)  # met again: first is now the most recently used
    assert len(worked_out) == 3
    cache.expected(fourth)  # a fourth: second, the least recently used, is forgotten
    assert len(cache) == 3
    cache.expected(first)
    cache.expected(third)
    assert len(worked_out) == 4
    cache.expected(second)
    assert len(worked_out) == 5


def test_a_cache_keeps_one_hand_or_more() -> None:
    with pytest.raises(ValueError, match="1 hand or more"):
        AllinValues(size=0)


def test_a_report_with_a_shared_cache_is_the_report_without_one() -> None:
    matches = [read_log(path) for path in PAIR]
    shared = AllinValues()
    build_report(matches, allin=shared)  # the cache now holds this pair's hands
    assert len(shared) > 0
    assert build_report(matches, allin=shared).to_json() == build_report(matches).to_json()
