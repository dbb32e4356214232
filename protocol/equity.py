"""Equity: what a hand is worth before all the cards are out.

- ``equity_vs_random``: a player's chance of winning a showdown against random
  opponent hands (Monte Carlo over the unseen cards; ties split); ``BoardDraws``
  the same for many holdings on one board from one set of draws. Both draw cards
  with ``shuffled_prefixes``.
- ``showdown_strengths``, ``strength_moments``: exact hand strength against every
  hand the one opponent could hold (HS), and its mean and mean square over board
  cards still to come (E[HS], E[HS^2]), for many hands at once.
- ``allin_expected_values``: the exact expected value of a hand whose players went
  all in before the last round, over every way the board could have come.
- ``preflop_equity``: two players' exact pre-flop equity (all five board cards to
  come: 1,712,304 boards in hold'em, about 0.1 s), kept per deal up to suit renaming.
  For the standard deck every deal is in the table shipped with the package
  (``tables/preflop-equity-13x4.npz``, built by ``preflop_table``); for other decks
  deals are valued when first seen and kept in a table on disk that grows
  (``$ACPC_ARENA_CACHE``, see ``disk_cache``): a deal valued once is a look-up in
  every later report, and the two seatings of a duplicate pair cost one valuation.
"""

from __future__ import annotations

import itertools
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import ceil, comb
from pathlib import Path

import numpy as np

from acpc_arena.protocol import evaluator
from acpc_arena.protocol.cards import NUM_CARDS
from acpc_arena.protocol.completions import index_combinations, shared_board_strengths, subset
from acpc_arena.protocol.disk_cache import cache_directory, source_digest
from acpc_arena.protocol.evaluator import HAND_RANKS, rank_hands, rank_hands_of_players, rank_holdings_on_boards
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import State

SHARED_BOARD_HANDS = 20_000
"""Completions times opponent hands up to which ``strength_moments`` takes ``shared_board_strengths`` for many
holdings on one board (beyond, every hand ranked alone is no dearer)."""


def equity_vs_random(
    game: Game,
    hole: Sequence[int],
    board: Sequence[int],
    opponents: int = 1,
    samples: int = 1000,
    rng: np.random.Generator | None = None,
) -> float:
    """Estimated share of the pot ``hole`` wins against ``opponents`` random hands.

    ``board`` holds the board cards seen so far; the rest of the game's board is
    drawn at random. Returns a number in [0, 1].
    """
    rng = rng or np.random.default_rng()
    seen = set(hole) | set(board)
    unseen = np.array([c for c in game.deck if c not in seen], dtype=np.uint8)
    missing = game.total_board_cards - len(board)
    per_opponent = game.num_hole_cards
    needed = missing + opponents * per_opponent
    if needed > len(unseen):
        raise ValueError("not enough unseen cards for the opponents and the board")
    cards = unseen[shuffled_prefixes(rng, samples, len(unseen), needed)]
    extra_board = cards[:, :missing]
    full_board = np.concatenate([np.tile(np.array(board, dtype=np.uint8), (samples, 1)), extra_board], axis=1)
    mine = rank_hands(np.concatenate([np.tile(np.array(hole, dtype=np.uint8), (samples, 1)), full_board], axis=1))
    best_other = np.full(samples, -1, dtype=np.int64)
    ties = np.zeros(samples, dtype=np.int64)  # opponents holding the best of their ranks
    for k in range(opponents):
        theirs_cards = cards[:, missing + k * per_opponent : missing + (k + 1) * per_opponent]
        theirs = rank_hands(np.concatenate([theirs_cards, full_board], axis=1)).astype(np.int64)
        ties = np.where(theirs > best_other, 1, np.where(theirs == best_other, ties + 1, ties))
        best_other = np.maximum(best_other, theirs)
    mine = mine.astype(np.int64)
    share = np.where(mine > best_other, 1.0, np.where(mine == best_other, 1.0 / (ties + 1), 0.0))
    return float(share.mean())


