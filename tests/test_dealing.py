"""Seeded dealing: the same cards as the ACPC dealer for the same seed.

The expected deals were printed by the ACPC server's own ``dealCards`` (built
from ``project_acpc_server`` in a scratch folder) and are kept here as facts.
"""

from __future__ import annotations

import numpy as np
import pytest

from acpc_arena.protocol.cards import cards_to_str
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import State


def all_cards(state: State) -> str:
    """Hole cards of every player, then each round's board cards, as the C dealer prints them."""
    game = state.game
    holes = "|".join(cards_to_str(c) for c in state.hole_cards)
    rounds = [
        cards_to_str(state.board_cards[game.board_start[r] : game.board_start[r + 1]]) for r in range(game.num_rounds)
    ]
    return holes + "/".join(rounds)


# (game, seed) -> {hand number: cards}, recorded from the ACPC server's dealCards.
KNOWN_DEALS = {
    ("holdem.nolimit.2p.reverse_blinds", 1): {
        0: "8s2h|Kd5c/7hAdTd/4s/Kc",
        1: "JsKs|Qs8d/Qd7s9d/Ac/Td",
        2: "5s6c|2c5d/4c4hKc/Qh/Jd",
        9999: "7cAc|3c4s/2c2sKh/Kc/Jc",
    },
    ("holdem.limit.2p.reverse_blinds", 0): {0: "5d5c|9hQd/8dAs8s/4h/6d", 1999: "7cJs|KsQc/6h3s9h/6c/5s"},
    ("holdem.limit.2p.reverse_blinds", 42): {0: "7d3d|2hAc/5sKs7s/9s/6h", 2: "4d6c|QsJh/3c9sJc/2d/Ts"},
    ("holdem.limit.2p.reverse_blinds", 4294967295): {0: "Jh7d|2hQc/QhQsJs/2s/Kh", 1999: "7s3s|Qh7h/5d7c8h/Ac/6d"},
    ("holdem.limit.3p", 0): {0: "5d5c|9hQd|8dAs/8s4h6d/5s/Js", 2: "Jh7c|Kd7d|Kh3h/8d2c9h/Ts/Kc"},
    ("holdem.nolimit.3p", 42): {0: "7d3d|2hAc|5sKs/7s9s6h/4h/Ts", 1999: "5sQc|3h7s|4cJh/7d9hAs/Kd/Ts"},
    ("kuhn.limit.3p", 0): {0: "Js|As|Qs", 2: "As|Qs|Ks", 1999: "Qs|Js|As"},
    ("kuhn.limit.2p", 42): {0: "Qs|Ks", 2: "Qs|Ks", 1999: "As|Ks"},
    ("leduc.limit.2p", 0): {0: "Ah|Ks/Kh", 2: "Kh|Qs/As", 1999: "Kh|Qs/As"},
    ("leduc.limit.2p", 4294967295): {0: "Qs|As/Qh", 2: "Ks|As/Kh", 1999: "Ks|Ah/Kh"},
}


@pytest.mark.parametrize(("game_name", "seed"), list(KNOWN_DEALS))
def test_deals_match_the_acpc_dealer(game_name: str, seed: int) -> None:
    expected = KNOWN_DEALS[(game_name, seed)]
    hands = deal_hands(load_game(game_name), seed, max(expected) + 1)
    for hand_id, cards in expected.items():
        assert all_cards(hands[hand_id]) == cards, f"hand {hand_id}"


@pytest.mark.parametrize("seed", [0, 1, 5489, 6666, 2**31, 2**32 - 1])
def test_mt19937_matches_numpy(seed: int) -> None:
    """numpy's legacy RandomState(seed) seeds MT19937 with the same init_genrand."""
    ours = MT19937(seed)
    reference = np.random.RandomState(seed)._bit_generator
    assert [ours.genrand_int32() for _ in range(3000)] == [int(reference.random_raw()) for _ in range(3000)]


def test_seed_is_taken_modulo_2_32() -> None:
    a, b = MT19937(2**32 + 7), MT19937(7)
    assert [a.genrand_int32() for _ in range(10)] == [b.genrand_int32() for _ in range(10)]


def test_every_deal_uses_distinct_cards_of_the_deck() -> None:
    game = load_game("holdem.limit.3p")
    for state in deal_hands(game, 99, 500):
        cards = [c for hole in state.hole_cards for c in hole] + state.board_cards
        assert len(cards) == len(set(cards)) == 3 * 2 + 5
        assert set(cards) <= set(game.deck)
