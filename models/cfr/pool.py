"""A pool of deals whose card-abstraction keys are computed once, to sample training batches from.

E[HS^2] keys cost thousands of showdowns a hand, more than a CFR pass over a small
no-limit tree: computing them afresh for every sampled deal would spend most of
the training on the cards. ``keyed_pool`` draws ``count`` deals once, computes
every player's key in every round with the batched evaluator, and keeps the
table on disk like the evaluator's (named by the abstraction, its bucket edges,
the count and the seed). Chance-sampled CFR then draws each iteration's batch
from the pool (``draw``), so the game solved is the abstract game over the pool's
deals; a pool of tens of thousands of deals covers every bucket of every round
many times.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from acpc_arena.models.cfr import abstraction as abstraction_module
from acpc_arena.models.cfr.abstraction import Abstraction, Worlds, sample_deals
from acpc_arena.protocol import equity, evaluator
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.game import Game

CHUNK = 2048
"""Deals whose keys are computed at once (bounds the evaluator's memory)."""


@dataclass
class KeyedWorlds(Worlds):
    """Deals with every player's key in every round already computed."""

    keys: np.ndarray | None = None
    """(W, players, rounds) information set keys."""


class PooledKeys(Abstraction):
    """An abstraction that reads the keys a ``KeyedWorlds`` carries (and computes them for other deals)."""

    def __init__(self, base: Abstraction) -> None:
        self.base = base
        self.name = base.name

    @property
    def edges(self) -> list[np.ndarray] | None:
        return getattr(self.base, "edges", None)

    def num_keys(self, round_: int) -> int:
        return self.base.num_keys(round_)

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        if isinstance(worlds, KeyedWorlds) and worlds.keys is not None:
            return worlds.keys[:, player, round_]
        return self.base.keys(worlds, player, round_)


def _digest(abstraction: Abstraction) -> str:
    digest = hashlib.sha256(abstraction.name.encode())
    for edges in getattr(abstraction, "edges", None) or []:
        digest.update(np.ascontiguousarray(edges, dtype=np.float64).tobytes())
    return digest.hexdigest()[:12]


def keyed_pool(game: Game, abstraction: Abstraction, count: int, seed: int) -> KeyedWorlds:
    """``count`` deals drawn with ``seed`` and their keys (cached on disk)."""
    players, rounds = game.num_players, game.num_rounds
    hole, board = game.num_hole_cards, game.total_board_cards

    def build() -> np.ndarray:
        worlds = sample_deals(game, count, np.random.default_rng(seed))
        keys = np.empty((count, players, rounds), dtype=np.int64)
        for start in range(0, count, CHUNK):
            part = slice(start, start + CHUNK)
            chunk = Worlds(worlds.holes[part], worlds.boards[part], worlds.weights[part])
            for p in range(players):
                for r in range(rounds):
                    keys[part, p, r] = abstraction.keys(chunk, p, r)
        cards = np.concatenate([worlds.holes.reshape(count, -1), worlds.boards], axis=1).astype(np.int64)
        return np.concatenate([cards, keys.reshape(count, -1)], axis=1)

    code = source_digest(*(Path(str(m.__file__)) for m in (abstraction_module, equity, evaluator)), Path(__file__))
    table = cached_array(f"cfr-pool-{game.num_players}p-{_digest(abstraction)}-{count}-{seed}-{code}", build)
    cards = table[:, : players * hole + board].astype(np.uint8)
    keys = table[:, players * hole + board :].reshape(count, players, rounds)
    return KeyedWorlds(
        cards[:, : players * hole].reshape(count, players, hole),
        cards[:, players * hole :],
        np.full(count, 1.0 / count),
        keys,
    )


def draw(pool: KeyedWorlds, count: int, rng: np.random.Generator) -> KeyedWorlds:
    """``count`` deals of the pool drawn uniformly with replacement, equally weighted."""
    pick = rng.integers(len(pool), size=count)
    assert pool.keys is not None
    return KeyedWorlds(pool.holes[pick], pool.boards[pick], np.full(count, 1.0 / count), pool.keys[pick])
