"""AIVAT on games small enough to know the exact answer (Kuhn, Leduc).

The exact expected value of a pair of shipped agents is computed here by walking every deal and
every betting sequence with both agents' policies (the engine and the policies only, nothing of
AIVAT). AIVAT is unbiased whatever its value function: its expectation over every terminal
history, weighed by the same walk, must equal that value to rounding, with both players known,
with either one alone, and with every card seen; the mean over simulated hands (seeded deals,
actions drawn from the policies) must lie within a few standard errors of it, the board
corrections drawn instead of enumerated too. Its spread must be well below the plain results'.
The value function's sums over pairs of holdings are checked against a brute-force loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from acpc_arena.agents.base import Agent, Policy, limit_policy
from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.arena.aivat import AivatUnavailable, HandEstimator, Settings
from acpc_arena.dealer.arena.aivat import estimator as estimator_module
from acpc_arena.dealer.arena.aivat import values as values_module
from acpc_arena.dealer.arena.aivat.values import board_ranks, holding_strata, holdings_of, sign_sums
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import Game, game_name, load_game, parse_game
from acpc_arena.protocol.state import CALL, RAISE, Action, State
from acpc_arena.protocol.wire import LogHand, MatchState
from tests.helpers.aivat import NAMES, pair, policy_of, terminal_histories

KUHN = load_game("kuhn.limit.2p")
LEDUC = load_game("leduc.limit.2p")
ALL_IN_LEDUC = parse_game(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 2\nstack = 4 4\nblind = 1 1\nfirstPlayer = 1 1\n"
    "numSuits = 2\nnumRanks = 3\nnumHoleCards = 1\nnumBoardCards = 0 2\nEND GAMEDEF\n",
    "all-in-leduc",
)
"""No-limit Leduc with stacks of 4 chips and two board cards at once: most hands end all in, the board
then comes as one event (the runout)."""
HOLDEM = load_game("holdem.limit.2p.reverse_blinds")


def simulated_hands(game: Game, agents: Sequence[Agent], count: int, seed: int) -> list[LogHand]:
    """``count`` hands of seeded deals, each action drawn from the policy of the agent to act."""
    rng = np.random.default_rng(seed)
    hands = []
    for deal in deal_hands(game, seed, count):
        state = State(game, deal.hand_id, [list(c) for c in deal.hole_cards], list(deal.board_cards))
        while not state.finished:
            policy = policy_of(agents[state.current_player], state)
            actions = list(policy)
            weights = np.array([policy[a] for a in actions])
            state.apply(actions[int(rng.choice(len(actions), p=weights / weights.sum()))])
        hands.append(LogHand(state, tuple(state.values()), NAMES))
    return hands


KNOWN_SIDES = {"both": (0, 1), "a only": (0,), "b only": (1,)}


@pytest.mark.parametrize(
    ("game", "agents", "sides", "imaginary"),
    [
        (KUHN, ("cfr", "random"), "both", True),
        (KUHN, ("cfr", "random"), "a only", True),
        (KUHN, ("random", "cfr"), "b only", True),
        (KUHN, ("cfr", "random"), "both", False),
        # make test-slow: random's raises make these two the longest (~10 and ~5 s); make test keeps the same
        # settings on Kuhn, and Leduc and all-in Leduc against call and raise
        pytest.param(LEDUC, ("cfr", "random"), "both", True, marks=pytest.mark.slow),
        (LEDUC, ("cfr", "call"), "a only", True),
        (LEDUC, ("call", "cfr"), "b only", True),
        (LEDUC, ("call", "cfr"), "both", False),
        (ALL_IN_LEDUC, ("equity", "raise"), "both", True),
        pytest.param(ALL_IN_LEDUC, ("equity", "random"), "a only", True, marks=pytest.mark.slow),
    ],
    ids=lambda v: ("all-in-leduc" if v is ALL_IN_LEDUC else game_name(v)) if isinstance(v, Game) else str(v),
)
def test_expected_aivat_is_the_exact_value(game: Game, agents: tuple[str, str], sides: str, imaginary: bool) -> None:
    players = pair(game, *agents)
    histories = list(terminal_histories(game, players))
    assert sum(w for w, _ in histories) == pytest.approx(1.0, abs=1e-12)
    exact = sum(w * hand.values[0] for w, hand in histories)
    known = {NAMES[p]: players[p] for p in KNOWN_SIDES[sides]}
    estimator = HandEstimator(game, known, Settings(imaginary=imaginary))
    weights = np.array([w for w, _ in histories])
    values = np.array([estimator.hand(hand).value for _, hand in histories])
    plain = np.array([hand.values[0] for _, hand in histories])
    assert weights @ values == pytest.approx(exact, abs=1e-9)
    assert weights @ (values - exact) ** 2 < weights @ (plain - exact) ** 2  # the corrections do something


def simulated_check(
    game: Game, agents: tuple[str, str], known_sides: tuple[int, ...], settings: Settings, count: int
) -> tuple[float, float, float, float]:
    """(exact value, AIVAT mean, its standard error, AIVAT's standard deviation over the plain one's)."""
    players = pair(game, *agents)
    exact = sum(w * hand.values[0] for w, hand in terminal_histories(game, players))
    hands = simulated_hands(game, players, count, seed=5)
    estimator = HandEstimator(game, {NAMES[p]: players[p] for p in known_sides}, settings)
    values = np.array([estimator.hand(hand).value for hand in hands])
    plain = np.array([hand.values[0] for hand in hands])
    return exact, float(values.mean()), float(values.std(ddof=1) / np.sqrt(count)), float(values.std() / plain.std())


@pytest.mark.slow  # make test-slow: a long simulation (~25 s); the exact-value tests run in make test
def test_simulated_leduc_mean_is_within_standard_errors_and_the_spread_falls() -> None:
    """cfr against random, 2,000 seeded hands. Measured: the standard deviation falls to 0.23 of the
    plain one's with both known, 0.33 with cfr alone known; half is asserted."""
    for known in ((0, 1), (0,)):
        exact, mean, error, ratio = simulated_check(LEDUC, ("cfr", "random"), known, Settings(), 2000)
        assert abs(mean - exact) < 4 * error, (known, mean, exact, error)
        assert ratio < 0.5, (known, ratio)


