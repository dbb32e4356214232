"""The turn buckets of ``ExactStrengthBuckets`` for every hand on every turn board, as a table.

A turn key is the bucket of the hand's exact E[HS^2] over the 46 rivers
(``hand_strength.turn_ehs2``, bucketed by the abstraction's turn edges). The
table holds it for the 1,326 hands (``HANDS``) on each of the 16,432 four-card
boards that differ up to suits (``canonical_turns``, ``TURN_BOARDS``); a board and a hand are
looked up as their images on the board's representative (``canonical_board``),
as the flop's buckets are.

The values are ``turn_ehs2``'s, but on the representative, whose rivers come in
another order than on the board itself: a sum of the same 46 squares in another
order may differ in its last bits. A bucket is therefore stored only where no
edge lies within ``EDGE_MARGIN`` of the value (far more than such a difference);
elsewhere the entry is ``AMBIGUOUS`` and the key is computed exactly for the
board itself (about 5 entries in 10,000 of the hands off the board; a hand
holding a board card is ``AMBIGUOUS`` too, so that it is refused as the exact
computation refuses it). So the table's keys are the exact computation's, bit
for bit.

The table is built once for a set of edges (``build_table``: ``acpc-cfr
turn-table``, minutes on two cores) and kept in the cache folder like the
evaluator's tables, named by a digest of the code that computes it and one of
the edges; it is memory-mapped when used. Its last row holds the SHA-256 of the
others, checked when it is loaded: a damaged file is refused (``TurnTableError``)
and built again by the command. Until the file exists the abstraction computes
every key exactly (``TurnTableFile``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

import numpy as np

from acpc_arena.models.cfr import hand_strength
from acpc_arena.protocol import evaluator
from acpc_arena.protocol.disk_cache import cache_directory, cached_array, source_digest

TURN_TABLE_VERSION = 1
"""Part of the table's file name: raise it when what the table holds changes."""
AMBIGUOUS = 255
"""An entry whose value lies within ``EDGE_MARGIN`` of an edge: its key is computed exactly."""
EDGE_MARGIN = 1e-12
"""Distance to the nearest edge below which a value's bucket may depend on the order of its sum (46 terms of
at most 1 added in another order differ by under 1e-13 in their mean)."""
CHUNK = 32
"""Boards a worker process computes at a time."""


class TurnTableError(ValueError):
    """A table file that cannot be used: truncated, of another shape, or whose rows fail their digest."""


TURN_BOARDS = 16_432
"""Four-card boards that differ up to suits (Burnside's count: a test counts them so)."""


@cache
def canonical_turns() -> tuple[tuple[int, ...], ...]:
    """The four-card boards that differ up to suits, each as its representative, in order
    (``hand_strength.canonical_boards(4)``, a few tenths of a second: kept in the cache folder, so that a
    table's first use does not wait for it; a file that does not hold them is not used)."""
    code = source_digest(Path(hand_strength.__file__))
    boards = cached_array(f"turn-boards-{code}", _representatives)
    if not _representatives_in_order(boards):
        boards = _representatives()
    return tuple(map(tuple, boards.tolist()))


def _representatives() -> np.ndarray:
    return np.array(hand_strength.canonical_boards(4), dtype=np.uint8)


def _representatives_in_order(boards: np.ndarray) -> bool:
    """Whether ``boards`` are ``TURN_BOARDS`` boards each its own representative (``SUIT_PERMUTATIONS[0]``,
    the identity, gives its largest sum of image bits), their cards and the boards in order: so every one."""
    if boards.dtype != np.uint8 or boards.shape != (TURN_BOARDS, 4) or boards.max(initial=0) >= 52:
        return False
    sums = hand_strength.IMAGE_BITS[:, boards.astype(np.intp)].sum(axis=2)  # (24, boards)
    ordered = (boards[:, 1:] > boards[:, :-1]).all() and (sums[0, 1:] < sums[0, :-1]).all()
    return bool(ordered and (sums[0] == sums.max(axis=0)).all())


@cache
def _turn_rows() -> dict[tuple[int, ...], int]:
    return {board: row for row, board in enumerate(canonical_turns())}


def turn_buckets(boards: Sequence[tuple[int, ...]], edges: np.ndarray) -> np.ndarray:
    """(B, 1326) the table's rows of ``boards``: each hand's bucket of ``turn_ehs2`` by ``edges`` (as
    ``ExactStrengthBuckets._bucket``); ``AMBIGUOUS`` within ``EDGE_MARGIN`` of an edge, and for the hands
    holding a board card (the exact computation refuses them)."""
    edges = np.asarray(edges, dtype=np.float64)
    rows = np.empty((len(boards), hand_strength.NUM_HANDS), dtype=np.uint8)
    for row, board in enumerate(boards):
        values = hand_strength.turn_ehs2(np.array(board, dtype=np.uint8))
        buckets = np.searchsorted(edges, values, side="right")
        near = np.searchsorted(edges, values - EDGE_MARGIN, side="left") < np.searchsorted(
            edges, values + EDGE_MARGIN, side="right"
        )
        rows[row] = np.where(near | np.isnan(values), AMBIGUOUS, buckets)
    return rows


