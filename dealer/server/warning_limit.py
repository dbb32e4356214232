"""Warnings about one seat, rate-limited: the first few of each kind shown, the rest counted.

A seat can send junk lines as fast as the dealer reads them; a line of output
per junk line buries everything else (and fills disks). Standard error gets the
first ``WARNINGS_SHOWN`` warnings of each kind about each seat, then one line
saying that the rest are counted, and at the end of the match one line per kind
with the count. Metrics count every warning.
"""

from __future__ import annotations

from collections import Counter

from acpc_arena.dealer.server.match import WarningKind

WARNINGS_SHOWN = 10
"""Warnings of one kind about one seat shown in a match before the rest are only counted."""


class WarningLimiter:
    """Decides which warnings are shown; counts the others."""

    def __init__(self, shown: int = WARNINGS_SHOWN) -> None:
        self.shown = shown
        self.seen: Counter[tuple[int, WarningKind]] = Counter()

    def admit(self, seat: int | None, kind: WarningKind, text: str) -> list[str]:
        """The lines to show for this warning: itself, a notice that the rest will be counted, or nothing."""
        if seat is None:
            return [text]
        key = (seat, kind)
        self.seen[key] += 1
        count = self.seen[key]
        if count < self.shown:
            return [text]
        if count == self.shown:
            return [text, f"seat {seat + 1}: more '{kind}' warnings are counted and reported at the end"]
        return []

    def not_shown(self) -> list[tuple[int, WarningKind, int]]:
        """Seat, kind and number of the warnings not shown, for each seat and kind that had some."""
        return [
            (seat, kind, count - self.shown) for (seat, kind), count in sorted(self.seen.items()) if count > self.shown
        ]

    def summary(self) -> list[str]:
        """One line per seat and kind of which warnings were not shown."""
        return [
            f"seat {seat + 1}: {count} more '{kind}' warnings not shown ({count + self.shown} in all)"
            for seat, kind, count in self.not_shown()
        ]