class BoardDraws:
    """Draws of the rest of the board and of ``opponents`` random hands, from the cards not on ``board``,
    for the equities of many holdings on that board (``equities``): about ``samples`` draws per holding.

    A holding takes the draws that hold none of its cards: each of them is a uniform draw from the cards
    it does not see, and there are ``samples`` on average (the draws are that many scaled by how many a
    holding leaves out). The opponents' hands are ranked once, for every holding.
    """

    def __init__(
        self, game: Game, board: Sequence[int], opponents: int, samples: int, rng: np.random.Generator
    ) -> None:
        off_board = np.array([c for c in game.deck if c not in set(board)], dtype=np.uint8)
        missing = game.total_board_cards - len(board)
        k = game.num_hole_cards
        needed = missing + opponents * k
        if needed + k > len(off_board):
            raise ValueError("not enough unseen cards for the opponents and the board")
        draws = ceil(samples * comb(len(off_board), needed) / comb(len(off_board) - k, needed))
        cards = off_board[shuffled_prefixes(rng, draws, len(off_board), needed)]
        board_array = np.broadcast_to(np.array(board, dtype=np.uint8), (draws, len(board)))
        self.full_board = np.concatenate([board_array, cards[:, :missing]], axis=1)
        self.best_other = np.full(draws, -1, dtype=np.int64)
        self.ties = np.zeros(draws, dtype=np.int64)  # opponents holding the best of their ranks
        for j in range(opponents):
            theirs_cards = cards[:, missing + j * k : missing + (j + 1) * k]
            theirs = rank_hands(np.concatenate([theirs_cards, self.full_board], axis=1)).astype(np.int64)
            self.ties = np.where(
                theirs > self.best_other, 1, np.where(theirs == self.best_other, self.ties + 1, self.ties)
            )
            self.best_other = np.maximum(self.best_other, theirs)
        self.masks = _card_masks(cards)
        self.hole_cards = k
        self.one_opponent = opponents == 1

    def equities(self, holes: Sequence[Sequence[int]]) -> np.ndarray:
        """(H,) the share of the pot each holding of ``holes`` wins (ties split), over the draws it takes."""
        holes_array = np.array(holes, dtype=np.uint8).reshape(len(holes), self.hole_cards)
        apart = (_card_masks(holes_array)[:, None] & self.masks[None, :]) == 0  # (H, draws)
        if self.one_opponent:  # shares 1, 1/2 or 0: their sum is exact in any order, counted whole
            ranks = rank_holdings_on_boards(holes_array, self.full_board)
            wins = np.count_nonzero(apart & (ranks > self.best_other), axis=1)
            splits = np.count_nonzero(apart & (ranks == self.best_other), axis=1)
            return np.asarray((wins + 0.5 * splits) / np.maximum(apart.sum(axis=1), 1))
        which, draw = np.nonzero(apart)
        mine = rank_holdings_on_boards(holes_array, self.full_board)[which, draw].astype(np.int64)
        other, tied = self.best_other[draw], self.ties[draw]
        share = np.where(mine > other, 1.0, np.where(mine == other, 1.0 / (tied + 1), 0.0))
        totals = np.bincount(which, weights=share, minlength=len(holes))
        return np.asarray(totals / np.maximum(apart.sum(axis=1), 1))


