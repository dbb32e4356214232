"""A match's log read back checked, line by line (``read_log``): its header, its players' results in every
hand and its ``SCORE`` line; the reports, tournaments, AIVAT and the benchmark server read logs so.

Works on any ACPC ``.log`` (ours or the C dealer's): every hand must be the next one,
name the match's players and carry the values its cards and betting give, and the
``SCORE`` line must sum them. A last line cut while the log was being written is
left out and counted; any other damage is an error naming the file and line. The lines
come from ``acpc_log``'s reader (``log_lines``: bounded, streamed, plain or compressed)
and read as the dealer writes them (``wire.parse_log_line``, the compiled parser).

The log is read once, in constant memory but for each seat's result in every hand (8 bytes
a hand and seat); its hands themselves are read again from the file where they are wanted
(``LoggedHands``), never held. ``tallied_match`` makes the same ``LoggedMatch`` of a log whose
hands were kept as it was written (``arena.log_tally.LogTally``).
"""

from __future__ import annotations

import math
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from acpc_arena.protocol.acpc_log import NOT_HEADER, LogHeader, header_game, log_lines, log_stamp, read_header
from acpc_arena.protocol.equity import ended_all_in_early
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.wire import LogHand, Score, parse_log_line, parse_score_line


class LoggedHands:
    """A checked log's hands in order, parsed again from the file at each pass over them (none held).

    ``ProtocolError`` naming the file when it changed since it was read.
    """

    def __init__(self, path: Path, game: Game, count: int, stamp: tuple[int, int]) -> None:
        self.path = path
        self.game = game
        self._count = count
        self._stamp = stamp

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[LogHand]:
        return self.at(range(self._count))

    def at(self, indices: Iterable[int]) -> Iterator[LogHand]:
        """The hands of the given indices (ascending), the lines of the others passed over unparsed."""
        wanted = iter(indices)
        next_index = next(wanted, None)
        if next_index is None:
            return
        if _stamp(self.path) != self._stamp:
            raise ProtocolError(f"{self.path} changed since it was read: read it again")
        index = 0
        for _, line, _ in _log_lines(self.path, b"#"):
            if not line.startswith("STATE"):
                continue
            if index == next_index:
                yield parse_log_line(line, self.game)
                next_index = next(wanted, None)
                if next_index is None:
                    return
            index += 1


@dataclass
class LoggedMatch:
    """One ACPC log, read back."""

    path: Path
    name: str
    game_file: str
    game: Game
    planned_hands: int
    seed: int
    seat_names: tuple[str, ...]
    hands: LoggedHands
    score: Score | None
    """None when the log has no SCORE line (the match did not finish)."""
    values: tuple[np.ndarray, ...]
    """Each seat's result in every hand: ``values[seat][hand]`` (read-only arrays)."""
    allin_hands: np.ndarray
    """The indices of the hands that ended all in with board cards to come (``equity.ended_all_in_early``)."""
    dropped_lines: int = 0
    """Incomplete last lines left out (a log cut while being written)."""

    def values_of(self, name: str) -> np.ndarray:
        """``name``'s result in every hand, in hand order (read-only)."""
        return self.values[self.seat_of(name)]

    def seat_of(self, name: str) -> int:
        """``name``'s seat, from 0."""
        return self.seat_names.index(name)


def _game_of(game_file: str, override: Game | None, log_path: Path) -> Game:
    game = override if override is not None else header_game(game_file, log_path.parent)
    if game is None:
        raise ProtocolError(f"{log_path}: cannot find the game {game_file!r} of this log (give it with --game)")
    return game


def _read_header(path: Path) -> LogHeader:
    """The ``# name/game/hands/seed`` line's fields, the first line but blank and other comment lines."""
    return _parse_header(path, next((text for _, text, _ in _log_lines(path, NOT_HEADER)), ""))


def _parse_header(path: Path, header: str) -> LogHeader:
    """``_read_header`` of the log ``path`` whose header line is ``header``."""
    try:
        return read_header(header)
    except ProtocolError as exc:
        raise ProtocolError(f"{path}: {exc}") from None


def _log_lines(path: Path, skip: bytes) -> Iterator[tuple[int, str, bool]]:
    """``acpc_log.log_lines``, with ``ProtocolError`` naming the file when it cannot be read (and
    ``InputError`` when it is past the limits of ``protocol/files.py``)."""
    try:
        yield from log_lines(path, skip)
    except (OSError, EOFError, zlib.error) as exc:
        raise ProtocolError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _stamp(path: Path) -> tuple[int, int]:
    """The file's size and modification time, which tell whether it changed since it was read."""
    try:
        return log_stamp(path)
    except OSError as exc:
        raise ProtocolError(f"cannot read {path}: {exc.strerror or exc}") from None


