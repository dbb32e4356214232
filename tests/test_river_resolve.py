"""River re-solving (``models/cfr/river_resolve.py``, ``cfr --resolve-river``).

The expected values are hand computations: the equilibrium of a polarised river (the bettor's
nuts and air against bluff-catchers, one pot-sized bet), and best responses computed here by
plain enumeration over pairs of holdings with the scalar evaluator, apart from the solver's code.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from acpc_arena.agents.base import Policy
from acpc_arena.agents.cfr import CFRAgent
from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.reports import Report
from acpc_arena.models.cfr.river_resolve import (
    RiverSolution,
    Showdown,
    exploitability,
    river_holdings,
    river_ranges,
    river_start,
    solve_river,
)
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import Game, load_game, parse_game
from acpc_arena.protocol.rank_lookup import rank_hand
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, Action, State
from acpc_arena.protocol.wire import MatchState

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
ONE_BET_RIVER = parse_game(LIMIT.to_text().replace("maxRaises = 3 4 4 4", "maxRaises = 3 4 4 1"), "one-bet river")
"""Limit hold'em whose river allows one bet and no raise."""
BOARD = parse_cards("KsQd7h4c2s")
"""No flush, no straight: KK is the nuts, A9 (ace high) beats 65 (king high) and loses to KK."""


def limped_to_river(game: Game) -> State:
    """The small blind calls, everyone checks to the river: 10 each in, a pot of 20, river bet 20."""
    state = State(game, 0, [[], []], list(BOARD))
    while state.round < 3:
        state.apply(CALL_ACTION)
    assert state.spent == [10, 10] and state.current_player == 0
    return state


def weights_of(holdings: np.ndarray, chosen: dict[str, float]) -> np.ndarray:
    """A range over ``holdings``: each named holding ("Kh Kd") its weight, the rest 0."""
    index = {tuple(sorted(map(int, h))): i for i, h in enumerate(holdings)}
    weights = np.zeros(len(holdings))
    for text, weight in chosen.items():
        weights[index[tuple(sorted(parse_cards(text.replace(" ", ""))))]] = weight
    return weights


def combos(first: str, second: str) -> list[str]:
    """Every holding of a card of rank ``first`` and one of rank ``second``, none on the board."""
    cards = {
        rank: [rank + suit for suit in "cdhs" if parse_cards(rank + suit)[0] not in BOARD] for rank in (first, second)
    }
    return sorted({" ".join(sorted([a, b])) for a in cards[first] for b in cards[second] if a != b})


def best_responses(
    start: State, solution: RiverSolution, ranges: np.ndarray, board: Sequence[int]
) -> tuple[float, float]:
    """Each player's best-response value against the other's strategy in ``solution``, in chips summed
    over the pairs of holdings that share no card (weighted by both ranges): enumerated over every
    holding, every betting sequence (``State`` itself) and every opposing holding."""
    holdings = [list(map(int, h)) for h in solution.holdings]
    ranks = [rank_hand([*h, *board]) for h in holdings]

    def payoff(state: State, player: int, mine: int, theirs: int) -> float:
        if state.folded[player]:
            return -float(state.spent[player])
        if state.folded[1 - player]:
            return float(state.spent[1 - player])
        sign = (ranks[mine] > ranks[theirs]) - (ranks[mine] < ranks[theirs])
        return float(sign * state.spent[player])

    def value(state: State, player: int, mine: int, reach: dict[int, float], betting: list[Action]) -> float:
        if state.finished or state.round != start.round:
            return sum(r * payoff(state, player, mine, j) for j, r in reach.items())
        legal = state.legal_actions()
        actions = ([FOLD_ACTION] if legal.can_fold else []) + [CALL_ACTION]
        actions += [LIMIT_RAISE_ACTION] if legal.can_raise else []
        node = solution.node_of(betting)
        strategy = solution.strategy[node]
        assert strategy is not None
        children = []
        for slot, action in enumerate(actions):
            child = state.copy()
            child.apply(action)
            if state.current_player == player:
                children.append(value(child, player, mine, reach, [*betting, action]))
            else:
                taken = {j: r * float(strategy[slot, j]) for j, r in reach.items()}
                children.append(value(child, player, mine, taken, [*betting, action]))
        return max(children) if state.current_player == player else sum(children)

    out = []
    for player in (0, 1):
        total = 0.0
        for mine, hole in enumerate(holdings):
            if ranges[player, mine] <= 0:
                continue
            reach = {
                j: float(ranges[1 - player, j])
                for j, other in enumerate(holdings)
                if ranges[1 - player, j] > 0 and not set(hole) & set(other)
            }
            total += ranges[player, mine] * value(start.copy(), player, mine, reach, [])
        out.append(total)
    return out[0], out[1]


def pair_weight(ranges: np.ndarray, holdings: np.ndarray) -> float:
    """The weight of every pair of holdings that share no card."""
    apart = ~(holdings[:, None, :, None] == holdings[None, :, None, :]).any(axis=(2, 3))
    return float(ranges[0] @ apart @ ranges[1])


