"""Reading an ACPC log whole and checked (``read_log``): its header, its hands and its ``SCORE`` line.

Works on any ACPC ``.log`` (ours or the C dealer's): every hand must be the next one,
name the match's players and carry the values its cards and betting give, and the
``SCORE`` line must sum them. A last line cut while the log was being written is
left out and counted; any other damage is an error naming the file and line.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from acpc_arena.protocol.acpc_log import HEADER_DIGITS
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import read_lines
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.wire import LogHand, Score, parse_log_line, parse_score_line


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
    hands: list[LogHand]
    score: Score | None
    """None when the log has no SCORE line (the match did not finish)."""
    dropped_lines: int = 0
    """Incomplete last lines left out (a log cut while being written)."""

    def values_of(self, name: str) -> np.ndarray:
        """``name``'s result in every hand, in hand order."""
        return np.array([hand.values[hand.names.index(name)] for hand in self.hands], dtype=np.float64)

    def seat_of(self, name: str) -> int:
        """``name``'s seat, from 0."""
        return self.seat_names.index(name)


HEADER = "# name/game/hands/seed "


def _game_of(game_file: str, override: Game | None, log_path: Path) -> Game:
    if override is not None:
        return override
    candidates = [game_file, str(log_path.parent / game_file), Path(game_file).name]
    stem = Path(game_file).name.removesuffix(".game")
    if stem in SHIPPED_GAMES:
        candidates.append(stem)
    for candidate in candidates:
        try:
            return load_game(candidate)
        except (ProtocolError, OSError, ValueError):
            continue
    raise ProtocolError(f"{log_path}: cannot find the game {game_file!r} of this log (give it with --game)")


def _read_header(path: Path) -> tuple[str, str, int, int]:
    """The match name, game file, planned hands and seed of the ``# name/game/hands/seed`` line, the
    first line but blank and other comment lines."""
    header = next((text for _, text, _ in _log_lines(path, _NOT_HEADER)), "")
    if not header.startswith(HEADER):
        raise ProtocolError(f"{path}: no '# name/game/hands/seed' header: not an ACPC log")
    parts = header.split()
    if len(parts) != 6:
        raise ProtocolError(f"{path}: malformed header {header!r}")
    _, _, name, game_file, planned, seed = parts
    if not (planned.isascii() and planned.isdigit() and seed.isascii() and seed.isdigit()):
        raise ProtocolError(f"{path}: the header's hands and seed must be whole numbers: {header!r}")
    if len(planned) > HEADER_DIGITS or len(seed) > HEADER_DIGITS:
        raise ProtocolError(f"{path}: the header's hands and seed must be at most {HEADER_DIGITS} digits")
    return name, game_file, int(planned), int(seed)


_NOT_HEADER = rb"#(?! name/game/hands/seed )"
"""Comment lines but the header: passed over unread."""


def _log_lines(path: Path, skip: bytes) -> Iterator[tuple[int, str, bool]]:
    """``(number, text, ends with a newline)`` of the log's lines but blank ones and those ``skip``
    matches, the newline taken off; ``ProtocolError`` naming the file when it cannot be read or is
    past the limits of ``protocol/files.py``. A line is decoded as ``os.fsdecode`` decodes a command
    line: a player name is the ``str`` its command-line bytes give, whatever they are."""
    try:
        for number, raw in read_lines(path, skip):
            text = os.fsdecode(raw)  # names as the bytes the dealer was given, read back as that str
            yield number, text.removesuffix("\n"), text.endswith("\n")
    except (OSError, EOFError, zlib.error) as exc:
        raise ProtocolError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _check_hand(hand: LogHand, index: int, seat_names: tuple[str, ...]) -> None:
    """The ``index``-th hand line of a log must be hand ``index``, name the match's players,
    and carry the values that its cards and betting give."""
    if hand.state.hand_id != index:
        raise ProtocolError(f"hand {hand.state.hand_id} where hand {index} should be (hands missing or out of order)")
    if sorted(hand.names) != sorted(seat_names):
        raise ProtocolError(f"players {'|'.join(hand.names)!r} are not the match's players {'|'.join(seat_names)!r}")
    expected = hand.state.values()
    if not all(math.isclose(v, e, abs_tol=1e-6) for v, e in zip(hand.values, expected, strict=True)):
        shown = "|".join(f"{v:g}" for v in expected)
        raise ProtocolError(f"values {'|'.join(f'{v:g}' for v in hand.values)} do not follow from the hand ({shown})")


