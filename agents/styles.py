"""Seed 001's style opponents (table 1): ``o1`` ... ``o8`` and ``o_random``.

Made for heads-up no-limit hold'em (``holdem.nolimit.2p.reverse_blinds``,
stacks 20000, blinds 50/100); they play any hold'em game (fixed raise sizes in
limit games). Each style is a *range* (how loose) and an *aggression level*:
``STYLES`` below is table 1, one row per style, and each row is an agent
(``STYLE_AGENTS``, registered by the style's name).

Hand strength is a percentile, the share of the other possible hands that the
hand beats. Pre-flop it is the starting hand's percentile among the 1,326
(``models.hand_strength.preflop``: classes ranked by equity against a random hand). After the
flop it is the exact share of the opponent's possible two cards that the hand
beats on the board so far (ties count half), every one of them ranked with the
project's evaluator. A hand is *in range* when its strength is at least
``1 - range``: pre-flop, exactly the top ``range`` of starting hands.

At every decision the style draws one uniform number and does this:

- First in pre-flop (the small blind facing only the big blind): out of range,
  fold; in range, raise with probability ``bet``, else call. So the share of
  hands a style plays from the small blind is its range.
- Nothing to call (the big blind after a call, any street checked to it): in
  range, bet with probability ``bet``; out of range, bet with probability
  ``bluff``; otherwise check.
- Facing a bet or a raise: continue only with a strength of at least
  ``max(1 - range, fear)``, the part of its range it risks chips with (the
  extremely passive styles only with the top 3% of hands: seed 001's O1,
  that folds to any raise); when it continues, raise with probability
  ``reraise``, else call; otherwise fold.

Bets and raises are ``size`` times the pot after calling, on top of the call
(clamped to what is valid: at least the minimum raise, at most all in). The
four aggression levels and their numbers are the ``Aggression`` values below.

``o_random`` plays the style of block ``hand_number // 500``, drawn uniformly
from the eight for that block from its seed alone (``numpy`` generator seeded
with ``[seed, block]``): the same schedule in both seatings of a duplicate pair
and in any rerun, and nothing said on the wire when it changes.

Decisions are seeded by ``--seed`` (one ``numpy`` generator per agent, one draw
per decision), so a match replays exactly; a strength is computed once per
street and kept for the rest of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from acpc_arena.agents.base import Agent, Policy, merge, valid_or_call
from acpc_arena.models.hand_strength.postflop import HOLDINGS, HOLDINGS_WITH_CARD, holding_ranks, postflop_strength
from acpc_arena.models.hand_strength.preflop import percentile
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

SWITCH_EVERY = 500
"""``o_random`` changes style every this many hands (by hand number)."""


@dataclass(frozen=True)
class Aggression:
    """How a style acts once its hand strength is known (see the module docstring)."""

    label: str
    fear: float
    """Facing a bet or raise, continue only with a strength of at least this (and in range)."""
    bet: float
    """Probability of betting or raising an in-range hand first in or when nothing is owed."""
    reraise: float
    """Probability of raising (not calling) when it continues facing a bet or raise."""
    bluff: float
    """Probability of betting an out-of-range hand when nothing is owed."""
    size: float
    """Bet and raise size, a fraction of the pot after calling."""


EXTREMELY_PASSIVE = Aggression("extremely passive", fear=0.97, bet=0.03, reraise=0.00, bluff=0.00, size=0.50)
PASSIVE = Aggression("relatively passive", fear=0.80, bet=0.10, reraise=0.10, bluff=0.02, size=0.50)
AGGRESSIVE = Aggression("relatively aggressive", fear=0.60, bet=0.20, reraise=0.30, bluff=0.04, size=0.75)
EXTREMELY_AGGRESSIVE = Aggression("extremely aggressive", fear=0.00, bet=0.85, reraise=0.60, bluff=0.40, size=1.00)


@dataclass(frozen=True)
class Style:
    """One row of table 1: the share of starting hands played and the aggression level."""

    name: str
    label: str
    range: float
    aggression: Aggression


STYLES: dict[str, Style] = {
    style.name: style
    for style in (
        Style("o1", "loose-passive", 0.70, EXTREMELY_PASSIVE),
        Style("o2", "loose-aggressive", 0.70, EXTREMELY_AGGRESSIVE),
        Style("o3", "tight-passive", 0.10, EXTREMELY_PASSIVE),
        Style("o4", "tight-aggressive", 0.10, EXTREMELY_AGGRESSIVE),
        Style("o5", "loose-passive", 0.50, PASSIVE),
        Style("o6", "loose-aggressive", 0.50, AGGRESSIVE),
        Style("o7", "tight-passive", 0.30, PASSIVE),
        Style("o8", "tight-aggressive", 0.30, AGGRESSIVE),
    )
}
"""Table 1: the styles by name, each registered as an agent of that name (``STYLE_AGENTS``)."""


def bet_to(state: State, fraction: float) -> int:
    """Raise-to amount of a bet of ``fraction`` times the pot after calling, on top of the call."""
    to_call = state.max_spent - state.spent[state.current_player]
    return state.max_spent + round(fraction * (sum(state.spent) + to_call))


def choices(style: Style, state: State, strength: float) -> tuple[Action, float, Action]:
    """``(raise, p, other)``: with hand strength ``strength`` the style takes the valid ``raise``
    when its uniform draw is below ``p``, else ``other`` (the rules above)."""
    aggression = style.aggression
    legal = state.legal_actions()
    in_range = strength >= 1.0 - style.range
    raise_action = valid_or_call(state, Action(RAISE, bet_to(state, aggression.size) if state.game.no_limit else 0))
    if legal.to_call == 0:
        p = aggression.bet if in_range else aggression.bluff
    elif state.round == 0 and state.round_raises == 0:  # first in: facing only the blinds
        if not in_range:
            return raise_action, 0.0, FOLD_ACTION
        p = aggression.bet
    elif strength < max(1.0 - style.range, aggression.fear):
        return raise_action, 0.0, FOLD_ACTION
    else:
        p = aggression.reraise
    return raise_action, p if legal.can_raise else 0.0, CALL_ACTION


def choose(style: Style, state: State, strength: float, x: float) -> Action:
    """The style's action with hand strength ``strength`` and uniform draw ``x`` (the rules above)."""
    raise_action, p, other = choices(style, state, strength)
    return raise_action if x < p else other


