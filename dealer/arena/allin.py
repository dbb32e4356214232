"""The all-in adjustment: a hand that ended all in before the last round valued at its expected
value over all the boards that could have come, instead of the board that came.

``AllinValues`` keeps the expected values it has worked out, so that a hand met again
(in a duplicate run the two seatings deal the same cards) is not valued twice; its
owner decides how long it lives (a report, or a tournament's reports together).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import NoReturn

import numpy as np
from tqdm import tqdm

from acpc_arena.protocol.equity import allin_expected_values
from acpc_arena.protocol.match_log import LoggedMatch
from acpc_arena.protocol.wire import LogHand

DEFAULT_HANDS = 50_000
"""How many hands' values an ``AllinValues`` keeps by default (a run of 3 seeds of 3000 hands all in
before the flop has 9000 different ones)."""


class AllinValues:
    """The expected values of all-in hands, the last ``size`` looked up kept (the least recently used
    forgotten first)."""

    def __init__(self, size: int = DEFAULT_HANDS) -> None:
        if size < 1:
            raise ValueError(f"an all-in cache keeps 1 hand or more, not {size}")
        self.size = size
        self._known: OrderedDict[tuple[object, ...], list[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._known)

    def expected(self, hand: LogHand) -> list[float] | None:
        """Each position's expected value of ``hand``, or None when it has none (``allin_expected_values``)."""
        key = _canonical_key(hand)
        known = self._known.get(key)
        if known is not None:
            self._known.move_to_end(key)
            return known
        expected = allin_expected_values(hand.state)
        if expected is not None:
            self._known[key] = expected
            if len(self._known) > self.size:
                self._known.popitem(last=False)
        return expected

    def adjusted(self, match: LoggedMatch, name: str, progress: tqdm[NoReturn] | None = None) -> np.ndarray:
        """``name``'s results in ``match`` with all-in hands replaced by their expected values (``values_of``
        itself, read-only, where no hand ended all in); ``progress`` counts the all-in hands. Only the
        all-in hands are read again from the log."""
        values = match.values_of(name)
        if not len(match.allin_hands):
            return values
        values = values.copy()
        for i, hand in zip(match.allin_hands, match.hands.at(match.allin_hands.tolist()), strict=True):
            if progress is not None:
                progress.update(1)
            expected = self.expected(hand)
            if expected is not None:
                values[i] = expected[hand.names.index(name)]
        return values


def _canonical_key(hand: LogHand) -> tuple[object, ...]:
    """The hand's cards and money with the suits renamed in the order that sorts first.

    Renaming suits changes no hand's equity, so hands equal under some renaming share
    their expected values (in a duplicate run the two seatings deal the same cards).
    """
    state = hand.state
    last = max((r for r in range(state.game.num_rounds) if state.actions[r]), default=0)
    shown = state.game.board_start[last + 1]
    best = None
    for order in itertools.permutations(range(4)):
        rename = [c - c % 4 + order[c % 4] for c in range(52)]
        holes = tuple(tuple(sorted(rename[c] for c in hole)) for hole in state.hole_cards)
        board = tuple(sorted(rename[c] for c in state.board_cards[:shown]))
        key = (holes, board)
        if best is None or key < best:
            best = key
    return (state.game, best, tuple(state.spent), tuple(state.folded))