class BoardStrengths:
    """Exact E[HS] over the board's completions (``strength_moments``' first moment, the same numbers) of many
    holdings on one ``board``: every holding is ranked once on each completion, and a holding's hand strength
    counts the holdings ranked below and level with it, less those that share one of its cards."""

    def __init__(self, deck: Sequence[int], board: Sequence[int], total_board: int, hole_cards: int) -> None:
        holdings = deck_holdings(tuple(sorted(deck)), hole_cards)
        off_board = sorted(set(deck) - set(board))
        completions = np.array(list(itertools.combinations(off_board, total_board - len(board))), dtype=np.uint8)
        self.holdings, self.hole_cards = holdings, hole_cards
        self.completions = completions.reshape(len(completions), -1)
        self.completion_masks = _card_masks(self.completions)
        self.opponents = comb(len(deck) - hole_cards - total_board, hole_cards)
        # ranks (completions, holdings); a holding that shares a card with the board or the completion ranks
        # above every hand (counted neither below nor level)
        self.ranks = np.full((len(completions), len(holdings.cards)), HAND_RANKS + 1, dtype=np.int64)
        board_mask = np.uint64(sum(1 << c for c in board))
        taken = self.completion_masks[:, None] | board_mask
        shown = np.broadcast_to(np.array(board, dtype=np.uint8), (len(completions), len(board)))
        boards = np.concatenate([shown, self.completions], axis=1)
        apart = (taken & holdings.masks[None, :]) == 0
        self.ranks[apart] = rank_holdings_on_boards(holdings.cards, boards).T[apart]
        self.span = HAND_RANKS + 2
        self.sorted = (np.sort(self.ranks, axis=1) + np.arange(len(completions))[:, None] * self.span).ravel()

    def strengths(self, holes: Sequence[Sequence[int]]) -> np.ndarray:
        """(H,) each holding's hand strength against one random hand, averaged over the completions that hold
        none of its cards (in the order of ``strength_moments``)."""
        holdings = self.holdings
        holes_array = np.array(holes, dtype=np.uint8).reshape(len(holes), self.hole_cards)
        rows = np.array([holdings.index[tuple(sorted(hole))] for hole in holes_array.tolist()], dtype=np.intp)
        valid = (holdings.masks[rows][:, None] & self.completion_masks[None, :]) == 0  # (H, completions)
        each = int(valid[0].sum())
        which, completion = np.nonzero(valid)  # holding by holding, completions in order
        mine = self.ranks[completion, rows[which]]
        keys = mine + completion * self.span
        start = completion * len(holdings.cards)
        below = np.searchsorted(self.sorted, keys, side="left") - start
        level = np.searchsorted(self.sorted, keys, side="right") - start - below + (self.hole_cards - 1)
        for j in range(self.hole_cards):  # the holding itself is level once in all and once per card: k - 1 back
            card = holes_array[which, j]
            shared = self.ranks[completion[:, None], holdings.members[card]]  # (pairs, width)
            below -= (shared < mine[:, None]).sum(axis=1)
            level -= (shared == mine[:, None]).sum(axis=1)
        strength = (below + 0.5 * level) / self.opponents
        return np.asarray(strength.reshape(len(holes), each).mean(axis=1))


@dataclass(frozen=True)
class Holdings:
    """Every holding of a deck and the holdings that contain each card."""

    cards: np.ndarray
    """(n, k) the hole cards of each holding, in increasing order."""
    masks: np.ndarray
    """(n,) one bit per card of each holding."""
    index: dict[tuple[int, ...], int]
    """The row of each holding, by its cards in increasing order."""
    members: np.ndarray
    """(NUM_CARDS, a) the holdings that contain each card (every card of the deck is in ``a``); ``n`` (no
    holding) pads the rows of the cards outside the deck."""

    @property
    def size(self) -> int:
        return len(self.cards)

    def of(self, cards: Sequence[int]) -> int:
        """The row of the holding of ``cards``."""
        return self.index[tuple(sorted(cards))]

    def apart_from(self, cards: Sequence[int]) -> np.ndarray:
        """(n,) True for the holdings that share no card with ``cards``."""
        mask = np.uint64(sum(1 << c for c in set(cards)))
        return np.asarray((self.masks & mask) == 0)


@cache
def deck_holdings(deck: tuple[int, ...], hole_cards: int) -> Holdings:
    """Every holding of ``hole_cards`` cards from ``deck`` (its cards in increasing order)."""
    combos = list(itertools.combinations(sorted(deck), hole_cards))
    cards = np.array(combos, dtype=np.uint8).reshape(len(combos), hole_cards)
    lists: list[list[int]] = [[] for _ in range(NUM_CARDS)]
    for row, combo in enumerate(combos):
        for card in combo:
            lists[card].append(row)
    width = max(len(rows) for rows in lists)
    members = np.full((NUM_CARDS, width), len(combos), dtype=np.intp)
    for card, rows in enumerate(lists):
        members[card, : len(rows)] = rows
    return Holdings(cards, _card_masks(cards), {combo: row for row, combo in enumerate(combos)}, members)


