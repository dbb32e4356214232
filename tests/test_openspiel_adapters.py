"""OpenSpiel both ways (``acpc_arena.agents.openspiel``), checked against OpenSpiel itself.

The state mapping against ``universal_poker`` (the ACPC ``game.c``): random hands of every shipped game played in
both engines, the information-state strings, legal action ids, states and payoffs compared at every decision. The
arena's agents as OpenSpiel policies: OpenSpiel's exploitability of the shipped Kuhn and Leduc ``cfr`` against the
exact figure of ``acpc-cfr``'s own solver. OpenSpiel policies as the arena's agents: an OpenSpiel CFR+ policy played
against ``cfr`` in duplicate by the arena's runner, against the exact value OpenSpiel's ``expected_game_score``
gives for the pair.
"""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")  # OpenSpiel is the [openspiel] extra

from open_spiel.python import policy as spiel_policy  # noqa: E402
from open_spiel.python.algorithms import expected_game_score, exploitability  # noqa: E402

from acpc_arena.agents.cfr import CFRAgent  # noqa: E402
from acpc_arena.agents.openspiel.agent import OpenSpielAgent  # noqa: E402
from acpc_arena.agents.openspiel.arena_policy import ArenaPolicy  # noqa: E402
from acpc_arena.agents.openspiel.games import arena_card, spiel_card, spiel_card_text, spiel_game  # noqa: E402
from acpc_arena.agents.openspiel.states import (  # noqa: E402
    arena_action,
    arena_state,
    information_state,
    spiel_action,
    spiel_legal_actions,
    spiel_state,
)
from acpc_arena.agents.registry import agent_class  # noqa: E402
from acpc_arena.dealer.arena.api import play  # noqa: E402
from acpc_arena.dealer.arena.reports import Report  # noqa: E402
from acpc_arena.models.cfr.abstraction import all_deals  # noqa: E402
from acpc_arena.models.cfr.checkpoint import load_policy  # noqa: E402
from acpc_arena.models.cfr.solver import Solver  # noqa: E402
from acpc_arena.models.checkpoints import checkpoint_path  # noqa: E402
from acpc_arena.models.training.cfr_cli import exploitability as cfr_exploitability  # noqa: E402
from acpc_arena.protocol.dealing import deal_hand  # noqa: E402
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game  # noqa: E402
from acpc_arena.protocol.rng import MT19937  # noqa: E402
from acpc_arena.protocol.state import RAISE, Action  # noqa: E402
from acpc_arena.protocol.views import agent_view  # noqa: E402
from acpc_arena.protocol.wire import MatchState, format_state  # noqa: E402

LEDUC = load_game("leduc")
SPEC = "acpc_arena.agents.openspiel.agent:OpenSpielAgent"
BETTINGS = [(name, "fcpa") for name in SHIPPED_GAMES] + [
    (name, "fullgame") for name in SHIPPED_GAMES if load_game(name).no_limit
]


def _compare(game: Game, betting: str, ours: Any, spiel: Any) -> None:
    """Every view of the decision ``ours`` against OpenSpiel's state ``spiel`` of the same hand."""
    for viewer in range(game.num_players):
        view = agent_view(ours, viewer, ours.hole_cards[viewer])
        assert information_state(view) == spiel.information_state_string(viewer)
    player = ours.current_player
    view = agent_view(ours, player, ours.hole_cards[player])
    assert spiel_state(view, spiel.get_game(), betting).information_state_string(player) == (
        spiel.information_state_string(player)
    )
    assert spiel_legal_actions(ours, betting) == spiel.legal_actions()
    assert format_state(arena_state(spiel, game, betting)) == format_state(ours)


