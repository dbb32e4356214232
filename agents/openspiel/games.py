"""An ACPC game as OpenSpiel's ``universal_poker`` game, and its cards in OpenSpiel's numbering.

``universal_poker`` runs the ACPC server's own ``game.c``; ``spiel_game`` loads a ``Game`` into it
(``load_universal_poker_from_acpc_gamedef`` of the game's canonical text) with a betting abstraction:

- ``fcpa`` (limit games' default): fold 0, call 1, the raise 2 (limit) or a pot-sized raise 2 and all-in 3
  (no-limit: other sizes have no action);
- ``fullgame`` (no-limit games' default): fold 0, call 1, and a raise to ``n`` chips is action ``n``, every size;
  a limit game cannot use it (OpenSpiel lists its raise as action 0, the id of fold);
- ``fc``: fold 0 and call 1 only.

OpenSpiel's ``fchpa`` (half a pot besides) is refused: its half-pot raise may be below the minimum raise.

Cards: OpenSpiel deals a reduced deck from its lowest ranks and suits (Leduc's cards are ``2c 2d 3c 3d 4c 4d``),
the ACPC server from its highest (``Qh Qs Kh Ks Ah As``); a chance outcome is ``rank * num_suits + suit`` of the
reduced deck, and a set of cards prints highest rank first, highest suit first (``CardSet::ToString``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyspiel

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, RANK_CHARS, SUIT_CHARS, make_card, rank_of, suit_of
from acpc_arena.protocol.game import INT32_MAX, SHIPPED_GAMES, Game, game_name, load_game

BETTINGS = ("fcpa", "fullgame", "fc")
"""The betting abstractions of ``universal_poker`` that map exactly onto the ACPC game."""


def default_betting(game: Game) -> str:
    """``fullgame`` for a no-limit game (every raise size), ``fcpa`` for a limit one."""
    return "fullgame" if game.no_limit else "fcpa"


def check_betting(game: Game, betting: str) -> None:
    """ValueError, one line, for an abstraction that does not map onto ``game``."""
    if betting not in BETTINGS:
        raise ValueError(
            f"universal_poker's betting {betting!r} does not map onto the ACPC game: use one of {BETTINGS}"
        )
    if betting == "fullgame" and not game.no_limit:
        raise ValueError(
            "a limit game cannot use universal_poker's fullgame betting (its raise has no action): use fcpa"
        )


def spiel_game(game: Game, betting: str | None = None) -> Any:
    """``game`` as OpenSpiel's ``universal_poker`` game with ``betting`` (default: ``default_betting``).

    ValueError for a game universal_poker plays otherwise: a limit game whose stacks can be reached before its
    last raise (universal_poker ignores the stacks of a limit game)."""
    betting = betting or default_betting(game)
    check_betting(game, betting)
    most = max(game.blind) + sum(size * count for size, count in zip(game.raise_size, game.max_raises, strict=True))
    if not game.no_limit and min(game.stack) < most:
        raise ValueError(
            f"OpenSpiel's universal_poker ignores the stacks of a limit game: these ({min(game.stack)}) are "
            f"reached before the last raise ({most})"
        )
    params = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(game.to_text()).get_parameters()
    params["bettingAbstraction"] = betting
    return pyspiel.load_game("universal_poker", params)


def stacks(game: Game) -> tuple[int, ...]:
    """The stacks universal_poker plays ``game`` with: its own in no-limit, INT32_MAX each in limit."""
    return game.stack if game.no_limit else (INT32_MAX,) * game.num_players


def game_betting(policy_game: Any, game: Game) -> str:
    """The betting abstraction of ``policy_game`` if it is ``game`` as ``universal_poker`` (any abstraction of
    ``BETTINGS``); else ValueError, one line, naming both games."""
    expected = spiel_game(game)
    if _rules(policy_game) != _rules(expected):
        shipped = [name for name in SHIPPED_GAMES if _rules(spiel_game(load_game(name))) == _rules(policy_game)]
        if shipped:
            raise ValueError(f"the policy is for {shipped[0]}, not for {game_name(game)} (as universal_poker games)")
        raise ValueError(f"the policy is for {policy_game}, not for {game_name(game)} ({expected})")
    betting = str(policy_game.get_parameters()["bettingAbstraction"])
    check_betting(game, betting)
    return betting


def _rules(spiel: Any) -> dict[str, Any] | None:
    """A ``universal_poker`` game's parameters but its betting abstraction; None for another game."""
    if spiel.get_type().short_name != "universal_poker":
        return None
    return {key: value for key, value in spiel.get_parameters().items() if key != "bettingAbstraction"}


def _lowest(game: Game) -> tuple[int, int]:
    """The ACPC rank and suit of OpenSpiel's rank 0 and suit 0."""
    return MAX_RANKS - game.num_ranks, MAX_SUITS - game.num_suits


def spiel_card(game: Game, card: int) -> int:
    """The chance outcome of OpenSpiel that deals ``card`` (an ACPC card)."""
    low_rank, low_suit = _lowest(game)
    return (rank_of(card) - low_rank) * game.num_suits + suit_of(card) - low_suit


def arena_card(game: Game, outcome: int) -> int:
    """The ACPC card that OpenSpiel's chance outcome ``outcome`` deals."""
    low_rank, low_suit = _lowest(game)
    return make_card(outcome // game.num_suits + low_rank, outcome % game.num_suits + low_suit)


def spiel_card_text(game: Game, card: int) -> str:
    """``card`` as OpenSpiel writes it (``As`` of Leduc is ``4d``)."""
    low_rank, low_suit = _lowest(game)
    return RANK_CHARS[rank_of(card) - low_rank] + SUIT_CHARS[suit_of(card) - low_suit]


def arena_card_text(game: Game, text: str) -> str:
    """The ACPC text of the card OpenSpiel writes as ``text``."""
    low_rank, low_suit = _lowest(game)
    return RANK_CHARS[RANK_CHARS.index(text[0]) + low_rank] + SUIT_CHARS[SUIT_CHARS.index(text[1]) + low_suit]


def card_set_text(game: Game, cards: Iterable[int]) -> str:
    """``cards`` as OpenSpiel prints a set of them: highest rank first, then highest suit."""
    return "".join(spiel_card_text(game, card) for card in sorted(cards, reverse=True))
