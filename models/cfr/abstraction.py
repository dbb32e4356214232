"""Card abstractions: what a player's information set key is, from the cards it can see.

- ``ExactCards``: the hole cards and the board exactly (small games: Kuhn, Leduc).
- ``StrengthBuckets`` (``ehs2-F-T-R``): the default for hold'em, described below.
- ``NineBuckets``: seed 002's 9-bucket abstractions for hold'em. ``traditional``
  keeps the pre-flop bucket (a Sklansky-Malmuth style 13x13 table, 1 strongest)
  for the whole hand; ``improved`` uses that table before the flop and, from the
  flop on, the category of the best five cards of hole plus board, recomputed each
  round (bucket 1 two pair or better, 2-5 one pair of A-Q, J-9, 8-6, 5-2, 6-9 high
  card A-K, Q-J, T-9, 8-7). ``perfect_recall=True`` keys on the whole sequence of
  buckets so far instead of the current one (the seed forgets earlier rounds).

Choices where the seed is loose: the seed's table gives 43o and 32o bucket 7, one
column off from the neighbouring entries (every other unplayable offsuit hand is
9); here they are 9. Postflop buckets never get weaker as cards come (a category
or a pair only improves), so a perfect-recall key is the pre-flop bucket and a
non-increasing sequence of postflop buckets: 9, 81, 405 and 1485 keys per round.

``StrengthBuckets``, the hold'em default: before the flop the 169 starting hands
up to suits, exactly; from the flop on, ``F``, ``T`` and ``R`` buckets of equal
frequency by E[HS^2], the mean square of the hand's strength against one random
hand once the board is out (``protocol.equity.strength_moments``; on the river
that is HS^2 itself). The square rewards potential: a draw whose strength ends
high or low beats a made hand of the same mean. River values are exact (HS
against all 990 opponent hands); on the turn, HS after each of the 46 river cards
is measured against ``TURN_OPPONENTS`` of the opponent hands, and on the flop
after ``FLOP_RUNOUTS`` of the 1,081 turn-river completions against
``FLOP_OPPONENTS``, each a fixed random choice, so a hand always gets the same
bucket. (Exact turn and flop values cost 45,540 and 1.07 million showdowns a
hand, too slow for training here; these cost about 3,700 and 3,300. On the flop
the completions are where the variance is: a flush draw's square is 0.9 or 0.1.)
Imperfect recall: the key is the current round's bucket alone (Waugh et al. 2009,
"A practical use of imperfect recall", report that at a fixed size fine current
buckets beat remembering coarse earlier ones). The bucket edges are quantiles of E[HS^2] over
``EDGE_SAMPLES`` random hands of each round (seeded), computed once with the
batched evaluator, kept on disk like the evaluator's tables, and saved in each
checkpoint so that a checkpoint keeps the buckets it was trained with.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from acpc_arena.models.cfr import hand_strength
from acpc_arena.models.cfr.turn_table import AMBIGUOUS, TurnTableFile, table_path
from acpc_arena.models.hand_strength.classes import hand_class
from acpc_arena.protocol import equity, evaluator
from acpc_arena.protocol.cards import MAX_RANKS, NUM_CARDS, rank_of, suit_of
from acpc_arena.protocol.disk_cache import cached_array, source_digest
from acpc_arena.protocol.equity import shuffled_prefixes, strength_moments
from acpc_arena.protocol.evaluator import HAND_RANKS, PAIR, TWO_PAIR, describe_rank, rank_hands
from acpc_arena.protocol.game import Game

# Seed 002's pre-flop table: row 14 - rank of one card, column 14 - rank of the other (A = 14);
# suited hands above the diagonal (hs[14-hi][14-lo]), offsuit below (hs[14-lo][14-hi]).
PREFLOP_TABLE = (
    (1, 1, 2, 2, 3, 5, 5, 5, 5, 5, 5, 5, 5),
    (2, 1, 2, 3, 4, 7, 7, 7, 7, 7, 7, 7, 7),
    (3, 4, 1, 3, 4, 5, 7, 9, 9, 9, 9, 9, 9),
    (4, 5, 5, 1, 3, 4, 6, 6, 9, 9, 9, 9, 9),
    (6, 6, 6, 5, 2, 4, 5, 7, 9, 9, 9, 9, 9),
    (8, 8, 8, 7, 7, 3, 4, 5, 8, 9, 9, 9, 9),
    (9, 9, 9, 8, 8, 7, 4, 5, 6, 8, 9, 9, 9),
    (9, 9, 9, 9, 9, 9, 8, 5, 5, 6, 8, 9, 9),
    (9, 9, 9, 9, 9, 9, 9, 8, 5, 6, 7, 9, 9),
    (9, 9, 9, 9, 9, 9, 9, 9, 8, 6, 6, 7, 9),
    (9, 9, 9, 9, 9, 9, 9, 9, 9, 8, 7, 7, 8),
    (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 7, 8),  # 43o: 7 in the seed
    (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 7),  # 32o: 7 in the seed
)


@dataclass
class Worlds:
    """A batch of deals: every player's hole cards and every board card, with their weights."""

    holes: np.ndarray
    """(W, players, hole cards) card numbers."""
    boards: np.ndarray
    """(W, board cards of the whole hand)."""
    weights: np.ndarray
    """(W,) chance probability of each deal (they sum to 1)."""

    def __len__(self) -> int:
        return len(self.weights)


