"""The ACPC log reader: every reading of a ``.log`` goes through here, one line at a time.

Its pieces: ``log_lines`` (a log's lines, bounded and streamed), ``read_header`` and
``parse_header`` (the ``# name/game/hands/seed`` line), ``header_game`` (the game it
names), ``parse_hand_line`` and ``parse_score`` (a line of any ACPC log), ``hand_on_line``
(one hand again from its line), ``log_stamp`` (whether the file changed since it was
read) and ``AcpcLogReader``, the lenient reader below.
``match_log.read_log`` checks a match's log on the same pieces, for the reports.

``AcpcLogReader`` reads ACPC logs as the competitions published them, one hand at a time.
Any dealer's log reads here, this project's or the University of Alberta one's, and
the logs the Annual Computer Poker Competition published (2017:
``STATE:0:cc/cc/cr200c/cr400f:7c4s|2hQh/Ac5h3c/4h/8h:-200|200:Slumbot_2pn_2017|SimpleRule_2pn_2017``):

- values and names are by position in the hand; the names rotate seats every hand,
  so results belong to names, never to positions;
- ``;`` may stand for any ``:`` between the fields (``STATE:0:cc/cc/cr200c/cr400f;7c4s|...``,
  as a paper printed them); a trailing ``# comment`` after the names (DeepStack's logs
  add ``# <timestamp>``) is ignored;
- ``# ...`` and ``;...`` lines are comments (``# name/game/hands/seed`` is read as the header), and
  the ``SCORE:`` line's totals (by seat) are checked against the sums of the hands read;
- plain, ``.gz`` or ``.bz2`` files (told apart by their first bytes, not their names),
  read line by line through ``protocol/files.py``: a file of millions of lines takes
  constant memory, blank and comment lines are passed over in bulk, and a FIFO, a
  line or a file past the limits (``ACPC_ARENA_MAX_LINE_BYTES``,
  ``ACPC_ARENA_MAX_LOG_BYTES``) ends that file with a problem.

A bad line (cut short, betting the ACPC rules refuse, unknown or repeated cards,
values that do not sum to zero or do not follow from the cards and betting, names
missing) is skipped and reported as a ``Problem`` with its file and line; the count
is kept. A damaged compressed file ends that file with a problem, never the run, and
the hands before the damage are kept.

The game: given by the caller, else the one the header names when it is found here
(a file, or a shipped game by its name, e.g. ``holdem.nolimit.2p.reverse_blinds.game``),
else inferred: the shipped games with as many players as the lines name are tried
on the first lines, and the one game under which they read as good hands (betting
valid, values as the blinds and stakes give) is taken. A no-limit line's raise sizes
or a fold's lost blind tell limit from no-limit at once; a file whose hands fit no
shipped game, or several, is reported and skipped (give the game).
"""

from __future__ import annotations

import math
import os
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import InputError, read_lines
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.wire import LogHand, Score, parse_state

HEADER = "# name/game/hands/seed "
HEADER_DIGITS = 20
"""Digits of the header's hands and seed, at most (a 64-bit number has 20)."""
INFERENCE_LINES = 1000
"""How many lines the reader looks at, at most, to infer the game."""
KEPT_PROBLEMS = 1000
"""Problems kept in ``AcpcLogReader.problems``; all are counted and passed to ``on_problem``."""
MAX_PROBLEMS = 10_000
"""Problems in one file after which the rest of it is not read (the file is not an ACPC log of this game)."""
NOT_HEADER = rb"#(?! name/game/hands/seed )"
"""Comment lines but the header."""
PASSED_OVER = NOT_HEADER + rb"|;"
"""Lines passed over without being looked at: comments but the header, and ACPC ``;`` comment lines."""

_STATE_LINE = re.compile(r"STATE[:;]([^:;]*)[:;]([^:;]*)[:;]([^:;]*)[:;]([^:;]*)[:;](.*)\Z", re.DOTALL)
_SCORE_LINE = re.compile(r"SCORE[:;]([^:;]*)[:;](.*)\Z", re.DOTALL)
_TRAILING_COMMENT = re.compile(r"\s+#.*\Z", re.DOTALL | re.ASCII)
"""DeepStack's `` # <time>`` after the names (white space in ASCII: a name may hold U+00A0 or U+3000)."""


