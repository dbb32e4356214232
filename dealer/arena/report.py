"""Scoring ACPC logs: chips, mbb/h, shares of hands won, duplicate estimates with 95% confidence intervals.

Works on any ACPC ``.log`` (ours or the C dealer's). For two-player matches of
the same seed with the two players' seats exchanged, hand *i* of one and hand *i*
of the other got the same cards with the roles swapped: the mean of the two
results is a duplicate sample, free of most of the card luck. The duplicate
estimate and its interval are computed over those pairs of hands; the plain
per-hand estimate (every hand an independent sample) is given for comparison.
The all-in-adjusted figures value every hand that ended all in before the last
round at its expected value over all the boards that could have come.

Intervals are mean ± 1.96 standard errors (normal approximation, sample standard
deviation); mbb/h is 1000 × chips per hand / big blind.
"""

from __future__ import annotations

import itertools
import math
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from tqdm import tqdm

from acpc_arena.protocol.acpc_log import HEADER_DIGITS, AcpcLogReader, Problem
from acpc_arena.protocol.equity import allin_expected_values, ended_all_in_early
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import read_lines
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.wire import LogHand, Score, parse_log_line, parse_score_line

Z95 = 1.959963984540054


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
    past the limits of ``protocol/files.py``."""
    try:
        for number, raw in read_lines(path, skip):
            text = raw.decode("ascii", errors="replace")
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


@dataclass
class Estimate:
    """A mean per hand with its 95% interval, in chips and in mbb/h."""

    samples: int
    chips_per_hand: float
    chips_ci95: tuple[float, float]
    mbb_per_hand: float
    ci95: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "mbb_per_hand": self.mbb_per_hand,
            "ci95": list(self.ci95),
            "chips_per_hand": self.chips_per_hand,
            "chips_ci95": list(self.chips_ci95),
            "samples": self.samples,
        }


def estimate(samples: np.ndarray, big_blind: int) -> Estimate:
    """Mean ± 1.96 standard errors of per-hand chip results, also in mbb/h."""
    n = len(samples)
    if n == 0:
        nan = float("nan")
        return Estimate(0, nan, (nan, nan), nan, (nan, nan))
    mean = float(np.mean(samples))
    half = Z95 * float(np.std(samples, ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    scale = 1000.0 / big_blind
    return Estimate(n, mean, (mean - half, mean + half), mean * scale, ((mean - half) * scale, (mean + half) * scale))


@dataclass
class MatchFigures:
    match: LoggedMatch
    a_seat: int
    """A's seat, from 0 (shown from 1)."""
    chips_a: float
    mbb_per_hand_a: float
    win_rate_a: float
    """The share of hands in which A won chips (however few), not A's result."""
    hands_won_a: int
    hands_lost_a: int
    error: str | None = None
    allin_a: np.ndarray | None = None
    """A's result in every hand, all-in hands at their expected value (chips)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.match.name,
            "seed": self.match.seed,
            "a_seat": self.a_seat + 1,
            "hands": len(self.match.hands),
            "chips_a": self.chips_a,
            "mbb_per_hand_a": self.mbb_per_hand_a,
            "win_rate_a": self.win_rate_a,
            "hands_won_a": self.hands_won_a,
            "hands_lost_a": self.hands_lost_a,
            "finished": self.match.score is not None,
            "error": self.error,
            "dropped_lines": self.match.dropped_lines,
            "log": str(self.match.path),
        }


@dataclass
class Report:
    a: str
    b: str
    game: Game
    game_file: str
    matches: list[MatchFigures]
    duplicate: Estimate
    per_hand: Estimate
    allin_duplicate: Estimate
    allin_per_hand: Estimate
    per_seed: list[dict[str, Any]]
    duplicate_pairs: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seeds(self) -> list[int]:
        return sorted({m.match.seed for m in self.matches})

    @property
    def main(self) -> Estimate:
        """The duplicate estimate where seeds were played in both seatings, else the per-hand one."""
        return self.duplicate if self.duplicate_pairs else self.per_hand

    @property
    def estimate_kind(self) -> str:
        """``duplicate`` or ``per hand``: which estimate ``main`` is."""
        return "duplicate" if self.duplicate_pairs else "per hand"

    def to_json(self) -> dict[str, Any]:
        main = self.main
        adjusted = self.allin_duplicate if self.duplicate_pairs else self.allin_per_hand
        return {
            "a": self.a,
            "b": self.b,
            "game": self.game_file,
            "seeds": self.seeds,
            "hands": max((m.match.planned_hands for m in self.matches), default=0),
            "big_blind": self.game.big_blind,
            "estimate": "duplicate" if self.duplicate_pairs else "per-hand",
            "mbb_per_hand": main.mbb_per_hand,
            "ci95": list(main.ci95),
            "allin_adjusted": {"mbb_per_hand": adjusted.mbb_per_hand, "ci95": list(adjusted.ci95)},
            "verdict": verdict(main, self.a, self.b, self.estimate_kind),
            "duplicate": self.duplicate.to_json(),
            "per_hand": self.per_hand.to_json(),
            "allin_adjusted_duplicate": self.allin_duplicate.to_json(),
            "allin_adjusted_per_hand": self.allin_per_hand.to_json(),
            "duplicate_pairs": self.duplicate_pairs,
            "hands_played": sum(len(m.match.hands) for m in self.matches),
            "per_seed": self.per_seed,
            "matches": [m.to_json() for m in self.matches],
            **self.extra,
        }


_ALLIN_CACHE: dict[tuple[object, ...], list[float]] = {}


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


def allin_adjusted_values(match: LoggedMatch, name: str, progress: tqdm[NoReturn] | None = None) -> np.ndarray:
    """``name``'s results with all-in hands replaced by their expected values."""
    values = match.values_of(name)
    for i, hand in enumerate(match.hands):
        if not ended_all_in_early(hand.state):
            continue
        if progress is not None:
            progress.update(1)
        key = _canonical_key(hand)
        expected = _ALLIN_CACHE.get(key)
        if expected is None:
            expected = allin_expected_values(hand.state)
            if expected is None:
                continue
            _ALLIN_CACHE[key] = expected
        values[i] = expected[hand.names.index(name)]
    return values