def all_deals(game: Game) -> Worlds:
    """Every deal of a small game, each with its probability (order of cards within a hand ignored)."""
    deck = list(game.deck)
    k, n, b = game.num_hole_cards, game.num_players, game.total_board_cards
    holes, boards = [], []

    def deal(remaining: list[int], hands: list[tuple[int, ...]]) -> None:
        if len(hands) == n:
            for board in itertools.combinations(remaining, b):
                holes.append(hands)
                boards.append(board)
            return
        for hand in itertools.combinations(remaining, k):
            deal([c for c in remaining if c not in hand], [*hands, hand])

    deal(deck, [])
    count = len(holes)
    if count > 2_000_000:
        raise ValueError(f"{count} deals: too many to enumerate; sample them instead")
    return Worlds(
        holes=np.array(holes, dtype=np.uint8).reshape(count, n, k),
        boards=np.array(boards, dtype=np.uint8).reshape(count, b),
        weights=np.full(count, 1.0 / count),
    )


def sample_deals(game: Game, count: int, rng: np.random.Generator) -> Worlds:
    """``count`` deals drawn uniformly (chance sampling)."""
    k, n, b = game.num_hole_cards, game.num_players, game.total_board_cards
    deck = np.array(game.deck, dtype=np.uint8)
    cards = deck[shuffled_prefixes(rng, count, len(deck), n * k + b)]
    return Worlds(cards[:, : n * k].reshape(count, n, k), cards[:, n * k :], np.full(count, 1.0 / count))


class Abstraction:
    """Maps what a player sees to an information set key in ``range(num_keys(round))``."""

    name = "abstraction"

    def num_keys(self, round_: int) -> int:
        raise NotImplementedError

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        """(W,) the key of ``player`` in ``round_`` of every deal."""
        raise NotImplementedError

    def key(self, hole: list[int], board: list[int], round_: int) -> int:
        """The key of a player holding ``hole`` with ``board`` showing, in ``round_``."""
        worlds = Worlds(np.array([[hole]], dtype=np.uint8), np.array([board], dtype=np.uint8), np.ones(1))
        return int(self.keys(worlds, 0, round_)[0])


