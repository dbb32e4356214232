"""A person's seat, played from the page through the real dealer.

``HumanGame`` starts a match of the runner (``run_matches``): the bot is an agent (a
shipped one, an installed plugin, or one ``acpc-web --agent`` names by its spec) in its
own process, the person an external player. When the runner opens the
person's port, ``HumanSeat`` connects to it as any ACPC client does (TCP,
``VERSION:2.0.0``, ``MATCHSTATE`` lines in, responses out) and waits for the page's
choice whenever it is the person's turn. A choice is checked against the legal
actions before it is sent; the page is told why one is refused. The match's log
lands in the web folder, so the replayer opens it afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from acpc_arena.agents.registry import AGENTS, entry_points, spec_label
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.runner import MatchOutcome, MatchSpec, RunObserver, RunSpec, run_matches
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver
from acpc_arena.dealer.web.tables import last_action, snapshot
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import MatchState, format_action, parse_action, parse_match_state

HUMAN_SECONDS_PER_ACTION = 3600
"""A person's time limit per response (and per hand): an hour, where bots get the dealer's defaults."""


def human_agents(more: Sequence[str] = ()) -> list[str]:
    """The agents a person may play from the page: the shipped ones and the installed plugins (by name), then
    ``more`` (specs, ``acpc-web --agent``)."""
    named = sorted((set(AGENTS) | set(entry_points())) - {"human"})
    return named + [spec for spec in more if spec not in named]


class HumanSeat:
    """The person's ACPC connection and what the page shows of it."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.config: MatchConfig | None = None
        """The match's (set when it starts): who sits where."""
        self.view: MatchState | None = None
        self.last_hand: MatchState | None = None
        """The view at the end of the last finished hand (shown while the next one is played)."""
        self.line = ""
        self.version = 0
        self.results: list[float] = []
        self.message = ""
        self._choices: trio.MemoryReceiveChannel[Action]
        self._send_choice, self._choices = trio.open_memory_channel[Action](0)
        self._waiting = False

    def to_json(self) -> dict[str, Any]:
        table = self._table(self.view)
        if table is not None:
            table["your_turn"] = self._waiting
        last = self._table(self.last_hand)
        return {
            "version": self.version,
            "table": table,
            "last_hand": last,
            "results": self.results,
            "message": self.message,
        }

    def _table(self, view: MatchState | None) -> dict[str, Any] | None:
        if view is None or self.config is None:
            return None
        state, config = view.state, self.config
        names = [config.players[config.seat_of_player(state.hand_id, p)] for p in range(self.game.num_players)]
        shown = [bool(cards) for cards in state.hole_cards]
        values = [state.value(p) for p in range(self.game.num_players)] if state.finished else None
        table = snapshot(state, names, shown, last_action(state, names), values)
        table["you"] = view.viewer
        return table

    async def choose(self, text: str) -> None:
        """The page's choice (``f``, ``c``, ``r`` or ``r<size>``); ``ValueError`` with the reason if refused."""
        if self.view is None or not self._waiting:
            raise ValueError("it is not your turn")
        try:
            action = parse_action(text, self.game)
        except ProtocolError as exc:
            raise ValueError(f"not an action: {text!r} ({exc})") from None
        if self.view.state.validate_action(action) != action:
            legal = self.view.state.legal_actions()
            raise ValueError(
                f"{text!r} is not legal here (fold {'yes' if legal.can_fold else 'no'}, "
                + (f"raise to {legal.min_raise_to}-{legal.max_raise_to})" if legal.can_raise else "no raise)")
            )
        self._waiting = False  # a second click before the dealer's next message is refused, not kept for later
        self.version += 1
        await self._send_choice.send(action)

    async def play(self, host: str, port: int) -> None:
        """Connect to the dealer and play until the match ends (or the connection does)."""
        stream = await trio.open_tcp_stream(host, port)
        async with stream:
            await stream.send_all(b"VERSION:2.0.0\r\n")
            buffer = b""
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    self.message = "the match is over"
                    self.version += 1
                    return
                buffer += data
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    line = raw.decode("ascii", "replace").rstrip("\r")
                    if line.startswith(("#", ";")) or not line:
                        continue
                    response = await self._on_line(line)
                    if response is not None:
                        await stream.send_all(response.encode("ascii") + b"\r\n")

    async def _on_line(self, line: str) -> str | None:
        view = parse_match_state(line, self.game)
        self.view, self.line = view, line
        state = view.state
        if state.finished:
            self.results.append(state.value(view.viewer))
            self.last_hand = view
        self.version += 1
        if state.finished or state.current_player != view.viewer:
            return None
        self._waiting = True
        self.version += 1
        try:
            action = await self._choices.receive()
        finally:
            self._waiting = False
            self.version += 1
        return f"{line}:{format_action(action, self.game)}"


class _HumanRun(RunObserver):
    def __init__(self, game: HumanGame, nursery: trio.Nursery) -> None:
        self.game = game
        self.nursery = nursery

    def external_waiting(self, match: MatchSpec, contestant: Contestant, host: str, port: int) -> None:
        self.nursery.start_soon(self.game.seat.play, host, port)

    def match_started(self, match: MatchSpec, config: MatchConfig) -> list[MatchObserver]:
        self.game.seat.config = config
        return []

    def match_finished(self, outcome: MatchOutcome) -> None:
        self.game.outcome = outcome
        self.game.seat.message = (
            f"the match is over: {outcome.error}" if outcome.error else f"the match is over; log {outcome.log.name}"
        )
        self.game.seat.version += 1


class HumanGame:
    """One match of a person against an agent (``agent`` its spec; one copy of it per other seat), its log under
    ``out_dir``."""

    def __init__(self, agent: str, game_file: str, hands: int, seed: int, out_root: Path) -> None:
        game_path = resolve_game_path(game_file)
        game = load_game(game_path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.out_dir = out_root / f"human-vs-{spec_label(agent)}-{stamp}"
        self.spec = RunSpec(
            a=Contestant("a", external=True, title="human"),
            b=Contestant("b", agent=agent),
            game_file=game_file,
            game=game,
            game_path=game_path,
            seeds=(seed,),
            hands=hands,
            out_dir=self.out_dir,
            t_response_ms=HUMAN_SECONDS_PER_ACTION * 1000,
            t_hand_ms=HUMAN_SECONDS_PER_ACTION * 1000,
            t_per_hand_ms=HUMAN_SECONDS_PER_ACTION * 1000,
            external_timeout=60.0,
            more=tuple(Contestant(chr(ord("c") + i), agent=agent) for i in range(game.num_players - 2)),
        )
        self.seat = HumanSeat(game)
        self.outcome: MatchOutcome | None = None

    async def run(self) -> None:
        """Play the match; a failure ends this game (told on the page), never the server."""
        try:
            async with trio.open_nursery() as nursery:
                await run_matches(self.spec, _HumanRun(self, nursery), matches=self.spec.matches()[:1])
                nursery.cancel_scope.cancel()
        except Exception as exc:  # any fault of this game is the page's to show
            cause: BaseException = exc
            while isinstance(cause, BaseExceptionGroup) and len(cause.exceptions) == 1:  # trio's nurseries wrap it
                cause = cause.exceptions[0]
            self.seat.message = f"the game failed: {type(cause).__name__}: {cause}"
            self.seat.version += 1
            if self.outcome is None:
                self.outcome = MatchOutcome(self.spec.matches()[0], self.out_dir / "seed1-a1.log", error=str(exc))