def build_report(
    matches: list[LoggedMatch], a: str | None = None, errors: dict[Path, str] | None = None, progress: bool = False
) -> Report:
    """Figures for player ``a`` (default: seat 1 of the first log) against the other player.

    ``progress`` shows a bar while the all-in hands are valued (each hold'em hand
    all in before the flop takes about a tenth of a second).
    """
    a, b = _players(matches, a)
    game = matches[0].game
    errors = errors or {}
    allin_hands = sum(ended_all_in_early(hand.state) for m in matches for hand in m.hands)
    bar = tqdm(total=allin_hands, unit="hand", desc="valuing all-in hands", disable=not progress or not allin_hands)
    figures: list[MatchFigures] = []
    plain: list[np.ndarray] = []
    plain_adjusted: list[np.ndarray] = []
    by_seed: dict[int, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for match in matches:
        values = match.values_of(a)
        adjusted = allin_adjusted_values(match, a, bar)
        figures.append(_match_figures(match, match.seat_of(a), values, errors.get(match.path)))
        figures[-1].allin_a = adjusted
        plain.append(values)
        plain_adjusted.append(adjusted)
        by_seed.setdefault(match.seed, {})[match.seat_of(a)] = (values, adjusted)
    bar.close()
    pairs, pairs_adjusted, per_seed = _duplicate_pairs(by_seed, game.big_blind)
    return Report(
        a=a,
        b=b,
        game=game,
        game_file=matches[0].game_file,
        matches=figures,
        duplicate=estimate(pairs, game.big_blind),
        per_hand=estimate(np.concatenate(plain), game.big_blind),
        allin_duplicate=estimate(pairs_adjusted, game.big_blind),
        allin_per_hand=estimate(np.concatenate(plain_adjusted), game.big_blind),
        per_seed=per_seed,
        duplicate_pairs=len(pairs),
    )


def _players(matches: list[LoggedMatch], a: str | None) -> tuple[str, str]:
    """A and B: the logs must be of one two-player game between the same two players."""
    if not matches:
        raise ProtocolError("no logs to score")
    game = matches[0].game
    if game.num_players != 2:
        raise ProtocolError("scoring covers two-player matches (duplicate pairs need two seats)")
    for match in matches:
        if match.game != game:
            raise ProtocolError(f"{match.path} is a different game from {matches[0].path}")
    a = a or matches[0].seat_names[0]
    names = {name for m in matches for name in m.seat_names}
    if a not in names:
        raise ProtocolError(f"no player named {a!r} in these logs (players: {', '.join(sorted(names))})")
    others = sorted(names - {a})
    if len(others) != 1:
        raise ProtocolError(f"expected one opponent of {a!r}, found {others}")
    return a, others[0]


def _match_figures(match: LoggedMatch, a_seat: int, values: np.ndarray, error: str | None) -> MatchFigures:
    """One match's figures for A from A's result in every hand."""
    played = len(values) > 0
    return MatchFigures(
        match,
        a_seat,
        float(values.sum()),
        1000.0 * float(values.mean()) / match.game.big_blind if played else float("nan"),
        float((values > 0).mean()) if played else float("nan"),
        int((values > 0).sum()),
        int((values < 0).sum()),
        error,
    )


def _duplicate_pairs(
    by_seed: dict[int, dict[int, tuple[np.ndarray, np.ndarray]]], big_blind: int
) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """The duplicate samples (plain and all-in adjusted) of every seed played in both seats, and per-seed figures.

    ``by_seed[seed][seat]`` holds A's results with A in ``seat``; hand *i* of one
    seating pairs with hand *i* of the other, as far as both went.
    """
    pairs: list[np.ndarray] = []
    pairs_adjusted: list[np.ndarray] = []
    per_seed = []
    for seed in sorted(by_seed):
        seats = by_seed[seed]
        entry: dict[str, Any] = {"seed": seed}
        if 0 in seats and 1 in seats:
            n = min(len(seats[0][0]), len(seats[1][0]))
            pair = (seats[0][0][:n] + seats[1][0][:n]) / 2
            pair_adjusted = (seats[0][1][:n] + seats[1][1][:n]) / 2
            pairs.append(pair)
            pairs_adjusted.append(pair_adjusted)
            entry |= {
                "hands": n,
                "chips_a": float(2 * pair.sum()),
                "duplicate": estimate(pair, big_blind).to_json(),
                "allin_adjusted": estimate(pair_adjusted, big_blind).to_json(),
            }
        per_seed.append(entry)
    joined = np.concatenate(pairs) if pairs else np.array([])
    joined_adjusted = np.concatenate(pairs_adjusted) if pairs_adjusted else np.array([])
    return joined, joined_adjusted, per_seed


def signed(value: float, digits: int = 1) -> str:
    """``+1.5``, ``-0.3``, ``+0.0`` (a value that rounds to zero is never ``-0.0``), ``nan``."""
    return "nan" if math.isnan(value) else f"{round(value, digits) + 0.0:+.{digits}f}"


def _note(figure: MatchFigures) -> str:
    """Why a match's row may be short: unfinished (with the error), incomplete lines left out."""
    notes = []
    if figure.error:
        notes.append(f"unfinished: {figure.error}")
    elif figure.match.score is None:
        notes.append("unfinished")
    if figure.match.dropped_lines:
        notes.append(f"{figure.match.dropped_lines} incomplete last line left out")
    return "; ".join(notes)


def excludes_zero(ci95: tuple[float, float]) -> bool:
    """Whether a 95% interval lies wholly above or wholly below 0 (a NaN interval does not)."""
    return ci95[0] > 0 or ci95[1] < 0


def verdict(est: Estimate, a: str, b: str, kind: str) -> str:
    """Who wins at 95% confidence, from A's estimate ``est`` (``kind``: duplicate or per hand), or that
    the interval includes 0 and the run does not tell the players apart."""
    if not est.samples or math.isnan(est.mbb_per_hand):
        return "no hands to score: no verdict"
    figure = f"{signed(est.mbb_per_hand)} mbb/h for A, 95% CI [{signed(est.ci95[0])}, {signed(est.ci95[1])}]"
    if not excludes_zero(est.ci95):
        return f"no significant difference at 95%: {figure} includes 0 ({kind})"
    winner = f"A ({a})" if est.ci95[0] > 0 else f"B ({b})"
    return f"{winner} wins: {figure} excludes 0 ({kind})"


TABLE_LEGEND = """\
columns:
  A seat          A's seat, from 1; both: the seed's two seatings, dealt the same cards
  hands           hands played; on a duplicate row, pairs of hands (hand i of one seating with hand i of the other)
  chips won by A  A's chips over those hands, both seatings on a "both" row (negative: lost)
  mbb/h A         A's result: chips per hand in thousandths of a big blind
  hands A won     the share of hands in which A won chips, however few: not the result (small pots won
                  can add up to less than a few big ones lost)
  note            on the pooled rows, the estimate and its 95% confidence interval (mean ± 1.96 standard errors)"""


def format_table(report: Report) -> str:
    """One row per seed and seat (like table 4-2 of seed 000), then the duplicate rows, the verdict
    and what the columns mean."""
    rows = [("seed", "A seat", "hands", "chips won by A", "mbb/h A", "hands A won", "note")]
    for figure in sorted(report.matches, key=lambda f: (f.match.seed, f.a_seat)):
        rows.append(
            (
                str(figure.match.seed),
                str(figure.a_seat + 1),
                str(len(figure.match.hands)),
                signed(figure.chips_a, 0),
                signed(figure.mbb_per_hand_a),
                f"{100 * figure.win_rate_a:.1f}%",
                _note(figure),
            )
        )
    for entry in report.per_seed:
        if "duplicate" in entry:
            dup = entry["duplicate"]
            rows.append(
                (
                    str(entry["seed"]),
                    "both",
                    str(entry["hands"]),
                    signed(entry["chips_a"], 0),
                    signed(dup["mbb_per_hand"]),
                    "",
                    f"duplicate, 95% CI [{signed(dup['ci95'][0])}, {signed(dup['ci95'][1])}]",
                )
            )
    main = report.main
    adjusted = report.allin_duplicate if report.duplicate_pairs else report.allin_per_hand
    kind = report.estimate_kind
    rows.append(
        (
            "all",
            "both",
            str(main.samples),
            signed(main.chips_per_hand * main.samples * (2 if report.duplicate_pairs else 1), 0),
            signed(main.mbb_per_hand),
            "",
            f"{kind}, 95% CI [{signed(main.ci95[0])}, {signed(main.ci95[1])}]",
        )
    )
    rows.append(
        (
            "all",
            "both",
            str(adjusted.samples),
            "",
            signed(adjusted.mbb_per_hand),
            "",
            f"all-in adjusted {kind}, 95% CI [{signed(adjusted.ci95[0])}, {signed(adjusted.ci95[1])}]",
        )
    )
    if report.duplicate_pairs:
        ph = report.per_hand
        rows.append(
            ("all", "both", str(ph.samples), "", signed(ph.mbb_per_hand), "",
             f"per hand, 95% CI [{signed(ph.ci95[0])}, {signed(ph.ci95[1])}]")
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"A = {report.a}, B = {report.b}, game {report.game_file}, big blind {report.game.big_blind}"]
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.rjust(widths[i]) if i < 6 else cell for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:6]) + "  " + "-" * 4)
    lines += ["", "verdict: " + verdict(main, report.a, report.b, kind), "", TABLE_LEGEND]
    return "\n".join(lines)


