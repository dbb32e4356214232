"""A match's log kept as it is written (``LogTally``, an observer of the match), so that a run the runner
plays itself is scored without reading its logs back: the same ``LoggedMatch`` that
``protocol.match_log.read_log`` makes of the finished log."""

from __future__ import annotations

from array import array
from pathlib import Path

from acpc_arena.dealer.server.match import MatchObserver, MatchResult
from acpc_arena.dealer.server.match_config import MatchConfig
from acpc_arena.protocol.equity import ended_all_in_early
from acpc_arena.protocol.match_log import LoggedMatch, tallied_match
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import Score, format_value


class LogTally(MatchObserver):
    """What ``read_log`` keeps of a match's log, kept as the match is played (an observer of it), so that
    a run the runner plays itself is scored without reading its logs back.

    ``logged`` gives the ``LoggedMatch`` that ``read_log`` makes of the finished log: the same header
    fields, players, score, all-in hands and values to the bit (each value as the log's text gives it
    back). A match that did not play all its hands is left to ``read_log``.
    """

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        n = config.game.num_players
        self._names = [[config.players[config.seat_of_player(hand, p)] for p in range(n)] for hand in range(n)]
        """The players by position, by hand number modulo the players (as the log's lines name them)."""
        self.columns: dict[str, array[float]] = {name: array("d") for name in config.players}
        self.allin: array[int] = array("q")
        self.count = 0
        self.totals: tuple[float, ...] | None = None
        """The totals of the ``SCORE`` line by seat, once the match has played all its hands."""

    def hand_finished(self, config: MatchConfig, state: State, values: list[float], totals: list[float]) -> None:
        if state.hand_id != self.count:  # a hand not told in order: the log is read back instead
            self.count = -1
            return
        for name, value in zip(self._names[state.hand_id % len(self._names)], values, strict=True):
            self.columns[name].append(_as_written(value))
        if ended_all_in_early(state):
            self.allin.append(self.count)
        self.count += 1

    def match_finished(self, config: MatchConfig, result: MatchResult, stamp: float) -> None:
        if result.error is None and self.count == result.hands_played == config.hands:
            self.totals = tuple(_as_written(total) for total in result.totals)

    def logged(self, path: Path) -> LoggedMatch | None:
        """The ``LoggedMatch`` of the log ``path`` the match wrote (closed), or None when it did not play
        all its hands (``read_log`` it); ``ProtocolError`` where ``read_log`` refuses the log's header or
        players."""
        if self.totals is None:
            return None
        config = self.config
        header = config.header().partition("\n")[0]
        score = Score(self.totals, tuple(config.players))
        return tallied_match(path, header, config.game, score, self.count, self.columns, self.allin)


def _as_written(value: float) -> float:
    """``value`` as a log's line gives it back (``format_value``, then read): a whole number is itself."""
    return value if value.is_integer() else float(format_value(value))