@pytest.mark.parametrize(("name", "betting"), BETTINGS)
def test_states_match_universal_poker(name: str, betting: str) -> None:
    """Random hands (OpenSpiel's legal actions drawn uniformly, the dealer's deals): the same information states,
    legal ids, states, actions both ways and payoffs at every step."""
    game = load_game(name)
    spiel_of_game = spiel_game(game, betting)
    rng = random.Random(name + betting)
    deals = MT19937(7)
    for _ in range(150):
        ours = deal_hand(game, 0, deals)
        spiel = spiel_of_game.new_initial_state()
        for card in [card for hole in ours.hole_cards for card in hole]:
            spiel.apply_action(spiel_card(game, card))
        dealt = 0
        while True:
            while spiel.is_chance_node():
                spiel.apply_action(spiel_card(game, ours.board_cards[dealt]))
                dealt += 1
            if spiel.is_terminal():
                break
            _compare(game, betting, ours, spiel)
            action_id = rng.choice(spiel.legal_actions())
            action = arena_action(ours, action_id, betting)
            assert spiel_action(ours, action, betting) == action_id
            ours.apply(action)
            spiel.apply_action(action_id)
        assert format_state(arena_state(spiel, game, betting)) == format_state(ours)
        assert ours.values() == pytest.approx(spiel.returns(), abs=1e-9)


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_cards_are_numbered_as_openspiel_deals_them(name: str) -> None:
    game = load_game(name)
    state = spiel_game(game).new_initial_state()
    for card in game.deck:
        outcome = spiel_card(game, card)
        assert arena_card(game, outcome) == card
        assert state.action_to_string(outcome) == f"player=-1 move=Deal {spiel_card_text(game, card)}"


def _played_strategy(checkpoint: str) -> tuple[Solver, np.ndarray]:
    """``acpc-cfr``'s exact evaluator of the checkpoint, and its strategy as stored."""
    policy = load_policy(checkpoint_path(checkpoint))
    return Solver(policy.tree, policy.abstraction, "cfr+", worlds=all_deals(policy.game)), policy.strategy


@pytest.mark.parametrize(("name", "checkpoint"), [("kuhn", "cfr-kuhn"), ("leduc", "cfr-leduc")])
def test_openspiel_exploitability_of_shipped_cfr(name: str, checkpoint: str) -> None:
    """OpenSpiel's exploitability of the ``cfr`` agent (through ``ArenaPolicy``) is ``acpc-cfr exploitability``'s
    exact figure. The checkpoint keeps its rows in float32, summing to 1 within 3e-8: both measure them as the
    agent plays them, renormalised here by hand (as stored, Kuhn's figure would be 3e-9 lower)."""
    arena = ArenaPolicy(CFRAgent(load_game(name)))
    evaluator, strategy = _played_strategy(checkpoint)
    totals = strategy.astype(np.float64).sum(axis=1, keepdims=True)
    played = np.divide(strategy.astype(np.float64), totals, where=totals > 0, out=np.zeros(strategy.shape))
    printed = cfr_exploitability(checkpoint_path(checkpoint), deals=0)
    figure = float(printed.split()[1])
    assert exploitability.exploitability(arena.game, arena) == pytest.approx(evaluator.exploitability(played), abs=1e-9)
    assert exploitability.exploitability(arena.game, arena) == pytest.approx(figure, abs=1e-9)


def _cfr_plus_file(tmp_path: Path, iterations: int) -> tuple[Path, Any]:
    """OpenSpiel's CFR+ (its C++ solver) on Leduc: the average policy pickled as a TabularPolicy, and the policy."""
    game = spiel_game(LEDUC)
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    tabular = spiel_policy.pyspiel_policy_to_python_policy(game, solver.tabular_average_policy())
    path = tmp_path / "leduc_cfr_plus.pkl"
    path.write_bytes(pickle.dumps(tabular))
    return path, tabular


def _check_duplicate_against_exact(path: Path, tabular: Any, seeds: tuple[int, ...], hands: int) -> None:
    """The arena's duplicate result of the policy file against ``cfr`` holds the pair's exact value in its CI."""
    cfr = ArenaPolicy(CFRAgent(LEDUC))
    first = expected_game_score.policy_value(tabular.game.new_initial_state(), [tabular, cfr])[0]
    second = expected_game_score.policy_value(tabular.game.new_initial_state(), [cfr, tabular])[1]
    exact = 1000 * (first + second) / 2 / LEDUC.big_blind
    report = play((f"{SPEC} --policy {path}", "cfr"), "leduc", seeds=seeds, hands=hands)
    assert isinstance(report, Report)
    low, high = report.duplicate.ci95
    assert low <= exact <= high, (report.duplicate.mbb_per_hand, (low, high), exact)
    assert high - low < 200  # a useful interval: a card or action mapped wrongly costs hundreds of mbb/h