def test_polarised_river_reaches_the_hand_computed_equilibrium() -> None:
    """Pot 20, one bet of 20. The bettor holds the nuts (KK, total weight N = 3) or air (65, A = 6),
    the caller bluff-catchers (A9), all 16 disjoint from every bettor holding. At the equilibrium the
    nuts always bet, the air bets b* = N / (2A) = 1/4 (bluffs half the value bets: a call of 20 for
    40 needs a third of the bets to be bluffs) and the caller calls c* = 1/2 (a bluff wins 10 when
    called half the time and loses 30 the other half, the -10 of a check). Values below are per
    caller holding, summed over the bettor's weight; the game value is v0* = 20N - 10A = 0.

    Tolerances from the exploitability e = BR0 + BR1 (each part non-negative): a caller calling
    1/2 - d lets the air bluff for 40d more each (e >= 180d); calling 1/2 + d lets the nuts check less
    ... at least 20d N = 60d: so |c - 1/2| <= e / 60. Air betting b* + d lets the caller call (or fold,
    for -d) for 20A|d| = 120|d| more: |b - b*| <= e / 120. Nuts checking 1 - beta lets the better of
    call and fold win at least 10N(1 - beta) = 30(1 - beta) more: 1 - beta <= e / 30."""
    start = limped_to_river(ONE_BET_RIVER)
    holdings = river_holdings(BOARD)
    nuts = {h: 1.0 for h in combos("K", "K")}
    air = {h: 6.0 / 16 for h in combos("6", "5")}
    catchers = {h: 1.0 for h in combos("A", "9")}
    assert (len(nuts), len(air), len(catchers)) == (3, 16, 16)
    ranges = np.stack([weights_of(holdings, {**nuts, **air}), weights_of(holdings, catchers)])
    solution = solve_river(start, BOARD, ranges, 1000, holdings)

    br0, br1 = best_responses(start, solution, ranges, BOARD)
    e = (br0 + br1) / len(catchers)
    assert 0 <= e < 0.5
    root, after_bet = solution.node_of([]), solution.node_of([LIMIT_RAISE_ACTION])
    root_strategy, call_strategy = solution.strategy[root], solution.strategy[after_bet]
    assert root_strategy is not None and call_strategy is not None
    raise_slot = solution.tree[root].actions.index(LIMIT_RAISE_ACTION)
    call_slot = solution.tree[after_bet].actions.index(CALL_ACTION)

    def mean(strategy: np.ndarray, slot: int, chosen: dict[str, float]) -> float:
        weights = weights_of(holdings, chosen)
        return float(strategy[slot] @ weights / weights.sum())

    assert abs(mean(call_strategy, call_slot, catchers) - 0.5) <= e / 60
    assert abs(mean(root_strategy, raise_slot, air) - 0.25) <= e / 120
    assert 1 - mean(root_strategy, raise_slot, nuts) <= e / 30
    assert abs(mean(call_strategy, call_slot, catchers) - 0.5) < 0.01  # what e < 0.5 gives


def test_showdown_sums_equal_the_win_and_apart_matrices() -> None:
    """``Showdown``'s sums against the matrices built pair by pair with the scalar evaluator."""
    board = parse_cards("9h9c4d4sAh")  # two pair on the board: many ties
    holdings = river_holdings(board)
    ranks = np.array([rank_hand([*map(int, h), *board]) for h in holdings])
    cards = np.zeros((len(holdings), 52), dtype=bool)
    cards[np.arange(len(holdings))[:, None], holdings] = True
    apart = (cards.astype(int) @ cards.T.astype(int) == 0).astype(float)
    win = np.sign(ranks[:, None] - ranks[None, :]) * apart
    reach = np.random.default_rng(0).random((len(holdings), 3))
    showdown = Showdown(holdings, board)
    np.testing.assert_allclose(showdown.wins(reach), win @ reach, atol=1e-9)
    np.testing.assert_allclose(showdown.apart(reach), apart @ reach, atol=1e-9)
    with pytest.raises(ValueError, match="every holding the board leaves"):
        Showdown(holdings[::7], board)


