"""Scoring ACPC logs: chips, mbb/h, win rates, duplicate estimates with 95% confidence intervals.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from acpc_arena.protocol.equity import allin_expected_values, ended_all_in_early
from acpc_arena.protocol.errors import ProtocolError
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

    def values_of(self, name: str) -> np.ndarray:
        """``name``'s result in every hand, in hand order."""
        return np.array([hand.values[hand.names.index(name)] for hand in self.hands], dtype=np.float64)

    def seat_of(self, name: str) -> int:
        return self.seat_names.index(name)


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
        except ProtocolError:
            continue
    raise ProtocolError(f"{log_path}: cannot find the game {game_file!r} of this log (give it with --game)")


def read_log(path: str | Path, game: Game | None = None) -> LoggedMatch:
    """Read an ACPC log; ``game`` overrides the game file named in its header."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError as exc:
        raise ProtocolError(f"cannot read {path}: {exc}") from None
    header = next((line for line in lines if line.startswith("# name/game/hands/seed ")), None)
    if header is None:
        raise ProtocolError(f"{path}: no '# name/game/hands/seed' header: not an ACPC log")
    parts = header.split()
    if len(parts) != 6:
        raise ProtocolError(f"{path}: malformed header {header!r}")
    _, _, name, game_file, planned, seed = parts
    the_game = _game_of(game_file, game, path)
    hands: list[LogHand] = []
    score = None
    for number, line in enumerate(lines, start=1):
        try:
            if line.startswith("STATE"):
                hands.append(parse_log_line(line, the_game))
            elif line.startswith("SCORE"):
                score = parse_score_line(line, the_game.num_players)
        except ProtocolError as exc:
            raise ProtocolError(f"{path}, line {number}: {exc}") from None
    if score is not None:
        seat_names = score.names
    elif hands and hands[0].state.hand_id == 0:
        seat_names = hands[0].names  # in hand 0 position p is seat p
    else:
        raise ProtocolError(f"{path}: no hands and no score")
    return LoggedMatch(path, name, game_file, the_game, int(planned), int(seed), tuple(seat_names), hands, score)


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
    chips_a: float
    mbb_per_hand_a: float
    win_rate_a: float
    hands_won_a: int
    hands_lost_a: int
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.match.seed,
            "a_seat": self.a_seat,
            "hands": len(self.match.hands),
            "chips_a": self.chips_a,
            "mbb_per_hand_a": self.mbb_per_hand_a,
            "win_rate_a": self.win_rate_a,
            "hands_won_a": self.hands_won_a,
            "hands_lost_a": self.hands_lost_a,
            "finished": self.match.score is not None,
            "error": self.error,
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

    def to_json(self) -> dict[str, Any]:
        main = self.duplicate if self.duplicate_pairs else self.per_hand
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


_ALLIN_CACHE: dict[tuple, list[float]] = {}


def _canonical_key(hand: LogHand) -> tuple:
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


def allin_adjusted_values(match: LoggedMatch, name: str, progress: tqdm | None = None) -> np.ndarray:
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
    if not matches:
        raise ProtocolError("no logs to score")
    game = matches[0].game
    if game.num_players != 2:
        raise ProtocolError("scoring covers two-player matches (duplicate pairs need two seats)")
    a = a or matches[0].seat_names[0]
    names = {name for m in matches for name in m.seat_names}
    if a not in names:
        raise ProtocolError(f"no player named {a!r} in these logs (players: {', '.join(sorted(names))})")
    others = sorted(names - {a})
    if len(others) != 1:
        raise ProtocolError(f"expected one opponent of {a!r}, found {others}")
    b = others[0]
    errors = errors or {}
    big = game.big_blind
    allin_hands = sum(ended_all_in_early(hand.state) for m in matches for hand in m.hands)
    bar = tqdm(total=allin_hands, unit="hand", desc="valuing all-in hands", disable=not progress or not allin_hands)
    figures: list[MatchFigures] = []
    plain: list[np.ndarray] = []
    plain_adjusted: list[np.ndarray] = []
    by_seed: dict[int, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for match in matches:
        if match.game != game:
            raise ProtocolError(f"{match.path} is a different game from {matches[0].path}")
        values = match.values_of(a)
        adjusted = allin_adjusted_values(match, a, bar)
        seat = match.seat_of(a) + 1
        figures.append(
            MatchFigures(
                match,
                seat,
                float(values.sum()),
                1000.0 * float(values.mean()) / big if len(values) else float("nan"),
                float((values > 0).mean()) if len(values) else float("nan"),
                int((values > 0).sum()),
                int((values < 0).sum()),
                errors.get(match.path),
            )
        )
        plain.append(values)
        plain_adjusted.append(adjusted)
        by_seed.setdefault(match.seed, {})[seat] = (values, adjusted)
    pairs: list[np.ndarray] = []
    pairs_adjusted: list[np.ndarray] = []
    per_seed = []
    for seed in sorted(by_seed):
        seats = by_seed[seed]
        entry: dict[str, Any] = {"seed": seed}
        if 1 in seats and 2 in seats:
            n = min(len(seats[1][0]), len(seats[2][0]))
            pair = (seats[1][0][:n] + seats[2][0][:n]) / 2
            pair_adjusted = (seats[1][1][:n] + seats[2][1][:n]) / 2
            pairs.append(pair)
            pairs_adjusted.append(pair_adjusted)
            entry |= {
                "hands": n,
                "chips_a": float(2 * pair.sum()),
                "duplicate": estimate(pair, big).to_json(),
                "allin_adjusted": estimate(pair_adjusted, big).to_json(),
            }
        per_seed.append(entry)
    bar.close()
    joined = np.concatenate(pairs) if pairs else np.array([])
    joined_adjusted = np.concatenate(pairs_adjusted) if pairs_adjusted else np.array([])
    return Report(
        a=a,
        b=b,
        game=game,
        game_file=matches[0].game_file,
        matches=figures,
        duplicate=estimate(joined, big),
        per_hand=estimate(np.concatenate(plain), big),
        allin_duplicate=estimate(joined_adjusted, big),
        allin_per_hand=estimate(np.concatenate(plain_adjusted), big),
        per_seed=per_seed,
        duplicate_pairs=len(joined),
    )


def _signed(value: float, digits: int = 1) -> str:
    return "nan" if math.isnan(value) else f"{value:+.{digits}f}"


def format_table(report: Report) -> str:
    """One row per seed and seat (like table 4-2 of seed 000), then the duplicate rows."""
    rows = [("seed", "A seat", "hands", "chips won by A", "mbb/h A", "win rate A", "note")]
    for figure in sorted(report.matches, key=lambda f: (f.match.seed, f.a_seat)):
        rows.append(
            (
                str(figure.match.seed),
                str(figure.a_seat),
                str(len(figure.match.hands)),
                _signed(figure.chips_a, 0),
                _signed(figure.mbb_per_hand_a),
                f"{100 * figure.win_rate_a:.1f}%",
                "unfinished: " + figure.error if figure.error else ("" if figure.match.score else "unfinished"),
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
                    _signed(entry["chips_a"], 0),
                    _signed(dup["mbb_per_hand"]),
                    "",
                    f"duplicate, 95% CI [{_signed(dup['ci95'][0])}, {_signed(dup['ci95'][1])}]",
                )
            )
    main = report.duplicate if report.duplicate_pairs else report.per_hand
    adjusted = report.allin_duplicate if report.duplicate_pairs else report.allin_per_hand
    kind = "duplicate" if report.duplicate_pairs else "per hand"
    rows.append(
        (
            "all",
            "both",
            str(main.samples),
            _signed(main.chips_per_hand * main.samples * (2 if report.duplicate_pairs else 1), 0),
            _signed(main.mbb_per_hand),
            "",
            f"{kind}, 95% CI [{_signed(main.ci95[0])}, {_signed(main.ci95[1])}]",
        )
    )
    rows.append(
        (
            "all",
            "both",
            str(adjusted.samples),
            "",
            _signed(adjusted.mbb_per_hand),
            "",
            f"all-in adjusted {kind}, 95% CI [{_signed(adjusted.ci95[0])}, {_signed(adjusted.ci95[1])}]",
        )
    )
    if report.duplicate_pairs:
        ph = report.per_hand
        rows.append(
            ("all", "both", str(ph.samples), "", _signed(ph.mbb_per_hand), "",
             f"per hand, 95% CI [{_signed(ph.ci95[0])}, {_signed(ph.ci95[1])}]")
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"A = {report.a}, B = {report.b}, game {report.game_file}, big blind {report.game.big_blind}"]
    for k, row in enumerate(rows):
        lines.append("  ".join(cell.rjust(widths[i]) if i < 6 else cell for i, cell in enumerate(row)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:6]) + "  " + "-" * 4)
    return "\n".join(lines)
