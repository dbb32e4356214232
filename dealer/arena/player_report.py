"""One player's results over any ACPC logs of one game, competition logs included (``acpc-report
--player``): by log, by opponent and in all, duplicate where two-player logs of one seed pair up.

The logs are read by ``AcpcLogReader`` in constant memory but for the results, a bad
line skipped and told (unlike ``match_log.read_log``, which refuses a damaged log).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.dealer.arena.estimates import DuplicateOrPerHand, Estimate, duplicate_pair, estimate
from acpc_arena.protocol.acpc_log import AcpcLogReader, Problem
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game


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
        np.frombuffer(ids, dtype=np.int64),  # over the arrays read: no copy
        np.frombuffer(values, dtype=np.float64),
        reader.hands_read,
        reader.problem_count,
        reader.score is not None,
    )


@dataclass
class PlayerReport(DuplicateOrPerHand):
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
        return {
            "player": self.player,
            "game": self.game_name,
            "big_blind": self.game.big_blind,
            **self.main_json(),
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
    return PlayerReport(
        player,
        game,
        logs[0].game_name,
        logs,
        estimate([log.values for log in logs], game.big_blind),
        estimate(pairs, game.big_blind),
        sum(len(pair) for pair in pairs),
        {name: estimate(parts, game.big_blind) for name, parts in sorted(by_opponent.items())},
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
            pairs.append(duplicate_pair(both[0].values[first], both[1].values[second]))
    return pairs
