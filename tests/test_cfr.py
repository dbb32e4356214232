"""The CFR solver, its exploitability against OpenSpiel's, the abstractions and the checkpoints."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
from math import comb
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
import pytest

from acpc_arena.models.cfr.abstraction import (
    Abstraction,
    ExactCards,
    NineBuckets,
    Worlds,
    _postflop_bucket_of_rank,
    _preflop_bucket_table,
    _recall_index,
    all_deals,
    sample_deals,
)
from acpc_arena.models.cfr.checkpoint import load_policy
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import BettingTree, build_tree
from acpc_arena.models.checkpoints import CheckpointError, checkpoint_path
from acpc_arena.models.training.cfr import train
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.evaluator import HAND_RANKS, rank_hands
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.rank_rules import hand_classes
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, format_betting, parse_state
from tests.helpers.processes import check_log, play, program

if TYPE_CHECKING:
    from open_spiel.python.policy import TabularPolicy

    from tests.conftest import OpenSpielGame, OpenSpielGames


def exact_solver(name: str, algorithm: str = "cfr+") -> Solver:
    game = load_game(name)
    return Solver(build_tree(game), ExactCards(game), algorithm, worlds=all_deals(game))


def test_tree_matches_the_engine() -> None:
    game = load_game("holdem.limit.2p.reverse_blinds")
    tree = build_tree(game)
    assert (len(tree.decision_nodes), len(tree.terminal_nodes)) == (6378, 10206)
    check_tree_against_the_engine(game, tree)
    assert tree.node_of_sequence["crrc/r"] > 0


def test_a_tree_read_from_the_disk_cache_is_the_tree_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first build walks the tree and keeps it; later builds read it; a damaged or foreign cached file
    is walked again. Each agrees with the engine (as test_tree_matches_the_engine) and with the others."""
    monkeypatch.setenv("ACPC_ARENA_CACHE", str(tmp_path))
    game = load_game("kuhn.limit.3p")
    walked = build_tree(game)
    files = sorted(tmp_path.glob("limit-tree-*.npy"))
    assert len(files) == 2  # the columns and the sequences
    read = build_tree(game)
    check_tree_against_the_engine(game, read)
    columns = next(f for f in files if f.name.endswith("-columns.npy"))
    columns.write_bytes(columns.read_bytes()[:200])  # truncated
    truncated = build_tree(game)
    np.save(columns, np.zeros((3, 4), dtype=np.int64))  # an array of another shape
    foreign = build_tree(game)
    for tree in (read, truncated, foreign):
        assert tree.sequences == walked.sequences and tree.fingerprint == walked.fingerprint
        for field in ("depth", "folded", "showdown"):
            assert np.array_equal(getattr(tree, field), getattr(walked, field)), field
            assert getattr(tree, field).dtype == getattr(walked, field).dtype, field


def check_tree_against_the_engine(game: Game, tree: BettingTree) -> None:
    """Random paths through ``tree``: every node agrees with the ``State`` engine."""
    rng = random.Random(1)
    for _ in range(300):  # random paths: every node agrees with State
        state, node = State(game), 0
        while not state.finished:
            assert tree.player[node] == state.current_player and tree.round[node] == state.round
            assert list(tree.spent[node]) == state.spent
            legal = state.legal_actions()
            kinds = [CALL] + [FOLD] * legal.can_fold + [RAISE] * legal.can_raise
            assert sorted(np.flatnonzero(tree.children[node] >= 0).tolist()) == sorted(kinds)
            kind = rng.choice(kinds)
            state.apply(Action(kind))
            node = tree.children[node, kind]
        assert tree.player[node] == -1 and list(tree.spent[node]) == state.spent


@pytest.mark.parametrize(("name", "nash_conv"), [("kuhn", 11 / 12), ("leduc", 4.747222222222222)])
def test_known_uniform_nash_conv(name: str, nash_conv: float) -> None:
    solver = exact_solver(name)
    assert solver.nash_conv(solver.uniform_strategy()) == pytest.approx(nash_conv, abs=1e-9)


def test_kuhn_game_value_is_minus_one_eighteenth() -> None:
    solver = exact_solver("kuhn")
    solver.iterate(3000)
    assert solver.exploitability() < 5e-5
    assert solver.expected_values(solver.average_strategy())[0] == pytest.approx(-1 / 18, abs=2e-4)


