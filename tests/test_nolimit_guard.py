"""The all-in guard of the no-limit ``ensemble`` and ``cfr`` agents (``agents/allin_guard.py``): bet sizes and
prices worked out by hand, the opponent's counted lines, the ranges against eval7's hand values and the usual
top-10% chart, the equity against them against eval7's, and the agents' decisions facing a shove."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest

from acpc_arena.agents.allin_guard import (
    CEILING,
    FLOOR,
    AllInGuard,
    LineCounts,
    bet_in_pots,
    large_bet,
    price,
    top_range,
)
from acpc_arena.agents.cfr import CFRAgent
from acpc_arena.agents.ensemble import EnsembleAgent
from acpc_arena.agents.ranges import COMBOS
from acpc_arena.models.ensemble.network import output_action
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, CALL_ACTION, FOLD, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState
from tests.helpers.sparring import cards7

eval7 = pytest.importorskip("eval7")

GAME = load_game("holdem.nolimit.2p.reverse_blinds")
BB, SB = 0, 1  # reverse blinds: seat 0 posts the big blind (100), seat 1 the small (50) and acts first pre-flop
TOP_10 = "66+,A8s+,KJs+,ATo+"
"""The top 10% of starting hands by equity against a random hand (134 of 1,326), as the usual charts give it."""


def hand(holes: Sequence[str], board: str, *actions: Action) -> State:
    """A hand dealt ``holes`` (seat 0, seat 1) and ``board``, after ``actions``."""
    state = State(GAME, 0, [parse_cards(h) for h in holes], parse_cards(board))
    for action in actions:
        state.apply(action)
    return state


def r(size: int) -> Action:
    return Action(RAISE, size)


C, F = Action(CALL), Action(FOLD)
SHOVE = r(20000)
NO_CARDS = ("2c3c", "4d5d")
BOARD = "AsKd7h7c2s"


def combos(cards: Sequence[Sequence[int]]) -> set[tuple[int, int]]:
    return {(min(pair), max(pair)) for pair in cards}


def range_combos(weights: np.ndarray) -> set[tuple[int, int]]:
    return combos(COMBOS[weights > 0].tolist())


def eval7_combos(text: str) -> set[tuple[int, int]]:
    return combos([[CARD_STRINGS.index(str(card)) for card in pair] for pair, _ in eval7.HandRange(text).hands])


# -- sizes and prices ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actions", "pots", "the_price", "large"),
    [
        # the small blind shoves: 19,900 to call over the 200 both have matched; 19,900 / (20,100 + 19,900)
        ((SHOVE,), 99.5, 0.4975, True),
        # a raise to 300: 200 to call over 200, one pot; 200 / (400 + 200)
        ((r(300),), 1.0, 1 / 3, False),
        # to 400: 300 over 200 is the 1.5 pots where the guard starts; 300 / (500 + 300) = 3/8
        ((r(400),), 1.5, 0.375, True),
        ((r(399),), 1.495, 299 / 798, False),
        # 300, re-raised to 900: 600 to call over the 600 matched, one pot; 600 / (1,200 + 600)
        ((r(300), r(900)), 1.0, 1 / 3, False),
        # limp, check; the big blind bets 400 into 200 on the flop: two pots, 400 / (600 + 400)
        ((C, C, r(500)), 2.0, 0.4, True),
        # 300, called; flop bet of 200 into 600, raised all in: 19,500 to call over 1,000 matched
        ((r(300), C, r(500), SHOVE), 19.5, 19500 / 40000, True),
    ],
)
def test_bet_sizes_and_prices(actions: tuple[Action, ...], pots: float, the_price: float, large: bool) -> None:
    state = hand(NO_CARDS, BOARD, *actions)
    assert bet_in_pots(state) == pytest.approx(pots)
    assert price(state) == pytest.approx(the_price)
    assert large_bet(state) == large


def test_nothing_to_call_is_no_bet() -> None:
    state = hand(NO_CARDS, BOARD, C)  # the big blind, checked to
    assert bet_in_pots(state) == 0 and not large_bet(state)


# -- the opponent's lines -----------------------------------------------------------------------------


def test_lines_are_counted_where_the_opponent_could_raise_and_start_from_the_prior() -> None:
    counts = LineCounts()
    assert counts.share(0) == counts.share(3) == pytest.approx(3 / 20)  # the prior: 0.15 over 20 chances
    # the opponent in the small blind (seat 1):
    counts.observe(hand(NO_CARDS, BOARD, SHOVE, F), SB)  # pre-flop: a chance, a large bet
    counts.observe(hand(NO_CARDS, BOARD, F), SB)  # pre-flop: a chance, none
    # a limp (a chance); flop: 400 into 200 (a chance, a large bet); turn: a check (a chance);
    # river: facing a bet of 100 it calls (a chance: it could raise)
    counts.observe(hand(NO_CARDS, BOARD, C, C, C, r(500), C, C, C, r(600), C), SB)
    # it calls the agent's shove from the big blind (seat 0): no chance, it could not raise
    counts.observe(hand(NO_CARDS, BOARD, SHOVE, C), BB)
    # a raise to 300 (a chance, not large), the agent folds
    counts.observe(hand(NO_CARDS, BOARD, r(300), F), SB)
    # pre-flop 1 large bet in 4 chances; after the flop 1 in 3
    assert counts.share(0) == pytest.approx((1 + 3) / (4 + 20))
    assert counts.share(1) == counts.share(2) == pytest.approx((1 + 3) / (3 + 20))


def test_the_share_stays_within_its_floor_and_ceiling() -> None:
    counts = LineCounts()
    for _ in range(300):
        counts.observe(hand(NO_CARDS, BOARD, F), SB)  # (0 + 3) / (300 + 20) = 0.009
    assert counts.share(0) == FLOOR == 0.05
    for _ in range(1000):
        counts.observe(hand(NO_CARDS, BOARD, SHOVE, F), SB)  # (1000 + 3) / (1300 + 20) = 0.76
    assert counts.share(0) == pytest.approx(1003 / 1320)
    for _ in range(2000):
        counts.observe(hand(NO_CARDS, BOARD, SHOVE, F), SB)  # (3000 + 3) / (3300 + 20) = 0.905
    assert counts.share(0) == CEILING == 0.9


# -- the ranges ---------------------------------------------------------------------------------------


def test_the_top_tenth_before_the_flop_is_the_usual_chart() -> None:
    assert range_combos(top_range((), 0.1)) == eval7_combos(TOP_10)
    assert len(eval7_combos(TOP_10)) == 134


@pytest.mark.parametrize("share", [0.02, 0.1, 0.3])
def test_the_top_share_on_the_river_is_the_best_hands_by_eval7(share: float) -> None:
    board = parse_cards(BOARD)
    hands = [h for h in COMBOS.tolist() if not set(h) & set(board)]
    value = {tuple(h): eval7.evaluate(cards7([*h, *board])) for h in hands}
    ranked = sorted(value.values(), reverse=True)
    cut = ranked[round(share * len(hands)) - 1]  # the hand at the cut and every hand as good are in
    assert range_combos(top_range(board, share)) == combos([h for h in hands if value[tuple(h)] >= cut])


def guard_with_share(share_pre: tuple[int, int], share_post: tuple[int, int] = (0, 0)) -> AllInGuard:
    """A guard whose counts are (large bets, chances) before the flop and after it."""
    guard = AllInGuard()
    (guard.counts.large[0], guard.counts.chances[0]) = share_pre
    (guard.counts.large[1], guard.counts.chances[1]) = share_post
    return guard


def test_equity_against_the_range_is_eval7s() -> None:
    guard = guard_with_share((3, 40))  # (3 + 3) / (40 + 20): the top 10%
    assert guard.counts.share(0) == pytest.approx(0.1)
    for hole in ("AhKc", "9s9h", "Qs2h"):
        state = hand((hole, "2c3c"), BOARD, SHOVE)
        reference = eval7.py_hand_vs_range_monte_carlo(
            cards7(parse_cards(hole)), eval7.HandRange(TOP_10), [], 400_000
        )  # a standard error under 0.0008; eval7 leaves out the hands that hold one of ours
        assert guard.equity(state, BB) == pytest.approx(reference, abs=0.004), hole
    # on the river, exactly: the share of the range's hands (without our cards) ours beats, ties half
    guard = guard_with_share((0, 0), (7, 80))  # (7 + 3) / (80 + 20): the top 10% on the board
    board = parse_cards(BOARD)
    weights = top_range(board, 0.1)
    for hole in ("AhQc", "Kc7d", "3h4h"):
        mine = parse_cards(hole)
        theirs = [h for h in COMBOS[weights > 0].tolist() if not set(h) & set(mine)]
        score = eval7.evaluate(cards7([*mine, *board]))
        wins = [
            1.0 if score > s else 0.5 if score == s else 0.0
            for s in (eval7.evaluate(cards7([*h, *board])) for h in theirs)
        ]
        state = hand((hole, "2c3c"), BOARD, C, C, C, C, C, C, C, SHOVE)
        assert guard.equity(state, BB) == pytest.approx(sum(wins) / len(wins), abs=1e-9), hole


# eval7's equities against the top 10% (200,000 deals each): the call needs the price of a pre-flop shove,
# 0.4975, plus the margin 0.02 = 0.5175
CALLS = {"AsAh": 0.846, "KsKh": 0.716, "QsQh": 0.657, "JsJh": 0.603, "TsTh": 0.551, "AsKh": 0.559}
FOLDS = {"9s9h": 0.504, "8s8h": 0.469, "AhJd": 0.430, "KsQs": 0.404, "AhTd": 0.371, "7c2d": 0.243, "6s3h": 0.264}


@pytest.mark.parametrize("hole", [*CALLS, *FOLDS])
def test_facing_a_shove_the_guard_calls_when_the_equity_beats_the_price(hole: str) -> None:
    guard = guard_with_share((3, 40))
    state = hand((hole, "2c3c"), BOARD, SHOVE)
    assert guard.folds(state, BB) == (hole in FOLDS)


# -- the agents ---------------------------------------------------------------------------------------

JUNK = ("6s3h", "9s3h", "Qc2h", "7c2d")


@pytest.fixture(scope="module")
def ensemble() -> EnsembleAgent:
    return EnsembleAgent(GAME)


@pytest.fixture(scope="module")
def cfr() -> CFRAgent:
    return CFRAgent(GAME, seed=3)


def test_the_ensemble_folds_junk_to_a_shove_and_calls_aces(ensemble: EnsembleAgent) -> None:
    # the prior's top 15%: 6-3 to Q-2 have under 0.35 of the pot against it, aces over 0.8
    for hole in JUNK:
        view = MatchState(BB, hand((hole, "2c3c"), BOARD, SHOVE))
        assert ensemble.act(view) == FOLD_ACTION and ensemble.policy(view) == {FOLD_ACTION: 1.0}
    view = MatchState(BB, hand(("AsAh", "2c3c"), BOARD, SHOVE))
    assert ensemble.act(view) == CALL_ACTION and ensemble.policy(view) == {CALL_ACTION: 1.0}
    views = [MatchState(BB, hand((h, "2c3c"), BOARD, SHOVE)) for h in (*JUNK, "AsAh")]
    assert ensemble.policies(views) == [{FOLD_ACTION: 1.0}] * len(JUNK) + [{CALL_ACTION: 1.0}]


def test_the_ensemble_never_folds_aces_to_an_overbet_and_decides_smaller_bets_as_its_networks(
    ensemble: EnsembleAgent,
) -> None:
    overbet = MatchState(BB, hand(("AsAh", "2c3c"), BOARD, r(600)))  # 500 to call over 200: 2.5 pots
    assert ensemble.act(overbet) != FOLD_ACTION
    for hole in ("AsAh", "7c2d", "Tc9c"):
        for actions in ((r(300),), (r(300), r(900), r(2700))):  # one pot, then raised by one pot twice
            state = hand((hole, "4d5d"), BOARD, *actions)
            view = MatchState(state.current_player, state)
            probs, legal, keys = ensemble.network_outputs(view)
            choice = int(np.argmax(np.where(legal, ensemble.combined(probs, keys), -np.inf)))
            assert ensemble.act(view) == output_action(state, choice)


def test_the_guard_setting_is_on_or_off() -> None:
    with pytest.raises(ValueError, match="--allin-guard must be on or off"):
        EnsembleAgent(GAME, allin_guard="yes")


def test_without_the_guard_the_ensemble_answers_a_shove_as_its_networks() -> None:
    agent = EnsembleAgent(GAME, allin_guard="off")
    for hole in (*JUNK, "AsAh"):
        view = MatchState(BB, hand((hole, "2c3c"), BOARD, SHOVE))
        probs, legal, keys = agent.network_outputs(view)
        choice = int(np.argmax(np.where(legal, agent.combined(probs, keys), -np.inf)))
        assert agent.act(view) == output_action(view.state, choice)
        assert agent.policy(view) == {output_action(view.state, choice): 1.0}


def test_the_cfr_agent_folds_junk_to_a_shove_and_never_folds_aces(cfr: CFRAgent) -> None:
    for hole in JUNK:
        view = MatchState(BB, hand((hole, "2c3c"), BOARD, SHOVE))
        assert cfr.act(view) == FOLD_ACTION and cfr.policy(view) == {FOLD_ACTION: 1.0}
    aces = MatchState(BB, hand(("AsAh", "2c3c"), BOARD, SHOVE))
    assert cfr.act(aces) == CALL_ACTION and cfr.policy(aces) == {CALL_ACTION: 1.0}
    overbet = MatchState(BB, hand(("AsAh", "2c3c"), BOARD, r(600)))
    assert all(cfr.act(overbet) != FOLD_ACTION for _ in range(50))
    assert FOLD_ACTION not in cfr.policy(overbet)


def test_the_agents_learn_the_opponents_share_of_shoves() -> None:
    """After 200 hands of a small blind that shoves every hand, the range is the top 90%, no longer the prior's
    top 15%. eval7's equities (200,000 deals): 5-5 0.436 against the top 15%, 0.583 against the top 90%;
    9-6 offsuit 0.305 and 0.421. The call needs 0.5175."""
    agents = [EnsembleAgent(GAME), CFRAgent(GAME, seed=4)]
    fives = MatchState(BB, hand(("5s5h", "2c3c"), BOARD, SHOVE))
    nine_six = MatchState(BB, hand(("9s6h", "2c3c"), BOARD, SHOVE))
    for agent in agents:
        assert agent.act(fives) == FOLD_ACTION and agent.act(nine_six) == FOLD_ACTION
        for _ in range(200):
            agent.end_hand(MatchState(BB, hand(("9s6h", "2c3c"), BOARD, SHOVE, F)))
        assert agent.act(fives) == CALL_ACTION and agent.act(nine_six) == FOLD_ACTION


def test_a_guarded_decision_takes_well_under_50_ms() -> None:
    """Processor time of the first decision on a new board (its table built) and of the next ones (kept)."""
    guard = AllInGuard()
    rng = np.random.default_rng(5)
    guard.folds(hand(NO_CARDS, BOARD, SHOVE), BB)  # the pre-flop table loaded once for the process
    for cards in (3, 4, 5):
        deck = rng.permutation(52).tolist()
        board = "".join(CARD_STRINGS[c] for c in deck[4:9])
        holes = ("".join(CARD_STRINGS[c] for c in deck[:2]), "".join(CARD_STRINGS[c] for c in deck[2:4]))
        actions = [C, C] + [C, C] * (cards - 3) + [SHOVE]  # the big blind shoves first after the flop
        state = hand(holes, board, *actions)
        assert len(state.visible_board()) == cards and state.current_player == SB
        start = time.process_time()
        guard.folds(state, SB)
        first = time.process_time() - start
        start = time.process_time()
        guard.folds(hand((holes[1], holes[0]), board, *actions), SB)
        again = time.process_time() - start
        assert first < 0.05 and again < 0.01, (cards, first, again)
