"""The ``equity`` baseline: its equity on hand-computed spots, its thresholds, and play through the dealer."""

from __future__ import annotations

import itertools
from pathlib import Path

import pokerkit
import pytest

from acpc_arena.agents.baselines import EquityAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE
from acpc_arena.protocol.wire import parse_match_state

HOLDEM = load_game("holdem.limit.2p.reverse_blinds")


def equity(line: str, game_name: str = "holdem.limit.2p.reverse_blinds", **options: object) -> float:
    game = load_game(game_name)
    return EquityAgent(game, seed=3, **options).equity(parse_match_state(line, game))


def test_river_equity_is_pokerkits_enumeration() -> None:
    board = "Qc8d8s3h2c"

    def hand(hole: list[int]) -> pokerkit.Hand:
        return pokerkit.StandardHighHand.from_game("".join(CARD_STRINGS[c] for c in hole), board)

    mine = hand(list(parse_cards("AdQd")))
    unseen = [c for c in range(52) if c not in parse_cards("AdQd" + board)]
    score = sum(
        1.0 if mine > other else 0.5 if mine == other else 0.0
        for other in (hand(list(pair)) for pair in itertools.combinations(unseen, 2))
    )
    assert equity("MATCHSTATE:0:0:cc/cc/cc/:AdQd|/Qc8d8s/3h/2c") == pytest.approx(score / 990, abs=1e-12)


def test_board_strengths_of_several_holdings_are_pokerkits_enumerations() -> None:
    from acpc_arena.protocol.equity import BoardStrengths

    board = "Qc8d8s3h2c"

    def hand(hole: list[int]) -> pokerkit.Hand:
        return pokerkit.StandardHighHand.from_game("".join(CARD_STRINGS[c] for c in hole), board)

    holes = [list(parse_cards(cards)) for cards in ("AdQd", "8h8c", "7s6s", "QsQh")]
    expected = []
    for hole in holes:
        mine = hand(hole)
        unseen = [c for c in range(52) if c not in hole + list(parse_cards(board))]
        others = [hand(list(pair)) for pair in itertools.combinations(unseen, 2)]
        expected.append(sum(1.0 if mine > o else 0.5 if mine == o else 0.0 for o in others) / len(others))
    strengths = BoardStrengths(HOLDEM.deck, list(parse_cards(board)), 5, 2).strengths(holes)
    assert strengths.tolist() == pytest.approx(expected, abs=1e-12)


def test_hand_computed_equities() -> None:
    # a royal flush on the board splits every pot
    assert equity("MATCHSTATE:0:0:cc/cc/cc/:2c3d|/AhKhQh/Jh/Th") == 0.5
    # AA on four kings (see test_cfr_strength): 2 of 46 rivers split, else 87 of 990 hands split
    assert equity("MATCHSTATE:0:0:cc/cc/:AsAh|/KsKhKd/Kc") == pytest.approx(
        (2 * 0.5 + 44 * (903 + 87 / 2) / 990) / 46, abs=1e-12
    )
    # Leduc (Q, K, A), the top card before the board, exactly: of 20 (board, opponent) deals the other
    # ace pairs it (4 wins); on each of the 2 + 2 Q or K boards it beats the third rank twice, ties the ace,
    # loses to the pair (2.5); the middle card: 4 wins on its pair, 0.5 on a Q board, 2.5 on an A board
    assert equity("MATCHSTATE:0:0::As|", "leduc") == pytest.approx(14 / 20, abs=1e-12)
    assert equity("MATCHSTATE:0:0::Ks|", "leduc") == pytest.approx(10 / 20, abs=1e-12)
    # before the flop, Monte Carlo: AA 85.20% and 72o 34.58% against a random hand (published tables)
    assert equity("MATCHSTATE:1:0::|AsAh", samples=20_000) == pytest.approx(0.8520, abs=0.012)
    assert equity("MATCHSTATE:1:0::|7s2h", samples=20_000) == pytest.approx(0.3458, abs=0.012)


def test_thresholds_decide() -> None:
    tie = "MATCHSTATE:0:0:cc/cc/cc/r:2c3d|/AhKhQh/Jh/Th"  # equity 1/2, facing a bet
    unbet = "MATCHSTATE:0:0:cc/cc/cc/:2c3d|/AhKhQh/Jh/Th"
    assert agent_class("equity") is EquityAgent

    def act(line: str, **options: object) -> int:
        return EquityAgent(HOLDEM, seed=1, **options).act(parse_match_state(line, HOLDEM)).kind

    assert act(tie) == CALL and act(unbet) == CALL  # defaults: call from 0.45, raise from 0.65
    assert act(tie, call_at=0.6, raise_at=0.7) == FOLD and act(unbet, call_at=0.6, raise_at=0.7) == CALL
    assert act(tie, raise_at=0.5) == RAISE
    assert act("MATCHSTATE:0:0:cc/cc/cc/rrrr:2c3d|/AhKhQh/Jh/Th", raise_at=0.5) == CALL  # capped
    with pytest.raises(ValueError, match="call-at"):
        EquityAgent(HOLDEM, call_at=0.8, raise_at=0.6)


