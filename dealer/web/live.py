"""The matches being played, as the page shows them live.

``LiveBoard`` holds one ``LiveTable`` per match. A table is a ``MatchObserver`` that
keeps the last ``MATCHSTATE`` line each seat was sent (the hole cards of each seat
come from its own view, so the table shows exactly what the players were shown) and
each seat's results; the lines are parsed only when a page asks. ``events`` yields
the whole board as JSON whenever it changes, at most ``EVENTS_PER_SECOND`` times a second.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import trio

from acpc_arena.dealer.arena.report import estimate
from acpc_arena.dealer.match import MatchConfig, MatchObserver
from acpc_arena.dealer.web.tables import last_action, snapshot
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import parse_match_state

EVENTS_PER_SECOND = 10
KEEPALIVE_SECONDS = 15.0


class LiveTable(MatchObserver):
    """One match: the last line each seat was sent, and each seat's hand results."""

    wants_messages = True

    def __init__(self, board: LiveBoard, name: str, config: MatchConfig) -> None:
        self.board = board
        self.name = name
        self.config = config
        self.lines: list[str] = [""] * config.game.num_players
        self.values: list[list[float]] = [[] for _ in range(config.game.num_players)]
        self.status = "playing"
        self.error = ""

    def message_sent(self, seat: int, stamp: float, line: str) -> None:
        self.lines[seat] = line.rstrip("\r\n")
        self.board.changed()

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        for p, value in enumerate(values):
            self.values[config.seat_of_player(state.hand_id, p)].append(value)
        self.board.changed()

    def close(self, error: str | None) -> None:
        self.status = "failed" if error else "finished"
        self.error = error or ""
        self.board.changed()

    def to_json(self) -> dict[str, Any]:
        config = self.config
        n = config.game.num_players
        figure = estimate(np.array(self.values[0]), config.game.big_blind)
        table: dict[str, Any] = {
            "name": self.name,
            "game": config.game_file,
            "seats": list(config.players),
            "hands_planned": config.hands,
            "hands_played": len(self.values[0]),
            "status": self.status,
            "error": self.error,
            "totals": [float(sum(v)) for v in self.values],
            "seat1_mbb": _finite(figure.mbb_per_hand),
            "seat1_ci95": [_finite(figure.ci95[0]), _finite(figure.ci95[1])],
            "table": None,
        }
        views = []
        for seat, line in enumerate(self.lines):
            if line:
                try:
                    views.append((seat, parse_match_state(line, config.game)))
                except ProtocolError:
                    continue
        if not views:
            return table
        state = max((view.state for _, view in views), key=_progress)
        state = state.copy()
        for _, view in views:
            if view.state.hand_id == state.hand_id:
                for p, cards in enumerate(view.state.hole_cards):
                    if cards:
                        state.hole_cards[p] = list(cards)
        names = [config.players[config.seat_of_player(state.hand_id, p)] for p in range(n)]
        shown = [bool(cards) for cards in state.hole_cards]
        values = state.values() if state.finished and all(shown) else None
        table["table"] = snapshot(state, names, shown, last_action(state, names), values)
        for p, player in enumerate(table["table"]["players"]):
            player["seat"] = config.seat_of_player(state.hand_id, p)
        return table


def _progress(state: State) -> tuple[int, int]:
    """How far a view has got (hand, actions taken): the latest one is drawn."""
    return state.hand_id, sum(len(actions) for actions in state.actions)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


class LiveBoard:
    """Every match of a run that a page may watch."""

    def __init__(self) -> None:
        self.tables: dict[str, LiveTable] = {}
        self.version = 0

    def table(self, name: str, config: MatchConfig) -> LiveTable:
        """The observer of a match that starts (a replayed name starts afresh)."""
        table = LiveTable(self, name, config)
        self.tables[name] = table
        self.changed()
        return table

    def finished(self, name: str, error: str | None) -> None:
        if name in self.tables:
            self.tables[name].close(error)

    def changed(self) -> None:
        self.version += 1

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "matches": [table.to_json() for table in self.tables.values()]}

    async def events(self) -> AsyncIterator[str]:
        """The board each time it changes, looked at ``EVENTS_PER_SECOND`` times a second
        (``""``, a keep-alive, after ``KEEPALIVE_SECONDS`` without a change)."""
        seen, quiet = -1, 0.0
        while True:
            if self.version != seen:
                seen, quiet = self.version, 0.0
                yield json.dumps(self.to_json(), separators=(",", ":"))
            elif quiet >= KEEPALIVE_SECONDS:
                quiet = 0.0
                yield ""
            await trio.sleep(1 / EVENTS_PER_SECOND)
            quiet += 1 / EVENTS_PER_SECOND
