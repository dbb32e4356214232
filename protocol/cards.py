"""Cards as the ACPC server numbers them: ``card = rank * 4 + suit``.

Ranks ``23456789TJQKA`` are 0..12 and suits ``cdhs`` are 0..3, so ``2c`` is 0 and
``As`` is 51. A game with fewer ranks or suits uses the top ones (Kuhn's three
cards are ``Jc Qc Kc`` ... in the ACPC layout the last suits and ranks).
"""

from __future__ import annotations

from collections.abc import Iterable

from acpc_arena.protocol.errors import ProtocolError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
MAX_RANKS = 13
MAX_SUITS = 4
NUM_CARDS = MAX_RANKS * MAX_SUITS

CARD_STRINGS: tuple[str, ...] = tuple(
    RANK_CHARS[card // MAX_SUITS] + SUIT_CHARS[card % MAX_SUITS] for card in range(NUM_CARDS)
)
_CARD_BY_STRING: dict[str, int] = {}
for _card, _text in enumerate(CARD_STRINGS):
    # The ACPC reader upper-cases the rank and lower-cases the suit.
    for _rank in {_text[0], _text[0].lower()}:
        for _suit in {_text[1], _text[1].upper()}:
            _CARD_BY_STRING[_rank + _suit] = _card


def make_card(rank: int, suit: int) -> int:
    return rank * MAX_SUITS + suit


def rank_of(card: int) -> int:
    return card // MAX_SUITS


def suit_of(card: int) -> int:
    return card % MAX_SUITS


def card_to_str(card: int) -> str:
    return CARD_STRINGS[card]


def cards_to_str(cards: Iterable[int]) -> str:
    return "".join(CARD_STRINGS[card] for card in cards)


def parse_card(text: str) -> int:
    """Parse one two-character card such as ``Ah``; case as the ACPC reader allows."""
    card = _CARD_BY_STRING.get(text)
    if card is None:
        raise ProtocolError(f"not a card: {text!r} (expected rank of {RANK_CHARS} and suit of {SUIT_CHARS})")
    return card


def parse_cards(text: str) -> list[int]:
    """Parse a run of cards such as ``AhKd2c``; the whole string must be cards."""
    if len(text) % 2:
        raise ProtocolError(f"not a run of cards: {text!r}")
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def read_cards(text: str, start: int, max_cards: int) -> tuple[list[int], int]:
    """Read up to ``max_cards`` cards from ``text[start:]``, stopping at the first non-card.

    Returns the cards and the index just past them (the ACPC ``readCards``).
    """
    cards: list[int] = []
    pos = start
    while len(cards) < max_cards:
        card = _CARD_BY_STRING.get(text[pos : pos + 2])
        if card is None:
            break
        cards.append(card)
        pos += 2
    return cards, pos


def build_deck(num_suits: int, num_ranks: int) -> list[int]:
    """The deck in the ACPC dealer's order: suit outer, rank inner, top suits and ranks."""
    return [
        make_card(rank, suit)
        for suit in range(MAX_SUITS - num_suits, MAX_SUITS)
        for rank in range(MAX_RANKS - num_ranks, MAX_RANKS)
    ]