# -- one player's results in any ACPC logs (competition logs included) -------------


@dataclass
class PlayerLog:
    """One log's results for the player of interest, read by ``AcpcLogReader`` (bad lines skipped)."""

    path: Path
    game: Game
    game_name: str
    opponents: tuple[str, ...]
    seed: int | None
    """The header's seed (None without a header): logs of one seed with the seats exchanged pair up."""
    seat: int | None
    """The player's seat, from 0: from the SCORE line, else hand 0 (where position p is seat p)."""
    hand_ids: np.ndarray
    values: np.ndarray
    """The player's result in each hand read, with its hand number in ``hand_ids``."""
    hands_read: int
    problems: int
    finished: bool


def read_player_log(
    path: Path, player: str, game: Game | None = None, on_problem: Callable[[Problem], None] | None = None
) -> PlayerLog | None:
    """``player``'s results in the log at ``path`` (None if the player is not in it), in constant
    memory but for the results themselves; each bad line goes to ``on_problem``."""
    reader = AcpcLogReader(path, game, on_problem)
    ids: array[int] = array("q")
    values: array[float] = array("d")
    opponents: set[str] = set()
    seat = None
    for hand in reader:
        if player not in hand.names:
            continue
        position = hand.names.index(player)
        if hand.state.hand_id == 0:
            seat = position
        ids.append(hand.state.hand_id)
        values.append(hand.values[position])
        opponents.update(name for name in hand.names if name != player)
    if not ids or reader.game is None:
        return None
    if reader.score is not None and player in reader.score.names:
        seat = reader.score.names.index(player)
    return PlayerLog(
        path,
        reader.game,
        reader.game_name,
        tuple(sorted(opponents)),
        reader.header.seed if reader.header else None,
        seat,
        np.frombuffer(ids, dtype=np.int64).copy(),
        np.frombuffer(values, dtype=np.float64).copy(),
        reader.hands_read,
        reader.problem_count,
        reader.score is not None,
    )


