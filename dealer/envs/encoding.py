"""The observation of a seat: its ``MatchState`` as an array, and the observation space.

``Encoding(game).encode(state, viewer)`` is what the line the dealer sends ``viewer``
(``protocol.wire.format_match_state``) says, as ``float32`` values in ``[0, 1]``, in this order:

- the viewer's position (one-hot, ``num_players``), the position to act (one-hot; all 0 once the
  hand is over), the round (one-hot, ``num_rounds``);
- the hole cards of each position (``num_players`` blocks of one 0/1 per card of the deck, in the
  deck's order): the viewer's own, the others' only at a showdown they reach;
- the board cards dealt so far (one 0/1 per card of the deck);
- each position's chips in the pot, and whether it folded (``num_players`` each);
- the betting: for each round, ``slots`` action slots in order (``min(64, num_players *
  (max maxRaises + 1))``, enough for any round), each ``(fold, call, raise, raise-to)``: a one-hot
  of the action's kind and, in no-limit, its raise-to size.

Chips are divided by ``chip_scale``: the largest stack in no-limit, in limit the most a player can
put in (the big blind and every raise of every round). The observation is a ``Dict`` of
``observation`` (this array) and ``action_mask`` (``int8``, ``actions.ActionSet``), and, with
``line_in_observation``, ``match_state``: the line itself (a ``Text`` space). The line is always in
the info (``info["match_state"]``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from acpc_arena.protocol.cards import RANK_CHARS, SUIT_CHARS
from acpc_arena.protocol.game import MAX_NUM_ACTIONS, Game
from acpc_arena.protocol.state import RAISE, State
from acpc_arena.protocol.wire import MATCHSTATE_PREFIX, shows_cards

LINE_CHARACTERS = frozenset(MATCHSTATE_PREFIX + "0123456789/|fcr" + RANK_CHARS + SUIT_CHARS)
"""Every character a ``MATCHSTATE`` line may hold."""


class Encoding:
    """The array encoding of ``game``'s states (see the module's docstring); ``size`` values."""

    def __init__(self, game: Game) -> None:
        self.game = game
        n, rounds = game.num_players, game.num_rounds
        self.deck = {card: i for i, card in enumerate(game.deck)}
        cards = len(game.deck)
        self.slots = min(MAX_NUM_ACTIONS, n * (max(game.max_raises) + 1))
        if game.no_limit:
            self.chip_scale = float(max(game.stack))
        else:
            most = game.big_blind + sum(s * m for s, m in zip(game.raise_size, game.max_raises, strict=True))
            self.chip_scale = float(min(most, max(game.stack)))
        self.viewer_at = 0
        self.actor_at = n
        self.round_at = 2 * n
        self.holes_at = 2 * n + rounds
        self.board_at = self.holes_at + n * cards
        self.spent_at = self.board_at + cards
        self.folded_at = self.spent_at + n
        self.betting_at = self.folded_at + n
        self.size = self.betting_at + rounds * self.slots * 4

    def encode(self, state: State, viewer: int) -> npt.NDArray[np.float32]:
        """``viewer``'s view of ``state`` as an array."""
        game, deck, n = self.game, self.deck, self.game.num_players
        out = np.zeros(self.size, dtype=np.float32)
        out[self.viewer_at + viewer] = 1
        if not state.finished:
            out[self.actor_at + state.current_player] = 1
        out[self.round_at + state.round] = 1
        cards = len(deck)
        for p, hole in enumerate(state.hole_cards):
            if hole and shows_cards(state, p, viewer):
                out[[self.holes_at + p * cards + deck[c] for c in hole]] = 1
        board = state.board_cards[: game.board_cards_after(state.round)]
        if board:
            out[[self.board_at + deck[c] for c in board]] = 1
        scale = self.chip_scale
        out[self.spent_at : self.spent_at + n] = [min(1.0, s / scale) for s in state.spent]
        out[self.folded_at : self.folded_at + n] = state.folded
        stacks = game.stack
        for r in range(state.round + 1):
            at = self.betting_at + r * self.slots * 4
            actions, players = state.actions[r][: self.slots], state.acting_players[r][: self.slots]
            for action, player in zip(actions, players, strict=True):
                out[at + action.kind] = 1
                if action.kind == RAISE and game.no_limit:
                    out[at + 3] = action.size / stacks[player]
                at += 4
        return out

    def line_length(self) -> int:
        """The longest ``MATCHSTATE`` line of the game (for the ``Text`` space)."""
        game = self.game
        action = 1 + (len(str(max(game.stack))) if game.no_limit else 0)
        betting = game.num_rounds * self.slots * action + game.num_rounds - 1
        cards = 2 * (game.num_players * game.num_hole_cards + game.total_board_cards)
        separators = game.num_players - 1 + game.num_rounds - 1
        return len(MATCHSTATE_PREFIX) + 2 + 10 + 3 + betting + cards + separators

    def space(self, actions: int, line_in_observation: bool) -> spaces.Dict:
        """The observation space: ``observation``, ``action_mask`` of ``actions`` entries, and the line if asked."""
        parts: dict[str, spaces.Space[object]] = {
            "observation": spaces.Box(0.0, 1.0, (self.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }
        if line_in_observation:
            parts["match_state"] = spaces.Text(self.line_length(), charset=frozenset(LINE_CHARACTERS))
        return spaces.Dict(parts)