@pytest.mark.parametrize(("algorithm", "theirs"), [("cfr", "CFRSolver"), ("cfr+", "CFRPlusSolver")])
@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_iterations_match_openspiels_solvers(
    pyspiel: ModuleType, openspiel: OpenSpielGames, name: str, algorithm: str, theirs: str
) -> None:
    """The same algorithm on the same game: OpenSpiel's C++ solver and ours agree iteration by iteration."""
    oracle = openspiel(name)
    reference = getattr(pyspiel, theirs)(oracle.spiel)
    ours = exact_solver(name, algorithm)
    for iterations in (1, 2, 5, 20, 60):
        while ours.iterations < iterations:
            reference.evaluate_and_update_policy()
            ours.iterate(1)
        expected = pyspiel.nash_conv(oracle.spiel, reference.average_policy())
        assert ours.nash_conv(ours.average_strategy()) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("name", "checkpoints"), [("kuhn", (1, 2, 5, 20, 60)), ("leduc", (1, 3))])
def test_dcfr_matches_openspiels_discounted_cfr(
    openspiel: OpenSpielGames, name: str, checkpoints: tuple[int, ...]
) -> None:
    """Discounted CFR (alpha 1.5, beta 0, gamma 2) against OpenSpiel's Python ``DCFRSolver``, iteration by iteration."""
    from open_spiel.python.algorithms.discounted_cfr import DCFRSolver
    from open_spiel.python.algorithms.exploitability import nash_conv

    oracle = openspiel(name)
    reference = DCFRSolver(oracle.spiel, alpha=1.5, beta=0, gamma=2)
    ours = exact_solver(name, "dcfr")
    for iterations in checkpoints:
        while ours.iterations < iterations:
            reference.evaluate_and_update_policy()
            ours.iterate(1)
        expected = nash_conv(oracle.spiel, reference.average_policy())
        assert ours.nash_conv(ours.average_strategy()) == pytest.approx(expected, abs=1e-9)


def test_chance_sampled_cfr_converges_on_kuhn() -> None:
    game = load_game("kuhn")
    rng = np.random.default_rng(3)
    tree, abstraction = build_tree(game), ExactCards(game)
    solver = Solver(tree, abstraction, "mccfr", sampler=lambda: sample_deals(game, 8, rng))
    solver.iterate(3000)
    evaluator = Solver(tree, abstraction, "cfr+", worlds=all_deals(game))
    assert evaluator.exploitability(solver.average_strategy()) < 0.01


def openspiel_policy(
    oracle: OpenSpielGame, tree: BettingTree, abstraction: Abstraction, strategy: np.ndarray, solver: Solver
) -> TabularPolicy:
    """Our strategy as an OpenSpiel tabular policy of the same game."""
    from open_spiel.python import policy as policy_lib

    game = oracle.game
    tabular = policy_lib.TabularPolicy(oracle.spiel)
    for index, state in enumerate(tabular.states):
        player = state.current_player()
        ours = parse_state(oracle.acpc_state(state), game)
        node = tree.node_of_sequence[format_betting(ours)]
        key = abstraction.key(ours.hole_cards[player], ours.visible_board(), ours.round)
        row = solver.base[solver.decision_row[node]] + key
        tabular.action_probability_array[index, :] = 0
        for action in state.legal_actions():
            tabular.action_probability_array[index, action] = strategy[row, action]
    return tabular


@pytest.mark.parametrize(("name", "iterations"), [("kuhn", 40), ("leduc", 30), ("kuhn.limit.3p", 25)])
def test_exploitability_equals_openspiels(openspiel: OpenSpielGames, name: str, iterations: int) -> None:
    from open_spiel.python.algorithms import exploitability as os_exploitability

    oracle = openspiel(name)
    solver = exact_solver(name)
    for strategy in (solver.uniform_strategy(), None):
        if strategy is None:
            solver.iterate(iterations)
            strategy = solver.average_strategy()
        theirs = openspiel_policy(oracle, solver.tree, solver.abstraction, strategy, solver)
        their_nash_conv = os_exploitability.nash_conv(oracle.spiel, theirs)
        assert solver.nash_conv(strategy) == pytest.approx(their_nash_conv, abs=1e-6)


def test_preflop_table_and_improved_buckets() -> None:
    table = _preflop_bucket_table()

    def pre(text: str) -> int:
        a, b = parse_cards(text)
        return int(table[a, b]) + 1

    assert pre("AsAh") == pre("AsKs") == pre("KsKd") == 1
    assert pre("AsKd") == 2 and pre("AsQd") == 3 and pre("7c2d") == 9 and pre("2c2d") == 7
    assert pre("4c3d") == 9 and pre("3c2d") == 9  # the two entries fixed from the seed's table (7)
    assert pre("4c3c") == 7 and pre("3c2c") == 8
    buckets = _postflop_bucket_of_rank()
    hands = {"AsAdKsKd2c": 1, "KsKd5c4h2s": 2, "9s9d5c4h2s": 3, "6s6dAcKh2s": 4, "2s2dAcKh3s": 5}
    hands |= {"AsJd8c5h2s": 6, "QsJd8c5h2s": 7, "Ts7d5c4h2s": 8, "8s7d5c4h2s": 9, "2s3s4s5s6s": 1}
    for text, bucket in hands.items():
        assert buckets[rank_hands(np.array([parse_cards(text)]))[0]] + 1 == bucket, text


