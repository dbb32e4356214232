"""Hand evaluation against pokerkit, and the exhaustive 7-card category counts."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from math import comb
from typing import cast

import numpy as np
import pokerkit
import pytest

from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.evaluator import (
    CATEGORY_NAMES,
    FLUSH,
    HIGH_CARD,
    PAIR,
    RANK_KEYS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    category_of_ranks,
    describe_rank,
    hand_category,
    rank_hand,
    rank_hand_by_rules,
    rank_hands,
    rank_holdings_on_boards,
)
from acpc_arena.protocol.rank_rules import _multisets
from tests.helpers.evaluator import category_counts_of_all_seven_card_hands


def random_hands(n: int, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :n].astype(np.uint8)


def pokerkit_hand(cards: Iterable[int]) -> pokerkit.Hand:
    text = "".join(CARD_STRINGS[c] for c in cards)
    return pokerkit.StandardHighHand.from_game(text[:4], text[4:])


def suited_hands(n: int, count: int, seed: int, ranks: Iterable[int] = range(13), suits: int = 2) -> np.ndarray:
    """Hands drawn from ``suits`` random suits of the given ranks: mostly flushes, often straights."""
    rng = np.random.default_rng(seed)
    ranks = list(ranks)
    hands = []
    for _ in range(count):
        chosen = rng.choice(4, size=suits, replace=False)
        deck = np.array([r * 4 + s for r in ranks for s in chosen])
        hands.append(rng.choice(deck, size=n, replace=False))
    return np.array(hands, dtype=np.uint8)


def assert_ordered_as_pokerkit(hands: np.ndarray, ranks: np.ndarray) -> None:
    """Sorted by our ranks, pokerkit finds each hand no better than the next, equal exactly where we do, and of
    the same category."""
    ordered = np.argsort(ranks, kind="stable")
    theirs = [pokerkit_hand(hands[i]) for i in ordered]
    ours = ranks[ordered]
    for i in range(len(ordered) - 1):
        if ours[i] == ours[i + 1]:
            assert theirs[i] == theirs[i + 1], (hands[ordered[i]], hands[ordered[i + 1]])
        else:
            assert theirs[i] < theirs[i + 1], (hands[ordered[i]], hands[ordered[i + 1]])
    labels = [list(pokerkit.Label).index(h.entry.label) for h in theirs]
    assert labels == category_of_ranks(ours).tolist()


@pytest.mark.parametrize("n", [5, 6, 7])
def test_ranks_order_hands_as_pokerkit_does(n: int) -> None:
    hands = random_hands(n, 1500, seed=n)
    assert_ordered_as_pokerkit(hands, rank_hands(hands))


@pytest.mark.parametrize("n", [5, 6, 7])
def test_one_hand_at_a_time_orders_hands_as_pokerkit_does(n: int) -> None:
    """The scalar path on random hands, flush-heavy hands and straight flushes around the wheel."""
    hands = np.concatenate(
        [
            random_hands(n, 600, seed=20 + n),
            suited_hands(n, 600, seed=30 + n),
            suited_hands(n, 300, seed=40 + n, ranks=[12, 0, 1, 2, 3, 4, 5, 6], suits=1),
        ]
    )
    ranks = np.array([rank_hand(h) for h in hands.tolist()])
    assert (category_of_ranks(ranks) == STRAIGHT_FLUSH).sum() > 10
    assert_ordered_as_pokerkit(hands, ranks)


def test_one_hand_at_a_time_agrees_with_the_batched_path_on_many_hands() -> None:
    hands = np.concatenate([random_hands(7, 200_000, seed=70), suited_hands(7, 20_000, seed=71)])
    assert [rank_hand(h) for h in hands.tolist()] == rank_hands(hands).tolist()


def test_one_hand_takes_any_sequence_of_integers() -> None:
    royal = [51, 47, 43, 39, 35, 0, 1]  # As Ks Qs Js Ts 2c 2d
    assert rank_hand(royal) == rank_hand(tuple(royal)) == 7461
    # numpy integers, as callers whose types mypy does not see pass them
    assert rank_hand(cast("list[int]", np.array(royal, dtype=np.uint8))) == 7461
    assert rank_hand(cast("list[int]", [np.int64(c) for c in royal])) == 7461


def test_scalar_batched_and_reference_paths_agree() -> None:
    for n in range(1, 8):
        hands = random_hands(n, 3000, seed=100 + n)
        batched = rank_hands(hands)
        assert [rank_hand(h) for h in hands.tolist()] == batched.tolist()
        assert [rank_hand_by_rules(h) for h in hands[:300].tolist()] == batched[:300].tolist()


@pytest.mark.parametrize(("hole_cards", "board_cards"), [(2, 5), (2, 4), (2, 3), (1, 4), (1, 1), (2, 0)])
def test_every_holding_on_every_board_ranks_as_the_rules_say(hole_cards: int, board_cards: int) -> None:
    """Holdings against boards (some of two suits: many flushes); every pair sharing no card against the
    reference path, which ranks from the rules."""
    holes = random_hands(hole_cards, 40, seed=200 + hole_cards)
    boards = np.concatenate(
        [random_hands(board_cards, 30, seed=300 + board_cards), suited_hands(board_cards, 30, seed=301)]
        if board_cards
        else [np.zeros((3, 0), dtype=np.uint8)]
    )
    ranks = rank_holdings_on_boards(holes, boards)
    assert ranks.shape == (len(holes), len(boards))
    pairs = 0
    for i, hole in enumerate(holes.tolist()):
        for j, board in enumerate(boards.tolist()):
            if not set(hole) & set(board):
                assert ranks[i, j] == rank_hand_by_rules(hole + board), (hole, board)
                pairs += 1
    assert pairs > len(holes) * len(boards) // 2
    quads = rank_holdings_on_boards(np.array([[0, 1], [2, 3]]), np.array([[0, 1, 2, 3, 4]]))  # shared cards
    assert quads.shape == (2, 1)  # meaningless ranks, but ranks: the pairs are left out by the caller


def test_a_grid_of_bad_cards_or_shapes_is_refused_with_what_was_given() -> None:
    with pytest.raises(ValueError, match=r"cards are 0 to 51, got 0 to 52"):
        rank_holdings_on_boards(np.array([[0, 52]]), np.array([[1, 2, 3]]))
    with pytest.raises(ValueError, match=r"expected \(H, k\) holes and \(D, m\) boards, got shapes \(2,\) and"):
        rank_holdings_on_boards(np.array([0, 1]), np.array([[2, 3, 4]]))
    with pytest.raises(ValueError, match="hands of 8 cards"):
        rank_holdings_on_boards(np.array([[0, 1, 2]]), np.array([[3, 4, 5, 6, 7]]))


def test_fixed_cards_give_the_same_ranks() -> None:
    hands = random_hands(7, 4000, seed=7)
    for board in ([], [5], [0, 13, 26], [48, 49, 50, 51, 44]):
        rows = np.array([[c for c in h if c not in board][: 7 - len(board)] for h in hands.tolist()])
        full = np.concatenate([rows, np.tile(np.array(board, dtype=rows.dtype), (len(rows), 1))], axis=1)
        assert np.array_equal(rank_hands(rows, fixed=board), rank_hands(full))


def test_more_than_seven_cards_play_their_best_five() -> None:
    for hand in random_hands(9, 200, seed=9).tolist():
        best = max(rank_hand(list(five)) for five in itertools.combinations(hand, 5))
        assert rank_hand(hand) == best


def test_known_hands() -> None:
    def rank(text: str) -> int:
        return rank_hand(parse_cards(text))

    assert describe_rank(rank("AsKsQsJsTs")) == (STRAIGHT_FLUSH, (12,))
    assert rank("AsKsQsJsTs") == 7461
    assert rank("7c5d4h3s2c") == 0
    assert describe_rank(rank("As2d3h4s5c")) == (STRAIGHT, (3,))  # the wheel
    assert rank("As2d3h4s5c") < rank("2d3h4s5c6c")
    assert describe_rank(rank("AhAdKsKd7c7h2s")) == (TWO_PAIR, (12, 11, 5))  # third pair plays as the kicker
    assert describe_rank(rank("AhAdKsKd7c7hQs")) == (TWO_PAIR, (12, 11, 10))
    assert hand_category(rank("9h8h7h6h2h2c2d")) == FLUSH
    assert CATEGORY_NAMES[hand_category(rank("KcKdKh4s4c4d2s"))] == "full house"


def test_small_hands_of_kuhn_and_leduc() -> None:
    def rank(text: str) -> int:
        return rank_hand(parse_cards(text))

    assert rank("Ks") > rank("Qs") and rank("As") > rank("Ks")
    assert describe_rank(rank("Qh")) == (HIGH_CARD, (10,))
    assert rank("QhQs") > rank("AsKh") > rank("AsQh") > rank("KsQh")  # a pair beats any high card
    assert describe_rank(rank("KhKs")) == (PAIR, (11,))
    assert rank("KsAh") == rank("KhAs")
    assert describe_rank(rank("2c2d2h")) == (TRIPS, (0,))
    assert rank("2c2d2h") > rank("AcAdKh") > rank("AcKdQh")


@pytest.mark.parametrize("n", sorted(RANK_KEYS))
def test_rank_keys_identify_every_multiset(n: int) -> None:
    """The sums of n keys (at most four of a rank) are all distinct: the table needs no probing."""
    keys = RANK_KEYS[n]
    sums = [sum(keys[r] for r in combo) for combo in _multisets(n)]
    assert len(sums) == len(set(sums))


def test_bad_batches_are_refused() -> None:
    with pytest.raises(ValueError, match="1 to 7 cards"):
        rank_hands(np.zeros((3, 8), dtype=np.uint8))
    with pytest.raises(ValueError, match="expected an"):
        rank_hands(np.zeros(5, dtype=np.uint8))
    with pytest.raises(ValueError, match="cards are 0 to 51, got 0 to 52"):
        rank_hands(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="cards are 0 to 51, got -1 to 3"):
        rank_hands(np.array([[0, 1, 2, 3, -1]], dtype=np.int8))
    with pytest.raises(ValueError, match="cards are 0 to 51"):
        rank_hands(np.array([[0, 1, 2]]), fixed=[3, 99])


def test_batches_of_any_integer_type_and_layout_give_the_same_ranks() -> None:
    hands = np.concatenate([random_hands(7, 3000, seed=77), suited_hands(7, 1000, seed=78)])
    expected = [rank_hand(h) for h in hands.tolist()]
    assert rank_hands(hands.astype(np.int64)).tolist() == expected
    assert rank_hands(np.asfortranarray(hands)).tolist() == expected
    strided = np.concatenate([hands, hands], axis=1)[:, ::2]  # each hand's cards in another order, not contiguous
    assert rank_hands(strided).tolist() == expected


SEVEN_CARD_CATEGORY_COUNTS = [
    23_294_460,  # high card
    58_627_800,  # one pair
    31_433_400,  # two pair
    6_461_620,  # three of a kind
    6_180_020,  # straight
    4_047_644,  # flush
    3_473_184,  # full house
    224_848,  # four of a kind
    41_584,  # straight flush
]


@pytest.mark.slow
def test_all_133784560_seven_card_hands() -> None:
    counts = category_counts_of_all_seven_card_hands()
    assert counts.sum() == comb(52, 7) == 133_784_560
    assert counts.tolist() == SEVEN_CARD_CATEGORY_COUNTS
