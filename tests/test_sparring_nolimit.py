"""The no-limit sparring suite (``agents/sparring/nolimit.py``): each bot's described actions and sizes.

The bots play a few hundred dealt hands of ``holdem.nolimit.2p.reverse_blinds`` against
``call`` and ``raise`` through the engine (``test_sparring_limit.play``). Every raise
size is checked against the docs' definition worked out here from the betting: "x
pots" is x times the pot after calling on top of the call, and the minimum raise is the
ACPC one (the last raise's size, at least the big blind, on top of the bet), any size
clamped between the minimum and all in as the dealer clamps it.
"""

from __future__ import annotations

from functools import cache

import pytest

from acpc_arena.agents.registry import agent_class
from acpc_arena.agents.sparring.nolimit import SparShove10
from acpc_arena.protocol.cards import rank_of
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, State
from tests.helpers.sparring import (
    Decision,
    clearly,
    decisions,
    play,
    reference_equity,
    share_of_starting_hands,
    within,
)

NOLIMIT = load_game("holdem.nolimit.2p.reverse_blinds")
STACK = 20_000
BIG_BLIND = 100
DEALS = deal_hands(NOLIMIT, 31, 300)


@cache
def played(name: str, opponent: str) -> tuple[list[State], list[Decision]]:
    hands = play(NOLIMIT, [agent_class(name)(NOLIMIT, seed=3), agent_class(opponent)(NOLIMIT, seed=4)], DEALS)
    return hands, decisions(hands, 0)


def minimum_raise_to(d: Decision) -> int:
    """The ACPC minimum raise-to: the bet plus the last raise's size (the big blind at least), at most all in."""
    return min(d.max_spent + max(d.previous_raise, BIG_BLIND), STACK)


def clamped(d: Decision, size: float) -> int:
    """A raise to ``size`` as the dealer makes it valid."""
    return int(min(max(round(size), minimum_raise_to(d)), STACK))


def pots(d: Decision, fraction: float) -> int:
    """A raise of ``fraction`` times the pot after calling (rounded to a chip, halves to even), on top of the call,
    made valid."""
    return clamped(d, d.max_spent + round(fraction * (d.pot + d.to_call)))


@pytest.mark.parametrize("top", [10, 30, 60])
@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_shover_goes_all_in_with_its_top_share_before_the_flop_and_else_checks_or_folds(
    top: int, opponent: str
) -> None:
    _, moves = played(f"spar_shove{top}", opponent)
    shoves = set()
    for d in moves:
        if d.action.kind == RAISE:
            assert d.round == 0 and d.action.size == STACK, d
            shoves.add(d.hand)
        else:
            assert d.action.kind == FOLD or d.to_call == 0, d  # a fold, or a check
    assert within(len(shoves), len(DEALS), share_of_starting_hands(1 - top / 100))


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_overbettor_bets_two_or_three_pots(opponent: str) -> None:
    _, moves = played("spar_overbet", opponent)
    sizes = {2: 0, 3: 0}
    for d in moves:
        if d.action.kind == RAISE:
            fraction = next((f for f in (2, 3) if d.action.size == pots(d, f)), None)
            assert fraction is not None, d
            sizes[fraction] += d.action.size < STACK
    assert sizes[2] > 10 and sizes[3] > 10, sizes


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_min_raiser_makes_the_minimum_raise_at_most_three_times_a_round(opponent: str) -> None:
    _, moves = played("spar_minraise", opponent)
    own: dict[tuple[int, int], int] = {}
    for d in moves:
        if d.action.kind == RAISE:
            assert d.action.size == minimum_raise_to(d), d
            own[d.hand, d.round] = own.get((d.hand, d.round), 0) + 1
    assert max(own.values()) == 3 if opponent == "raise" else max(own.values()) == 1
    assert sum(own.values()) > 0.3 * len(moves)


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_limp_caller_limps_calls_and_raises_only_the_nuts_ish(opponent: str) -> None:
    """It limps every small blind, raises only aces before the flop and 0.90 equity after it (eval7's), rarely."""
    _, moves = played("spar_limper", opponent)
    assert all(d.action.kind == CALL for d in moves if d.first_in)
    raises = [d for d in moves if d.action.kind == RAISE]
    assert all(rank_of(d.hole[0]) == rank_of(d.hole[1]) == 12 for d in raises if d.round == 0)
    assert all(clearly(reference_equity(d.hole, d.board), 0.9, d.round) >= 0 for d in raises if d.round > 0)
    assert len(raises) < 0.1 * len(moves)
    facing = [d for d in moves if d.to_call > 0]
    assert sum(d.action.kind == CALL for d in facing) > 0.9 * len(facing)


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_fractions_bot_bets_half_three_quarters_or_the_pot_or_goes_all_in(opponent: str) -> None:
    _, moves = played("spar_fractions", opponent)
    used: set[float | str] = set()
    for d in moves:
        if d.action.kind == RAISE:
            options: dict[int, float | str] = {pots(d, f): f for f in (0.5, 0.75, 1.0)} | {STACK: "all in"}
            assert d.action.size in options, d
            used.add(options[d.action.size])
    assert used >= {0.5, 0.75, 1.0, "all in"}


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_odd_size_bot_bets_odd_sizes(opponent: str) -> None:
    _, moves = played("spar_oddsize", opponent)
    used: set[float | str] = set()
    for d in moves:
        if d.action.kind == RAISE:
            one_over = clamped(d, minimum_raise_to(d) + 1)
            options: dict[int, float | str]
            if d.to_call:
                options = {one_over: "one over"}
            else:
                options = {
                    pots(d, 1.7): 1.7,
                    clamped(d, max(d.max_spent + round(0.37 * d.pot), minimum_raise_to(d) + 1)): 0.37,
                }
            assert d.action.size in options, d
            used.add(options[d.action.size])
    assert used == {"one over", 1.7, 0.37}


def test_nolimit_bots_refuse_other_games() -> None:
    names = [f"spar_shove{t}" for t in (10, 30, 60)]
    names += ["spar_overbet", "spar_minraise", "spar_limper", "spar_fractions", "spar_oddsize", "spar_fuzz"]
    for name in names:
        for game in ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.3p", "kuhn.limit.2p"):
            with pytest.raises(
                ValueError, match=r"heads-up no-limit hold'em \(holdem.nolimit.2p.reverse_blinds\) only"
            ):
                agent_class(name)(load_game(game), seed=1)
    assert SparShove10(NOLIMIT, seed=1, top=0.5).top == 0.5 and SparShove10(NOLIMIT, seed=1).top == 0.1
    with pytest.raises(ValueError, match="--top"):
        SparShove10(NOLIMIT, seed=1, top=1.5)
