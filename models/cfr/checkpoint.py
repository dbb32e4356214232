"""CFR checkpoints: the average strategy (``.npz``) and what produced it (a JSON sidecar).

The JSON holds the game definition itself, the abstraction, the algorithm, the
iterations and deals, the training time, the tree's fingerprint and the git
commit. Loading rebuilds the betting tree from that game definition and refuses a
checkpoint whose tree, table size or probabilities do not fit, with a message
that says why. The description is read within the limits of ``protocol/files.py``,
and the strategy table's size is checked against the description and
``ACPC_ARENA_MAX_CHECKPOINT_BYTES`` from the ``.npz``'s header before it is
decompressed.
"""

from __future__ import annotations

import io
import json
import math
import time
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.models.cfr.abstraction import (
    Abstraction,
    ExactCards,
    ExactStrengthBuckets,
    NineBuckets,
    StrengthBuckets,
)
from acpc_arena.models.cfr.nolimit import BetAbstraction, NoLimitTree, build_nolimit_tree
from acpc_arena.models.cfr.public_chance import PublicChanceSolver
from acpc_arena.models.cfr.solver import Solver, table_layout
from acpc_arena.models.cfr.tree import BettingTree, build_tree
from acpc_arena.models.checkpoints import CheckpointError, git_commit, read_sidecar, sidecar
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import CHECKPOINT_BYTES, write_atomic
from acpc_arena.protocol.game import Game, parse_game
from acpc_arena.protocol.wire import MatchState, format_betting

FORMAT = 1
ABSTRACTIONS = ("exact", "traditional", "improved", "improved-recall", "ehs2-F-T-R", "ehs2-exact-F-T-R")
DEFAULT_HOLDEM_ABSTRACTION = "ehs2-50-50-50"


def make_abstraction(
    game: Game, name: str, edges: list[np.ndarray] | None = None, flop_buckets: np.ndarray | None = None
) -> Abstraction:
    """The abstraction called ``name`` (``ehs2-F-T-R``: F, T, R buckets on the flop, turn, river;
    ``ehs2-exact-F-T-R``: the same by exact E[HS^2]).

    ``edges`` are an ``ehs2`` abstraction's bucket edges as a checkpoint saved them, ``flop_buckets``
    an ``ehs2-exact`` abstraction's flop table (both computed when not given).
    """
    exact = name.split("-")[2:] if name.startswith("ehs2-exact-") else []
    if len(exact) == 3 and all(c.isdigit() and 0 < int(c) < 256 for c in exact):
        return ExactStrengthBuckets(game, (int(exact[0]), int(exact[1]), int(exact[2])), edges, flop_buckets)
    if name == "exact":
        return ExactCards(game)
    if name in ("traditional", "improved", "improved-recall"):
        return NineBuckets(game, improved=name != "traditional", perfect_recall=name == "improved-recall")
    counts = name.split("-")[1:] if name.startswith("ehs2-") else []
    if len(counts) == 3 and all(c.isdigit() and int(c) > 0 for c in counts):
        return StrengthBuckets(game, (int(counts[0]), int(counts[1]), int(counts[2])), edges)
    raise ValueError(f"abstraction must be one of {', '.join(ABSTRACTIONS)}: {name!r}")


