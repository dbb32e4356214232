"""The no-limit ``cfr`` agent's action translation against values worked out by hand: the pseudo-harmonic
mapping of Ganzfried and Sandholm (2013) between the abstract sizes around a real bet, tiny bets, min-raise
chains, sizes below the smallest abstract size and above the largest, and odd sizes.

The shipped ``cfr-nl`` abstraction: fold, call, raises of 1 and 3 pots before the flop and of 1 pot after it,
at most 2 such raises a round, and all-in. A raise of ``x`` pots raises by ``x`` times the pot after calling.
Between abstract sizes ``A < B`` a real ``x`` maps to ``A`` with probability
``f(x) = (B - x)(1 + A) / ((B - A)(1 + x))``. Blinds 50/100, stacks 20,000; seat 1 (the small blind) acts
first before the flop, seat 0 after it.
"""

from __future__ import annotations

import pytest

from acpc_arena.agents.cfr import CFRAgent
from acpc_arena.models.cfr.nolimit import pseudo_harmonic, translation_probabilities
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

GAME = load_game("holdem.nolimit.2p.reverse_blinds")
C = Action(CALL)


def r(size: int) -> Action:
    return Action(RAISE, size)


@pytest.fixture(scope="module")
def agent() -> CFRAgent:
    return CFRAgent(GAME, seed=1)


def translations(agent: CFRAgent, *actions: Action) -> dict[str, float]:
    """{abstract betting: probability} of the ways the hand's raises may translate."""
    state = State(GAME, 0, [[0, 1], [2, 3]], [4, 5, 6, 7, 8])
    for action in actions:
        state.apply(action)
    agent.begin_hand(MatchState(state.current_player, state))
    out: dict[str, float] = {}
    for weight, node in agent._translated_nodes(state):
        sequence = agent.checkpoint.tree.sequences[node]
        out[sequence] = out.get(sequence, 0.0) + weight
    return out


def test_the_mapping_by_hand() -> None:
    # A = 1, B = 3, x = 2: (3 - 2)(1 + 1) / ((3 - 1)(1 + 2)) = 2 / 6
    assert pseudo_harmonic(1.0, 3.0, 2.0) == pytest.approx(1 / 3)
    # A = 0.5, B = 1, x = 0.75: 0.25 * 1.5 / (0.5 * 1.75) = 0.375 / 0.875 = 3/7
    assert pseudo_harmonic(0.5, 1.0, 0.75) == pytest.approx(3 / 7)
    # A = 1, B = 3, x = 1.7: 1.3 * 2 / (2 * 2.7) = 2.6 / 5.4 = 13/27
    assert pseudo_harmonic(1.0, 3.0, 1.7) == pytest.approx(13 / 27)
    # on the sizes themselves: all to A at x = A, none at x = B
    assert pseudo_harmonic(1.0, 3.0, 1.0) == 1.0 and pseudo_harmonic(1.0, 3.0, 3.0) == 0.0
    # below the smallest size and above the largest, the nearest size alone
    assert translation_probabilities({2: 1.0, 3: 3.0, 4: 99.5}, 0.37) == [(2, 1.0)]
    assert translation_probabilities({2: 1.0, 3: 3.0, 4: 99.5}, 150.0) == [(4, 1.0)]


def test_opening_sizes_before_the_flop(agent: CFRAgent) -> None:
    # the pot after the small blind calls is 200: 1 pot raises to 300, 3 pots to 700, all-in is 19,900 / 200 = 99.5
    # two pots (to 500): A = 1, B = 3, f(2) = 1/3
    assert translations(agent, r(500)) == pytest.approx({"r300": 1 / 3, "r700": 2 / 3})
    # 1.7 pots (to 440): f(1.7) = 13/27
    assert translations(agent, r(440)) == pytest.approx({"r300": 13 / 27, "r700": 14 / 27})
    # 4.5 pots (to 1,000), above the largest fraction: between 3 pots and all-in,
    # (99.5 - 4.5)(1 + 3) / ((99.5 - 3)(1 + 4.5)) = 380 / 530.75
    assert translations(agent, r(1000)) == pytest.approx({"r700": 380 / 530.75, "r20000": 1 - 380 / 530.75})
    # a chip short of all-in (19,899 / 200 = 99.495 pots): (0.005 * 4) / (96.5 * 100.495), all but never 3 pots
    assert translations(agent, r(19999)) == pytest.approx(
        {"r700": 0.02 / (96.5 * 100.495), "r20000": 1 - 0.02 / (96.5 * 100.495)}
    )
    assert translations(agent, r(20000)) == {"r20000": 1.0}