class ExactCards(Abstraction):
    """The cards themselves: one key per (hole cards, board so far) combination."""

    name = "exact"

    def __init__(self, game: Game) -> None:
        self.game = game
        self._index: list[dict[int, int]] = []
        deck = game.deck
        for r in range(game.num_rounds):
            shown = game.board_start[r + 1]
            masks: dict[int, int] = {}
            for hole in itertools.combinations(deck, game.num_hole_cards):
                rest = [c for c in deck if c not in hole]
                for board in itertools.combinations(rest, shown):
                    masks.setdefault(_mask(hole) | _mask(board) << 64, len(masks))
            self._index.append(masks)

    def num_keys(self, round_: int) -> int:
        return len(self._index[round_])

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        shown = self.game.board_start[round_ + 1]
        index = self._index[round_]
        holes = worlds.holes[:, player, :].tolist()
        boards = worlds.boards[:, :shown].tolist()
        return np.array([index[_mask(h) | _mask(b) << 64] for h, b in zip(holes, boards, strict=True)], dtype=np.int64)


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


@cache
def _postflop_bucket_of_rank() -> np.ndarray:
    """Improved bucket (0-based: 0 is two pair or better ... 8 is eight- or seven-high) of each hand rank."""
    buckets = np.zeros(HAND_RANKS, dtype=np.int64)
    for rank in range(HAND_RANKS):
        category, cards = describe_rank(rank)
        top = cards[0]  # the pair's rank, or the high card
        if category >= TWO_PAIR:
            buckets[rank] = 0
        elif category == PAIR:
            buckets[rank] = 1 if top >= 10 else 2 if top >= 7 else 3 if top >= 4 else 4
        else:
            buckets[rank] = 5 if top >= 11 else 6 if top >= 9 else 7 if top >= 7 else 8
    return buckets


@cache
def _preflop_bucket_table() -> np.ndarray:
    """(52, 52) 0-based pre-flop bucket of every pair of cards."""
    table = np.zeros((NUM_CARDS, NUM_CARDS), dtype=np.int64)
    for a in range(NUM_CARDS):
        for b in range(NUM_CARDS):
            hi, lo = max(rank_of(a), rank_of(b)), min(rank_of(a), rank_of(b))
            i, j = MAX_RANKS - 1 - hi, MAX_RANKS - 1 - lo  # 14 - rank, with A = 14
            suited = suit_of(a) == suit_of(b)
            table[a, b] = PREFLOP_TABLE[i][j] - 1 if suited or hi == lo else PREFLOP_TABLE[j][i] - 1
    return table


@cache
def _recall_index(rounds: int) -> np.ndarray:
    """Compact index of every (pre-flop bucket, postflop buckets...) sequence, -1 if impossible.

    Indexed by the sequence read as a base-9 number; postflop buckets never rise.
    """
    index = np.full(9**rounds, -1, dtype=np.int64)
    count = 0
    for sequence in itertools.product(range(9), repeat=rounds):
        post = sequence[1:]
        if all(post[i] >= post[i + 1] for i in range(len(post) - 1)):
            code = 0
            for bucket in sequence:
                code = code * 9 + bucket
            index[code] = count
            count += 1
    return index