@pytest.mark.slow  # make test-slow: a long simulation (~18 s); AIVAT's exact-value tests run in make test
def test_drawn_board_corrections_are_unbiased_too() -> None:
    """The board card drawn (``samples`` of them) instead of summed over: still within standard errors."""
    settings = Settings(enumerate_up_to=0, samples=3, sample_budget=0)
    exact, mean, error, ratio = simulated_check(LEDUC, ("cfr", "random"), (0, 1), settings, 2000)
    assert abs(mean - exact) < 4 * error
    assert ratio < 1


@pytest.mark.slow  # make test-slow: a long simulation (~17 s); AIVAT's exact-value tests run in make test
def test_drawn_all_in_runouts_are_unbiased() -> None:
    """All in, the two board cards drawn from both players' joint range (no enumeration): within standard
    errors. Measured: the standard deviation falls to 0.39 of the plain one's (0.36 enumerated); a half is
    asserted."""
    settings = Settings(enumerate_up_to=0, samples=2, sample_budget=0)
    exact, mean, error, ratio = simulated_check(ALL_IN_LEDUC, ("equity", "raise"), (0, 1), settings, 2000)
    assert abs(mean - exact) < 4 * error
    assert ratio < 0.5


def test_decoy_ranges_are_unbiased() -> None:
    """Ranges of the dealt holding and one other drawn at random: within standard errors, less spread."""
    exact, mean, error, ratio = simulated_check(LEDUC, ("cfr", "random"), (0, 1), Settings(decoys=1), 2000)
    assert abs(mean - exact) < 4 * error
    assert ratio < 1