@pytest.mark.slow  # make test-slow: the same check at the size follows; this one is its small copy
def test_openspiel_cfr_plus_policy_plays_its_expected_value(tmp_path: Path) -> None:
    """A short CFR+ run (100 iterations) through ``OpenSpielAgent`` against ``cfr``."""
    path, tabular = _cfr_plus_file(tmp_path, 100)
    _check_duplicate_against_exact(path, tabular, (1, 234), 1000)


@pytest.mark.slow
def test_openspiel_cfr_plus_2000_iterations_plays_its_expected_value(tmp_path: Path) -> None:
    """The issue's check: 2,000 iterations of OpenSpiel's CFR+ (about 30 s), 40,000 hands."""
    path, tabular = _cfr_plus_file(tmp_path, 2000)
    _check_duplicate_against_exact(path, tabular, (1, 234, 6666, 42), 5000)


def test_three_player_kuhn_nash_conv_of_shipped_cfr() -> None:
    """Larger than two players: OpenSpiel's NashConv of ``cfr`` on three-player Kuhn, against ``acpc-cfr``'s."""
    arena = ArenaPolicy(CFRAgent(load_game("kuhn.limit.3p")))
    evaluator, strategy = _played_strategy("cfr-kuhn3p")
    totals = strategy.sum(axis=1, keepdims=True)
    played = np.divide(strategy, totals, out=strategy.copy(), where=totals > 0)
    assert exploitability.nash_conv(arena.game, arena) == pytest.approx(evaluator.nash_conv(played), abs=1e-9)


@pytest.mark.parametrize(
    ("name", "spec", "hands"),
    [("holdem.limit.2p.reverse_blinds", "rule", 20), ("holdem.nolimit.2p.reverse_blinds", "spar_oddsize", 4)],
)
def test_arena_policy_on_holdem(name: str, spec: str, hands: int) -> None:
    """Hold'em through the same object: at OpenSpiel's states of random hands, every legal id of OpenSpiel's and
    nothing else, the agent's probabilities, summing to 1 (no-limit: every raise size an id)."""
    game = load_game(name)
    agent = agent_class(spec)(game, seed=1)
    arena = ArenaPolicy(agent)
    rng = random.Random(name)
    for _ in range(hands):
        state = arena.game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            probabilities = arena.action_probabilities(state)
            assert sorted(probabilities) == state.legal_actions()
            assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-9)
            player = state.current_player()
            full = arena_state(state, game, "fullgame" if game.no_limit else "fcpa")
            mine = agent.policy(agent_view(full, player, full.hole_cards[player]))
            for action, p in mine.items():
                size = action.size if action.kind == RAISE and game.no_limit else 2
                assert probabilities[action.kind if action.kind < RAISE else size] == pytest.approx(p, abs=1e-12)
            state.apply_action(arena.sample_action(state))


def _kuhn_cfr_plus() -> Any:
    """OpenSpiel's CFR+ on Kuhn (``universal_poker``), 30 iterations, as a Python TabularPolicy."""
    game = spiel_game(load_game("kuhn"))
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    return spiel_policy.pyspiel_policy_to_python_policy(game, solver.tabular_average_policy())


def _decisions(game: Game, spiel_of_game: Any, hands: int) -> list[tuple[MatchState, Any]]:
    """The views and OpenSpiel states of the decisions of random hands."""
    rng = random.Random(5)
    out = []
    for _ in range(hands):
        state = spiel_of_game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                full = arena_state(state, game, "fcpa")
                out.append((agent_view(full, full.current_player, full.hole_cards[full.current_player]), state.clone()))
            state.apply_action(rng.choice(state.legal_actions()))
    return out


def _as_ids(view: MatchState, policy: dict[Action, float]) -> dict[int, float]:
    return {spiel_action(view.state, action, "fcpa"): p for action, p in policy.items()}