def test_ranges_multiply_the_trunk_probabilities_of_each_players_actions() -> None:
    """A trunk that calls 0.6 and raises 0.3 with an ace, calls 0.2 and raises 0.7 without (folds 0.1).
    Player 0 checked twice, called the flop bet and bet the turn: 0.6^3 * 0.3 with an ace, 0.2^3 * 0.7
    without; player 1 called, bet the flop and called the turn: 0.6 * 0.3 * 0.6 and 0.2 * 0.7 * 0.2. The
    trunk is asked each actor's holdings with the board that actor saw."""
    board = parse_cards("KsQd7h4c2s")
    state = State(LIMIT, 0, [[], []], list(board))
    # preflop: 1 calls, 0 checks; flop: 0 checks, 1 bets, 0 calls; turn: 0 bets, 1 calls
    for action in [CALL_ACTION, CALL_ACTION, CALL_ACTION, LIMIT_RAISE_ACTION, CALL_ACTION, LIMIT_RAISE_ACTION]:
        state.apply(action)
    state.apply(CALL_ACTION)
    assert state.round == 3
    seen: list[tuple[int, int]] = []
    aces = set(parse_cards("AcAdAhAs"))

    def trunk(views: Sequence[MatchState]) -> list[Policy]:
        seen.append((views[0].viewer, len(views[0].state.board_cards)))
        out = []
        for view in views:
            hole = view.state.hole_cards[view.viewer]
            ace = bool(set(hole) & aces)
            out.append({FOLD_ACTION: 0.1, CALL_ACTION: 0.6 if ace else 0.2, LIMIT_RAISE_ACTION: 0.3 if ace else 0.7})
        return out

    holdings = river_holdings(board)
    ranges = river_ranges(state, trunk, holdings)
    assert seen == [(1, 0), (0, 0), (0, 3), (1, 3), (0, 3), (0, 4), (1, 4)]
    ace = np.array([bool(set(h.tolist()) & aces) for h in holdings])
    # player 0: call, call (flop check), call (the flop bet), raise (the turn bet)
    np.testing.assert_allclose(ranges[0], np.where(ace, 0.6**3 * 0.3, 0.2**3 * 0.7))
    # player 1: call, raise (the flop bet), call (the turn bet)
    np.testing.assert_allclose(ranges[1], np.where(ace, 0.6 * 0.3 * 0.6, 0.2 * 0.7 * 0.2))


def random_river(seed: int, size: int) -> tuple[State, list[int], np.ndarray, np.ndarray]:
    """A river after a raised preflop and a bet flop and turn (50 each in), both ranges ``size`` random
    holdings of random weights."""
    rng = np.random.default_rng(seed)
    board = [int(c) for c in rng.choice(52, 5, replace=False)]
    state = State(LIMIT, 0, [[], []], board)
    for action in [LIMIT_RAISE_ACTION, CALL_ACTION] + [CALL_ACTION, LIMIT_RAISE_ACTION, CALL_ACTION] * 2:
        state.apply(action)
    start = river_start(state)
    assert start.round == 3 and start.spent == [50, 50]
    holdings = river_holdings(board)
    ranges = np.zeros((2, len(holdings)))
    for player in (0, 1):
        chosen = rng.choice(len(holdings), size, replace=False)
        ranges[player, chosen] = rng.random(size) + 0.1
    return start, board, holdings, ranges


@pytest.mark.parametrize("seed", [1, 2])
def test_exploitability_by_enumeration_falls_below_a_hundredth_of_the_pot(seed: int) -> None:
    """The full river (up to four bets) between two ranges of 25 holdings: after 200 iterations a best
    response wins under 1% of the river's pot (100 chips) a pair of holdings, less than after 20; the
    solver's own measure agrees with the enumeration."""
    start, board, holdings, ranges = random_river(seed, 25)
    pairs = pair_weight(ranges, holdings)
    measured = []
    for iterations in (20, 200):
        solution = solve_river(start, board, ranges, iterations, holdings)
        br0, br1 = best_responses(start, solution, ranges, board)
        measured.append((br0 + br1) / 2 / pairs)
        assert exploitability(solution, board, ranges) == pytest.approx(measured[-1], abs=1e-9)
    assert 0 <= measured[1] < 1.0 and measured[1] < measured[0]


@pytest.mark.slow  # make test-slow: a whole match of re-solved rivers (~25 s); the re-solve itself is tested above
def test_agent_resolves_the_river_in_a_match_against_spar_tag() -> None:
    report = play(["cfr --resolve-river --resolve-iterations 20", "spar_tag"], seeds=(5,), hands=150)
    assert isinstance(report, Report)
    assert report.extra["failed"] == []
    assert report.duplicate.samples == 150


def test_agent_plays_the_resolved_strategy_on_the_river() -> None:
    """At a river decision the agent's policy is the solution's row for its cards, taken purified."""
    agent = CFRAgent(LIMIT, seed=3, resolve_river=True, resolve_iterations=30)

    state = State(LIMIT, 7, [parse_cards("AhKh"), []], parse_cards("Kd8s5c2h9d"))
    for action in (CALL_ACTION, CALL_ACTION, CALL_ACTION, CALL_ACTION, CALL_ACTION, CALL_ACTION):
        state.apply(action)
    assert state.round == 3 and state.current_player == 0
    view = MatchState(0, state)
    assert agent.resolver is not None
    solution = agent.resolver.solution(state)
    row = solution.row(0, parse_cards("AhKh"))
    chosen = solution.tree[0].actions[int(np.argmax(row))]
    assert agent.policy(view) == {chosen: 1.0}
    assert agent.act(view) == chosen
    assert len(agent.resolver.seconds) == 1  # solved once for the hand


@pytest.mark.parametrize("game", ["leduc.limit.2p", "holdem.nolimit.2p.reverse_blinds"])
def test_other_games_are_refused_in_one_line(game: str) -> None:
    with pytest.raises(ValueError, match=r"^--resolve-river plays two-player limit hold'em only, not [^\n]+$"):
        CFRAgent(load_game(game), resolve_river=True)