def edges_digest(edges: np.ndarray) -> str:
    """16 hex digits of SHA-256 over the edges as little-endian float64."""
    return hashlib.sha256(np.asarray(edges, dtype="<f8").tobytes()).hexdigest()[:16]


def table_path(edges: np.ndarray, directory: Path | None = None) -> Path:
    """The table's file for ``edges``: named by the code that computes it and by the edges."""
    here = Path(__file__)
    code = source_digest(here, Path(hand_strength.__file__), *evaluator.SOURCES)
    name = f"cfr-turn-buckets-v{TURN_TABLE_VERSION}-{code}-{edges_digest(edges)}.npy"
    return (directory or cache_directory()) / name


def _with_digest(rows: np.ndarray) -> np.ndarray:
    """``rows`` and a last row holding their SHA-256 (then zeros)."""
    last = np.zeros((1, rows.shape[1]), dtype=np.uint8)
    last[0, :32] = np.frombuffer(hashlib.sha256(rows.data).digest(), dtype=np.uint8)
    return np.concatenate([rows, last])


def build_table(
    edges: np.ndarray,
    path: Path,
    boards: Sequence[tuple[int, ...]] | None = None,
    mapper: Callable[..., Iterable[np.ndarray]] = map,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Compute the table for ``edges`` and write it to ``path`` atomically; return its rows.

    ``boards``: only these representatives' rows (the others ``AMBIGUOUS``, so that their keys are computed
    exactly), for a small table. ``mapper``: how ``turn_buckets`` is mapped over slices of ``CHUNK`` boards (a
    process pool's ``map`` to use several cores). ``progress(done, total)`` is called as boards are done."""
    every = canonical_turns()
    wanted = list(every) if boards is None else list(dict.fromkeys(boards))
    unknown = [board for board in wanted if board not in _turn_rows()]
    if unknown:
        raise ValueError(f"not representatives of turn boards up to suits: {unknown[:3]}")
    rows = np.full((len(every), hand_strength.NUM_HANDS), AMBIGUOUS, dtype=np.uint8)
    chunks = [wanted[start : start + CHUNK] for start in range(0, len(wanted), CHUNK)]
    done = 0
    for chunk, part in zip(chunks, mapper(turn_buckets, chunks, [edges] * len(chunks)), strict=True):
        rows[[_turn_rows()[board] for board in chunk]] = part
        done += len(chunk)
        if progress is not None:
            progress(done, len(wanted))
    _save(path, _with_digest(rows))
    return rows


def _save(path: Path, table: np.ndarray) -> None:
    """Write ``table`` to ``path`` through a temporary file and a rename, as ``disk_cache.cached_array`` does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as file:
        np.save(file, table, allow_pickle=False)
    os.replace(temporary, path)


def load_table(path: Path) -> TurnTable:
    """The table in ``path``, memory-mapped; ``FileNotFoundError`` if there is none, ``TurnTableError`` if it is
    damaged (truncated, another shape or type, rows that fail their digest)."""
    try:
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError) as exc:
        raise TurnTableError(f"the turn table {path} is damaged ({exc}): rebuild it with acpc-cfr turn-table") from None
    shape = (len(canonical_turns()) + 1, hand_strength.NUM_HANDS)
    if mapped.dtype != np.uint8 or mapped.shape != shape:
        raise TurnTableError(
            f"the turn table {path} holds {mapped.dtype} {mapped.shape}, not uint8 {shape}: "
            "rebuild it with acpc-cfr turn-table"
        )
    rows = mapped[:-1]
    if hashlib.sha256(rows.data).digest() != mapped[-1, :32].tobytes():
        raise TurnTableError(f"the turn table {path} fails its digest: rebuild it with acpc-cfr turn-table")
    return TurnTable(rows)


class TurnTable:
    """A table's rows (``turn_buckets`` of every representative, in ``canonical_turns`` order)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows
        self.row = _turn_rows()

    def buckets(self, board: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """(H,) the entries of ``hands`` (indices in ``HANDS``) on the four-card ``board``: a bucket, or
        ``AMBIGUOUS``."""
        representative, mapping = hand_strength.canonical_board(board)
        cards = hand_strength.HANDS[hands]
        images = hand_strength.HAND_INDEX[mapping[cards[:, 0]], mapping[cards[:, 1]]]
        return self.rows[self.row[representative]][images]


class TurnTableFile:
    """An abstraction's table in its file, loaded when first asked and again whenever the file changes
    (built while an agent plays, it is used from the next turn on); None while it is absent or damaged
    (a damaged file is reported once on standard error)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._table: TurnTable | None = None

    def table(self) -> TurnTable | None:
        """The table, or None while there is none to use."""
        try:
            stat = os.stat(self.path)
        except OSError:
            self._seen, self._table = None, None
            return None
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._seen:
            self._seen = seen
            try:
                self._table = load_table(self.path)
            except (OSError, TurnTableError) as exc:
                self._table = None
                print(f"WARNING: {exc}; turn keys are computed exactly meanwhile", file=sys.stderr)
        return self._table