def read_log(path: str | Path, game: Game | None = None) -> LoggedMatch:
    """Read an ACPC log; ``game`` overrides the game file named in its header.

    A last line without its newline that does not read as a whole line (the log was
    cut while being written) is left out and counted in ``dropped_lines``; any other
    damage is an error naming the line. The log is read line by line through
    ``protocol/files.py`` (plain, ``.gz`` or ``.bz2``, within its limits); comment and
    blank lines are passed over.
    """
    path = Path(path)
    name, game_file, planned, seed = _read_header(path)
    the_game = _game_of(game_file, game, path)
    numbered: list[tuple[int, LogHand]] = []
    score = None
    score_line = 0
    cut, cut_number = "", 0  # the last line, when it has no newline
    for number, line, whole in _log_lines(path, b"#"):
        if not whole:
            cut, cut_number = line, number
            break
        try:
            if score_line and line.strip():
                raise ProtocolError(f"a line after the SCORE line (line {score_line})")
            if line.startswith("STATE"):
                numbered.append((number, parse_log_line(line, the_game)))
            elif line.startswith("SCORE"):
                score, score_line = parse_score_line(line, the_game.num_players), number
            elif line.strip() and not line.startswith("#"):
                raise ProtocolError(f"not a line of an ACPC log: {line[:80]!r}")
        except ProtocolError as exc:
            raise ProtocolError(f"{path}, line {number}: {exc}") from None
    cut_hand, cut_score = _read_cut_line(cut, the_game, numbered) if not score_line else (None, None)
    score = cut_score or score
    seat_names = _seat_names(path, numbered, score)
    for index, (number, hand) in enumerate(numbered):
        try:
            _check_hand(hand, index, seat_names)
        except ProtocolError as exc:
            raise ProtocolError(f"{path}, line {number}: {exc}") from None
    if cut_hand is not None:
        try:
            _check_hand(cut_hand, len(numbered), seat_names)
            numbered.append((cut_number, cut_hand))
        except ProtocolError:
            cut_hand = None
    hands = [hand for _, hand in numbered]
    if score is not None:
        _check_score(path, score, hands)
    dropped = 1 if cut and cut_hand is None and cut_score is None else 0
    return LoggedMatch(path, name, game_file, the_game, planned, seed, seat_names, hands, score, dropped)


def _check_score(path: Path, score: Score, hands: list[LogHand]) -> None:
    """The SCORE line's totals must be the sums of the hands' values."""
    sums = dict.fromkeys(score.names, 0.0)
    for hand in hands:
        for name, value in zip(hand.names, hand.values, strict=True):
            sums[name] += value
    pairs = zip(score.names, score.totals, strict=True)
    if not all(math.isclose(sums[name], total, abs_tol=1e-3) for name, total in pairs):
        shown = "|".join(f"{sums[name]:g}" for name in score.names)
        raise ProtocolError(f"{path}: the SCORE line's totals are not the sums of the hands' values ({shown})")


def _read_cut_line(cut: str, game: Game, numbered: list[tuple[int, LogHand]]) -> tuple[LogHand | None, Score | None]:
    """The last line when the log does not end with a newline, if it still reads as a whole line.

    A line cut inside its last name would read as whole but for that name, so it counts
    only when whole lines before it confirm the players' names.
    """
    if not numbered:
        return None, None
    try:
        if cut.startswith("STATE"):
            return parse_log_line(cut, game), None
        if cut.startswith("SCORE"):
            score = parse_score_line(cut, game.num_players)
            if sorted(score.names) == sorted(numbered[0][1].names):
                return None, score
    except ProtocolError:
        pass
    return None, None


def _seat_names(path: Path, numbered: list[tuple[int, LogHand]], score: Score | None) -> tuple[str, ...]:
    """The players by seat: from the SCORE line, else from hand 0 (where position p is seat p)."""
    if score is not None:
        names = score.names
    elif numbered and numbered[0][1].state.hand_id == 0:
        names = numbered[0][1].names
    elif numbered:
        raise ProtocolError(f"{path}: no SCORE line and no hand 0: cannot tell which player sat where")
    else:
        raise ProtocolError(f"{path}: no hands and no score")
    if len(set(names)) != len(names):
        raise ProtocolError(f"{path}: two seats have the same name ({'|'.join(names)!r}): cannot tell them apart")
    return tuple(names)
