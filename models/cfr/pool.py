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
from acpc_arena.protocol.evaluator import rank_hands
from acpc_arena.protocol.game import Game

CHUNK = 2048
"""Deals whose keys are computed at once (bounds the evaluator's memory)."""
ALLIN_SAMPLES = 128
"""Board completions averaged per deal and round for the all-in share."""
EQUITY_SCALE = 1 << 20
"""The all-in shares are kept in the integer table as multiples of 1 / EQUITY_SCALE."""


@dataclass
class KeyedWorlds(Worlds):
    """Deals with every player's key in every round already computed."""

    keys: np.ndarray | None = None
    """(W, players, rounds) information set keys."""
    allin_equity: np.ndarray | None = None
    """(W, rounds) player 0's share of the pot (win 1, tie 1/2) when the betting ends all in during
    that round, averaged over completions of the board (two players; NaN in the last round)."""


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


def allin_equities(game: Game, worlds: Worlds, samples: int, rng: np.random.Generator) -> np.ndarray:
    """(W, rounds) player 0's share of a two-player pot at an all-in in each round but the last,
    over ``samples`` random completions of each deal's board (NaN where no card is to come)."""
    if game.num_players != 2:
        raise ValueError("all-in shares are for two players")
    count, deck_size = len(worlds), max(game.deck) + 1
    out = np.full((count, game.num_rounds), np.nan)
    for r in range(game.num_rounds):
        visible = game.board_cards_after(r)
        missing = game.total_board_cards - visible
        if missing == 0:
            continue
        for start in range(0, count, CHUNK):
            holes = worlds.holes[start : start + CHUNK].astype(np.int64)
            board = worlds.boards[start : start + CHUNK, :visible].astype(np.int64)
            w = len(holes)
            known = np.concatenate([holes.reshape(w, -1), board], axis=1)
            draws = rng.random((w, samples, deck_size), dtype=np.float32)
            draws[np.arange(w)[:, None], :, known] = 2.0  # never drawn
            draws[:, :, [c for c in range(deck_size) if c not in game.deck]] = 2.0
            completion = np.argpartition(draws, missing, axis=-1)[:, :, :missing]
            shared = np.concatenate([np.broadcast_to(board[:, None, :], (w, samples, visible)), completion], axis=2)
            ranks = [
                rank_hands(
                    np.concatenate([np.broadcast_to(holes[:, None, p, :], (w, samples, holes.shape[2])), shared], 2)
                    .reshape(w * samples, -1)
                    .astype(np.uint8)
                ).reshape(w, samples)
                for p in range(2)
            ]
            share = (ranks[0] > ranks[1]) + 0.5 * (ranks[0] == ranks[1])
            out[start : start + w, r] = share.mean(axis=1)
    return out


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
        columns = [cards, keys.reshape(count, -1)]
        if players == 2:
            shares = allin_equities(game, worlds, ALLIN_SAMPLES, np.random.default_rng(seed + 1))
            columns.append(np.where(np.isnan(shares), -1, np.round(shares * EQUITY_SCALE)).astype(np.int64))
        return np.concatenate(columns, axis=1)

    code = source_digest(*(Path(str(m.__file__)) for m in (abstraction_module, equity, evaluator)), Path(__file__))
    table = cached_array(f"cfr-pool-{game.num_players}p-{_digest(abstraction)}-{count}-{seed}-{code}", build)
    start = players * hole + board
    cards = table[:, :start].astype(np.uint8)
    keys = table[:, start : start + players * rounds].reshape(count, players, rounds)
    shares = None
    if players == 2:
        scaled = table[:, start + players * rounds :]
        shares = np.where(scaled < 0, np.nan, scaled / EQUITY_SCALE)
    return KeyedWorlds(
        cards[:, : players * hole].reshape(count, players, hole),
        cards[:, players * hole :],
        np.full(count, 1.0 / count),
        keys,
        shares,
    )


def draw(pool: KeyedWorlds, count: int, rng: np.random.Generator) -> KeyedWorlds:
    """``count`` deals of the pool drawn uniformly with replacement, equally weighted."""
    pick = rng.integers(len(pool), size=count)
    assert pool.keys is not None
    shares = None if pool.allin_equity is None else pool.allin_equity[pick]
    return KeyedWorlds(pool.holes[pick], pool.boards[pick], np.full(count, 1.0 / count), pool.keys[pick], shares)