_HAND_ID, _NAMES, _VALUES = range(3)
"""The checks of a hand, in the order they are told."""


class _Hands:
    """The hands of a log as they are read: each name's results (compact), the all-in hands, the totals,
    and the first hand that fails a check (told once the log's players are known)."""

    def __init__(self) -> None:
        self.count = 0
        self.first: LogHand | None = None
        self.columns: dict[str, array[float]] = {}
        self.allin: array[int] = array("q")
        self.sums: dict[str, float] = {}
        self.failure: tuple[int, int, str] | None = None
        """The first failed check: (hand index, check, reason), checks but the players'."""
        self.stray: tuple[int, tuple[str, ...]] | None = None
        """The first hand whose players are not the first hand's: its index and players."""

    def add(self, hand: LogHand) -> None:
        index = self.count
        if self.first is None:
            self.first = hand
            self.columns = {name: array("d") for name in hand.names}
        elif self.stray is None and sorted(hand.names) != sorted(self.first.names):
            self.stray = (index, hand.names)
        if self.failure is None:
            failed = _failed_check(hand, index)
            if failed is not None:
                self.failure = (index, *failed)
        for name, value in zip(hand.names, hand.values, strict=True):
            self.columns.setdefault(name, array("d")).append(value)
            self.sums[name] = self.sums.get(name, 0.0) + value
        if ended_all_in_early(hand.state):
            self.allin.append(index)
        self.count += 1

    def first_failure(self, seat_names: tuple[str, ...]) -> tuple[int, str] | None:
        """The first hand that fails a check, with the reason (its players are checked against ``seat_names``)."""
        assert self.first is not None
        failures = [] if self.failure is None else [self.failure]
        stray = (0, self.first.names) if sorted(self.first.names) != sorted(seat_names) else self.stray
        if stray is not None:
            failures.append((stray[0], _NAMES, _names_reason(stray[1], seat_names)))
        if not failures:
            return None
        index, _, reason = min(failures)
        return index, reason

    def values(self, seat_names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
        """Each seat's results, by seat (read-only arrays over the columns, not copies)."""
        return tuple(_read_only(self.columns.get(name, array("d"))) for name in seat_names)


def _read_only(column: array[float]) -> np.ndarray:
    """A read-only array over ``column`` (not a copy)."""
    values = np.frombuffer(column, dtype=np.float64)
    values.flags.writeable = False
    return values


def _names_reason(names: tuple[str, ...], seat_names: tuple[str, ...]) -> str:
    return f"players {'|'.join(names)!r} are not the match's players {'|'.join(seat_names)!r}"


def _failed_check(hand: LogHand, index: int) -> tuple[int, str] | None:
    """The ``index``-th hand line of a log must be hand ``index`` and carry the values that its cards and
    betting give: the first check it fails (``_HAND_ID``, ``_VALUES``) with the reason, or None."""
    if hand.state.hand_id != index:
        return _HAND_ID, f"hand {hand.state.hand_id} where hand {index} should be (hands missing or out of order)"
    expected = hand.state.values()
    if not all(math.isclose(v, e, abs_tol=1e-6) for v, e in zip(hand.values, expected, strict=True)):
        shown = "|".join(f"{v:g}" for v in expected)
        return _VALUES, f"values {'|'.join(f'{v:g}' for v in hand.values)} do not follow from the hand ({shown})"
    return None


def _check_hand(hand: LogHand, index: int, seat_names: tuple[str, ...]) -> None:
    """The ``index``-th hand line of a log must be hand ``index``, name the match's players,
    and carry the values that its cards and betting give."""
    failed = _failed_check(hand, index)
    if failed is not None and failed[0] == _HAND_ID:
        raise ProtocolError(failed[1])
    if sorted(hand.names) != sorted(seat_names):
        raise ProtocolError(_names_reason(hand.names, seat_names))
    if failed is not None:
        raise ProtocolError(failed[1])


def read_log(path: str | Path, game: Game | None = None) -> LoggedMatch:
    """Read an ACPC log; ``game`` overrides the game file named in its header.

    A last line without its newline that does not read as a whole line (the log was
    cut while being written) is left out and counted in ``dropped_lines``; any other
    damage is an error naming the line. The log is read line by line through
    ``protocol/files.py`` (plain, ``.gz`` or ``.bz2``, within its limits); comment and
    blank lines are passed over. What is kept of its hands is ``LoggedMatch.values`` and
    ``allin_hands``; ``LoggedMatch.hands`` reads them again from the file.
    """
    path = Path(path)
    name, game_file, planned, seed = _read_header(path)
    the_game = _game_of(game_file, game, path)
    stamp = _stamp(path)
    hands = _Hands()
    score = None
    score_line = 0
    cut = ""  # the last line, when it has no newline
    for number, line, whole in _log_lines(path, b"#"):
        if not whole:
            cut = line
            break
        try:
            if score_line and line.strip():
                raise ProtocolError(f"a line after the SCORE line (line {score_line})")
            if line.startswith("STATE"):
                hands.add(parse_log_line(line, the_game))
            elif line.startswith("SCORE"):
                score, score_line = parse_score_line(line, the_game.num_players), number
            elif line.strip() and not line.startswith("#"):
                raise ProtocolError(f"not a line of an ACPC log: {line[:80]!r}")
        except ProtocolError as exc:
            raise ProtocolError(f"{path}, line {number}: {exc}") from None
    cut_hand, cut_score = _read_cut_line(cut, the_game, hands.first) if not score_line else (None, None)
    score = cut_score or score
    seat_names = _seat_names(path, hands.first, score)
    failure = hands.first_failure(seat_names)
    if failure is not None:
        index, reason = failure
        raise ProtocolError(f"{path}, line {_line_of_hand(path, index)}: {reason}")
    if cut_hand is not None:
        try:
            _check_hand(cut_hand, hands.count, seat_names)
            hands.add(cut_hand)
        except ProtocolError:
            cut_hand = None
    if score is not None:
        _check_score(path, score, hands.sums)
    dropped = 1 if cut and cut_hand is None and cut_score is None else 0
    logged = LoggedHands(path, the_game, hands.count, stamp)
    allin = np.frombuffer(hands.allin, dtype=np.int64)
    values = hands.values(seat_names)
    return LoggedMatch(
        path, name, game_file, the_game, planned, seed, seat_names, logged, score, values, allin, dropped
    )


def _line_of_hand(path: Path, index: int) -> int:
    """The line number of the ``index``-th hand line of the log (read again: told only for an error)."""
    hand_lines = (number for number, line, _ in _log_lines(path, b"#") if line.startswith("STATE"))
    return next((number for i, number in enumerate(hand_lines) if i == index), 0)


def _check_score(path: Path, score: Score, sums: dict[str, float]) -> None:
    """The SCORE line's totals must be the sums of the hands' values (``sums``, by name)."""
    pairs = zip(score.names, score.totals, strict=True)
    if not all(math.isclose(sums.get(name, 0.0), total, abs_tol=1e-3) for name, total in pairs):
        shown = "|".join(f"{sums.get(name, 0.0):g}" for name in score.names)
        raise ProtocolError(f"{path}: the SCORE line's totals are not the sums of the hands' values ({shown})")


def _read_cut_line(cut: str, game: Game, first: LogHand | None) -> tuple[LogHand | None, Score | None]:
    """The last line when the log does not end with a newline, if it still reads as a whole line.

    A line cut inside its last name would read as whole but for that name, so it counts
    only when whole lines before it confirm the players' names.
    """
    if first is None:
        return None, None
    try:
        if cut.startswith("STATE"):
            return parse_log_line(cut, game), None
        if cut.startswith("SCORE"):
            score = parse_score_line(cut, game.num_players)
            if sorted(score.names) == sorted(first.names):
                return None, score
    except ProtocolError:
        pass
    return None, None


def _seat_names(path: Path, first: LogHand | None, score: Score | None) -> tuple[str, ...]:
    """The players by seat: from the SCORE line, else from hand 0 (``first``, the first hand line, where
    position p is seat p)."""
    if score is not None:
        names = score.names
    elif first is not None and first.state.hand_id == 0:
        names = first.names
    elif first is not None:
        raise ProtocolError(f"{path}: no SCORE line and no hand 0: cannot tell which player sat where")
    else:
        raise ProtocolError(f"{path}: no hands and no score")
    if len(set(names)) != len(names):
        raise ProtocolError(f"{path}: two seats have the same name ({'|'.join(names)!r}): cannot tell them apart")
    return tuple(names)


def tallied_match(
    path: Path, header: str, game: Game, score: Score, count: int, columns: dict[str, array[float]], allin: array[int]
) -> LoggedMatch:
    """The ``LoggedMatch`` that ``read_log`` makes of the finished log ``path`` whose header line is ``header``,
    its ``count`` hands kept as they were written: each player's results (``columns``, by name), the all-in
    hands (``allin``) and the ``SCORE`` line (``score``); ``ProtocolError`` where ``read_log`` refuses the
    log's header or players."""
    name, game_file, planned, seed = _parse_header(path, header)
    seat_names = _seat_names(path, None, score)
    hands = LoggedHands(path, game, count, _stamp(path))
    values = tuple(_read_only(columns[seat_name]) for seat_name in seat_names)
    return LoggedMatch(
        path,
        name,
        game_file,
        game,
        planned,
        seed,
        seat_names,
        hands,
        score,
        values,
        np.frombuffer(allin, dtype=np.int64),
    )