def test_agent_plays_every_form_of_policy(tmp_path: Path) -> None:
    """A pickled TabularPolicy, its table (``to_dict``), a Policy object, a callable policy in a file and a bot:
    each agent's policy at a view is OpenSpiel's own at the state of that view."""
    kuhn = load_game("kuhn")
    tabular = _kuhn_cfr_plus()
    (tmp_path / "tabular.pkl").write_bytes(pickle.dumps(tabular))
    (tmp_path / "table.pkl").write_bytes(pickle.dumps(tabular.to_dict()))
    (tmp_path / "mine.py").write_text(
        "import pickle, pathlib, pyspiel\n"
        f"TABULAR = pickle.loads(pathlib.Path({str(tmp_path / 'tabular.pkl')!r}).read_bytes())\n"
        "def policy(state):\n    return TABULAR.action_probabilities(state)\n"
        "def make_bot(game, player):\n    return pyspiel.make_uniform_random_bot(player, 7)\n"
    )
    agents = [
        OpenSpielAgent(kuhn, policy=tmp_path / "tabular.pkl"),
        OpenSpielAgent(kuhn, policy=str(tmp_path / "table.pkl")),
        OpenSpielAgent(kuhn, policy=tabular),
        OpenSpielAgent(kuhn, policy=f"{tmp_path / 'mine.py'}:policy"),
        OpenSpielAgent(kuhn, policy=spiel_policy.UniformRandomPolicy(tabular.game)),
    ]
    bot = OpenSpielAgent(kuhn, seed=3, bot=f"{tmp_path / 'mine.py'}:make_bot")
    for view, state in _decisions(kuhn, tabular.game, 40):
        expected = tabular.action_probabilities(state)
        for agent in agents[:4]:
            assert _as_ids(view, agent.policy(view)) == pytest.approx(expected, abs=1e-12)
        uniform = {action: 1 / len(state.legal_actions()) for action in state.legal_actions()}
        assert _as_ids(view, agents[4].policy(view)) == pytest.approx(uniform)
        assert _as_ids(view, bot.policy(view)) == pytest.approx(uniform)
        assert spiel_action(view.state, bot.act(view), "fcpa") in state.legal_actions()


def test_agent_spec_plays_a_bot_in_a_match(tmp_path: Path) -> None:
    """The spec form everywhere an agent spec is: bots from a file, through the arena's runner; a bot that gives
    no policy plays as ``OpenSpielBotAgent`` (an agent without ``policy``: no AIVAT), not as ``OpenSpielAgent``."""
    (tmp_path / "bots.py").write_text(
        "import pyspiel\n"
        "def make_bot(game, player):\n    return pyspiel.make_uniform_random_bot(player, 7)\n"
        "class LastBot(pyspiel.Bot):\n"
        "    def step(self, state):\n        return state.legal_actions()[-1]\n"
        "    def provides_policy(self):\n        return False\n"
        "def make_last(game, player):\n    return LastBot()\n"
    )
    assert agent_class(SPEC) is OpenSpielAgent
    report = play((f"{SPEC} --bot {tmp_path / 'bots.py'}:make_bot", "call"), "kuhn", seeds=(1,), hands=50)
    assert isinstance(report, Report)
    assert report.duplicate_pairs == 50 and not report.extra["failed"] and "mbb_per_hand" in report.extra["aivat"]
    assert "OpenSpielBotAgent" in _error(load_game("kuhn"), bot=f"{tmp_path / 'bots.py'}:make_last")
    bot_spec = f"{SPEC.replace('OpenSpielAgent', 'OpenSpielBotAgent')} --bot {tmp_path / 'bots.py'}:make_last"
    report = play((bot_spec, "call"), "kuhn", seeds=(1,), hands=50)
    assert isinstance(report, Report)
    assert report.duplicate_pairs == 50 and not report.extra["failed"] and "aivat" not in report.extra


def _error(game: Game, **options: object) -> str:
    with pytest.raises(ValueError) as caught:
        OpenSpielAgent(game, None, **options)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_policy_for_another_game_is_refused(tmp_path: Path) -> None:
    kuhn_poker = spiel_policy.TabularPolicy(pyspiel.load_game("kuhn_poker"))
    (tmp_path / "kuhn_poker.pkl").write_bytes(pickle.dumps(kuhn_poker))
    message = _error(LEDUC, policy=tmp_path / "kuhn_poker.pkl")
    assert "kuhn_poker()" in message and "leduc.limit.2p" in message
    message = _error(LEDUC, policy=_kuhn_cfr_plus())
    assert message == "the policy is for kuhn.limit.2p, not for leduc.limit.2p (as universal_poker games)"
    (tmp_path / "table.pkl").write_bytes(pickle.dumps(kuhn_poker.to_dict()))
    assert "not universal_poker's" in _error(LEDUC, policy=tmp_path / "table.pkl")
    with pytest.raises(ValueError, match=r"kuhn\.limit\.2p"):
        ArenaPolicy(CFRAgent(load_game("kuhn")), spiel_game(LEDUC))