def _strategy_header(path: Path) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and type of the ``strategy`` array in the ``.npz`` at ``path``, read from its header
    without decompressing the array."""
    with zipfile.ZipFile(path) as archive, archive.open("strategy.npy") as member:
        version = np.lib.format.read_magic(member)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(member)
    return tuple(int(n) for n in shape), np.dtype(dtype)


def played_rows(strategy: np.ndarray) -> np.ndarray:
    """The strategy as the ``cfr`` agent plays it: each row (stored in 32 or 8 bits, summing to 1 only within
    its rounding) divided by its sum, in 64 bits; an all-zero row stays zero."""
    rows = strategy.astype(np.float64)
    totals = rows.sum(axis=1, keepdims=True)
    return np.divide(rows, totals, out=rows.copy(), where=totals > 0)


def quantised(strategy: np.ndarray) -> np.ndarray:
    """Probabilities as multiples of 1/255 in a uint8 table, each row still summing to exactly 1:
    rounded down, then the 255ths that leaves go one each to the largest remainders (each entry
    within 1/255 of its probability)."""
    scaled = strategy * 255
    table = np.floor(scaled).astype(np.int64)
    left = 255 - table.sum(axis=1)
    by_remainder = np.argsort(table - scaled, axis=1, kind="stable")  # largest remainder first
    rows = np.arange(len(table))
    for k in range(strategy.shape[1]):
        table[rows, by_remainder[:, k]] += left > k
    return table.astype(np.uint8)


LZMA_MEMBERS = frozenset({"flop_buckets"})
"""``.npz`` members compressed with LZMA rather than deflate: an ``ehs2-exact`` checkpoint's flop table, 0.59 MB
instead of 1.06 (``np.load`` reads both; it loads in 0.03 s more)."""


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """The ``.npz`` of ``np.savez_compressed``, written whole or not at all, the members of ``LZMA_MEMBERS``
    compressed with LZMA, every member dated 1980-01-01: the same arrays give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_LZMA if name in LZMA_MEMBERS else zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
    write_atomic(path, buffer.getvalue())