def test_improved_buckets_over_every_five_card_hand() -> None:
    """Counts against combinatorics done independently of the evaluator."""
    fives = np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)
    counts = np.bincount(_postflop_bucket_of_rank()[rank_hands(fives)], minlength=9)
    pair = 13 * comb(4, 2) * comb(12, 3) * 4**3 // 13  # one pair, for each pair rank: 84,480
    expected = [2_598_960 - 13 * 84_480 - 1_302_540, 3 * pair, 3 * pair, 3 * pair, 4 * pair]

    def high_card_hands(top: int) -> int:  # five distinct ranks with this highest, no straight, no flush
        straights = (1 if top >= 4 else 0) + (1 if top == 12 else 0)  # topped by `top`; the wheel holds an ace
        return (comb(top, 4) - straights) * (4**5 - 4)

    tops = [[12, 11], [10, 9], [8, 7], [6, 5]]
    expected += [sum(high_card_hands(t) for t in group) for group in tops]
    assert counts.tolist() == expected
    assert len(hand_classes()) == HAND_RANKS


def test_perfect_recall_keys() -> None:
    assert [int(_recall_index(r).max()) + 1 for r in (1, 2, 3, 4)] == [9, 81, 405, 1485]
    game = load_game("holdem.limit.2p.reverse_blinds")
    recall, current = NineBuckets(game, perfect_recall=True), NineBuckets(game)
    worlds = sample_deals(game, 2000, np.random.default_rng(0))
    for r in range(4):
        keys = recall.keys(worlds, 0, r)
        assert keys.min() >= 0 and keys.max() < recall.num_keys(r)
    # two deals with the same current bucket but different histories get different keys
    river = recall.keys(worlds, 1, 3)
    assert len(set(river.tolist())) > 2 * len(set(current.keys(worlds, 1, 3).tolist()))


