"""The poker game exactly as the ACPC server plays it.

- ``game``: game definitions (``load_game``, the shipped ``.game`` files)
- ``cards``: card numbering, parsing and printing
- ``rng`` and ``dealing``: MT19937 and the dealer's seeded deal
- ``state``: the betting state machine of one hand, values at the end
- ``wire``: ``MATCHSTATE`` messages, responses, log lines
- ``evaluator``: hand ranks, one at a time or batched over numpy arrays
- ``equity``: a hand's equity against random hands, all-in expected values
- ``disk_cache``: tables kept on disk, named by the source that computes them
- ``native``: ``state``, ``wire`` and ``cards`` compiled with mypyc (``make install``), or not
- ``commands``: how the ``acpc-*`` commands end: exit statuses, Ctrl-C and SIGTERM
"""

from typing import TYPE_CHECKING

from acpc_arena.protocol.native import use_sources

use_sources()  # first: whether state, wire and cards load compiled or from their sources

if TYPE_CHECKING:
    from acpc_arena.protocol.dealing import deal_cards, deal_hand, deal_hands
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.evaluator import rank_hand, rank_hands
    from acpc_arena.protocol.game import Game, load_game, parse_game
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, ActionKind, LegalActions, State
    from acpc_arena.protocol.wire import (
        MatchState,
        format_action,
        format_match_state,
        format_state,
        parse_action,
        parse_match_state,
        parse_response,
    )

_HOMES = {
    "dealing": ("deal_cards", "deal_hand", "deal_hands"),
    "errors": ("ProtocolError",),
    "evaluator": ("rank_hand", "rank_hands"),
    "game": ("Game", "load_game", "parse_game"),
    "rng": ("MT19937",),
    "state": ("CALL", "FOLD", "RAISE", "Action", "ActionKind", "LegalActions", "State"),
    "wire": (
        "MatchState", "format_action", "format_match_state", "format_state",
        "parse_action", "parse_match_state", "parse_response",
    ),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    """The names above, imported when first asked for (a command's start imports only what it uses)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CALL",
    "FOLD",
    "MT19937",
    "RAISE",
    "Action",
    "ActionKind",
    "Game",
    "LegalActions",
    "MatchState",
    "ProtocolError",
    "State",
    "deal_cards",
    "deal_hand",
    "deal_hands",
    "format_action",
    "format_match_state",
    "format_state",
    "load_game",
    "parse_action",
    "parse_game",
    "parse_match_state",
    "parse_response",
    "rank_hand",
    "rank_hands",
]