@dataclass
class PlayerReport:
    """``player``'s results over logs of one game, by log, by opponent and in all."""

    player: str
    game: Game
    game_name: str
    logs: list[PlayerLog]
    per_hand: Estimate
    duplicate: Estimate
    duplicate_pairs: int
    by_opponent: dict[str, Estimate]

    def to_json(self) -> dict[str, Any]:
        main = self.duplicate if self.duplicate_pairs else self.per_hand
        return {
            "player": self.player,
            "game": self.game_name,
            "big_blind": self.game.big_blind,
            "estimate": "duplicate" if self.duplicate_pairs else "per-hand",
            "mbb_per_hand": main.mbb_per_hand,
            "ci95": list(main.ci95),
            "per_hand": self.per_hand.to_json(),
            "duplicate": self.duplicate.to_json(),
            "duplicate_pairs": self.duplicate_pairs,
            "by_opponent": {name: est.to_json() for name, est in self.by_opponent.items()},
            "hands_played": int(sum(len(log.values) for log in self.logs)),
            "problems": sum(log.problems for log in self.logs),
            "logs": [
                {
                    "log": str(log.path),
                    "opponents": list(log.opponents),
                    "seed": log.seed,
                    "seat": None if log.seat is None else log.seat + 1,
                    "hands": len(log.values),
                    "chips": float(log.values.sum()),
                    "mbb_per_hand": estimate(log.values, self.game.big_blind).mbb_per_hand,
                    "problems": log.problems,
                    "finished": log.finished,
                }
                for log in self.logs
            ],
        }


