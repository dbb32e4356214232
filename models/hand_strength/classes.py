"""The 169 starting-hand classes of hold'em as indices 0 .. 168 (13 pairs, 78 suited and 78 offsuit rank pairs).

With the ranks ``high >= low`` (``protocol.cards.rank_of``), a pair or a suited hand is class
``high * 13 + low`` and an offsuit one ``low * 13 + high``.
"""

from __future__ import annotations

from collections.abc import Sequence

from acpc_arena.protocol.cards import MAX_RANKS, make_card, rank_of, suit_of

NUM_CLASSES = MAX_RANKS * MAX_RANKS


def hand_class(hole: Sequence[int]) -> int:
    """0 .. 168: the class of a two-card starting hand (the module docstring)."""
    high, low = sorted((rank_of(hole[0]), rank_of(hole[1])), reverse=True)
    suited = suit_of(hole[0]) == suit_of(hole[1])
    return high * MAX_RANKS + low if suited or high == low else low * MAX_RANKS + high


def class_representative(index: int) -> list[int]:
    """Two cards of class ``index``."""
    a, b = divmod(index, MAX_RANKS)
    if a >= b:  # suited (or a pair when equal): the upper triangle and diagonal
        return [make_card(a, 3), make_card(b, 3 if a != b else 2)]
    return [make_card(b, 3), make_card(a, 2)]  # offsuit: high card first