def test_checkpoints_round_trip_and_refuse_damage(tmp_path: Path) -> None:
    path, solver = train("leduc", "cfr+", 50, tmp_path / "leduc", "exact", show_progress=False)
    policy = load_policy(path)
    assert np.allclose(policy.strategy, solver.average_strategy(), atol=1e-6)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["iterations"] == 50 and meta["abstraction"] == "exact" and "git_commit" in meta
    view = MatchState(0, State(policy.game, 0, [parse_cards("Ks"), []], []))
    assert policy.probabilities(view).sum() == pytest.approx(1)

    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(path.read_bytes()[:100])
    damaged.with_suffix(".json").write_text(path.with_suffix(".json").read_text())
    with pytest.raises(CheckpointError, match="damaged checkpoint"):
        load_policy(damaged)
    with pytest.raises(CheckpointError, match=r"nothing\.npz: no such checkpoint file"):
        load_policy(tmp_path / "nothing.npz")
    (tmp_path / "alone.npz").write_bytes(path.read_bytes())
    with pytest.raises(CheckpointError, match=r"alone\.json: no description beside the checkpoint"):
        load_policy(tmp_path / "alone.npz")
    other = dict(meta, game=resolve_game_path("kuhn").read_text())
    path.with_suffix(".json").write_text(json.dumps(other))
    with pytest.raises(CheckpointError, match="different betting tree"):
        load_policy(path)
    path.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="unreadable description"):
        load_policy(path)
    np.savez(tmp_path / "shape.npz", strategy=np.zeros((3, 3)))
    (tmp_path / "shape.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="does not fit"):
        load_policy(tmp_path / "shape.npz")


def test_shipped_checkpoints_load() -> None:
    for name in ("cfr-kuhn", "cfr-kuhn3p", "cfr-leduc", "cfr-improved", "cfr-traditional", "cfr-ehs2"):
        policy = load_policy(checkpoint_path(name))
        assert policy.meta["iterations"] >= 500
    leduc = load_policy(checkpoint_path("cfr-leduc"))
    evaluator = Solver(leduc.tree, leduc.abstraction, "cfr+", worlds=all_deals(leduc.game))
    assert evaluator.exploitability(leduc.strategy) < 1e-4


def test_holdem_training_is_chance_sampled(tmp_path: Path) -> None:
    path, solver = train(
        "holdem.limit.2p.reverse_blinds", "mccfr", 20, tmp_path / "tiny", "improved", deals=4, show_progress=False
    )
    assert solver.num_infosets == 6378 * 9
    visited = (solver.strategy_sum.sum(axis=1) > 0).mean()
    assert 0 < visited < 1
    policy = load_policy(path)
    view = MatchState(1, State(policy.game, 0, [[], parse_cards("AsAd")], []))
    assert policy.probabilities(view).shape == (3,)


def test_cli(tmp_path: Path) -> None:
    done = subprocess.run(
        [program("acpc-cfr"), "solve", "--game", "kuhn", "--iterations", "300", "--every", "100",
         "--out", str(tmp_path / "k")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "iteration 300: exploitability" in done.stdout
    done = subprocess.run(
        [program("acpc-cfr"), "exploitability", str(tmp_path / "k.npz")], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.startswith("exploitability ")
    done = subprocess.run(
        [program("acpc-cfr"), "exploitability", str(checkpoint_path("cfr-improved"))], capture_output=True, text=True
    )
    assert done.returncode == 2 and "cannot be computed exactly" in done.stderr
    done = subprocess.run(
        [program("acpc-cfr"), "solve", "--game", "kuhn", "--raise-cap", "1", "--out", str(tmp_path / "n")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2 and "this game is limit" in done.stderr  # no-limit: tests/test_cfr_nolimit.py


def test_worlds_are_every_deal_once() -> None:
    worlds = all_deals(load_game("leduc"))
    assert len(worlds) == 6 * 5 * 4 and worlds.weights.sum() == pytest.approx(1)
    cards = np.concatenate([worlds.holes.reshape(len(worlds), -1), worlds.boards], axis=1)
    assert len({tuple(row) for row in cards.tolist()}) == len(worlds)
    assert isinstance(worlds, Worlds)


@pytest.mark.parametrize(
    ("game", "agent_args", "hands"),
    [
        ("leduc", [], 300),
        ("kuhn.limit.3p", [], 200),
        ("holdem.limit.2p.reverse_blinds", ["--argmax"], 150),
        ("holdem.limit.2p.reverse_blinds", ["--checkpoint", str(checkpoint_path("cfr-traditional"))], 150),
        ("holdem.limit.2p.reverse_blinds", ["--checkpoint", "cfr-ehs2"], 150),
    ],
)
def test_cfr_agent_plays_through_the_dealer(tmp_path: Path, game: str, agent_args: list[str], hands: int) -> None:
    players = load_game(game).num_players
    agents = [("cfr", ["--seed", "1", *agent_args])] + [("raise", [])] * (players - 1)
    status, _out, err = play(tmp_path, game, hands, 3, agents, "-q")
    assert status == 0, err
    assert "WARNING" not in err  # no invalid action was ever sent
    check_log(tmp_path / "match.log", load_game(game), hands)


def test_threshold_drops_the_unlikely_actions_and_renormalises_the_rest() -> None:
    """Ganzfried, Sandholm and Waugh's thresholding: an action the average strategy gives less than the
    threshold (of the legal actions' total) is never played; the others keep their ratios. Checked at
    every first decision of Leduc (each card, both positions) against the checkpoint's own table."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.protocol.wire import parse_match_state

    game = load_game("leduc")
    plain = CFRAgent(game, seed=1)
    thresholded = CFRAgent(game, seed=1, threshold=0.3)
    dropped = 0
    for line in [f"MATCHSTATE:0:0::{c}|" for c in ("Qs", "Kh", "As")] + [
        f"MATCHSTATE:1:0:r:|{c}" for c in ("Qs", "Kh", "As")
    ]:
        view = parse_match_state(line, game)
        raw = plain.policy(view)
        played = thresholded.policy(view)
        kept = {action: p for action, p in raw.items() if p >= 0.3}
        dropped += len(raw) - len(kept)
        assert set(played) == set(kept)
        for action, p in kept.items():
            assert played[action] == pytest.approx(p / sum(kept.values()))
    assert dropped > 0  # the case is exercised: some first decision mixes in an action under 0.3
    with pytest.raises(ValueError, match="--threshold"):
        CFRAgent(game, threshold=1.0)


def test_the_limit_default_plays_its_most_likely_action_and_sample_plays_the_average() -> None:
    """``cfr-ehs2-exact`` is purified by default: at every first decision of a few pre-flop hands its policy is
    the single action the average strategy (``--sample``) gives the most; other checkpoints sample."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.protocol.wire import parse_match_state

    game = load_game("holdem.limit.2p.reverse_blinds")
    default, sampled = CFRAgent(game, seed=1), CFRAgent(game, seed=1, sample=True)
    mixed = 0
    for hole in ("AsAh", "7c2d", "KhQh", "9s8s", "Td4c", "5h5d"):
        for line in (f"MATCHSTATE:1:0::|{hole}", f"MATCHSTATE:0:0:r:{hole}|"):
            view = parse_match_state(line, game)
            average = sampled.policy(view)
            mixed += len(average) > 1
            assert default.policy(view) == {max(average, key=average.__getitem__): 1.0}
    assert mixed > 0  # the average strategy mixes somewhere here, so the two differ
    assert not CFRAgent(game, checkpoint="cfr-ehs2").argmax
    with pytest.raises(ValueError, match="--argmax"):
        CFRAgent(game, argmax=True, sample=True)