class Problem(NamedTuple):
    """A line skipped (or a file given up) and why; ``line`` is 0 for the file as a whole."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}: {self.reason}" if self.line else f"{self.path}: {self.reason}"


class LogHeader(NamedTuple):
    """The ``# name/game/hands/seed`` line."""

    name: str
    game_file: str
    hands: int
    seed: int


class _LongNumbers(ProtocolError):
    """A header whose hands or seed have more than ``HEADER_DIGITS`` digits."""


def read_header(line: str) -> LogHeader:
    """The fields of the header ``line``; ``ProtocolError`` saying why it is none."""
    if not line.startswith(HEADER):
        raise ProtocolError("no '# name/game/hands/seed' header: not an ACPC log")
    parts = line.split()
    if len(parts) != 6:
        raise ProtocolError(f"malformed header {line!r}")
    if not all(p.isascii() and p.isdigit() for p in parts[4:]):
        raise ProtocolError(f"the header's hands and seed must be whole numbers: {line!r}")
    if any(len(p) > HEADER_DIGITS for p in parts[4:]):
        raise _LongNumbers(f"the header's hands and seed must be at most {HEADER_DIGITS} digits")
    return LogHeader(parts[2], parts[3], int(parts[4]), int(parts[5]))


def parse_header(line: str) -> LogHeader | None:
    """The header's fields, or None if ``line`` is not a well-formed header; ``ProtocolError`` if its
    hands or seed are numbers of more than ``HEADER_DIGITS`` digits."""
    try:
        return read_header(line)
    except _LongNumbers as exc:
        raise ProtocolError(f"{exc}: header ignored") from None
    except ProtocolError:
        return None


def header_game(game_file: str, folder: Path) -> Game | None:
    """The game a header names, if found: the file (also beside the log, or by its name alone), or a
    shipped game of that name."""
    name = Path(game_file).name
    candidates = [game_file, str(folder / game_file), str(folder / name), name]
    if name.removesuffix(".game") in SHIPPED_GAMES:
        candidates.append(name.removesuffix(".game"))
    for candidate in dict.fromkeys(candidates):
        try:
            return load_game(candidate)
        except (ProtocolError, OSError, ValueError):
            continue
    return None


def log_lines(path: str | Path, skip: bytes = PASSED_OVER) -> Iterator[tuple[int, str, bool]]:
    """``(number, text, ends with a newline)`` for every line of the log but blank ones and those ``skip``
    passes over (``read_lines``: bounded, in constant memory, plain or compressed), the newline taken off.

    A line is decoded as ``os.fsdecode`` decodes a command line: a player's name is the ``str`` its bytes
    on the dealer's command line give, whatever they are. Raises as ``read_lines`` does.
    """
    for number, raw in read_lines(path, skip):
        text = os.fsdecode(raw)
        yield number, text.removesuffix("\n"), text.endswith("\n")


def log_stamp(path: str | Path) -> tuple[int, int]:
    """The log's size and modification time (ns), which tell whether it changed since it was read;
    ``OSError`` when they cannot be had."""
    status = os.stat(path)
    return status.st_size, status.st_mtime_ns


def hand_on_line(path: str | Path, game: Game, number: int, check: Callable[[], None] | None = None) -> LogHand | None:
    """The hand on line ``number`` of the log (numbered as ``AcpcLogReader`` numbers them), or None when
    the log has no such line now; ``ProtocolError`` when that line is no good hand. ``check`` (a reader's
    budget) is called at every 10,000th line on the way."""
    for count, text, _ in log_lines(path, rb"#|;"):
        if count == number:
            return parse_hand_line(text, game)._replace(path=str(path), line=number)
        if count > number:
            break
        if check is not None and count % 10_000 == 0:
            check()
    return None


def _parse_values(text: str, count: int) -> tuple[float, ...]:
    parts = text.split("|")
    if len(parts) != count:
        raise ProtocolError(f"{len(parts)} values where the game has {count} players")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise ProtocolError(f"values {text!r} are not numbers") from None
    if not all(math.isfinite(v) for v in values):
        raise ProtocolError(f"values {text!r} are not finite numbers")
    return values


def _shown(values: tuple[float, ...] | list[float]) -> str:
    return "|".join(f"{v:g}" for v in values)