@pytest.mark.parametrize("game", ["holdem.limit.2p.reverse_blinds", "kuhn.limit.3p"])
def test_equity_agent_plays_through_the_dealer(tmp_path: Path, game: str) -> None:
    from tests.helpers.processes import check_log, play

    players = load_game(game).num_players
    opponent = "cfr" if game.startswith("holdem") else "random"
    agents = [("equity", ["--seed", "1"])] + [(opponent, ["--seed", "2"])] * (players - 1)
    status, _out, err = play(tmp_path, game, 100, 5, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err
    check_log(tmp_path / "match.log", load_game(game), 100)


def test_board_draws_equities_against_hand_computed_values() -> None:
    import numpy as np

    from acpc_arena.protocol.equity import BoardDraws

    # the turn of AA on four kings, by Monte Carlo: the exact value of test_hand_computed_equities
    turn = list(parse_cards("KsKhKdKc"))
    draws = BoardDraws(HOLDEM, turn, 1, 40_000, np.random.default_rng(5))
    exact = (2 * 0.5 + 44 * (903 + 87 / 2) / 990) / 46
    (aces,) = draws.equities([list(parse_cards("AsAh"))])
    assert aces == pytest.approx(exact, abs=0.01)
    # a royal flush on the board: every draw ties, with one opponent or two
    royal = list(parse_cards("AhKhQhJhTh"))
    for opponents in (1, 2):
        split = BoardDraws(HOLDEM, royal, opponents, 500, np.random.default_rng(1)).equities(
            [list(parse_cards("2c3d"))]
        )
        assert split[0] == pytest.approx(1 / (opponents + 1), abs=1e-12)


def test_shuffled_prefixes_are_the_first_positions_of_sorted_keys() -> None:
    import numpy as np

    from acpc_arena.protocol.equity import shuffled_prefixes

    for seed, (rows, width, count) in enumerate([(1, 5, 1), (1188, 49, 4), (500, 52, 9), (7, 3, 3), (300, 45, 2)]):
        sorted_keys = np.argsort(np.random.default_rng(seed).random((rows, width)), axis=1)[:, :count]
        rng, after = np.random.default_rng(seed), np.random.default_rng(seed)
        assert (shuffled_prefixes(rng, rows, width, count) == sorted_keys).all()
        after.random((rows, width))
        assert rng.random() == after.random()  # the same draws taken from the generator
    rng, untouched = np.random.default_rng(0), np.random.default_rng(0)
    with pytest.raises(ValueError, match="4 positions of 3"):
        shuffled_prefixes(rng, 2, 3, 4)
    assert rng.random() == untouched.random()  # refused before any draw


def test_board_draws_equities_count_each_draw_by_pokerkits_ranking() -> None:
    # one opponent: each holding's equity is its wins and half its ties over the draws holding none of its
    # cards, the draws remade here with numpy's argsort and every showdown ranked by pokerkit
    import numpy as np

    from acpc_arena.protocol.equity import BoardDraws

    def strength(hole: list[int], board: list[int]) -> pokerkit.Hand:
        return pokerkit.StandardHighHand.from_game(*("".join(CARD_STRINGS[c] for c in part) for part in (hole, board)))

    flop = list(parse_cards("Ah9d4d"))
    holes = [list(parse_cards(h)) for h in ("AsAd", "Kd5d", "7c8c", "2h3s", "9s9h", "KdQd")]
    draws = BoardDraws(HOLDEM, flop, 1, 60, np.random.default_rng(7))
    off_board = [c for c in HOLDEM.deck if c not in flop]
    count = len(draws.full_board)
    keys = np.random.default_rng(7).random((count, len(off_board)))
    dealt = np.array(off_board)[np.argsort(keys, axis=1)[:, :4]].tolist()  # two board cards, then theirs
    for hole, value in zip(holes, draws.equities(holes), strict=True):
        shares = []
        for cards in dealt:
            if set(hole) & set(cards):
                continue
            board = flop + cards[:2]
            mine, theirs = strength(hole, board), strength(cards[2:], board)
            shares.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
        assert value == sum(shares) / len(shares)


@pytest.mark.parametrize("game_name", ["holdem.limit.2p.reverse_blinds", "holdem.nolimit.3p"])
def test_a_ranges_policies_are_the_ones_it_plays(game_name: str) -> None:
    # AIVAT asks the policy of many holdings on one board in one batch: each must be the action the agent
    # takes holding those cards in a match (a fresh agent, asked one view)
    import numpy as np

    from acpc_arena.protocol.state import CALL_ACTION, State
    from acpc_arena.protocol.views import range_views

    game = load_game(game_name)
    rng = np.random.default_rng(11)
    for trial in range(8):
        deck = [int(c) for c in rng.permutation(game.deck)]
        holes = [deck[5 + 2 * p : 7 + 2 * p] for p in range(game.num_players)]
        state = State(game, trial, holes, deck[:5])
        while state.round < trial % game.num_rounds:  # every round: Monte Carlo, and exact on the turn and river
            state.apply(CALL_ACTION)
        free = [c for c in deck if c not in state.visible_board()]
        cards = [free[2 * i : 2 * i + 2] for i in range(12)]
        views = range_views(state, state.current_player, cards)
        batched = EquityAgent(game, seed=4).policies(views)
        assert batched == [{EquityAgent(game, seed=4).act(view): 1.0} for view in views]