def build_player_report(logs: list[PlayerLog], player: str) -> PlayerReport:
    """Figures for ``player``, whatever seat they had: per hand, per opponent, and duplicate
    where two two-player logs share a header seed and opponent with the seats exchanged
    (hands paired by hand number, as far as both logs hold them)."""
    if not logs:
        raise ProtocolError(f"no hands of {player!r} in these logs")
    game = logs[0].game
    for log in logs:
        if log.game != game:
            raise ProtocolError(f"{log.path} is a different game from {logs[0].path}")
    by_opponent: dict[str, list[np.ndarray]] = {}
    for log in logs:
        by_opponent.setdefault(", ".join(log.opponents), []).append(log.values)
    pairs = _seed_pairs(logs) if game.num_players == 2 else []
    joined = np.concatenate(pairs) if pairs else np.array([])
    return PlayerReport(
        player,
        game,
        logs[0].game_name,
        logs,
        estimate(np.concatenate([log.values for log in logs]), game.big_blind),
        estimate(joined, game.big_blind),
        len(joined),
        {name: estimate(np.concatenate(parts), game.big_blind) for name, parts in sorted(by_opponent.items())},
    )


def _seed_pairs(logs: list[PlayerLog]) -> list[np.ndarray]:
    """Duplicate samples: the mean of the player's results in hand i of both seatings of a seed."""
    seatings: dict[tuple[int, tuple[str, ...]], dict[int, PlayerLog]] = {}
    for log in logs:
        if log.seed is not None and log.seat is not None:
            seatings.setdefault((log.seed, log.opponents), {})[log.seat] = log
    pairs = []
    for both in seatings.values():
        if 0 in both and 1 in both:
            _, first, second = np.intersect1d(both[0].hand_ids, both[1].hand_ids, return_indices=True)
            pairs.append((both[0].values[first] + both[1].values[second]) / 2)
    return pairs


