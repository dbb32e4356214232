"""The reports of runs: two players' duplicate estimate (``Report``) and every player's in games of
three or more (``MultiReport``), with the JSON that ``report.json`` holds.

For two-player matches of the same seed with the two players' seats exchanged, hand
*i* of one and hand *i* of the other got the same cards with the roles swapped: the
mean of the two results is a duplicate sample, free of most of the card luck. The
duplicate estimate and its interval are computed over those pairs of hands; the
plain per-hand estimate (every hand an independent sample) is given for comparison.
The all-in-adjusted figures value every hand that ended all in before the last
round at its expected value over all the boards that could have come (``allin``).
Estimates and intervals are ``estimates.estimate``'s.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from acpc_arena.dealer.arena.allin import AllinValues
from acpc_arena.dealer.arena.estimates import (
    DuplicateOrPerHand,
    Estimate,
    duplicate_pair,
    estimate,
    excludes_zero,
    signed,
)
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.match_log import LoggedMatch


@dataclass
class MatchFigures:
    """One match's figures for A."""

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
class Report(DuplicateOrPerHand):
    """A's figures against B over a run's logs: duplicate and per hand, plain and all-in adjusted, by match
    and by seed."""

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
        main = self.main
        adjusted = self.allin_duplicate if self.duplicate_pairs else self.allin_per_hand
        return {
            "a": self.a,
            "b": self.b,
            "game": self.game_file,
            "seeds": self.seeds,
            "hands": max((m.match.planned_hands for m in self.matches), default=0),
            "big_blind": self.game.big_blind,
            **self.main_json(),
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


def build_report(
    matches: list[LoggedMatch],
    a: str | None = None,
    errors: dict[Path, str] | None = None,
    progress: bool = False,
    allin: AllinValues | None = None,
) -> Report:
    """Figures for player ``a`` (default: seat 1 of the first log) against the other player.

    ``progress`` shows a bar while the all-in hands are valued (each hold'em hand
    all in before the flop takes about a tenth of a second). ``allin`` keeps the values
    of all-in hands for reports built after this one (default: this report's own).
    """
    a, b = _players(matches, a)
    game = matches[0].game
    errors = errors or {}
    allin = AllinValues() if allin is None else allin
    allin_hands = sum(len(m.allin_hands) for m in matches)
    bar = tqdm(total=allin_hands, unit="hand", desc="valuing all-in hands", disable=not progress or not allin_hands)
    figures: list[MatchFigures] = []
    plain: list[np.ndarray] = []
    plain_adjusted: list[np.ndarray] = []
    by_seed: dict[int, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for match in matches:
        values = match.values_of(a)
        adjusted = allin.adjusted(match, a, bar)
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
        per_hand=estimate(plain, game.big_blind),
        allin_duplicate=estimate(pairs_adjusted, game.big_blind),
        allin_per_hand=estimate(plain_adjusted, game.big_blind),
        per_seed=per_seed,
        duplicate_pairs=sum(len(pair) for pair in pairs),
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
) -> tuple[list[np.ndarray], list[np.ndarray], list[dict[str, Any]]]:
    """The duplicate samples (plain and all-in adjusted) of every seed played in both seats, a part a seed,
    and per-seed figures.

    ``by_seed[seed][seat]`` holds A's results with A in ``seat`` (plain, adjusted: the same array where
    no hand ended all in); hand *i* of one seating pairs with hand *i* of the other, as far as both went.
    """
    pairs: list[np.ndarray] = []
    pairs_adjusted: list[np.ndarray] = []
    per_seed = []
    for seed in sorted(by_seed):
        seats = by_seed[seed]
        entry: dict[str, Any] = {"seed": seed}
        if 0 in seats and 1 in seats:
            pair = duplicate_pair(seats[0][0], seats[1][0])
            n = len(pair)
            unadjusted = seats[0][1] is seats[0][0] and seats[1][1] is seats[1][0]
            pair_adjusted = pair if unadjusted else duplicate_pair(seats[0][1][:n], seats[1][1][:n])
            pairs.append(pair)
            pairs_adjusted.append(pair_adjusted)
            entry |= {
                "hands": n,
                "chips_a": float(2 * pair.sum()),
                "duplicate": estimate(pair, big_blind).to_json(),
                "allin_adjusted": estimate(pair_adjusted, big_blind).to_json(),
            }
        per_seed.append(entry)
    return pairs, pairs_adjusted, per_seed


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
    duplicate = {name: estimate(samples[name], game.big_blind) for name in players}
    per_hand = {name: estimate([m.values_of(name) for m in matches], game.big_blind) for name in players}
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
