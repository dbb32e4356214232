"""The limit sparring suite (``agents/sparring/limit.py``): each bot's described style in its measured actions.

The bots play a few hundred dealt hands against ``call`` and ``raise`` through the
engine, seats rotating as the dealer rotates them, each seeing only its own cards.
Their actions are counted here from the hands' records; the frequencies they are held
to come from the docs' definitions worked out apart from the bots: shares of the 1,326
starting hands by the pre-flop ranking (``models.hand_strength.preflop.percentile``, the ranking the
docs name), and equities against a random hand from eval7.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest

from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, format_betting, parse_match_state
from tests.helpers.sparring import Decision, clearly, decisions, play, reference_equity, share_of_starting_hands, within

eval7 = pytest.importorskip("eval7")

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
SMALL_BLIND = 1  # blind = 10 5: position 1 posts the small blind, acts first before the flop and last after it
DEALS = deal_hands(LIMIT, 21, 300)


@cache
def played(name: str, opponent: str) -> tuple[list[State], list[Decision]]:
    """``name`` (seed 3) against ``opponent`` over ``DEALS``, and ``name``'s decisions."""
    hands = play(LIMIT, [agent_class(name)(LIMIT, seed=3), agent_class(opponent)(LIMIT, seed=4)], DEALS)
    return hands, decisions(hands, 0)


def vpip(moves: Sequence[Decision], position: int) -> tuple[int, int]:
    """(hands where the agent put chips in voluntarily before the flop, hands) in ``position``."""
    hands: dict[int, bool] = {}
    for d in moves:
        if d.position == position and d.round == 0:
            voluntary = d.action.kind == RAISE or (d.action.kind == CALL and d.to_call > 0)
            hands[d.hand] = hands.get(d.hand, False) or voluntary
    return sum(hands.values()), len(hands)


# -- the bots -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_equity_bot_raises_calls_and_folds_by_eval7s_equity(opponent: str) -> None:
    """Raise at 0.65 or more, call a bet at 0.40 or at the price, else check or fold."""
    _, moves = played("spar_equity", opponent)
    seen = 0
    for d in moves:
        eq = reference_equity(d.hole, d.board)
        raise_side = clearly(eq, 0.65, d.round)
        if raise_side > 0 and d.can_raise:
            assert d.action.kind == RAISE, d
        if raise_side < 0:
            assert d.action.kind != RAISE, d
            if d.to_call:
                call_side = clearly(eq, min(0.40, d.to_call / (d.pot + d.to_call)), d.round)
                assert call_side == 0 or d.action.kind == (CALL if call_side > 0 else FOLD), (d, eq)
        seen += raise_side != 0
    assert seen > 0.9 * len(moves)


@pytest.mark.slow  # make test-slow: many hands for a frequency (~14 s)
def test_lag_plays_more_hands_than_tag_as_their_rankings_say() -> None:
    """Against ``call``: first in from the small blind TAG plays the top 70% and LAG the top 90%; in the big
    blind after a limp TAG raises the top 40% and LAG the top 60%."""
    counts = {}
    for name, small_blind_least, big_blind_least in (("spar_tag", 0.3, 0.6), ("spar_lag", 0.1, 0.4)):
        _, moves = played(name, "call")
        small = vpip(moves, SMALL_BLIND)
        big = vpip(moves, 1 - SMALL_BLIND)
        assert within(*small, share_of_starting_hands(small_blind_least)), (name, small)
        assert within(*big, share_of_starting_hands(big_blind_least)), (name, big)
        counts[name] = small[0] + big[0]
    assert counts["spar_lag"] > counts["spar_tag"]


@pytest.mark.slow  # make test-slow: many hands for a frequency (~10 s)
def test_lag_bets_more_often_than_tag_when_checked_to() -> None:
    rates = {}
    for name in ("spar_tag", "spar_lag"):
        _, moves = played(name, "call")
        free = [d for d in moves if d.round > 0 and d.to_call == 0]
        rates[name] = sum(d.action.kind == RAISE for d in free) / len(free)
    assert rates["spar_lag"] > rates["spar_tag"] + 0.2, rates


def test_calling_station_folds_rarely_and_raises_only_near_nuts() -> None:
    _, moves = played("spar_station", "raise")
    preflop = [d for d in moves if d.round == 0]
    assert not any(d.action.kind == FOLD for d in preflop)
    raises = sum(d.action.kind == RAISE for d in preflop if d.first_in)
    assert within(raises, sum(d.first_in for d in preflop), share_of_starting_hands(0.95))
    facing = [d for d in moves if d.round > 0 and d.to_call > 0]
    assert sum(d.action.kind == FOLD for d in facing) < 0.1 * len(facing)
    for d in moves:
        if d.round > 0 and d.action.kind == RAISE:
            assert clearly(reference_equity(d.hole, d.board), 0.85, d.round) >= 0, d


