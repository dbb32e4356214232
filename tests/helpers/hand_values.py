"""What each player wins in a logged hand, worked out from the line's text apart from the engine.

The chips come from replaying the betting with the game definition's blinds, raise sizes,
stacks and first players; showdowns are ranked by pokerkit for hold'em, and by hand for the
one-card games (Kuhn: the higher card; Leduc: a pair with the board, else the higher card).
Pots are split level by level, so side pots and ties come out as the ACPC dealer splits them.
Checked against every hand of the C dealer's logs in tests/fixtures/c_dealer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pokerkit

from acpc_arena.protocol.game import Game

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

RANKS = "23456789TJQKA"


def hand_values(line: str, game: Game) -> list[float]:
    """The chips each position wins in the log line ``STATE:<id>:<betting>:<cards>:...``."""
    _, _, betting, cards = line.split(":")[:4]
    spent, folded = _replay(betting, game)
    holes_text, *boards = cards.split("/")
    holes = [_cards(text) for text in holes_text.split("|")]
    board = [card for text in boards for card in _cards(text)]
    live = [p for p in range(game.num_players) if not folded[p]]
    if len(live) == 1:
        return [float(sum(spent) - spent[p]) if p == live[0] else float(-spent[p]) for p in range(game.num_players)]
    strength = {p: _strength(holes[p], board, game) for p in live}
    won = [0.0] * game.num_players
    level_below = 0
    for level in sorted(set(spent)):
        layer = sum(min(s, level) - min(s, level_below) for s in spent)
        contenders = [p for p in live if spent[p] >= level]
        best = max(strength[p] for p in contenders)
        winners = [p for p in contenders if strength[p] == best]
        for p in winners:
            won[p] += layer / len(winners)
        level_below = level
    return [won[p] - spent[p] for p in range(game.num_players)]


def _replay(betting: str, game: Game) -> tuple[list[int], list[bool]]:
    """Chips put in and folds after the betting text (``cc/r250c/...``)."""
    n = game.num_players
    spent = list(game.blind)
    folded = [False] * n
    for round_, text in enumerate(betting.split("/")):
        actor = game.first_player[round_]
        for action, size in re.findall(r"([fcr])(\d*)", text):
            for _ in range(n):
                if not folded[actor] and spent[actor] < game.stack[actor]:
                    break
                actor = (actor + 1) % n
            else:
                raise AssertionError(f"nobody left to act on {action!r} in {betting!r}")
            if action == "f":
                folded[actor] = True
            elif action == "c":
                spent[actor] = min(max(spent), game.stack[actor])
            elif size:
                spent[actor] = int(size)
            else:
                spent[actor] = min(max(spent) + game.raise_size[round_], game.stack[actor])
            actor = (actor + 1) % n
    return spent, folded


def _cards(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def _strength(hole: list[str], board: list[str], game: Game) -> SupportsRichComparison:
    """Something that orders hands as the showdown does."""
    if game.num_hole_cards == 2 and len(board) == 5:
        return pokerkit.StandardHighHand.from_game("".join(hole), "".join(board))
    ranks = sorted((RANKS.index(card[0]) for card in hole + board), reverse=True)
    pair = len(set(ranks)) < len(ranks)
    return (pair, ranks[0] if pair else 0, ranks)
