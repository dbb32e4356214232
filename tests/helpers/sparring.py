"""Sparring bots' hands played through the engine and read back, and eval7's reference equities: shared by
the sparring tests."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pytest

from acpc_arena.agents.base import Agent
from acpc_arena.models.hand_strength.preflop import percentile
from acpc_arena.protocol.cards import CARD_STRINGS
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, format_betting

eval7 = pytest.importorskip("eval7")

ANY_HAND = (
    "22+,A2s+,K2s+,Q2s+,J2s+,T2s+,92s+,82s+,72s+,62s+,52s+,42s+,32s,"
    "A2o+,K2o+,Q2o+,J2o+,T2o+,92o+,82o+,72o+,62o+,52o+,42o+,32o"
)


def view_of(state: State, position: int) -> MatchState:
    """``state`` as ``position`` sees it: its own cards and the board so far."""
    seen = state.copy()
    seen.hole_cards = [list(h) if p == position else [] for p, h in enumerate(state.hole_cards)]
    seen.board_cards = state.visible_board()
    return MatchState(position, seen)


def play(game: Game, agents: Sequence[Agent], deals: Sequence[State]) -> list[State]:
    """The deals played through the engine, ``agents[k]`` in the position ``p`` with ``(p + hand) % 2 == k``
    (seats rotating as the dealer rotates them); every action must be valid; each agent sees each hand's end."""
    played = []
    for deal in deals:
        hand = deal.hand_id
        state = State(game, hand, deal.hole_cards, deal.board_cards)
        for position in (0, 1):
            agents[(position + hand) % 2].begin_hand(view_of(state, position))
        while not state.finished:
            player = state.current_player
            action = agents[(player + hand) % 2].act(view_of(state, player))
            assert state.validate_action(action) == action, (format_betting(state), action)
            state.apply(action)
        for position in (0, 1):
            final = state.copy()
            final.board_cards = state.visible_board()
            agents[(position + hand) % 2].end_hand(MatchState(position, final))
        played.append(state)
    return played


@dataclass(frozen=True)
class Decision:
    """One action of one player, with what the player knew and owed when it took it."""

    hand: int
    position: int
    round: int
    hole: tuple[int, ...]
    board: tuple[int, ...]
    to_call: int
    pot: int
    max_spent: int
    previous_raise: int
    """The size of the last bet or raise of this round (the big blind before any)."""
    can_raise: bool
    first_in: bool
    """Before the flop, nobody has acted yet."""
    checked_to: bool
    """The opponent checked this round, and nothing is owed."""
    action: Action


def decisions(hands: Sequence[State], agent_index: int) -> list[Decision]:
    """Every decision of the agent at ``agent_index`` (as ``play`` seats it), replayed from the records."""
    out = []
    for final in hands:
        hand = final.hand_id
        me = (agent_index - hand) % 2
        replay = State(final.game, hand, final.hole_cards, final.board_cards)
        for round_ in range(final.round + 1):
            previous_raise = max(final.game.blind)
            for i, (action, actor) in enumerate(zip(final.actions[round_], final.acting_players[round_], strict=True)):
                if actor == me:
                    owed = replay.max_spent - replay.spent[me]
                    earlier = final.actions[round_][:i]
                    out.append(
                        Decision(
                            hand, me, round_, tuple(final.hole_cards[me]), tuple(replay.visible_board()), owed,
                            sum(replay.spent), replay.max_spent, previous_raise, replay.raise_range() is not None,
                            round_ == 0 and i == 0, owed == 0 and bool(earlier) and earlier[-1].kind == CALL, action,
                        )
                    )  # fmt: skip
                if action.kind == RAISE:
                    previous_raise = (
                        action.size - replay.max_spent if final.game.no_limit else final.game.raise_size[round_]
                    )
                replay.apply(action)
    return out


def share_of_starting_hands(least: float) -> float:
    """Share of the 1,326 starting hands with a pre-flop percentile of at least ``least`` (enumerated)."""
    return sum(percentile(hole) >= least for hole in itertools.combinations(range(52), 2)) / 1326


def within(count: float, trials: int, expected: float, errors: float = 4.0) -> bool:
    """Whether ``count / trials`` is within ``errors`` binomial standard errors of ``expected``."""
    spread = errors * math.sqrt(max(expected * (1 - expected), 1e-4) / trials)
    return abs(count / trials - expected) <= spread


def cards7(cards: Sequence[int]) -> list[object]:
    return [eval7.Card(CARD_STRINGS[c]) for c in cards]


@cache
def any_hand() -> object:
    """eval7's range of all 1,326 hands (parsed once: parsing takes milliseconds)."""
    return eval7.HandRange(ANY_HAND)


@cache
def reference_equity(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """eval7's equity against a random hand: exact on the river, else Monte Carlo (50,000 deals: a standard
    error under 0.0023)."""
    everything = any_hand()
    if len(board) == 5:
        return float(eval7.py_hand_vs_range_exact(cards7(hole), everything, cards7(board)))
    return float(eval7.py_hand_vs_range_monte_carlo(cards7(hole), everything, cards7(board), 50_000))


TOLERANCE = (0.009, 0.035, 0.009, 1e-6)
"""How far the bots' equity may be from eval7's, by round: Monte Carlo noise on both sides before the flop and on
the turn (the bots are exact there), the bots' sampled runouts on the flop, exact on the river."""


def clearly(eq: float, least: float, round_: int) -> int:
    """+1 when ``eq`` is clearly at least ``least``, -1 when clearly below, 0 when too close to tell."""
    tolerance = TOLERANCE[round_]
    return 1 if eq >= least + tolerance else -1 if eq < least - tolerance else 0