TWO_CARDS = parse_game(
    "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nblind = 1 2\nraiseSize = 2\nfirstPlayer = 1\n"
    "maxRaises = 2\nnumSuits = 2\nnumRanks = 3\nnumHoleCards = 2\nnumBoardCards = 0\nEND GAMEDEF\n",
    "two-cards",
)
"""One round of limit betting on two hole cards from a deck of six: 15 holdings, each dealt in two orders."""


class _OrderAgent(Agent):
    """Bets more often with its higher card dealt first: a policy that depends on the order of the cards."""

    name = "order"

    def policy(self, view: MatchState) -> Policy:
        first, second = view.state.hole_cards[view.viewer]
        return limit_policy(view.state, *((0.1, 0.3, 0.6) if first > second else (0.3, 0.5, 0.2)))


def test_decoys_in_one_order_each_are_unbiased_where_the_policy_depends_on_the_order() -> None:
    """Two hole cards, each decoy holding weighed in one order drawn at random: within standard errors."""
    players: list[Agent] = [_OrderAgent(TWO_CARDS), agent_class("random")(TWO_CARDS, seed=2)]
    exact = sum(w * hand.values[0] for w, hand in terminal_histories(TWO_CARDS, players))
    hands = simulated_hands(TWO_CARDS, players, 4000, seed=5)
    estimator = HandEstimator(TWO_CARDS, {"a": players[0], "b": players[1]}, Settings(decoys=3))
    values = np.array([estimator.hand(hand).value for hand in hands])
    error = values.std(ddof=1) / np.sqrt(len(values))
    assert abs(values.mean() - exact) < 4 * error, (values.mean(), exact, error)


def test_a_decoy_set_weighs_each_member_by_its_chance_of_being_the_one_dealt() -> None:
    """Bayes' rule by hand: the set holds the dealt holding and one holding drawn from each other stratum, so
    P(set | member h dealt) is the product of 1 / (possible holdings) over the strata other than h's, and
    given the set h is the one dealt with probability proportional to its own stratum's possible holdings.
    The other player holds 42 and 51, which leaves strata of 3, 1, 0 and 2 possible holdings: members weigh
    1/2, 1/6 and 1/3. The range's weights are that posterior, and 12,000 deals agree with it."""
    estimator = HandEstimator(TWO_CARDS, {"a": _OrderAgent(TWO_CARDS)}, Settings(decoys=3))
    holdings = holdings_of(TWO_CARDS)
    possible = holdings.apart_from([42, 51])
    rows = np.flatnonzero(possible)
    strata = holding_strata(TWO_CARDS, 4)
    sizes = np.bincount(strata[rows], minlength=4)
    assert sorted(sizes.tolist()) == [0, 1, 2, 3]  # unequal strata, one of them empty: the case weighed
    rng = np.random.default_rng(7)
    dealt_in: dict[tuple[int, ...], list[int]] = {}
    for trial in range(12_000):
        dealt = int(rows[rng.integers(len(rows))])
        start = estimator._start_range(possible, holdings.cards[dealt].tolist(), [trial, 0, 0])
        weights = start.sum(axis=1)
        members = tuple(np.flatnonzero(weights).tolist())
        assert len(members) == 3 and dealt in members
        posterior = {m: sizes[strata[m]] / sum(sizes[strata[x]] for x in members) for m in members}
        assert weights[list(members)] / weights.sum() == pytest.approx([posterior[m] for m in members], abs=1e-12)
        dealt_in.setdefault(members, []).append(dealt)
    assert len(dealt_in) == 6  # 3 x 1 x 2 sets
    for members, dealt_ones in dealt_in.items():
        for m in members:
            p = sizes[strata[m]] / sum(sizes[strata[x]] for x in members)
            frequency = dealt_ones.count(m) / len(dealt_ones)
            assert abs(frequency - p) < 4 * np.sqrt(p * (1 - p) / len(dealt_ones)), (members, m, frequency, p)