def parse_hand_line(line: str, game: Game) -> LogHand:
    """One ``STATE`` line of any ACPC log (either separator), checked to be a whole, consistent hand.

    Raises ``ProtocolError`` saying what is wrong: not a ``STATE`` line, impossible
    betting, unknown or repeated cards, a hand not finished, values that do not sum
    to zero or are not what the cards and betting give, names missing or repeated.
    """
    line = line.rstrip("\r\n")
    fields = _STATE_LINE.match(line)
    if fields is None:
        raise ProtocolError("not a whole STATE line (STATE:<hand>:<betting>:<cards>:<values>:<names>)")
    hand, betting, cards, values_text, names_text = fields.groups()
    state = parse_state(f"STATE:{hand}:{betting}:{cards}", game)
    if not state.finished:
        raise ProtocolError(f"the betting {betting!r} stops before the hand is over")
    if any(len(hole) != game.num_hole_cards for hole in state.hole_cards):
        raise ProtocolError(f"hole cards missing in {cards!r}")
    values = _parse_values(values_text, game.num_players)
    names = tuple(_TRAILING_COMMENT.sub("", names_text).split("|"))
    if len(names) != game.num_players or not all(names):
        raise ProtocolError(f"names {names_text!r} are not {game.num_players} names")
    if len(set(names)) != len(names):
        raise ProtocolError(f"a name appears twice in {names_text!r}")
    if abs(sum(values)) > 1e-6 * max(1.0, max(abs(v) for v in values)):
        raise ProtocolError(f"values {_shown(values)} do not sum to zero")
    expected = state.values()
    if not all(math.isclose(v, e, abs_tol=1e-6) for v, e in zip(values, expected, strict=True)):
        raise ProtocolError(f"values {_shown(values)} are not what the cards and betting give ({_shown(expected)})")
    return LogHand(state, values, names)


def parse_score(line: str) -> Score:
    """The ``SCORE`` line (either separator): totals and names by seat."""
    fields = _SCORE_LINE.match(line.rstrip("\r\n"))
    if fields is None:
        raise ProtocolError("not a whole SCORE line (SCORE:<totals>:<names>)")
    totals_text, names_text = fields.groups()
    names = tuple(_TRAILING_COMMENT.sub("", names_text).split("|"))
    return Score(_parse_values(totals_text, len(names)), names)


