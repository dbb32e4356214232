"""No-limit CFR: the bet abstraction and its tree, action translation, the agent and its checkpoint."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.agents.cfr import CFRAgent
from acpc_arena.models.cfr.abstraction import Abstraction, ExactCards, Worlds, all_deals
from acpc_arena.models.cfr.checkpoint import CFRPolicy, load_policy
from acpc_arena.models.cfr.nolimit import (
    BetAbstraction,
    NoLimitTree,
    build_nolimit_tree,
    locate,
    pseudo_harmonic,
    translate_fraction,
)
from acpc_arena.models.cfr.pool import KeyedWorlds, allin_equities
from acpc_arena.models.cfr.solver import Solver, sampled_exploitability
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.models.checkpoints import CheckpointError, checkpoint_path
from acpc_arena.models.training.cfr import train
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState
from tests.helpers.processes import check_log, play, program

NL = "holdem.nolimit.2p.reverse_blinds"


def betting(tree: NoLimitTree, node: int) -> dict[str, int]:
    """{action: child} at ``node`` written as fold ``f``, call ``c`` and raise-to ``r<size>``."""
    out = {}
    for slot, child in enumerate(tree.children[node].tolist()):
        if child >= 0:
            out["f" if slot == 0 else "c" if slot == 1 else f"r{tree.raise_to[node, slot]}"] = child
    return out


# -- the pseudo-harmonic mapping ------------------------------------------------


@pytest.mark.parametrize(("a", "expected"), [(0.001, 0.601), (0.01, 0.612), (0.05, 0.663), (0.1, 0.733)])
def test_pseudo_harmonic_matches_the_papers_table(a: float, expected: float) -> None:
    # Ganzfried and Sandholm (2013), table 1, row Rand-psHar: B = 1 pot, x = 0.25 pot
    assert pseudo_harmonic(a, 1.0, 0.25) == pytest.approx(expected, abs=0.001)


def test_pseudo_harmonic_ends_and_median() -> None:
    assert pseudo_harmonic(0.5, 1.0, 0.5) == 1 and pseudo_harmonic(0.5, 1.0, 1.0) == 0
    for a, b in ((0.2, 0.5), (0.5, 1.0), (1.0, 3.0), (3.0, 99.5)):
        median = (a + b + 2 * a * b) / (a + b + 2)  # the paper's x* where each side is taken half the time
        assert pseudo_harmonic(a, b, median) == pytest.approx(0.5, abs=1e-12)
    # scale invariance: A, B and x all in chips with a pot of 20, then times 10^k
    for k in range(6):
        scale = 10.0**k
        pot = 20 * scale
        assert pseudo_harmonic(2 * scale / pot, 20 * scale / pot, 5 * scale / pot) == pytest.approx(0.733, abs=0.001)
    with pytest.raises(ValueError):
        pseudo_harmonic(1.0, 1.0, 1.0)


def test_translation_picks_neighbours_at_the_mappings_rate() -> None:
    rng = np.random.default_rng(3)
    sizes = {2: 0.5, 3: 1.0, 5: 99.5}
    assert translate_fraction(sizes, 0.1, rng) == 2  # below the smallest: the smallest
    assert translate_fraction(sizes, 200.0, rng) == 5
    assert translate_fraction(sizes, 1.0, rng) == 3  # exactly on an abstract size
    draws = [translate_fraction(sizes, 0.75, rng) for _ in range(20000)]
    expected = (1.0 - 0.75) * 1.5 / (0.5 * 1.75)  # (B - x)(1 + A) / ((B - A)(1 + x)) = 3/7
    assert draws.count(2) / len(draws) == pytest.approx(expected, abs=0.015)
    assert set(draws) == {2, 3}


# -- the abstract tree -------------------------------------------------------


@pytest.fixture(scope="module")
def game() -> Game:
    return load_game(NL)


@pytest.fixture(scope="module")
def tree(game: Game) -> NoLimitTree:
    return build_nolimit_tree(game, BetAbstraction.parse("1,3/1/1/1", 2, 4))


def test_bet_abstraction_text(game: Game) -> None:
    bets = BetAbstraction.parse("1,3/0.5,1", 2, 4)
    assert bets.fractions == ((1.0, 3.0), (0.5, 1.0), (0.5, 1.0), (0.5, 1.0))
    assert bets.text() == "1,3/0.5,1/0.5,1/0.5,1"
    assert BetAbstraction.from_description(json.loads(json.dumps(bets.describe()))) == bets
    assert bets.num_actions == 5 and bets.all_in_slot == 4
    for bad in ("", "1/2/3/4/5", "a,b", "1,0.5", "0"):
        with pytest.raises(ValueError):
            BetAbstraction.parse(bad, 2, 4)
    with pytest.raises(ValueError):
        BetAbstraction.parse("1", -1, 4)


def test_tree_sizes_follow_the_acpc_rules(tree: NoLimitTree) -> None:
    # Hand-computed with blinds 100 (seat 0) and 50 (seat 1), stacks 20000: seat 1 opens.
    root = 0
    assert tree.player[root] == 1 and tree.sequences[root] == ""
    # pot after calling 200: one pot raises to 100 + 200, three pots to 100 + 600
    assert list(betting(tree, root)) == ["f", "c", "r300", "r700", "r20000"]
    after_open = betting(tree, root)["r300"]
    assert tree.player[after_open] == 0 and tree.sequences[after_open] == "r300"
    # facing 300 with 100 in: pot after calling 600, so 900 and 2100
    assert list(betting(tree, after_open)) == ["f", "c", "r900", "r2100", "r20000"]
    capped = betting(tree, after_open)["r900"]
    assert list(betting(tree, capped)) == ["f", "c", "r20000"]  # two pot raises this round: all-in only
    flop = betting(tree, after_open)["c"]
    assert tree.round[flop] == 1 and tree.player[flop] == 0 and tree.sequences[flop] == "r300c/"
    assert list(betting(tree, flop)) == ["c", "r900", "r20000"]  # nothing to call: no fold; pot 600
    bet = betting(tree, flop)["r900"]
    assert list(betting(tree, bet)) == ["f", "c", "r2700", "r20000"]  # pot 1800 after calling 600
    shove = betting(tree, root)["r20000"]
    assert list(betting(tree, shove)) == ["f", "c"]
    called = betting(tree, shove)["c"]
    assert tree.player[called] < 0 and called in set(tree.showdown.tolist())
    assert tree.spent[called].tolist() == [20000, 20000]


def test_small_fractions_clamp_to_the_minimum_raise_once(game: Game) -> None:
    tree = build_nolimit_tree(game, BetAbstraction.parse("0.1,0.2,1/1", 1, 4))
    # 0.1 and 0.2 of 200 are short of the minimum raise-to (twice the big blind): one raise to 200 stands for both
    assert list(betting(tree, 0)) == ["f", "c", "r200", "r300", "r20000"]
    assert tree.children[0, 3] < 0


def test_every_tree_action_is_valid_in_the_engine(game: Game) -> None:
    tree = build_nolimit_tree(game, BetAbstraction.parse("0.5,1/1/1/1", 1, 4))
    states = {0: State(game)}
    for node in range(tree.size):
        state = states.pop(node)
        for slot, child in enumerate(tree.children[node].tolist()):
            if child < 0:
                continue
            action = (
                Action(FOLD)
                if slot == 0
                else Action(CALL)
                if slot == 1
                else Action(RAISE, int(tree.raise_to[node, slot]))
            )
            assert state.validate_action(action) == action
            nxt = state.copy()
            nxt.apply(action)
            assert nxt.spent == tree.spent[child].tolist() and nxt.finished == (tree.player[child] < 0)
            states[child] = nxt


def test_limit_trees_are_unchanged() -> None:
    solver = Solver(
        build_tree(load_game("leduc")), ExactCards(load_game("leduc")), worlds=all_deals(load_game("leduc"))
    )
    assert solver.num_actions == 3 and solver.legal.shape[1] == 3


# -- following real betting through the tree ---------------------------------------


def real_state(game: Game, *actions: Action) -> State:
    state = State(game)
    for action in actions:
        state.apply(action)
    return state


def test_locate_maps_real_sizes(game: Game, tree: NoLimitTree) -> None:
    rng = np.random.default_rng(0)
    min_raise = real_state(game, Action(RAISE, 200))  # 0.5 pot: below the smallest size, so one pot
    assert tree.sequences[locate(tree, min_raise, rng, {}).node] == "r300"
    shove = real_state(game, Action(RAISE, 20000))
    assert tree.sequences[locate(tree, shove, rng, {}).node] == "r20000"
    # 900 more into a pot of 200: 4.5 pots, between 3 pots and all-in (19900 / 200 = 99.5 pots)
    big = real_state(game, Action(RAISE, 1000))
    nodes = [tree.sequences[locate(tree, big, rng, {}).node] for _ in range(6000)]
    expected = (99.5 - 4.5) * (1 + 3) / ((99.5 - 3) * (1 + 4.5))
    assert nodes.count("r700") / len(nodes) == pytest.approx(expected, abs=0.02)
    assert set(nodes) == {"r700", "r20000"}
    memo: dict[tuple[int, int], int] = {}
    first = locate(tree, big, rng, memo).node
    assert all(locate(tree, big, rng, memo).node == first for _ in range(50))  # one draw per raise in a hand
    # a flop bet of 400 into 600 (0.67 pot): below the flop's one size, one pot (to 900)
    flop = real_state(game, Action(RAISE, 300), Action(CALL), Action(RAISE, 700))
    assert tree.sequences[locate(tree, flop, rng, {}).node] == "r300c/r900"


# -- the agent ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("nl") / "tiny"
    path, _ = train(NL, "mccfr", 3, out, "ehs2-4-4-4", deals=16, show_progress=False, bets="1,3/1/1/1", raise_cap=2)
    return path


def test_agent_only_sends_legal_actions(game: Game, tiny_checkpoint: Path) -> None:
    agent = CFRAgent(game, seed=5, checkpoint=tiny_checkpoint)
    rng = np.random.default_rng(11)
    sent = 0
    for hand in range(150):
        deck = rng.permutation(52).tolist()
        state = State(game, hand, [deck[0:2], deck[2:4]], deck[4:9])
        seat = hand % 2
        agent.begin_hand(MatchState(seat, state))
        while not state.finished:
            legal = state.legal_actions()
            if state.current_player == seat:
                action = agent.act(MatchState(seat, state))
                assert state.validate_action(action) == action, (state.actions, action)
                sent += 1
            else:  # an opponent that tries the sizes the tree does not have: min, odd, just short of all-in
                choice = rng.integers(4) if legal.can_raise else 0
                sizes = [
                    legal.min_raise_to,
                    int(rng.integers(legal.min_raise_to, legal.max_raise_to + 1)),
                    legal.max_raise_to - 1,
                ]
                action = Action(CALL) if choice == 0 else Action(RAISE, max(sizes[choice - 1], legal.min_raise_to))
            state.apply(action)
    assert sent > 150


def test_checkpoint_keeps_its_bet_abstraction(tiny_checkpoint: Path, tmp_path: Path) -> None:
    policy = load_policy(tiny_checkpoint)
    meta = json.loads(tiny_checkpoint.with_suffix(".json").read_text())
    assert meta["betting"] == {"fractions": [[1.0, 3.0], [1.0], [1.0], [1.0]], "raise_cap": 2}
    assert policy.strategy.shape[1] == 5
    moved = tmp_path / "other.npz"
    moved.write_bytes(tiny_checkpoint.read_bytes())
    moved.with_suffix(".json").write_text(json.dumps(dict(meta, betting={"fractions": [[1.0]] * 4, "raise_cap": 2})))
    with pytest.raises(CheckpointError, match="different betting tree"):
        load_policy(moved)
    moved.with_suffix(".json").write_text(json.dumps({k: v for k, v in meta.items() if k != "betting"}))
    with pytest.raises(CheckpointError, match="no usable bet abstraction"):
        load_policy(moved)


def test_sampled_exploitability_is_exact_with_every_deal() -> None:
    # on Leduc every deal can be the sample: both estimates are then the exact exploitability,
    # and that of the uniform strategy is OpenSpiel's NashConv 4.747222 / 2
    game = load_game("leduc")
    tree, abstraction, deals = build_tree(game), ExactCards(game), all_deals(game)
    uniform = Solver(tree, abstraction, worlds=deals).uniform_strategy()
    in_sample, held_out = sampled_exploitability(tree, abstraction, uniform, deals, deals)
    assert in_sample == pytest.approx(4.747222222222222 / 2) and held_out == pytest.approx(4.747222222222222 / 2)


# -- all-in showdowns valued by their expected share -----------------------------


def two_deals(first: str, second: str) -> Worlds:
    """Deals written ``hole0|hole1/board`` (the board padded with unused cards where it is short)."""
    holes, boards = [], []
    for text in (first, second):
        hands, board = text.split("/")
        holes.append([parse_cards(hand) for hand in hands.split("|")])
        cards = parse_cards(board)
        used = set(cards) | {c for hand in holes[-1] for c in hand}
        boards.append(cards + [c for c in range(52) if c not in used][: 5 - len(cards)])
    return Worlds(np.array(holes, dtype=np.uint8), np.array(boards, dtype=np.uint8), np.full(2, 0.5))


def test_allin_equities_against_hand_counts(game: Game) -> None:
    # AsAh against KsKh all in before the flop: 81.9% for the aces (the well-known figure;
    # 1,712,304 boards). All in on the turn of 2c7d9cJd: only the two kings left among the
    # 44 unseen rivers save KsKh (no straight or flush is possible), so 42/44 for the aces.
    worlds = two_deals("AsAh|KsKh/", "AsAh|KsKh/2c7d9cJd")
    shares = allin_equities(game, worlds, samples=20000, rng=np.random.default_rng(5))
    assert shares[0, 0] == pytest.approx(0.819, abs=0.01)
    assert shares[1, 2] == pytest.approx(42 / 44, abs=0.01)
    assert np.isnan(shares[:, 3]).all()


class OneBucket(Abstraction):
    """Every hand alike: one information set per betting node."""

    name = "one-bucket"

    def num_keys(self, round_: int) -> int:
        return 1

    def keys(self, worlds: Worlds, player: int, round_: int) -> np.ndarray:
        return np.zeros(len(worlds), dtype=np.int64)


def test_solver_pays_an_allin_by_its_expected_share(game: Game) -> None:
    tree = build_nolimit_tree(game, BetAbstraction.parse("1/1/1/1", 1, 4))
    worlds = two_deals("AsAh|KsKh/2c7d9cJd", "AsAh|KsKh/2c7d9cJd")
    shares = np.array([[0.8, 0.7, 0.6, np.nan], [0.9, 0.7, 0.6, np.nan]])
    solver = Solver(
        tree, OneBucket(), "cfr+", worlds=KeyedWorlds(worlds.holes, worlds.boards, worlds.weights, None, shares)
    )
    calls = np.zeros((solver.num_infosets, solver.num_actions))
    calls[:, 1] = 1
    # everybody checks or calls to the river: the real board pays, the aces win the big blind
    assert solver.expected_values(calls)[0] == pytest.approx(100)
    # the opening seat (1) shoves and is called: 20000 x (2 x share - 1), averaged over the two deals
    shove = calls.copy()
    shove[solver.base[solver.decision_row[0]]] = np.eye(solver.num_actions)[tree.bets.all_in_slot]
    assert solver.expected_values(shove)[0] == pytest.approx(20000 * ((2 * 0.8 - 1) + (2 * 0.9 - 1)) / 2)


def test_cli_no_limit_options(tmp_path: Path) -> None:
    done = subprocess.run(
        [program("acpc-cfr"), "solve", "--game", NL, "--algorithm", "mccfr", "--abstraction", "ehs2-3-3-3",
         "--bets", "1/1/1/1", "--raise-cap", "1", "--iterations", "2", "--deals", "8", "--every", "2",
         "--check-deals", "20", "--out", str(tmp_path / "n")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "iteration 2: abstract-game exploitability" in done.stdout + done.stderr
    meta = json.loads((tmp_path / "n.json").read_text())
    assert len(meta["sampled_exploitability_history"]) == 1
    done = subprocess.run(
        [program("acpc-cfr"), "curve", str(tmp_path / "n.npz"), "--out", str(tmp_path / "curve.png")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0 and (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
    done = subprocess.run(
        [program("acpc-cfr"), "exploitability", str(tmp_path / "n.npz"), "--deals", "20"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stdout.startswith("abstract-game exploitability over 20 + 20 deals")
    for args, message in (
        (["--game", NL, "--algorithm", "mccfr", "--bets", "1,x"], "pot fractions must be numbers"),
        (["--game", "leduc", "--bets", "1"], "this game is limit"),
    ):
        done = subprocess.run(
            [program("acpc-cfr"), "solve", *args, "--out", str(tmp_path / "bad")], capture_output=True, text=True
        )
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


# -- through the dealer -----------------------------------------------------------


@pytest.mark.parametrize("opponent", ["random", "raise", "call"])
def test_shipped_agent_plays_through_the_dealer(tmp_path: Path, opponent: str) -> None:
    hands = 200
    status, _out, err = play(tmp_path, NL, hands, 7, [("cfr", ["--seed", "1"]), (opponent, ["--seed", "2"])], "-q")
    assert status == 0, err
    assert "WARNING" not in err  # no invalid action was ever sent
    check_log(tmp_path / "match.log", load_game(NL), hands)


def test_shipped_checkpoint(game: Game) -> None:
    policy = load_policy(checkpoint_path("cfr-nl"))
    assert policy.game == game and policy.meta["iterations"] >= 1000
    assert policy.meta["betting"] == {"fractions": [[1.0, 3.0], [1.0], [1.0], [1.0]], "raise_cap": 2}
    assert len(policy.meta["sampled_exploitability_history"]) >= 5


def opening(policy: CFRPolicy, hand: str) -> np.ndarray:
    """The probabilities of fold, call, raise one pot, three pots and all-in of the seat that opens."""
    key = policy.abstraction.key(parse_cards(hand), [], 0)
    return policy.strategy[policy.base[policy.decision_row[0]] + key]


def test_shipped_strategy_never_folds_aces() -> None:
    # folding aces first to act loses the small blind for certain, while any other action has
    # positive value against any reply (aces are about a 3-to-1 favourite or better over every hand):
    # a converging strategy keeps only a trace of it (the first iterations' uniform play)
    assert opening(load_policy(checkpoint_path("cfr-nl")), "AsAh")[0] < 0.01