def save_policy(
    path: str | Path, solver: Solver | PublicChanceSolver, game_text: str, abstraction: str, extra: dict[str, Any]
) -> Path:
    """Write ``solver``'s average strategy to ``path`` (.npz) and its description beside it (.json).

    An ``ehs2-exact`` abstraction's flop bucket table goes into the ``.npz`` too, and its strategy is
    kept as multiples of 1/255 (``quantised``): a table of over half a million information sets."""
    path = Path(path).with_suffix(".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    average = solver.average_strategy()
    if isinstance(solver.abstraction, ExactStrengthBuckets):
        write_npz(path, {"strategy": quantised(average), "flop_buckets": solver.abstraction.flop_buckets})
    else:
        write_npz(path, {"strategy": average.astype(np.float32)})
    edges = getattr(solver.abstraction, "edges", None)
    meta = {
        "format": FORMAT,
        "kind": "cfr-average-strategy",
        "game": game_text,
        "abstraction": abstraction,
        "algorithm": solver.algorithm,
        "iterations": solver.iterations,
        "infosets": solver.num_infosets,
        "tree_fingerprint": solver.tree.fingerprint,
        **({"betting": solver.tree.bets.describe()} if isinstance(solver.tree, NoLimitTree) else {}),
        **({"bucket_edges": [e.tolist() for e in edges]} if edges is not None else {}),
        "git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **extra,
    }
    write_atomic(sidecar(path), json.dumps(meta, indent=2) + "\n")
    return path


@dataclass
class CFRPolicy:
    """A trained strategy, ready to be asked for action probabilities."""

    game: Game
    tree: BettingTree
    abstraction: Abstraction
    strategy: np.ndarray
    base: np.ndarray
    decision_row: np.ndarray
    meta: dict[str, Any]

    def node(self, view: MatchState) -> int:
        state = view.state
        sequence = format_betting(state)
        node = self.tree.node_of_sequence.get(sequence, -1)
        if node < 0 or self.tree.player[node] != view.viewer:
            raise ProtocolError(f"betting {sequence!r} is not a decision of position {view.viewer} in this tree")
        return node

    def probabilities(self, view: MatchState) -> np.ndarray:
        """Probabilities of each action slot (fold, call, raise) at the node of ``view`` (limit trees)."""
        state = view.state
        node = self.node(view)
        key = self.abstraction.key(state.hole_cards[view.viewer], state.visible_board(), state.round)
        return self.strategy[self.base[self.decision_row[node]] + key]


@cache
def _limit_tree(game: Game) -> BettingTree:
    """``build_tree(game)``, built once a process (read-only; the in-process runner loads a checkpoint a match)."""
    return build_tree(game)


LOADED_KEPT = 4
"""Checkpoints ``load_policy`` keeps loaded (the last ones asked for)."""
_LOADED: dict[tuple[str, int, int, int, int], CFRPolicy] = {}


def load_policy(path: str | Path) -> CFRPolicy:
    """Load a checkpoint written by ``save_policy`` (give the .npz or the .json).

    A checkpoint this process loaded already, whose two files are unchanged (the same sizes and modification
    times), is the same object, its tables read-only: the in-process runner builds an agent a match.
    """
    path = Path(path).with_suffix(".npz")
    try:
        table, description = path.stat(), sidecar(path).stat()
    except OSError:
        return _load_policy(path)  # what is missing is told there
    key = (str(path.resolve()), table.st_mtime_ns, table.st_size, description.st_mtime_ns, description.st_size)
    policy = _LOADED.get(key)
    if policy is None:
        policy = _load_policy(path)
        for array in (policy.strategy, policy.base, policy.decision_row):
            array.flags.writeable = False
        if len(_LOADED) >= LOADED_KEPT:
            del _LOADED[next(iter(_LOADED))]
        _LOADED[key] = policy
    return policy


def _load_policy(path: Path) -> CFRPolicy:
    meta = read_sidecar(path)
    if meta.get("format") != FORMAT or meta.get("kind") != "cfr-average-strategy":
        raise CheckpointError(f"{sidecar(path)}: not a CFR checkpoint of format {FORMAT}")
    try:
        shape, dtype = _strategy_header(path)
        rows = meta.get("infosets")
        if len(shape) != 2 or rows != shape[0] or shape[1] < 1:
            raise CheckpointError(f"{path}: strategy table of shape {shape} does not fit the description")
        most = CHECKPOINT_BYTES.value()
        if math.prod(shape) * max(dtype.itemsize, 8) > most:  # read as float64
            raise CheckpointError(f"{path}: a strategy table of shape {shape}: {CHECKPOINT_BYTES.exceeded(most)}")
        with np.load(path, allow_pickle=False) as data:
            strategy = np.array(data["strategy"], dtype=np.float64)
            if dtype == np.uint8:
                strategy /= 255
            flop_buckets = np.array(data["flop_buckets"]) if "flop_buckets" in data else None
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such checkpoint") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{path}: damaged checkpoint ({exc})") from None
    try:
        game = parse_game(meta["game"], f"{sidecar(path)} (game)")
        abstraction = make_abstraction(game, meta["abstraction"], meta.get("bucket_edges"), flop_buckets)
    except (ProtocolError, ValueError, KeyError) as exc:
        raise CheckpointError(f"{sidecar(path)}: {exc}") from None
    try:
        tree = (
            _limit_tree(game)
            if not game.no_limit
            else build_nolimit_tree(game, BetAbstraction.from_description(meta["betting"]))
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{sidecar(path)}: no usable bet abstraction for this no-limit game ({exc})") from None
    if tree.fingerprint != meta.get("tree_fingerprint"):
        raise CheckpointError(f"{path}: trained on a different betting tree than this code builds")
    layout = table_layout(tree, abstraction.num_keys)
    if strategy.shape != (layout.num_infosets, tree.children.shape[1]) or meta.get("infosets") != strategy.shape[0]:
        raise CheckpointError(f"{path}: strategy table of shape {strategy.shape} does not fit the tree")
    if not np.isfinite(strategy).all() or (strategy < 0).any() or not np.allclose(strategy.sum(axis=1), 1, atol=1e-3):
        raise CheckpointError(f"{path}: the probabilities are not probabilities")
    return CFRPolicy(game, tree, abstraction, strategy, layout.base, layout.decision_row, meta)