def shuffled_prefixes(rng: np.random.Generator, rows: int, width: int, count: int) -> np.ndarray:
    """(rows, count) the first ``count`` positions of ``rows`` random orders of ``range(width)``, one a row:
    the positions of each row's smallest uniform keys, smallest first. The same numbers as
    ``np.argsort(rng.random((rows, width)), axis=1)[:, :count]`` (the keys are distinct) and the same draws
    from ``rng``, found one position at a time rather than by sorting whole rows."""
    if count > width:
        raise ValueError(f"{count} positions of {width}")
    keys = rng.random((rows, width))
    out = np.empty((rows, count), dtype=np.intp)
    every = np.arange(rows)
    for j in range(count):
        out[:, j] = smallest = keys.argmin(axis=1)
        keys[every, smallest] = np.inf
    return out


def _card_masks(cards: np.ndarray) -> np.ndarray:
    """(N,) one bit per card of each row of ``cards`` (N, k)."""
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)


def _unseen(deck: Sequence[int], known: np.ndarray) -> np.ndarray:
    """(N, U) the cards of ``deck`` not in each row of ``known`` (N, k), in increasing order."""
    deck_array = np.asarray(sorted(deck), dtype=np.int64)
    hidden = (_card_masks(known)[:, None] >> deck_array.astype(np.uint64)[None, :]) & np.uint64(1) == 0
    counts = hidden.sum(axis=1)
    if (counts != counts[0]).any():
        raise ValueError("repeated cards or cards outside the deck")
    return np.broadcast_to(deck_array, hidden.shape)[hidden].reshape(len(known), -1).astype(np.uint8)


def showdown_strengths(
    deck: Sequence[int], holes: np.ndarray, boards: np.ndarray, opponents: int | None = None
) -> np.ndarray:
    """(N,) hand strength of ``holes[i]`` on the complete board ``boards[i]``.

    Hand strength (HS) is the share of the pot won against one opponent holding any
    of the hands the unseen cards of ``deck`` make, each equally likely (ties count
    half): the equity against a random hand once the board is out. Exact, or with
    ``opponents`` set, against that many of those hands, the same random choice
    (by position among the unseen cards) every time.
    """
    holes, boards = np.asarray(holes, dtype=np.uint8), np.asarray(boards, dtype=np.uint8)
    count, k = holes.shape
    unseen = _unseen(deck, np.concatenate([holes, boards], axis=1))
    hands = subset(index_combinations(unseen.shape[1], k), opponents)
    theirs_cards = unseen[:, hands]  # (N, hands, k)
    shared = np.broadcast_to(boards[:, None, :], (count, len(hands), boards.shape[1]))
    theirs = rank_hands(np.concatenate([theirs_cards, shared], axis=2).reshape(count * len(hands), -1))
    theirs = theirs.reshape(count, len(hands)).astype(np.int32)
    mine = rank_hands(np.concatenate([holes, boards], axis=1)).astype(np.int32)[:, None]
    return ((theirs < mine).sum(axis=1) + 0.5 * (theirs == mine).sum(axis=1)) / len(hands)