def _ci_note(kind: str, est: Estimate) -> str:
    return f"{kind}, 95% CI [{signed(est.ci95[0])}, {signed(est.ci95[1])}]"


def format_player_table(report: PlayerReport) -> str:
    """One row per log, then per opponent, then in all (duplicate too where logs pair up)."""
    bb = report.game.big_blind
    rows = [("log", "opponent", "seat", "hands", "chips", "mbb/h", "note")]
    for log in report.logs:
        notes = [] if log.finished else ["no SCORE line"]
        if log.problems:
            notes.append(f"{log.problems} problems (bad lines skipped), named on standard error")
        seat = "?" if log.seat is None else str(log.seat + 1)
        chips = float(log.values.sum())
        mbb = estimate(log.values, bb).mbb_per_hand
        rows.append((log.path.name, ", ".join(log.opponents), seat, str(len(log.values)), signed(chips, 0),
                     signed(mbb), "; ".join(notes)))  # fmt: skip
    for name, est in report.by_opponent.items():
        rows.append(("all", name, "all", str(est.samples), "", signed(est.mbb_per_hand), _ci_note("per hand", est)))
    main = report.per_hand
    total = signed(main.chips_per_hand * main.samples, 0)
    rows.append(("all", "all", "all", str(main.samples), total, signed(main.mbb_per_hand), _ci_note("per hand", main)))
    if report.duplicate_pairs:
        dup = report.duplicate
        rows.append(("all", "all", "both", str(dup.samples), "", signed(dup.mbb_per_hand), _ci_note("duplicate", dup)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"player {report.player}, game {report.game_name}, big blind {bb}"]
    for k, row in enumerate(rows):
        cells = [
            cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) if i < 6 else cell for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:6]) + "  " + "-" * 4)
    return "\n".join(lines)


# -- three or more players: every rotation of the seats with the same cards -------


