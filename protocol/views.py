"""A player's view of a state, and the same view with each holding of a range.

``agent_view`` is what a player in a given position would read from the dealer with
given hole cards (no other player's cards, the board dealt so far); ``range_views``
builds that view for every holding of a range at once, sharing everything but the
hole cards. Local best response, AIVAT and the river re-solver ask agents' policies
of these views. ``ZERO_FLOOR`` is the least factor by which a holding's weight in a
range is multiplied when its player acts: it keeps a holding alive through an
argmax agent's near-tie (see ``dealer.lbr.response``).
"""

from __future__ import annotations

from collections.abc import Sequence

from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState

ZERO_FLOOR = 1e-9
"""The least factor a holding's weight is multiplied by when its player acts."""


def agent_view(state: State, position: int, hole: Sequence[int]) -> MatchState:
    """``state`` as the player in ``position`` holding ``hole`` sees it: no other cards, the board so far."""
    view = state.copy()
    view.hole_cards = [list(hole) if p == position else [] for p in range(state.game.num_players)]
    view.board_cards = state.visible_board()
    return MatchState(position, view)


def range_views(state: State, position: int, holdings: Sequence[Sequence[int]]) -> list[MatchState]:
    """``agent_view`` with each of ``holdings``, built once and shared: the views differ only in their
    ``hole_cards`` (agents read views and never change them; a copy each was most of LBR's time)."""
    base = agent_view(state, position, []).state
    players = range(state.game.num_players)
    return [
        MatchState(position, base.sharing_all_but_hole_cards([list(hole) if p == position else [] for p in players]))
        for hole in holdings
    ]
