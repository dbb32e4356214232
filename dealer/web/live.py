"""The matches being played, as the page process shows them live.

``LiveBoard`` holds one ``LiveTable`` per match, kept up to date by the match side's
updates (``feed``): the last line of the hand in play, without its hole cards; the last
finished hand as its log line, every card shown as the log shows it; each seat's
total and the first seat's running figures (``estimates.Running``); the match's
status. A hand in play is drawn from the public line (its betting and board); once a
hand is over it is drawn with its cards. The board's JSON
and its server-sent event are built once per change, whoever asks and however many
(``json_bytes``, ``events``); a client gets at most ``EVENTS_PER_SECOND`` of them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import AsyncGenerator
from typing import Any

import trio

from acpc_arena.dealer.arena.estimates import Running
from acpc_arena.dealer.server.match import MatchConfig
from acpc_arena.dealer.web.http import json_bytes, sse_event
from acpc_arena.dealer.web.tables import last_action, snapshot
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import parse_log_line, parse_match_state

EVENTS_PER_SECOND = 10
KEEPALIVE_SECONDS = 15.0


class LiveTable:
    """One match: its public line, its last finished hand, each seat's total and the first seat's figures."""

    def __init__(self, name: str, config: MatchConfig) -> None:
        self.name = name
        self.config = config
        self.line = ""
        self.last = ""
        self.totals = [0.0] * config.game.num_players
        self.seat1 = Running()
        """The first seat's results."""
        self.status = "playing"
        self.error = ""

    def update(self, item: dict[str, Any]) -> None:
        for by_seat in item.get("values", []):
            for seat, value in enumerate(by_seat):
                self.totals[seat] += float(value)
                if seat == 0:
                    self.seat1.add(float(value))
        self.line = item.get("line", self.line)
        self.last = item.get("last", self.last)
        self.status = item.get("status", self.status)
        self.error = item.get("error", self.error)

    def to_json(self) -> dict[str, Any]:
        config = self.config
        figure = self.seat1.estimate(config.game.big_blind)
        return {
            "name": self.name,
            "game": config.game_file,
            "seats": list(config.players),
            "hands_planned": config.hands,
            "hands_played": self.seat1.count,
            "status": self.status,
            "error": self.error,
            "totals": list(self.totals),
            "seat1_mbb": _finite(figure.mbb_per_hand),
            "seat1_ci95": [_finite(figure.ci95[0]), _finite(figure.ci95[1])],
            "table": self._table(),
        }

    def _table(self) -> dict[str, Any] | None:
        config = self.config
        game = config.game
        n = game.num_players
        try:
            playing = parse_match_state(self.line, game).state if self.line else None
            over = parse_log_line(self.last, game) if self.last else None
        except ProtocolError:
            return None
        if over is not None and (playing is None or over.state.hand_id >= playing.hand_id):
            state: State = over.state
            names = list(over.names)
            table = snapshot(state, names, [True] * n, last_action(state, names), over.values)
        elif playing is not None:
            state = playing
            names = [config.players[config.seat_of_player(state.hand_id, p)] for p in range(n)]
            table = snapshot(state, names, [False] * n, last_action(state, names))
        else:
            return None
        for p, player in enumerate(table["players"]):
            player["seat"] = config.seat_of_player(state.hand_id, p)
        return table


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


class LiveBoard:
    """Every match of a run that a page may watch."""

    def __init__(self) -> None:
        self.tables: dict[str, LiveTable] = {}
        self.version = 0
        self._changed = trio.Event()
        self._json: tuple[int, bytes] = (-1, b"")
        self._event: tuple[int, bytes] = (-1, b"")

    def apply(self, update: dict[str, Any]) -> None:
        """An update of the match side (``feed.FeedTable.take``, one per table)."""
        for item in update.get("tables", []):
            name = str(item.get("name", ""))
            start = item.get("start")
            if start is not None:
                try:
                    self.tables[name] = LiveTable(name, _config(name, start))
                except (ProtocolError, OSError, KeyError, ValueError, TypeError) as exc:
                    print(f"acpc-web: match {name} cannot be shown live: {exc}", file=sys.stderr)
                    continue
            table = self.tables.get(name)
            if table is not None:
                table.update(item)
        self.changed()

    def changed(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "matches": [table.to_json() for table in self.tables.values()]}

    def json_bytes(self) -> bytes:
        """The board as JSON, built once per change."""
        if self._json[0] != self.version:
            self._json = (self.version, json_bytes(self.to_json()))
        return self._json[1]

    def event(self) -> bytes:
        """The board as one server-sent event, built once per change."""
        if self._event[0] != self.version:
            self._event = (self.version, sse_event(self.json_bytes().decode()))
        return self._event[1]

    async def events(self) -> AsyncGenerator[bytes, None]:
        """The board each time it changes, at most ``EVENTS_PER_SECOND`` times a second (a keep-alive
        comment after ``KEEPALIVE_SECONDS`` without a change)."""
        seen = -1
        while True:
            if self.version != seen:
                seen = self.version
                yield self.event()
                await trio.sleep(1 / EVENTS_PER_SECOND)
                continue
            with trio.move_on_after(KEEPALIVE_SECONDS) as quiet:
                await self._changed.wait()
            if quiet.cancelled_caught:
                yield sse_event("")


def _config(name: str, start: dict[str, Any]) -> MatchConfig:
    """The match as the page needs it: who sits where, and the game (loaded here, by its name or file)."""
    game_file = str(start["game"])
    return MatchConfig(
        name=name,
        game=load_game(game_file),
        game_file=game_file,
        hands=int(start["hands"]),
        seed=0,
        players=tuple(str(p) for p in start["players"]),
        fixed_seats=bool(start.get("fixed_seats", False)),
    )