def strength_moments(
    deck: Sequence[int],
    holes: np.ndarray,
    boards: np.ndarray,
    total_board: int,
    runouts: int | None = None,
    opponents: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(E[HS], E[HS^2]) of each hand over the ways the rest of its board can come, each (N,).

    Every completion of the board from the cards the player does not see is taken,
    or, with ``runouts`` smaller than their number, that many of them, the same
    random choice every time (so a hand always gets the same value); ``opponents``
    limits the opponent hands likewise (``showdown_strengths``). (A choice spread
    evenly over the ordered completions would not do: card numbers carry the
    suit, and even steps through them favour some suits.) With the board
    complete this is (HS, HS^2). Exact, E[HS] is the equity against a random hand.
    """
    holes, boards = np.asarray(holes, dtype=np.uint8), np.asarray(boards, dtype=np.uint8)
    missing = total_board - boards.shape[1]
    if missing == 0:
        strength = showdown_strengths(deck, holes, boards, opponents)
        return strength, strength**2
    unseen = _unseen(deck, np.concatenate([holes, boards], axis=1))
    completions = subset(index_combinations(unseen.shape[1], missing), runouts)
    hands = subset(index_combinations(unseen.shape[1] - missing, holes.shape[1]), opponents)
    shared = missing == 1 or len(completions) * len(hands) <= SHARED_BOARD_HANDS
    if shared and len(holes) > 1 and (boards == boards[0]).all():  # one board (a range's holdings)
        strength = shared_board_strengths(holes, boards[0], unseen, completions, hands)
        # each row summed on its own, as a hand alone is (a 2-D mean may add in another order)
        each = strength.shape[1]
        firsts = np.array([np.add.reduce(row) for row in strength]) / each
        return firsts, np.array([np.add.reduce(row) for row in strength * strength]) / each
    count, each = len(holes), len(completions)
    rest = unseen[:, completions].reshape(count * each, missing)
    full = np.concatenate([np.repeat(boards, each, axis=0), rest], axis=1)
    strength = showdown_strengths(deck, np.repeat(holes, each, axis=0), full, opponents).reshape(count, each)
    return strength.mean(axis=1), (strength**2).mean(axis=1)


def expected_showdown_values(ranks: np.ndarray, spent: Sequence[int], folded: Sequence[bool]) -> np.ndarray:
    """Each player's value averaged over the rows of hand ranks ``(B, n)`` (one row per board).

    Pots are split as by the ACPC ``valueOfState``: one pot per distinct amount
    spent, shared equally by the best hands among those who put it in; folded
    players rank below every hand. With one row this is the value of that showdown.
    """
    ranks = np.asarray(ranks)
    if any(folded):
        ranks = ranks.astype(np.int32)
        ranks[:, [p for p, f in enumerate(folded) if f]] = -1
    values = -np.asarray(spent, dtype=np.float64)
    previous = 0
    for level in sorted({s for s in spent if s > 0}):
        in_pot = [p for p, s in enumerate(spent) if s >= level]
        contest = ranks[:, in_pot]
        winners = contest == contest.max(axis=1, keepdims=True)
        share = 1.0 / winners.sum(axis=1)
        pot = (level - previous) * len(in_pot)
        values[in_pot] += pot * (winners * share[:, None]).mean(axis=0)
        previous = level
    return values


def ended_all_in_early(state: State) -> bool:
    """Whether a finished hand went to a showdown with board cards still to come when the betting ended."""
    game = state.game
    if not state.finished or state.num_folded + 1 >= game.num_players:
        return False
    last = max((r for r in range(game.num_rounds) if state.actions[r]), default=0)
    return game.board_start[last + 1] < game.total_board_cards


def allin_expected_values(state: State) -> list[float] | None:
    """Expected values of a hand that ended all in before its last round, over every board.

    The board cards still to come when the betting ended are enumerated over all the
    cards nobody holds (every player's hole cards are known in a log); each player's
    value is averaged, side pots included. Returns None for a hand that did not end
    all in with board cards to come.
    """
    if not ended_all_in_early(state):
        return None
    game = state.game
    last = max((r for r in range(game.num_rounds) if state.actions[r]), default=0)
    shown = game.board_start[last + 1]
    if game.num_players == 2 and shown == 0:
        # nobody folded: the smaller stake is contested, the rest of the larger one goes back
        contested = min(state.spent)
        first = contested * (2 * preflop_equity(game, state.hole_cards[0], state.hole_cards[1]) - 1)
        return [first, -first]
    board = state.board_cards[:shown]
    known = {c for hole in state.hole_cards for c in hole} | set(board)
    unseen = np.array([c for c in game.deck if c not in known], dtype=np.uint8)
    missing = game.total_board_cards - shown
    completions = unseen[index_combinations(len(unseen), missing)]
    holes = [list(hole) + list(board) for hole in state.hole_cards]
    ranks = rank_hands_of_players(completions, holes)
    return expected_showdown_values(ranks, state.spent, state.folded).tolist()


def _preflop_counts(game: Game, first: Sequence[int], second: Sequence[int]) -> tuple[int, int]:
    """(2 x wins + ties of ``first``, boards) over every full board from the cards neither holds."""
    known = set(first) | set(second)
    unseen = np.array([c for c in game.deck if c not in known], dtype=np.uint8)
    boards = unseen[index_combinations(len(unseen), game.total_board_cards)]
    ranks = rank_hands_of_players(boards, [list(first), list(second)]).astype(np.int32)
    wins = int((ranks[:, 0] > ranks[:, 1]).sum())
    ties = int((ranks[:, 0] == ranks[:, 1]).sum())
    return 2 * wins + ties, len(boards)


def suit_canonical(game: Game, first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The two holdings with the suits renamed in the order that sorts first (equity does not change)."""
    suits = game.num_suits
    best: tuple[int, ...] | None = None
    for order in itertools.permutations(range(suits)):
        renamed = tuple(
            c for hole in (first, second) for c in sorted(card - card % suits + order[card % suits] for card in hole)
        )
        if best is None or renamed < best:
            best = renamed
    assert best is not None
    return best


SHIPPED_TABLES = Path(__file__).with_name("tables")


class PreflopTable:
    """Exact two-player pre-flop equities by suit-canonical deal: the shipped table, then an append-only file.

    The shipped table (``SHIPPED_TABLES``, an ``.npz`` of ``keys``, ``twice_wins_plus_ties``
    and ``boards``) holds every deal of its deck. Each line of the file is
    ``cards... twice_wins_plus_ties boards``; the file's name holds the game's deck and
    a digest of the code that computes the values. Lines that do not read (a write
    cut short) are ignored; a file that cannot be written only costs recomputing.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        digest = source_digest(Path(__file__), *evaluator.SOURCES)
        deck = f"{game.num_ranks}x{game.num_suits}-{game.num_hole_cards}-{game.total_board_cards}"
        self.path = cache_directory() / f"preflop-equity-{deck}-{digest}.txt"
        self.values: dict[tuple[int, ...], float] = {}
        if (game.num_ranks, game.num_suits, game.num_hole_cards, game.total_board_cards) == (13, 4, 2, 5):
            self._load_shipped(SHIPPED_TABLES / "preflop-equity-13x4.npz")
        self._read()

    def _load_shipped(self, path: Path) -> None:
        """Every deal of the standard deck (a missing or damaged file only costs computing deals as they come)."""
        try:
            with np.load(path, allow_pickle=False) as table:
                keys, twice, boards = table["keys"], table["twice_wins_plus_ties"], int(table["boards"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return
        if keys.ndim != 2 or keys.shape[1] != 4 or len(twice) != len(keys) or boards <= 0:
            return
        values = (twice / (2 * boards)).tolist()
        self.values.update(zip(map(tuple, keys.tolist()), values, strict=True))

    def _read(self) -> None:
        try:
            text = self.path.read_text(encoding="ascii", errors="replace")
        except OSError:
            return
        cards = 2 * self.game.num_hole_cards
        for line in text.splitlines():
            fields = line.split()
            if len(fields) != cards + 2 or not all(f.isdigit() for f in fields):
                continue
            *key, twice, boards = map(int, fields)
            if boards > 0 and twice <= 2 * boards:
                self.values[tuple(key)] = twice / (2 * boards)

    def equity(self, first: Sequence[int], second: Sequence[int]) -> float:
        """The share of the pot ``first`` wins against ``second`` over every board."""
        key = suit_canonical(self.game, first, second)
        value = self.values.get(key)
        if value is None:
            n = self.game.num_hole_cards
            twice, boards = _preflop_counts(self.game, key[:n], key[n:])
            value = self.values[key] = twice / (2 * boards)
            self._append(f"{' '.join(map(str, key))} {twice} {boards}\n")
        return value

    def _append(self, line: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, line.encode("ascii"))  # one small append: whole, or not at all
            finally:
                os.close(descriptor)
        except OSError:
            pass


_PREFLOP_TABLES: dict[Game, PreflopTable] = {}


def preflop_equity(game: Game, first: Sequence[int], second: Sequence[int]) -> float:
    """Exact share of the pot ``first`` wins against ``second`` at a two-player showdown, no board card
    seen yet (ties split), from the table of ``game``'s deck (computed and stored when new)."""
    table = _PREFLOP_TABLES.get(game)
    if table is None:
        table = _PREFLOP_TABLES[game] = PreflopTable(game)
    return table.equity(first, second)