_ROW_OF = np.zeros((52, 52), dtype=np.intp)
"""The row of ``postflop.HOLDINGS`` of two cards, in either order."""
_ROW_OF[HOLDINGS[:, 0], HOLDINGS[:, 1]] = _ROW_OF[HOLDINGS[:, 1], HOLDINGS[:, 0]] = np.arange(len(HOLDINGS))


def range_strengths(holes: Sequence[Sequence[int]], board: tuple[int, ...]) -> list[float]:
    """``postflop_strength`` of each of ``holes`` on ``board`` (the same numbers), in one pass over the board's
    ranked holdings: a holding's rank is its row of ``holding_ranks``, its opponents the holdings sharing no
    card with it or the board."""
    ranks = holding_ranks(board)
    cards = np.array(holes, dtype=np.intp).reshape(len(holes), 2)
    shown = np.asarray(HOLDINGS_WITH_CARD[list(board)].any(axis=0))
    possible = ~(shown[None, :] | HOLDINGS_WITH_CARD[cards[:, 0]] | HOLDINGS_WITH_CARD[cards[:, 1]])
    mine = ranks[_ROW_OF[cards[:, 0], cards[:, 1]]][:, None]
    below = np.count_nonzero(possible & (ranks[None, :] < mine), axis=1)
    level = np.count_nonzero(possible & (ranks[None, :] == mine), axis=1)
    return ((below + 0.5 * level) / np.count_nonzero(possible, axis=1)).tolist()


def _check_game(game: Game) -> None:
    if game.num_hole_cards != 2 or len(game.deck) != 52 or game.total_board_cards != 5:
        raise ValueError("the style opponents play hold'em (two hole cards, a 52-card deck, five board cards)")