def test_small_sizes_map_to_the_smallest_abstract_size(agent: CFRAgent) -> None:
    # the minimum raise (to 200: 0.5 pot) and one chip more (to 201: 101 / 200 = 0.505 pot): one pot
    assert translations(agent, r(200)) == {"r300": 1.0}
    assert translations(agent, r(201)) == {"r300": 1.0}
    # limped pot of 200, the big blind leads on the flop: the minimum bet (100, 0.5 pot), one chip more
    # (101, 0.505 pot), and 0.37 of a pot of 600 after a raise to 300 is called (222, to 522): one pot
    assert translations(agent, C, C, r(200)) == {"cc/r300": 1.0}
    assert translations(agent, C, C, r(201)) == {"cc/r300": 1.0}
    assert translations(agent, r(300), C, r(522)) == {"r300c/r900": 1.0}


def test_a_tiny_bet_into_a_big_pot(agent: CFRAgent) -> None:
    # a raise to 300 called (a pot of 600), a pot-sized bet on the flop (600, to 900) and on the turn (1,800, to
    # 2,700), called: a pot of 5,400 on the river; its minimum bet of 100 (to 2,800) is 100 / 5,400 = 0.019 pot,
    # mapped to the one-pot bet (5,400, to 8,100)
    assert translations(agent, r(300), C, r(900), C, r(2700), C, r(2800)) == {"r300c/r900c/r2700c/r8100": 1.0}


def test_odd_sizes_after_the_flop(agent: CFRAgent) -> None:
    # a pot of 600 on the flop (300 each); 1.7 pots is a bet of 1,020 (to 1,320). The sizes around it: one pot
    # (to 900) and all-in (19,700 / 600 = 32.833 pots): (32.833 - 1.7)(1 + 1) / ((32.833 - 1)(1 + 1.7))
    b = 19700 / 600
    one_pot = (b - 1.7) * 2 / ((b - 1) * 2.7)
    assert one_pot == pytest.approx(0.72445, abs=1e-5)
    assert translations(agent, r(300), C, r(1320)) == pytest.approx(
        {"r300c/r900": one_pot, "r300c/r20000": 1 - one_pot}
    )


def dealt(holes: tuple[str, str], *actions: Action) -> State:
    state = State(GAME, 0, [parse_cards(h) for h in holes], parse_cards("2h8d9cJsQh"))
    for action in actions:
        state.apply(action)
    return state


def test_a_min_raise_chain_taken_for_an_all_in_is_never_folded(agent: CFRAgent) -> None:
    # the small blind raises to 200 (0.5 pot: one pot, to 300), the big blind to 300 (100 over a pot of 400 after
    # calling, 0.25 pot: one pot, to 900), the small blind to 400 (100 over 600, 0.17 pot): the abstract round has
    # had its 2 pot-fraction raises, all-in is the only raise left, and the tree takes it for one
    chain = (r(200), r(300), r(400))
    assert translations(agent, *chain) == {"r300r900r20000": 1.0}
    # the real bet is 100 into 700: a price of 100 / 800 = 0.125, which even 7-2 offsuit beats against the top 15%
    # (eval7: 0.26; the call needs 0.145), so the guard goes on. The abstract strategy's answer to the all-in
    # stands for the real game's: its call of the all-in is the real all-in, its fold a call of the 100 chips
    for hole in ("7c2d", "AsAh"):
        view = MatchState(0, dealt((hole, "KsKh"), *chain))
        agent.begin_hand(view)
        checkpoint = agent.checkpoint
        node = checkpoint.tree.sequences.index("r300r900r20000")
        key = int(checkpoint.abstraction.key(parse_cards(hole), [], 0))
        fold, call = checkpoint.strategy[checkpoint.base[checkpoint.decision_row[node]] + key][:2]
        policy = agent.policy(view)
        assert FOLD_ACTION not in policy
        assert policy.get(Action(RAISE, 20000), 0.0) == pytest.approx(call / (fold + call))
        assert policy.get(Action(CALL), 0.0) == pytest.approx(fold / (fold + call))
        assert all(agent.act(view) in policy for _ in range(20))
    # after a call of the 100 chips the abstract hand is over (all in and called) but 19,600 chips are behind,
    # more than the pot of 800: the agent checks on the flop, it does not put the rest in
    flop = MatchState(0, dealt(("7c2d", "KsKh"), *chain, C))
    agent.begin_hand(flop)
    assert flop.state.round == 1 and flop.state.current_player == 0
    assert agent.policy(flop) == {Action(CALL): 1.0} and agent.act(flop) == Action(CALL)


def test_a_bet_just_short_of_all_in(agent: CFRAgent) -> None:
    # to 19,999: 19,899 / 200 = 99.495 pots, all-in but for 2e-6 (above). Aces go on past the guard, and the
    # abstract call of the all-in is the real all-in: a raise to 20,000
    view = MatchState(0, dealt(("AsAh", "7c2d"), r(19999)))
    agent.begin_hand(view)
    assert agent.act(view) == Action(RAISE, 20000)
    # where the 19,999 were called, the abstract hand is over and 1 chip is behind, under the pot of 39,998:
    # the agent puts it in on the flop
    flop = MatchState(0, dealt(("AsAh", "7c2d"), r(19999), C))
    agent.begin_hand(flop)
    assert agent.act(flop) == Action(RAISE, 20000) and agent.policy(flop) == {Action(RAISE, 20000): 1.0}