def test_an_unknown_information_state_is_one_clear_error() -> None:
    kuhn = load_game("kuhn")
    agent = OpenSpielAgent(
        kuhn, policy={"[Round 0][Player: 0][Pot: 2][Money: 1 1][Private: 4c][Public: ][Sequences: ]": [(1, 1.0)]}
    )
    view, _ = _decisions(kuhn, spiel_game(kuhn), 1)[0]
    with pytest.raises(
        ValueError, match=r"^unknown information state '\[Round 0\]\[Player: 0\]\[Pot: 2\]\[Money: 2147483646"
    ):
        agent.policy(view)
    partial = spiel_policy.TabularPolicy(spiel_game(kuhn))
    callable_agent = OpenSpielAgent(kuhn, policy=lambda state: partial.policy_for_key("no such state"))
    with pytest.raises(ValueError, match=r"^unknown information state"):
        callable_agent.policy(view)


def test_bad_options_are_one_clear_error(tmp_path: Path) -> None:
    kuhn = load_game("kuhn")
    (tmp_path / "text.pkl").write_text("not a pickle")
    assert "one of them" in _error(kuhn)
    assert "one of them" in _error(kuhn, policy=_kuhn_cfr_plus(), bot="x.py:make_bot")
    assert "no such file" in _error(kuhn, policy=tmp_path / "missing.pkl")
    assert "not a pickled policy" in _error(kuhn, policy=tmp_path / "text.pkl")
    assert "no_such_module" in _error(kuhn, policy="no_such_module:policy")
    assert "sets the betting" in _error(kuhn, policy=_kuhn_cfr_plus(), betting="fc")
    assert "fullgame" in _error(kuhn, policy=lambda state: {1: 1.0}, betting="fullgame")
    assert "--betting" in _error(kuhn, policy=lambda state: {1: 1.0}, betting="fchpa")
    assert "neither" in _error(kuhn, policy={1, 2})
    fchpa = spiel_game(load_game("holdem.nolimit.2p.reverse_blinds"), "fcpa").get_parameters()
    fchpa["bettingAbstraction"] = "fchpa"
    half_pot = spiel_policy.UniformRandomPolicy(pyspiel.load_game("universal_poker", fchpa))
    assert "fchpa" in _error(load_game("holdem.nolimit.2p.reverse_blinds"), policy=half_pot)


def test_unmapped_actions_are_one_clear_error() -> None:
    """A no-limit raise that ``fcpa`` has no id for, an id OpenSpiel does not allow, a player not to act, and a
    policy that gives the legal actions nothing."""
    nolimit = load_game("holdem.nolimit.2p.reverse_blinds")
    state = deal_hand(nolimit, 0, MT19937(1))
    min_raise = Action(RAISE, state.legal_actions().min_raise_to)
    with pytest.raises(ValueError, match=r"^a raise to 200 at the betting '' has no action in universal_poker's fcpa$"):
        spiel_action(state, min_raise, "fcpa")
    with pytest.raises(ValueError, match=r"^action 5 is not one universal_poker"):
        arena_action(state, 5, "fullgame")
    arena = ArenaPolicy(CFRAgent(LEDUC))
    spiel = arena.game.new_initial_state()
    spiel.apply_action(0)
    spiel.apply_action(1)
    with pytest.raises(ValueError, match="player to act"):
        arena.action_probabilities(spiel, 1)
    agent = OpenSpielAgent(LEDUC, policy=lambda state: {0: 1.0})
    view = agent_view(arena_state(spiel, LEDUC, "fcpa"), 0, [arena_card(LEDUC, 0)])
    with pytest.raises(ValueError, match="no legal action"):
        agent.policy(view)
