"""Seeded dealing identical to the ACPC dealer's ``dealCards``.

For each hand the deck is rebuilt in the game's order; each card is
``deck[genrand_int32() % cardsLeft]``, the hole in the deck filled from its end.
Hole cards go to each player in turn, then the board cards of every round, all
before any betting. The generator's stream continues from hand to hand.
"""

from __future__ import annotations

from acpc_arena.protocol.game import Game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import State, rules_of


def deal_cards(game: Game, rng: MT19937) -> tuple[list[list[int]], list[int]]:
    """(hole cards per player, every board card of the hand) for one hand."""
    rules = rules_of(game)
    deck = rules.deck.copy()
    hole = rules.num_hole_cards
    players = rules.num_players
    holes_end = players * hole
    dealt = []
    for left in range(len(deck), len(deck) - holes_end - rules.board_start[rules.num_rounds], -1):
        i = rng.genrand_int32() % left  # a method call, native when compiled
        dealt.append(deck[i])
        deck[i] = deck[left - 1]
    return [dealt[p * hole : (p + 1) * hole] for p in range(players)], dealt[holes_end:]


def deal_hand(game: Game, hand_id: int, rng: MT19937) -> State:
    """The start of hand ``hand_id`` with its cards dealt from ``rng``."""
    holes, board = deal_cards(game, rng)
    return State(game, hand_id, holes, board)


def deal_hands(game: Game, seed: int, count: int) -> list[State]:
    """The first ``count`` hands a dealer seeded with ``seed`` deals (betting not started)."""
    rng = MT19937(seed)
    return [deal_hand(game, hand_id, rng) for hand_id in range(count)]