@dataclass
class MultiReport:
    """Each player's figures over matches of one game of three or more players.

    A seed is duplicated when its matches put every player in every seat equally
    often (``acpc-match`` plays the N rotations): a player's duplicate sample for
    hand *i* is the mean of its results in hand *i* of those matches, which got
    the same cards. The players' samples of a hand sum to zero.
    """

    players: list[str]
    game: Game
    game_file: str
    matches: list[LoggedMatch]
    errors: dict[Path, str]
    duplicate: dict[str, Estimate]
    per_hand: dict[str, Estimate]
    duplicate_samples: int
    per_seed: list[dict[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seeds(self) -> list[int]:
        return sorted({m.seed for m in self.matches})

    def main(self, player: str) -> Estimate:
        """The duplicate estimate where seeds were duplicated, else the per-hand one."""
        return self.duplicate[player] if self.duplicate_samples else self.per_hand[player]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "game": self.game_file,
            "seeds": self.seeds,
            "hands": max((m.planned_hands for m in self.matches), default=0),
            "big_blind": self.game.big_blind,
            "estimate": "duplicate" if self.duplicate_samples else "per-hand",
            "mbb_per_hand": {name: self.main(name).mbb_per_hand for name in self.players},
            "ci95": {name: list(self.main(name).ci95) for name in self.players},
            "duplicate": {name: est.to_json() for name, est in self.duplicate.items()},
            "per_hand": {name: est.to_json() for name, est in self.per_hand.items()},
            "duplicate_samples": self.duplicate_samples,
            "hands_played": sum(len(m.hands) for m in self.matches),
            "per_seed": self.per_seed,
            "matches": [
                {
                    "seed": m.seed,
                    "seats": list(m.seat_names),
                    "hands": len(m.hands),
                    "chips": {name: float(m.values_of(name).sum()) for name in m.seat_names},
                    "finished": m.score is not None,
                    "error": self.errors.get(m.path),
                    "dropped_lines": m.dropped_lines,
                    "log": str(m.path),
                }
                for m in self.matches
            ],
            **self.extra,
        }


def build_multi_report(matches: list[LoggedMatch], errors: dict[Path, str] | None = None) -> MultiReport:
    """Every player's duplicate and per-hand figures over logs of one game of three or more players."""
    if not matches:
        raise ProtocolError("no logs to score")
    game = matches[0].game
    for match in matches:
        if match.game != game:
            raise ProtocolError(f"{match.path} is a different game from {matches[0].path}")
        if sorted(match.seat_names) != sorted(matches[0].seat_names):
            raise ProtocolError(f"{match.path} has other players than {matches[0].path}")
    players = list(matches[0].seat_names)
    by_seed: dict[int, list[LoggedMatch]] = {}
    for match in matches:
        by_seed.setdefault(match.seed, []).append(match)
    samples: dict[str, list[np.ndarray]] = {name: [] for name in players}
    per_seed = []
    for seed in sorted(by_seed):
        group = by_seed[seed]
        entry: dict[str, Any] = {"seed": seed, "matches": len(group)}
        if _every_seat_equally(group, players):
            n = min(len(m.hands) for m in group)
            entry["hands"] = n
            entry["duplicate"] = {}
            for name in players:
                sample = np.mean([m.values_of(name)[:n] for m in group], axis=0)
                samples[name].append(sample)
                entry["duplicate"][name] = estimate(sample, game.big_blind).to_json()
        per_seed.append(entry)
    duplicate = {name: estimate(_joined(samples[name]), game.big_blind) for name in players}
    per_hand = {
        name: estimate(np.concatenate([m.values_of(name) for m in matches]), game.big_blind) for name in players
    }
    return MultiReport(
        players,
        game,
        matches[0].game_file,
        matches,
        errors or {},
        duplicate,
        per_hand,
        duplicate[players[0]].samples,
        per_seed,
    )


def _every_seat_equally(group: list[LoggedMatch], players: list[str]) -> bool:
    """Whether every player sits in every seat of ``group``'s matches the same number of times."""
    seats = Counter((name, m.seat_of(name)) for m in group for name in players)
    return len(seats) == len(players) ** 2 and len(set(seats.values())) == 1


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.array([])


def format_multi_table(report: MultiReport) -> str:
    """One row per match, then one per player: duplicate mbb/h with its 95% interval, and per hand."""
    rows = [("seed", "seats", "hands", "chips by seat", "note")]
    for match in sorted(report.matches, key=lambda m: (m.seed, str(m.path))):
        chips = " ".join(signed(float(match.values_of(name).sum()), 0).rjust(7) for name in match.seat_names)
        error = report.errors.get(match.path)
        note = f"unfinished: {error}" if error else "" if match.score is not None else "unfinished"
        rows.append((str(match.seed), " ".join(match.seat_names), str(len(match.hands)), chips, note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [f"players {', '.join(report.players)}, game {report.game_file}, big blind {report.game.big_blind}"]
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.rjust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
    lines.append("")
    name_width = max(len(name) for name in report.players)
    kind = "duplicate" if report.duplicate_samples else "per hand"
    for name in report.players:
        main, plain = report.main(name), report.per_hand[name]
        lines.append(
            f"{name.ljust(name_width)}  {signed(main.mbb_per_hand):>8} mbb/h  {_ci_note(kind, main)} over "
            f"{main.samples} hands; per hand {signed(plain.mbb_per_hand)}"
        )
    return "\n".join(lines)