class NineBuckets(Abstraction):
    """Seed 002's nine buckets for hold'em (see the module docstring)."""

    def __init__(self, game: Game, improved: bool = True, perfect_recall: bool = False) -> None:
        if game.num_hole_cards != 2 or game.num_suits != 4 or game.num_ranks != 13:
            raise ValueError("the 9-bucket abstractions are for hold'em (two hole cards, 52 cards)")
        self.game = game
        self.improved = improved
        self.perfect_recall = perfect_recall and improved  # the traditional key never changes
        self.name = ("improved" if improved else "traditional") + ("-recall" if self.perfect_recall else "")

    def num_keys(self, round_: int) -> int:
        if not self.perfect_recall:
            return 9
        return int(_recall_index(round_ + 1).max()) + 1

    def buckets(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        """(W,) the 0-based bucket of ``player`` in ``round_`` (the current one, not the sequence)."""
        holes = worlds.holes[:, player, :]
        if round_ == 0 or not self.improved:
            return _preflop_bucket_table()[holes[:, 0], holes[:, 1]]
        shown = self.game.board_start[round_ + 1]
        ranks = rank_hands(np.concatenate([holes, worlds.boards[:, :shown]], axis=1))
        return _postflop_bucket_of_rank()[ranks]

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        if not self.perfect_recall:
            return self.buckets(worlds, player, round_)
        code = np.zeros(len(worlds), dtype=np.int64)
        for r in range(round_ + 1):
            code = code * 9 + self.buckets(worlds, player, r)
        keys = _recall_index(round_ + 1)[code]
        assert (keys >= 0).all(), "a postflop bucket rose: the abstraction's invariant is broken"
        return keys


FLOP_RUNOUTS = 100
"""Turn-river completions a flop hand's E[HS^2] is averaged over (of 1,081)."""
FLOP_OPPONENTS = 32
"""Opponent hands each flop hand's strength after a completion is measured against (of 990)."""
TURN_OPPONENTS = 80
"""Opponent hands each turn hand's strength after each river card is measured against (of 990)."""
EDGE_SAMPLES = 6000
"""Random hands per round whose E[HS^2] quantiles make the bucket edges."""


def _require_holdem(game: Game, what: str) -> None:
    if game.num_hole_cards != 2 or game.num_suits != 4 or game.num_ranks != 13 or game.num_rounds != 4:
        raise ValueError(f"{what} are for hold'em (two hole cards, 52 cards, four rounds)")


@cache
def _preflop_class_table() -> np.ndarray:
    """(52, 52) the starting-hand class (0..168, as ``models.search.mcts.hand_class``) of every pair of cards."""
    table = np.zeros((52, 52), dtype=np.int64)
    for a in range(52):
        for b in range(52):
            if a != b:
                table[a, b] = hand_class([a, b])
    return table


def hand_strength_squared(game: Game, holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """(N,) E[HS^2] of each hole with the board so far (3, 4 or 5 cards), as the buckets use it."""
    shown = boards.shape[1]
    runouts = FLOP_RUNOUTS if shown == 3 else None
    opponents = FLOP_OPPONENTS if shown == 3 else TURN_OPPONENTS if shown == 4 else None
    return strength_moments(game.deck, holes, boards, game.total_board_cards, runouts, opponents)[1]


def strength_edges(game: Game, buckets: tuple[int, ...], samples: int = EDGE_SAMPLES) -> list[np.ndarray]:
    """Bucket edges of each postflop round: the E[HS^2] quantiles that split random hands evenly."""
    edges = []
    for round_, count in zip((1, 2, 3), buckets, strict=True):
        shown = game.board_start[round_ + 1]

        def build(shown: int = shown) -> np.ndarray:
            worlds = sample_deals(game, samples, np.random.default_rng(20260 + shown))
            return np.sort(hand_strength_squared(game, worlds.holes[:, 0, :], worlds.boards[:, :shown]))

        code = source_digest(Path(__file__), Path(equity.__file__), *evaluator.SOURCES)
        values = cached_array(f"ehs2-sample-{shown}-{samples}-{code}", build)
        edges.append(np.quantile(values, np.arange(1, count) / count))
    return edges


class StrengthBuckets(Abstraction):
    """169 starting hands, then E[HS^2] buckets of equal frequency per round (see the module docstring)."""

    def __init__(self, game: Game, buckets: tuple[int, ...], edges: list[np.ndarray] | None = None) -> None:
        _require_holdem(game, "E[HS^2] buckets")
        if len(buckets) != 3 or min(buckets) < 1:
            raise ValueError(f"give a positive bucket count for the flop, turn and river, not {buckets}")
        self.game = game
        self.buckets = tuple(int(b) for b in buckets)
        self.name = "ehs2-" + "-".join(str(b) for b in self.buckets)
        self.edges = strength_edges(game, self.buckets) if edges is None else [np.asarray(e) for e in edges]
        if [len(e) + 1 for e in self.edges] != list(self.buckets):
            raise ValueError(f"bucket edges of lengths {[len(e) for e in self.edges]} do not fit {self.name}")

    def num_keys(self, round_: int) -> int:
        return 169 if round_ == 0 else self.buckets[round_ - 1]

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        holes = worlds.holes[:, player, :]
        if round_ == 0:
            return _preflop_class_table()[holes[:, 0], holes[:, 1]]
        shown = self.game.board_start[round_ + 1]
        strength = hand_strength_squared(self.game, holes, worlds.boards[:, :shown])
        return np.searchsorted(self.edges[round_ - 1], strength, side="right").astype(np.int64)


EXACT_EDGE_BOARDS = (3000, 300, 3000)
"""Boards sampled (every hand on each) for the bucket edges of ``ExactStrengthBuckets`` on the flop, turn, river."""


def exact_strength_edges(buckets: tuple[int, ...]) -> list[np.ndarray]:
    """Bucket edges of each postflop round for ``ExactStrengthBuckets``: quantiles of exact E[HS^2]
    over every hand on random boards (a fixed sample)."""
    table = hand_strength.FlopTable()
    edges = []
    for round_, (count, boards) in enumerate(zip(buckets, EXACT_EDGE_BOARDS, strict=True), start=1):

        def build(round_: int = round_, boards: int = boards) -> np.ndarray:
            rng = np.random.default_rng(20261 + round_)
            sample = np.stack([rng.permutation(52)[:5] for _ in range(boards)]).astype(np.uint8)
            if round_ == 1:
                values = np.concatenate([table.ehs2(board[:3]) for board in sample])
            elif round_ == 2:
                values = np.concatenate([hand_strength.turn_ehs2(board[:4]) for board in sample])
            else:
                values = hand_strength.river_strengths(sample).reshape(-1) ** 2
            return np.sort(values[~np.isnan(values)])

        code = source_digest(Path(hand_strength.__file__), *evaluator.SOURCES)
        values = cached_array(f"ehs2-exact-sample-{round_}-{boards}-{code}", build)
        edges.append(np.quantile(values, np.arange(1, count) / count))
    return edges


class ExactStrengthBuckets(Abstraction):
    """``ehs2-exact-F-T-R``: the 169 starting hands, then F, T, R buckets of equal frequency by exact
    E[HS^2] (``hand_strength.py``: every turn and river card, every opponent hand).

    The flop's buckets come from a table over the 1,755 flops up to suits (``flop_buckets``, which
    a checkpoint carries: building it takes minutes); the turn's from the turn table of the edges
    (``turn_table.py``, ``turn_table_file``: built by ``acpc-cfr turn-table``) where it exists, else
    they are computed for the hands in play (46 x 990 showdowns); the river's are computed (990
    showdowns). Either way a key is, to the bit, what training computed for every hand at once (a value
    on a bucket edge lands where it landed in training).
    """

    BATCH_FROM = 256
    """Holdings on one board from which the turn's and river's values are computed for every hand at once
    (below, each holding's from the board's ``TurnBoard``)."""

    def __init__(
        self,
        game: Game,
        buckets: tuple[int, ...],
        edges: list[np.ndarray] | None = None,
        flop_buckets: np.ndarray | None = None,
    ) -> None:
        _require_holdem(game, "E[HS^2] buckets")
        if len(buckets) != 3 or min(buckets) < 1 or max(buckets) > 255:
            raise ValueError(f"give a bucket count of 1..255 for the flop, turn and river, not {buckets}")
        self.game = game
        self.buckets = tuple(int(b) for b in buckets)
        self.name = "ehs2-exact-" + "-".join(str(b) for b in self.buckets)
        self.edges = exact_strength_edges(self.buckets) if edges is None else [np.asarray(e) for e in edges]
        if [len(e) + 1 for e in self.edges] != list(self.buckets):
            raise ValueError(f"bucket edges of lengths {[len(e) for e in self.edges]} do not fit {self.name}")
        shape = (len(hand_strength.canonical_flops()), hand_strength.NUM_HANDS)
        if flop_buckets is None:
            values = hand_strength.FlopTable().values
            flop_buckets = self._bucket(1, np.nan_to_num(values)).astype(np.uint8)
        if flop_buckets.shape != shape or flop_buckets.max(initial=0) >= self.buckets[0]:
            raise ValueError(f"a flop bucket table of shape {flop_buckets.shape} does not fit {self.name}")
        self.flop_buckets = flop_buckets
        self.flop_row = {flop: i for i, flop in enumerate(hand_strength.canonical_flops())}
        self.turn_table_file: TurnTableFile | None = TurnTableFile(table_path(self.edges[1]))
        """Where the turn table of these edges is kept (None: the turn keys always computed)."""

    def num_keys(self, round_: int) -> int:
        return 169 if round_ == 0 else self.buckets[round_ - 1]

    def _bucket(self, round_: int, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.edges[round_ - 1], values, side="right").astype(np.int64)

    def _flop_keys(self, flop: np.ndarray) -> np.ndarray:
        """(1326,) every hand's flop bucket on ``flop``."""
        representative, mapping = hand_strength.canonical_flop(flop)
        images = hand_strength.HAND_INDEX[mapping[hand_strength.HANDS[:, 0]], mapping[hand_strength.HANDS[:, 1]]]
        return self.flop_buckets[self.flop_row[representative]][images].astype(np.int64)

    def board_keys(self, board: np.ndarray) -> np.ndarray:
        """(4, 1326) every hand's key in every round on a five-card board (0 for hands on the board)."""
        hands = hand_strength.HANDS
        turn = np.nan_to_num(hand_strength.turn_ehs2(board[:4]))
        river = np.nan_to_num(hand_strength.river_strengths(board[None, :])[0]) ** 2
        return np.stack(
            [
                _preflop_class_table()[hands[:, 0], hands[:, 1]],
                self._flop_keys(board[:3]),
                self._bucket(2, turn),
                self._bucket(3, river),
            ]
        )

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        holes = worlds.holes[:, player, :]
        if round_ == 0:
            return _preflop_class_table()[holes[:, 0], holes[:, 1]]
        shown = self.game.board_start[round_ + 1]
        boards = worlds.boards[:, :shown]
        index = hand_strength.HAND_INDEX[holes[:, 0], holes[:, 1]]
        keys = np.empty(len(holes), dtype=np.int64)
        for board, rows in _by_board(boards):
            if round_ == 1:
                keys[rows] = self._flop_keys(board)[index[rows]]
            elif round_ == 2:
                keys[rows] = self._turn_keys(holes[rows], board, index[rows])
            elif len(rows) > self.BATCH_FROM:  # many holdings on one board (local best response): all at once
                keys[rows] = self._bucket(round_, hand_strength.river_strengths(board[None])[0][index[rows]] ** 2)
            else:
                keys[rows] = self._bucket(round_, hand_strength.hands_river_strength(holes[rows], board) ** 2)
        return keys

    def _turn_keys(self, holes: np.ndarray, board: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """(H,) the turn keys of ``holes`` (``hands``: their indices in ``HANDS``) on a four-card ``board``: the
        turn table's where it is built and sure of them, else computed."""
        table = None if self.turn_table_file is None else self.turn_table_file.table()
        if table is None:
            return self._computed_turn_keys(holes, board, hands)
        keys = table.buckets(board, hands).astype(np.int64)
        ambiguous = keys == AMBIGUOUS
        if ambiguous.any():  # a value near an edge (turn_table.py)
            keys[ambiguous] = self._computed_turn_keys(holes[ambiguous], board, hands[ambiguous])
        return keys

    def _computed_turn_keys(self, holes: np.ndarray, board: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """(H,) the turn keys of ``holes`` on ``board`` computed: from the board's ``TurnBoard``, or for every
        hand at once where they are many."""
        if len(holes) > self.BATCH_FROM:  # many holdings on one board (local best response): all at once
            return self._bucket(2, hand_strength.turn_ehs2(board)[hands])
        return self._bucket(2, hand_strength.hands_turn_ehs2(holes, board))


def _by_board(boards: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each distinct row of ``boards`` with the rows that hold it (one board, as an agent asks, at once)."""
    if len(boards) and (boards == boards[0]).all():
        return [(boards[0], np.arange(len(boards)))]
    return [(board, np.flatnonzero((boards == board).all(axis=1))) for board in np.unique(boards, axis=0)]