class StyleAgent(Agent):
    """Plays one style of table 1 (``style``; one subclass per style: ``STYLE_AGENTS``)."""

    style: ClassVar[Style]
    default_game = "holdem.nolimit.2p.reverse_blinds"

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)
        _check_game(game)
        self.rng = np.random.default_rng(seed)
        self._strength_key: tuple[int, int, tuple[int, ...]] | None = None
        self._strength = 0.0

    def current_style(self, view: MatchState) -> Style:
        """The style played in this hand."""
        return self.style

    def strength(self, view: MatchState) -> float:
        """The viewer's hand strength this street (a percentile, see the module docstring)."""
        state = view.state
        hole = state.hole_cards[view.viewer]
        board = state.visible_board()
        key = (state.hand_id, view.viewer, tuple(hole + board))
        if key != self._strength_key:
            self._strength_key = key
            self._strength = percentile(hole) if not board else postflop_strength(tuple(hole), tuple(board))
        return self._strength

    def act(self, view: MatchState) -> Action:
        x = float(self.rng.random())
        return choose(self.current_style(view), view.state, self.strength(view), x)

    def policy(self, view: MatchState) -> Policy:
        state = view.state
        hole, board = state.hole_cards[view.viewer], state.visible_board()
        strength = percentile(hole) if not board else postflop_strength(tuple(hole), tuple(board))
        raise_action, p, other = choices(self.current_style(view), state, strength)
        return merge([(raise_action, p), (other, 1.0 - p)])

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        """``policy`` at each view; where the views share the betting (a range's views), ``choices`` is
        worked out once for each pair of the two thresholds it compares the strength with, and the views
        that agree on both share one policy object."""
        first = views[0] if views else None
        if first is None or any(v.state.actions is not first.state.actions or v.viewer != first.viewer for v in views):
            return [self.policy(view) for view in views]
        style = self.current_style(first)
        in_range, fearless = 1.0 - style.range, max(1.0 - style.range, style.aggression.fear)
        board = tuple(first.state.visible_board())
        holes = [view.state.hole_cards[view.viewer] for view in views]
        strengths = [percentile(hole) for hole in holes] if not board else range_strengths(holes, board)
        made: dict[tuple[bool, bool], Policy] = {}
        out = []
        for view, strength in zip(views, strengths, strict=True):
            band = (strength >= in_range, strength >= fearless)
            if band not in made:
                raise_action, p, other = choices(style, view.state, strength)
                made[band] = merge([(raise_action, p), (other, 1.0 - p)])
            out.append(made[band])
        return out


def style_agent(style: Style) -> type[StyleAgent]:
    """The agent class that plays ``style``, named as it (``o1``: ``O1Agent``)."""

    class OneStyle(StyleAgent):
        __doc__ = f"Plays {style.name}: {style.label}, range {style.range:.0%}, {style.aggression.label}."
        name = style.name

    OneStyle.style = style
    OneStyle.__name__ = OneStyle.__qualname__ = f"{style.name.upper()}Agent"
    return OneStyle


STYLE_AGENTS: dict[str, type[StyleAgent]] = {name: style_agent(style) for name, style in STYLES.items()}
"""The agent of each style of table 1, by its registered name."""


class RandomStyleAgent(StyleAgent):
    """``o_random``: a style drawn from the eight for every block of 500 hands (by hand number)."""

    name = "o_random"
    style = STYLES["o1"]  # not used: current_style picks the block's style

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self.schedule_seed = seed if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        self._block = -1
        self._block_style = self.style

    def style_of_hand(self, hand_id: int) -> Style:
        """The style played in hand ``hand_id``: drawn for its block from the seed alone."""
        block = hand_id // SWITCH_EVERY
        if block != self._block:
            index = int(np.random.default_rng([self.schedule_seed, block]).integers(len(STYLES)))
            self._block, self._block_style = block, list(STYLES.values())[index]
        return self._block_style

    def current_style(self, view: MatchState) -> Style:
        return self.style_of_hand(view.state.hand_id)
