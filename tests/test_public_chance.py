"""Exact hand strength of every hand on a board and the public chance sampling solver's terminal sums.

The expected values come from eval7 (an independent evaluator): every hand and every
opponent hand ranked by eval7 and compared pair by pair, the slow way.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.models.cfr import hand_strength as hs
from acpc_arena.models.cfr import public_chance as pc
from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets
from acpc_arena.models.cfr.checkpoint import load_policy, quantised
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.models.checkpoints import CheckpointError
from acpc_arena.models.training.cfr_public_chance import train_public_chance
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.game import load_game
from tests.helpers.processes import check_log, play, program

with warnings.catch_warnings():  # eval7's range parser uses pyparsing names deprecated since
    warnings.simplefilter("ignore")
    import eval7

EVAL7_CARDS = [eval7.Card(s) for s in CARD_STRINGS]


def eval7_strength(hole: tuple[int, ...], board: list[int]) -> float:
    """HS by brute force: the share of the pot won against each opponent hand, ties half."""
    cards = [EVAL7_CARDS[c] for c in board]
    mine = eval7.evaluate([EVAL7_CARDS[c] for c in hole] + cards)
    unseen = [c for c in range(52) if c not in hole and c not in board]
    score = 0.0
    pairs = list(itertools.combinations(unseen, 2))
    for pair in pairs:
        theirs = eval7.evaluate([EVAL7_CARDS[c] for c in pair] + cards)
        score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return score / len(pairs)


def test_river_strength_of_every_hand_matches_a_pair_by_pair_count() -> None:
    rng = np.random.default_rng(11)
    board = rng.permutation(52)[:5].astype(np.uint8)
    strengths = hs.river_strengths(board[None, :])[0]
    on_board = [i for i, (a, b) in enumerate(hs.HANDS.tolist()) if a in board or b in board]
    assert np.isnan(strengths[on_board]).all() and len(on_board) == 1326 - 1081
    for index in rng.choice(np.flatnonzero(~np.isnan(strengths)), 12, replace=False):
        hole = tuple(int(c) for c in hs.HANDS[index])
        assert strengths[index] == pytest.approx(eval7_strength(hole, board.tolist()), abs=1e-12)


def test_turn_ehs2_is_the_mean_square_over_the_river_cards() -> None:
    rng = np.random.default_rng(12)
    board = rng.permutation(52)[:4].astype(np.uint8)
    values = hs.turn_ehs2(board)
    index = int(rng.choice(np.flatnonzero(~np.isnan(values))))
    hole = tuple(int(c) for c in hs.HANDS[index])
    rivers = [c for c in range(52) if c not in hole and c not in board]
    expected = np.mean([eval7_strength(hole, [*board.tolist(), r]) ** 2 for r in rivers])
    assert len(rivers) == 46
    assert values[index] == pytest.approx(expected, abs=1e-12)


def test_a_flop_and_its_suit_image_give_each_hand_the_same_ehs2() -> None:
    # Kh Qh 2c and its image with hearts -> spades, clubs -> diamonds; Ah Jh maps to As Js
    flop, image = np.array(parse_cards("KhQh2c"), dtype=np.uint8), np.array(parse_cards("KsQs2d"), dtype=np.uint8)
    values, image_values = hs.flop_ehs2(flop), hs.flop_ehs2(image)
    ace_jack, its_image = hs.HAND_INDEX[tuple(parse_cards("AhJh"))], hs.HAND_INDEX[tuple(parse_cards("AsJs"))]
    assert values[ace_jack] == pytest.approx(image_values[its_image], abs=1e-12)
    representative, mapping = hs.canonical_flop(flop)
    assert representative == hs.canonical_flop(image)[0]
    assert sorted(int(mapping[c]) for c in flop) == list(representative)
    assert len(hs.canonical_flops()) == 1755  # the flops that differ up to suits


def _pair_by_pair(board: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The opponent weight on hands each hand beats minus on hands it loses to, and on every hand it
    can meet, by eval7 ranks and an explicit matrix over every pair of hands (no card shared)."""
    hands = np.array([h for h in hs.HANDS.tolist() if h[0] not in board and h[1] not in board])
    cards = [EVAL7_CARDS[c] for c in board.tolist()]
    ranks = np.array([eval7.evaluate([EVAL7_CARDS[a], EVAL7_CARDS[b], *cards]) for a, b in hands.tolist()])
    shared = (hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    meets = (~shared).astype(np.float64)  # meets[i, j]: hand i can meet hand j
    beats = meets * np.sign(ranks[:, None] - ranks[None, :])
    return weights @ beats.T, weights @ meets.T


class _NoBuckets:
    def num_keys(self, round_: int) -> int:
        return 169 if round_ == 0 else 1

    def board_keys(self, board: np.ndarray) -> np.ndarray:
        return np.zeros((4, 1326), dtype=np.int64)


def test_terminal_sums_match_a_loop_over_every_pair_of_hands() -> None:
    rng = np.random.default_rng(13)
    board = rng.permutation(52)[:5].astype(np.uint8)
    prepared = pc.prepare_board(board, _NoBuckets())
    weights = rng.random((2, len(prepared.hands))).astype(np.float32)
    net, meet = _pair_by_pair(board, weights.astype(np.float64))
    assert np.allclose(pc.compatible_sums(prepared, weights), meet, rtol=1e-5)
    assert np.allclose(weights @ prepared.showdown.T, net, rtol=1e-4, atol=1e-3)


def test_a_check_down_showdown_is_worth_ten_chips_times_the_pairs_won_less_lost() -> None:
    """Every regret zero: both players play uniformly over their legal actions. At the terminal
    ``cc/cc/cc/cc`` (the small blind calls, then everyone checks to the showdown: 10 chips each) the
    small blind (player 1) has chosen four times: call of fold/call/raise (1/3), then check of
    check/bet after the flop, turn and river (it acts second there: 1/2 each)."""
    game = load_game("holdem.limit.2p.reverse_blinds")
    tree = build_tree(game)
    solver = pc.PublicChanceSolver(tree, _NoBuckets())
    board = pc.prepare_board(np.array(parse_cards("2c7d9hJsKc"), dtype=np.uint8), _NoBuckets())
    node = tree.node_of_sequence["cc/cc/cc/cc"]
    sigma = solver._regret_matching()[solver._rows(board)]
    small_blind = solver._reach(sigma, 1)
    values = pc.terminal_values(tree, board, small_blind[tree.terminal_nodes], 0)
    row = list(tree.terminal_nodes).index(node)
    net, _ = _pair_by_pair(board.cards, np.full((1, len(board.hands)), (1 / 3) * (1 / 2) ** 3))
    assert np.allclose(values[row], 10 * net[0], rtol=1e-4, atol=1e-4)


def test_quantised_probabilities_keep_rows_summing_to_one() -> None:
    strategy = np.array([[0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3], [0.0, 0.999, 0.001]])
    table = quantised(strategy)
    assert (table.sum(axis=1) == 255).all()
    assert np.abs(table / 255 - strategy).max() < 1 / 255


class _FewBuckets(_NoBuckets):
    """Four buckets a round by a hand's top card rank: enough to make the tables differ by board."""

    name = "test-buckets"

    def num_keys(self, round_: int) -> int:
        return 169 if round_ == 0 else 4

    def board_keys(self, board: np.ndarray) -> np.ndarray:
        keys = np.zeros((4, 1326), dtype=np.int64)
        keys[1:] = (hs.HANDS.max(axis=1) // 4 // 4)[None, :]
        keys[3] = (keys[3] + board[4] % 2) % 4  # the river card moves the river buckets
        return keys


@pytest.mark.slow  # make test-slow: two runs of public chance sampling (~17 s)
def test_a_resumed_run_ends_where_an_unbroken_one_does(tmp_path: Path) -> None:
    whole, _ = train_public_chance(tmp_path / "whole", _FewBuckets(), 3, seed=5, save_every=1, show_progress=False)
    train_public_chance(tmp_path / "broken", _FewBuckets(), 2, seed=5, save_every=1, show_progress=False)
    resumed, solver = train_public_chance(
        tmp_path / "broken", _FewBuckets(), 3, seed=5, save_every=1, show_progress=False
    )
    assert solver.iterations == 3
    with np.load(whole) as a, np.load(resumed) as b:
        assert np.array_equal(a["strategy"], b["strategy"])
    state = tmp_path / "broken.state.npz"
    state.write_bytes(state.read_bytes()[:1000])
    with pytest.raises(CheckpointError, match=r"broken\.state\.npz: damaged training state"):
        train_public_chance(tmp_path / "broken", _FewBuckets(), 4, seed=5, show_progress=False)
    with pytest.raises(CheckpointError, match="other settings"):
        train_public_chance(tmp_path / "whole", _FewBuckets(), 4, seed=6, show_progress=False)


def _small_exact_buckets() -> ExactStrengthBuckets:
    """Real exact E[HS^2] buckets on the turn and river; a made-up flop table (the real one takes minutes)."""
    game = load_game("holdem.limit.2p.reverse_blinds")
    edges = [np.array([0.2, 0.4, 0.6]), np.array([0.3, 0.6]), np.array([0.5])]
    flop_table = np.broadcast_to((np.arange(1326) % 4).astype(np.uint8), (1755, 1326)).copy()
    return ExactStrengthBuckets(game, (4, 3, 2), edges, flop_table)


@pytest.mark.slow  # make test-slow (~20 s): the shipped cfr-ehs2-exact, solved so, plays the dealer in make test
def test_an_exact_bucket_checkpoint_round_trips_refuses_damage_and_plays(tmp_path: Path) -> None:
    out, solver = train_public_chance(tmp_path / "small", _small_exact_buckets(), 2, show_progress=False)
    policy = load_policy(out)
    assert policy.meta["abstraction"] == "ehs2-exact-4-3-2" and policy.meta["iterations"] == 2
    assert np.abs(policy.strategy - solver.average_strategy()).max() < 1 / 255
    # the turn bucket of one hand, from its exact E[HS^2] (eval7, pair by pair) and the edges above
    hole, board = parse_cards("AhKh"), parse_cards("Qh7h2c9d")
    rivers = [c for c in range(52) if c not in hole and c not in board]
    ehs2 = np.mean([eval7_strength(tuple(hole), [*board, r]) ** 2 for r in rivers])
    assert policy.abstraction.key(hole, board, 2) == int(ehs2 > 0.3) + int(ehs2 > 0.6)
    with np.load(out) as data:
        np.savez(tmp_path / "cut.npz", strategy=data["strategy"], flop_buckets=data["flop_buckets"][:10])
    (tmp_path / "cut.json").write_text(out.with_suffix(".json").read_text())
    with pytest.raises(CheckpointError, match=r"cut\.json: a flop bucket table of shape \(10, 1326\)"):
        load_policy(tmp_path / "cut.npz")
    (tmp_path / "agent.npz").write_bytes(out.read_bytes())
    (tmp_path / "agent.json").write_text(out.with_suffix(".json").read_text())
    game = "holdem.limit.2p.reverse_blinds"
    agents = [("cfr", ["--seed", "1", "--checkpoint", str(tmp_path / "agent.npz")]), ("raise", [])]
    status, _out, err = play(tmp_path, game, 40, 3, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err
    check_log(tmp_path / "match.log", load_game(game), 40)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--game", "leduc"], "acpc-cfr: --algorithm pcs-dcfr solves holdem.limit.2p.reverse_blinds only\n"),
        (
            ["--game", "holdem.limit.2p.reverse_blinds", "--abstraction", "ehs2-50-50-50"],
            "acpc-cfr: --algorithm pcs-dcfr needs an ehs2-exact-F-T-R abstraction (1..255 buckets), "
            "not ehs2-50-50-50\n",
        ),
    ],
)
def test_public_chance_sampling_refuses_other_games_and_abstractions(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    command = [program("acpc-cfr"), "solve", "--algorithm", "pcs-dcfr", *arguments, "--out", str(tmp_path / "x")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (2, message, "")


def test_one_hands_turn_and_river_values_are_the_bits_of_every_hands() -> None:
    """The agent computes its own hand's value, training every hand's at once: a value on a bucket edge
    must land in the same bucket, so the two must agree to the last bit, for every hand on many boards."""
    rng = np.random.default_rng(14)
    for _ in range(12):
        board = rng.permutation(52)[:5].astype(np.uint8)
        turn, river = hs.turn_ehs2(board[:4]), hs.river_strengths(board[None, :])[0]
        every = np.flatnonzero(~np.isnan(river))
        assert len(every) == 1081
        assert (hs.hands_turn_ehs2(hs.HANDS[every], board[:4]) == turn[every]).all()
        assert (hs.hands_river_strength(hs.HANDS[every], board) == river[every]).all()
        for index in rng.choice(every, 3, replace=False):  # one hole at a time, its cards in either order
            assert hs.hand_turn_ehs2(hs.HANDS[index][::-1], board[:4]) == turn[index]
            assert hs.hand_river_strength(hs.HANDS[index], board) == river[index]
        hs.TURN_BOARDS.clear()  # a river with no turn kept: each holding's opponents ranked for it
        few = rng.choice(every, hs.RIVER_ALONE, replace=False)
        assert (hs.hands_river_strength(hs.HANDS[few], board) == river[few]).all()
        assert not hs.TURN_BOARDS


def test_a_few_holdings_values_match_a_pair_by_pair_count() -> None:
    rng = np.random.default_rng(15)
    board = rng.permutation(52)[:5].astype(np.uint8)
    unseen = [c for c in range(52) if c not in board]
    holes = np.array([rng.choice(unseen, 2, replace=False) for _ in range(3)])
    river = hs.hands_river_strength(holes, board)
    turn = hs.hands_turn_ehs2(holes, board[:4])
    for hole, hole_river, hole_turn in zip(holes.tolist(), river, turn, strict=True):
        assert hole_river == pytest.approx(eval7_strength(tuple(hole), board.tolist()), abs=1e-12)
        rivers = [c for c in range(52) if c not in hole and c not in board[:4]]
        squares = [eval7_strength(tuple(hole), [*board[:4].tolist(), r]) ** 2 for r in rivers]
        assert hole_turn == pytest.approx(sum(squares) / 46, abs=1e-12)


@pytest.mark.parametrize(
    ("holes", "board", "message"),
    [
        ([[0, 1]], [1, 2, 3, 4], "a hole of [[0, 1]] repeats a card or holds one of the board [1, 2, 3, 4]"),
        ([[5, 5]], [1, 2, 3, 4], "a hole of [[5, 5]] repeats a card or holds one of the board [1, 2, 3, 4]"),
        ([[5, 6]], [1, 2, 3], "a turn board has 4 cards, not [1, 2, 3]"),
        ([[5, 6]], [1, 2, 3, 4, 6], "a hole of [[5, 6]] repeats a card or holds one of the board [1, 2, 3, 4, 6]"),
        ([[5, 6]] * 5, [1, 2, 3, 4, 6], "the river 6 is on the board [1, 2, 3, 4] or in a hole"),
    ],
)
def test_a_holding_on_the_board_is_refused(holes: list[list[int]], board: list[int], message: str) -> None:
    hs.TURN_BOARDS.clear()  # up to RIVER_ALONE holdings on a river are then ranked alone, more on a TurnBoard
    strength = hs.hands_river_strength if len(board) == 5 else hs.hands_turn_ehs2
    with pytest.raises(ValueError, match=re.escape(message)):
        strength(np.array(holes), np.array(board))