class AcpcLogReader:
    """The good hands of one ACPC log, as a generator; problems are collected on the way.

    ``for hand in AcpcLogReader(path):`` yields ``LogHand``s (with ``path`` and
    ``line``) in file order. ``game`` fixes the game (else header or inference, see
    the module). ``on_problem`` is called with each ``Problem`` as it is found.
    After the loop: ``problem_count``, ``problems`` (the first ``KEPT_PROBLEMS``),
    ``hands_read``, ``header``, ``game`` and ``game_name``, ``score`` and ``players``
    (names met).
    """

    def __init__(
        self, path: str | Path, game: Game | None = None, on_problem: Callable[[Problem], None] | None = None
    ) -> None:
        self.path = Path(path)
        self.game = game
        self.game_name = "given" if game is not None else ""
        """Where the game came from: "given", the header's game file, or the shipped game inferred."""
        self.on_problem = on_problem
        self.header: LogHeader | None = None
        self.score: Score | None = None
        self.hands_read = 0
        self.problem_count = 0
        self.problems: list[Problem] = []
        self.players: set[str] = set()
        self._totals: dict[str, float] = {}
        self._score_line = 0

    def problem(self, line: int, reason: str) -> None:
        found = Problem(str(self.path), line, reason)
        self.problem_count += 1
        if len(self.problems) < KEPT_PROBLEMS:
            self.problems.append(found)
        if self.on_problem is not None:
            self.on_problem(found)

    def __iter__(self) -> Iterator[LogHand]:
        lines = self._lines()
        pending: list[tuple[int, str, bool]] = []
        if self.game is None:
            candidates = [(name, load_game(name)) for name in SHIPPED_GAMES]
            for item in lines:
                pending.append(item)
                candidates = self._narrow(candidates, item[1])
                if self._game_known() or len(pending) >= INFERENCE_LINES:
                    break
            if not self._game_known():
                self._undecided(candidates, pending)
                for _ in lines:  # read to the end: damage to the file itself is reported too
                    pass
                return
        for number, line, whole in pending:
            yield from self._read_line(number, line, whole)
        for number, line, whole in lines:
            yield from self._read_line(number, line, whole)
        self._check_score()

    def _game_known(self) -> bool:
        """Whether the game is known (the header or ``_narrow`` may set it while lines are read)."""
        return self.game is not None

    def _narrow(self, candidates: list[tuple[str, Game]], line: str) -> list[tuple[str, Game]]:
        """The candidate games under which ``line`` is a good hand (all of them if it fits none);
        sets ``self.game`` when one is left (or when the header named a game meanwhile)."""
        if self.game is None and line.startswith("STATE"):
            fitting = [(name, game) for name, game in candidates if _fits(line, game)]
            if fitting:
                candidates = fitting
            if len(fitting) == 1:
                self.game_name, self.game = fitting[0]
        return candidates

    def _undecided(self, candidates: list[tuple[str, Game]], pending: list[tuple[int, str, bool]]) -> None:
        if not any(line.startswith("STATE") for _, line, _ in pending):
            if not self.problem_count:  # else the file could not be read, which is said already
                self.problem(0, "no hands to read (no STATE lines)")
        elif len(candidates) == len(SHIPPED_GAMES):
            self.problem(0, "its hands fit none of the shipped games: give the game file (--game)")
        else:
            names = " or ".join(name for name, _ in candidates)
            self.problem(0, f"cannot tell the game from its first hands ({names}): give it (--game)")

    def _lines(self) -> Iterator[tuple[int, str, bool]]:
        """``(number, text, ends with a newline)`` for every line; damage ends the file with a problem."""
        number = 0
        try:
            for number, text, whole in log_lines(self.path):
                if self.problem_count >= MAX_PROBLEMS:
                    self.problem(number, f"{MAX_PROBLEMS} problems: the rest of the file is not read")
                    return
                if text.startswith("#"):
                    self._read_comment(number, text.rstrip("\r\n"))
                elif text.strip():
                    yield number, text.rstrip("\r\n"), whole
        except InputError as exc:
            self.problem(exc.line, f"the rest of the file is not read: {exc.reason}" if exc.line else exc.reason)
        except (OSError, EOFError, zlib.error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            where = f"after line {number}" if number else "at its start"
            self.problem(number + 1 if number else 0, f"cannot read the file {where}: {reason}")

    def _read_comment(self, number: int, text: str) -> None:
        if self.header is not None:
            return
        try:
            header = parse_header(text)
        except ProtocolError as exc:
            self.problem(number, str(exc))
            return
        if header is None:
            return
        self.header = header
        if self.game is None:
            self.game = header_game(header.game_file, self.path.parent)
            self.game_name = header.game_file if self.game is not None else ""

    def _read_line(self, number: int, line: str, whole: bool) -> Iterator[LogHand]:
        assert self.game is not None
        try:
            if line.startswith("STATE"):
                hand = parse_hand_line(line, self.game)
                if not whole and not set(hand.names) <= self.players:
                    raise ProtocolError("the last line is cut short (no newline, a name not met before)")
                self._count(hand)
                yield hand._replace(path=str(self.path), line=number)
            elif line.startswith("SCORE"):
                self.score = parse_score(line)
                self._score_line = number
            else:
                raise ProtocolError(f"not a line of an ACPC log: {line[:60]!r}")
        except ProtocolError as exc:
            cut = "" if whole else " (the last line, without its newline: cut short?)"
            self.problem(number, f"{exc}{cut}")

    def _count(self, hand: LogHand) -> None:
        self.hands_read += 1
        self.players.update(hand.names)
        for name, value in zip(hand.names, hand.values, strict=True):
            self._totals[name] = self._totals.get(name, 0.0) + value

    def _check_score(self) -> None:
        """The SCORE line's totals must be the sums of the hands read (they are not when lines were skipped)."""
        if self.score is None:
            return
        sums = [self._totals.get(name, 0.0) for name in self.score.names]
        if not all(math.isclose(s, t, abs_tol=1e-3) for s, t in zip(sums, self.score.totals, strict=True)):
            self.problem(
                self._score_line,
                f"the SCORE totals {_shown(self.score.totals)} are not the sums of the hands read ({_shown(sums)})",
            )


def _fits(line: str, game: Game) -> bool:
    try:
        parse_hand_line(line, game)
    except ProtocolError:
        return False
    return True