def test_an_action_the_claimed_policy_never_takes_makes_aivat_unavailable() -> None:
    players = pair(KUHN, "call", "raise")  # b bets whenever it can: the hand goes c r ...
    hand = simulated_hands(KUHN, players, 1, seed=3)[0]
    assert hand.state.actions[0][:2] == [Action(CALL), Action(RAISE)]
    estimator = HandEstimator(KUHN, {"b": agent_class("call")(KUHN)})  # claimed: b only checks and calls
    refused = r"^hand 0: the policy given for b \(call\) gives its action r probability 0"
    with pytest.raises(AivatUnavailable, match=refused):
        estimator.hand(hand)


def test_games_aivat_does_not_take_are_refused_in_one_line() -> None:
    with pytest.raises(AivatUnavailable, match="two-player games, not 3 players"):
        HandEstimator(load_game("kuhn.limit.3p"), {})


def brute_force_sums(game: Game, p: np.ndarray, q: np.ndarray, board: Sequence[int]) -> tuple[float, float]:
    """Sum over every pair of holdings sharing no card (with each other or the board), ranked one by one."""
    cards = holdings_of(game).cards.tolist()
    rank = {i: rank_hand(c + list(board)) for i, c in enumerate(cards) if not set(c) & set(board)}
    signed = mass = 0.0
    for i in np.flatnonzero(p).tolist():
        for j in np.flatnonzero(q).tolist():
            if i in rank and j in rank and not set(cards[i]) & set(cards[j]):
                w = p[i] * q[j]
                signed += w * np.sign(rank[i] - rank[j])
                mass += w
    return signed, mass


@pytest.mark.parametrize(
    ("game", "board", "size"), [(HOLDEM, [0, 17, 33, 40, 51], 300), (HOLDEM, [], 200), (LEDUC, [4], 6)]
)
def test_pair_sums_agree_with_brute_force(game: Game, board: list[int], size: int) -> None:
    holdings = holdings_of(game)
    rng = np.random.default_rng(7)
    apart = holdings.apart_from(board)
    p, q = np.zeros(holdings.size), np.zeros(holdings.size)
    for weights in (p, q):
        rows = rng.choice(np.flatnonzero(apart), size=min(size, int(apart.sum())), replace=False)
        weights[rows] = rng.random(len(rows))
    rows = np.flatnonzero(p + q)
    ranks = board_ranks(holdings, board, np.zeros((1, 0), dtype=np.uint8), rows)
    signed, mass = sign_sums(holdings, rows, p[rows][None], q[rows][None], ranks)
    expected = brute_force_sums(game, p, q, board)
    assert (signed[0], mass[0]) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_the_direct_pair_sums_give_the_sorted_sums_estimates_in_holdem(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoy ranges in limit hold'em take the sums over the pairs directly (value, action corrections, the
    range's weight apart); forced through the sorted sums (checked against brute force above), every hand's
    estimate and parts are the same to rounding."""
    hands = simulated_hands(HOLDEM, pair(HOLDEM, "cfr", "equity"), 12, seed=3)
    settings = Settings(decoys=40)
    direct = HandEstimator(HOLDEM, dict(zip(NAMES, pair(HOLDEM, "cfr", "equity"), strict=True)), settings)
    expected = [direct.hand(hand) for hand in hands]
    monkeypatch.setattr(estimator_module, "DENSE_PAIRS", 0)
    monkeypatch.setattr(values_module, "DENSE_PAIRS", 0)
    forced = HandEstimator(HOLDEM, dict(zip(NAMES, pair(HOLDEM, "cfr", "equity"), strict=True)), settings)
    for hand, want in zip(hands, expected, strict=True):
        got = forced.hand(hand)
        assert (got.value, got.chance, got.actions) == pytest.approx((want.value, want.chance, want.actions), abs=1e-9)