def test_tight_passive_plays_few_hands_and_calls_more_than_it_raises() -> None:
    """It plays the top 30% from the small blind; bet into, it calls more than it raises and folds without 0.60
    equity; checked to, it bets only monsters (0.85)."""
    for opponent in ("call", "raise"):
        _, moves = played("spar_rock", opponent)
        assert within(*vpip(moves, SMALL_BLIND), share_of_starting_hands(0.7))
        for d in moves:
            if d.round > 0:
                eq = reference_equity(d.hole, d.board)
                if d.to_call > 0 and clearly(eq, 0.6, d.round) < 0:
                    assert d.action.kind == FOLD, d
                if d.to_call == 0 and d.action.kind == RAISE:
                    assert clearly(eq, 0.85, d.round) >= 0, d
    _, moves = played("spar_rock", "raise")
    facing = [d for d in moves if d.to_call > 0]
    raises = sum(d.action.kind == RAISE for d in facing)
    calls = sum(d.action.kind == CALL for d in facing)
    assert raises < calls / 2, (raises, calls)


@pytest.mark.slow  # make test-slow: many hands for a frequency (~14 s)
def test_bluffer_bets_weak_rivers_when_checked_to_at_the_documented_frequency() -> None:
    """On the river when ``call`` checks to it: a bet with 0.60 or more, and with under 0.40 a bluff with a
    probability from ``b / (2 (P + b))`` (a weak hand) to ``2b / (P + b)`` (a missed draw), for a bet of ``b``
    into ``P``; first to act, it never bets a weak hand."""
    hands = play(
        LIMIT, [agent_class("spar_bluffer")(LIMIT, seed=3), agent_class("call")(LIMIT)], deal_hands(LIMIT, 22, 600)
    )
    moves = [d for d in decisions(hands, 0) if d.round == 3 and d.to_call == 0]
    bluffs, low, high, weak = 0, 0.0, 0.0, 0
    for d in moves:
        eq = reference_equity(d.hole, d.board)
        if d.checked_to and eq >= 0.6:
            assert d.action.kind == RAISE, d
        if eq < 0.4 and not d.checked_to:
            assert d.action.kind == CALL, d
        if eq < 0.4 and d.checked_to:
            share = 20 / (d.pot + 20)
            weak += 1
            bluffs += d.action.kind == RAISE
            low += share / 2
            high += min(1.0, 2 * share)
    spread = 4 * math.sqrt(weak / 4)
    assert weak > 50 and bluffs > 0 and low - spread <= bluffs <= high + spread, (bluffs, weak, low, high)


def test_tag_calls_down_wider_against_a_maniac() -> None:
    """Facing a river bet after a bet on every street, TAG goes on with more of its possible holdings once it has
    seen the opponent bet every street of 200 hands (its read of a maniac widens the range it assumes)."""
    line = "MATCHSTATE:0:0:rc/crc/crc/cr:{}|/Td7c2h/9s/4c"
    maniac_hand = parse_match_state("MATCHSTATE:0:1:rc/crc/crc/crc:QsJh|2c3d/Td7c2h/9s/4c", LIMIT).state
    fresh, reader = agent_class("spar_tag")(LIMIT, seed=1), agent_class("spar_tag")(LIMIT, seed=1)
    for _ in range(200):
        reader.end_hand(MatchState(0, maniac_hand))
    board = parse_cards("Td7c2h9s4c")
    holdings = [h for h in itertools.combinations(range(52), 2) if not set(h) & set(board)]
    going_on = {"fresh": 0, "reader": 0}
    for hole in holdings:
        view = parse_match_state(line.format(CARD_STRINGS[hole[0]] + CARD_STRINGS[hole[1]]), LIMIT)
        going_on["fresh"] += fresh.policy(view).get(Action(FOLD), 0.0) < 0.5
        going_on["reader"] += reader.policy(view).get(Action(FOLD), 0.0) < 0.5
    assert going_on["reader"] > going_on["fresh"] + 0.1 * len(holdings), going_on


def test_limit_bots_refuse_other_games() -> None:
    for name in ("spar_equity", "spar_tag", "spar_lag", "spar_station", "spar_rock", "spar_bluffer"):
        for game in ("holdem.nolimit.2p.reverse_blinds", "holdem.limit.3p", "leduc.limit.2p"):
            with pytest.raises(ValueError, match=r"heads-up limit hold'em \(holdem.limit.2p.reverse_blinds\) only"):
                agent_class(name)(load_game(game), seed=1)


def test_bots_replay_exactly_given_their_seed() -> None:
    def betting(seed: int) -> list[str]:
        agents = [agent_class("spar_tag")(LIMIT, seed=seed), agent_class("spar_bluffer")(LIMIT, seed=seed + 1)]
        return [format_betting(s) for s in play(LIMIT, agents, DEALS[:60])]

    assert betting(1) == betting(1) != betting(2)


def test_equity_thresholds_are_options() -> None:
    cls = agent_class("spar_equity")
    view = parse_match_state("MATCHSTATE:0:0:cc/cc/cc/r:2c3d|/AhKhQh/Jh/Th", LIMIT)  # equity 1/2, facing a bet
    assert cls(LIMIT, seed=1).act(view) == Action(CALL)
    assert cls(LIMIT, seed=1, raise_at=0.5).act(view) == Action(RAISE)
    with pytest.raises(ValueError, match="call-at"):
        cls(LIMIT, call_at=0.7, raise_at=0.6)
    assert np.isclose(reference_equity(tuple(parse_cards("2c3d")), tuple(parse_cards("AhKhQhJhTh"))), 0.5)
