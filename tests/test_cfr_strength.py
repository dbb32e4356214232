"""The E[HS^2] abstraction and the hand-strength routines under it, against independent computations.

Expected values come from pokerkit, from plain loops over the evaluator's scalar
path (checked against pokerkit in test_evaluator.py), or from hand computations.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pokerkit
import pytest

from acpc_arena.models.cfr.abstraction import (
    EDGE_SAMPLES,
    StrengthBuckets,
    Worlds,
    hand_strength_squared,
    sample_deals,
)
from acpc_arena.models.cfr.checkpoint import load_policy, make_abstraction
from acpc_arena.models.checkpoints import checkpoint_path
from acpc_arena.models.training.cfr import train
from acpc_arena.protocol.cards import CARD_STRINGS, parse_cards
from acpc_arena.protocol.equity import showdown_strengths, strength_moments
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.wire import parse_match_state

HOLDEM = load_game("holdem.limit.2p.reverse_blinds")
DECK = list(range(52))


def cards(text: str) -> list[int]:
    return list(parse_cards(text))


def plain_strength(hole: list[int], board: list[int], opponents: list[tuple[int, int]] | None = None) -> float:
    """HS by a plain loop: every opponent hand from the unseen cards (or the ones given), ties half."""
    unseen = [c for c in DECK if c not in hole and c not in board]
    opponents = opponents if opponents is not None else list(itertools.combinations(unseen, 2))
    mine = rank_hand(hole + board)
    score = 0.0
    for theirs in opponents:
        other = rank_hand(list(theirs) + board)
        score += 1.0 if mine > other else 0.5 if mine == other else 0.0
    return score / len(opponents)


@pytest.mark.parametrize(("hole", "board"), [("AsKd", "Ks7h2c9dTs"), ("5h4h", "6h7c8dJsQh")])
def test_river_strength_matches_pokerkit(hole: str, board: str) -> None:

    def hand(two: list[int]) -> pokerkit.Hand:
        return pokerkit.StandardHighHand.from_game("".join(CARD_STRINGS[c] for c in two), board)

    mine = hand(cards(hole))
    unseen = [c for c in DECK if c not in cards(hole) + cards(board)]
    score = 0.0
    for theirs in itertools.combinations(unseen, 2):
        other = hand(list(theirs))
        score += 1.0 if mine > other else 0.5 if mine == other else 0.0
    expected = score / 990
    holes, boards = np.array([cards(hole)]), np.array([cards(board)])
    assert showdown_strengths(DECK, holes, boards)[0] == pytest.approx(expected, abs=1e-12)
    assert hand_strength_squared(HOLDEM, holes, boards)[0] == pytest.approx(expected**2, abs=1e-12)


def test_hand_computed_spots() -> None:
    # A royal flush on the board: every hand plays it and splits.
    royal = np.array([cards("AhKhQhJhTh")])
    for hole in ("2c3d", "AsAc", "9h8h"):
        assert showdown_strengths(DECK, np.array([cards(hole)]), royal)[0] == 0.5
    # AA on a board of four kings, one card to come: only the other two aces tie, unless the river
    # is one of them, when the board plays for everyone. Of 46 rivers, 2 split (HS 1/2); after the
    # other 44, 87 of the 990 opponent hands hold an ace (990 - C(43, 2)) and split, the rest lose.
    strength = (903 + 87 / 2) / 990
    mean = (2 * 0.5 + 44 * strength) / 46
    square = (2 * 0.25 + 44 * strength**2) / 46
    ehs, ehs2 = strength_moments(DECK, np.array([cards("AsAh")]), np.array([cards("KsKhKdKc")]), 5)
    assert (ehs[0], ehs2[0]) == (pytest.approx(mean, abs=1e-12), pytest.approx(square, abs=1e-12))
    # A flopped royal flush wins on every turn and river against every hand.
    flop = hand_strength_squared(HOLDEM, np.array([cards("JhTh")]), np.array([cards("AhKhQh")]))
    assert flop[0] == 1.0


@pytest.mark.parametrize(("hole", "board"), [("Td9d", "8d7c2dJs"), ("AcQs", "Qh5c5d2s"), ("3c2h", "KdJs8h4c")])
def test_turn_moments_by_brute_force(hole: str, board: str) -> None:
    h, b = cards(hole), cards(board)
    rivers = [c for c in DECK if c not in h + b]
    strengths = np.array([plain_strength(h, [*b, river]) for river in rivers])
    ehs, ehs2 = strength_moments(DECK, np.array([h]), np.array([b]), 5)
    assert ehs[0] == pytest.approx(strengths.mean(), abs=1e-12)
    assert ehs2[0] == pytest.approx((strengths**2).mean(), abs=1e-12)
    # the abstraction measures each river against 80 of the 990 opponent hands: close to exact
    assert hand_strength_squared(HOLDEM, np.array([h]), np.array([b]))[0] == pytest.approx(ehs2[0], abs=0.03)


@pytest.mark.parametrize(("hole", "board"), [("8s8c", "Kd7h2c"), ("Ah5h", "Kh9h3c")])
def test_flop_value_is_close_to_an_independent_estimate(hole: str, board: str) -> None:
    # every one of the 1,081 turn-river completions, each against 60 random opponent hands
    h, b = cards(hole), cards(board)
    rng = np.random.default_rng(5)
    unseen = [c for c in DECK if c not in h + b]
    squares = []
    for runout in itertools.combinations(unseen, 2):
        rest = [c for c in unseen if c not in runout]
        picks = rng.choice(len(rest) * (len(rest) - 1) // 2, 60, replace=False)
        pairs = list(itertools.combinations(rest, 2))
        squares.append(plain_strength(h, [*b, *runout], [pairs[i] for i in picks]) ** 2)
    value = hand_strength_squared(HOLDEM, np.array([h]), np.array([b]))[0]
    assert value == pytest.approx(np.mean(squares), abs=0.04)


def test_preflop_keys_are_the_169_starting_hands() -> None:
    abstraction = StrengthBuckets(HOLDEM, (2, 2, 2), edges=[np.array([0.5])] * 3)
    hands = list(itertools.combinations(DECK, 2))
    keys = [abstraction.key(list(hand), [], 0) for hand in hands]
    assert sorted(set(keys)) == list(range(169))
    counts = np.bincount(keys)
    pairs = sum(1 for a, b in hands if a // 4 == b // 4)
    suited = sum(1 for a, b in hands if a // 4 != b // 4 and a % 4 == b % 4)
    assert (pairs, suited) == (78, 312)  # 13 pairs x 6, 78 suited classes x 4; the rest offsuit x 12
    assert sorted(counts.tolist()) == [4] * 78 + [6] * 13 + [12] * 78
    same = [abstraction.key(cards(t), [], 0) for t in ("AsKs", "AhKh", "KdAd")]
    assert len(set(same)) == 1 and abstraction.key(cards("AsKh"), [], 0) != same[0]


def test_buckets_split_random_hands_evenly_and_keep_their_order() -> None:
    abstraction = make_abstraction(HOLDEM, "ehs2-5-5-5")
    worlds = sample_deals(HOLDEM, 3000, np.random.default_rng(99))  # not the edges' sample
    for round_ in (1, 3):
        keys = abstraction.keys(worlds, 0, round_)
        assert np.allclose(np.bincount(keys, minlength=5) / 3000, 0.2, atol=0.03)
    shown = worlds.boards[:, :5]
    values = hand_strength_squared(HOLDEM, worlds.holes[:300, 0], shown[:300])
    keys = abstraction.keys(Worlds(worlds.holes[:300], worlds.boards[:300], worlds.weights[:300]), 0, 3)
    order = np.argsort(values)
    assert (np.diff(keys[order]) >= 0).all()  # a stronger hand never gets a weaker bucket
    assert EDGE_SAMPLES >= 1000


def test_ehs2_checkpoint_round_trip(tmp_path: Path) -> None:
    path, solver = train(
        "holdem.limit.2p.reverse_blinds", "mccfr", 3, tmp_path / "tiny", "ehs2-4-3-2", deals=4, show_progress=False
    )
    assert solver.num_infosets == sum(
        {0: 169, 1: 4, 2: 3, 3: 2}[int(solver.tree.round[n])] for n in solver.tree.decision_nodes
    )
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["abstraction"] == "ehs2-4-3-2" and [len(e) for e in meta["bucket_edges"]] == [3, 2, 1]
    policy = load_policy(path)
    assert np.allclose(policy.strategy, solver.average_strategy(), atol=1e-6)
    assert isinstance(solver.abstraction, StrengthBuckets) and isinstance(policy.abstraction, StrengthBuckets)
    for old, new in zip(solver.abstraction.edges, policy.abstraction.edges, strict=True):
        assert np.array_equal(old, new)
    view = parse_match_state("MATCHSTATE:0:0:cc/:AsAd|/2c7d9h", HOLDEM)
    assert policy.probabilities(view).sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="abstraction must be one of"):
        make_abstraction(HOLDEM, "ehs2-4-0-2")


def test_shipped_ehs2_checkpoint_loads_and_is_small() -> None:
    path = checkpoint_path("cfr-ehs2")
    assert path.stat().st_size < 30 * 2**20
    policy = load_policy(path)
    assert policy.meta["abstraction"].startswith("ehs2-") and policy.meta["iterations"] >= 500
    view = parse_match_state("MATCHSTATE:0:0:r:AsAd|", HOLDEM)
    assert policy.probabilities(view)[2] > 0.5  # aces facing a raise re-raise most of the time


def test_agent_takes_shipped_names_and_refuses_missing_checkpoints_in_one_line(tmp_path: Path) -> None:
    import subprocess

    from acpc_arena.agents.cfr import CFRAgent
    from tests.helpers.processes import program

    assert CFRAgent(HOLDEM).checkpoint.meta["abstraction"] == "ehs2-exact-200-150-100"  # the default
    assert CFRAgent(HOLDEM, checkpoint="cfr-improved").checkpoint.meta["abstraction"] == "improved"
    done = subprocess.run(
        [program("acpc-agent"), "cfr", "127.0.0.1", "1", "--checkpoint", str(tmp_path / "none")],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "no such checkpoint file" in done.stderr and "cfr-improved" in done.stderr
