"""Differential tests of the game engine against OpenSpiel's ``universal_poker``.

OpenSpiel's ``universal_poker`` runs the ACPC server's own ``game.c``; it is the
oracle for every rule. Each shipped game definition is loaded into OpenSpiel
with ``load_universal_poker_from_acpc_gamedef``; random hands are dealt by our
seeded dealer, fed to both engines, and at every step the player to act, the
legal actions (fold, call, min and max raise-to), the money spent and the ACPC
state string are compared, then the payoffs at the end. The oracle,
``OpenSpielGame``, is in ``conftest.py`` (the ``openspiel`` fixture).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from acpc_arena.protocol.cards import parse_card
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import format_state

if TYPE_CHECKING:
    from tests.conftest import OpenSpielGame, OpenSpielGames

HANDS_PER_GAME = {
    "holdem.limit.2p.reverse_blinds": 600,
    "holdem.nolimit.2p.reverse_blinds": 600,
    "holdem.limit.3p": 400,
    "holdem.nolimit.3p": 400,
    "kuhn.limit.2p": 500,
    "kuhn.limit.3p": 500,
    "leduc.limit.2p": 1000,
}


def _choose_action(state: State, rng: random.Random) -> Action:
    legal = state.legal_actions()
    roll = rng.random()
    if legal.can_fold and roll < 0.15:
        return Action(FOLD)
    if not legal.can_raise or roll < 0.55:
        return Action(CALL)
    if not state.game.no_limit:
        return Action(RAISE)
    low, high = legal.min_raise_to, legal.max_raise_to
    size = rng.choice([low, high, min(low + 1, high), max(high - 1, low), rng.randint(low, high)])
    return Action(RAISE, size)


def _spiel_action(game: Game, action: Action) -> int:
    if action.kind == FOLD:
        return 0
    if action.kind == CALL:
        return 1
    return action.size if game.no_limit else 2


def _compare_decision(oracle: OpenSpielGame, ours: State, spiel_state: Any) -> None:
    game = oracle.game
    assert spiel_state.current_player() == ours.current_player
    assert list(spiel_state.to_struct().player_contributions) == ours.spent
    assert oracle.acpc_state(spiel_state) == format_state(ours)
    spiel_legal = spiel_state.legal_actions()
    legal = ours.legal_actions()
    assert (0 in spiel_legal) == legal.can_fold
    assert 1 in spiel_legal
    if game.no_limit:
        raises = [a for a in spiel_legal if a > 1]
        assert bool(raises) == legal.can_raise
        if raises:
            assert (min(raises), max(raises)) == (legal.min_raise_to, legal.max_raise_to)
            assert len(raises) == legal.max_raise_to - legal.min_raise_to + 1
    else:
        assert (2 in spiel_legal) == legal.can_raise


def _play_hand(oracle: OpenSpielGame, ours: State, rng: random.Random) -> None:
    game = oracle.game
    spiel_state = oracle.spiel.new_initial_state()
    for cards in ours.hole_cards:
        for card in cards:
            spiel_state.apply_action(oracle.chance_action(card))
    board_dealt = 0
    while True:
        while spiel_state.is_chance_node():
            # OpenSpiel deals each round's board cards, one chance node each, when the round starts.
            spiel_state.apply_action(oracle.chance_action(ours.board_cards[board_dealt]))
            board_dealt += 1
        if spiel_state.is_terminal():
            break
        _compare_decision(oracle, ours, spiel_state)
        action = _choose_action(ours, rng)
        valid = ours.validate_action(action)
        assert valid == action
        ours.apply(action)
        spiel_state.apply_action(_spiel_action(game, action))
    assert ours.finished
    assert oracle.acpc_state(spiel_state).startswith(format_state(ours).rsplit(":", 1)[0])
    values = ours.values()
    assert values == pytest.approx(spiel_state.returns(), abs=1e-9)
    assert sum(values) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_random_hands_agree_with_openspiel(openspiel: OpenSpielGames, name: str) -> None:
    oracle = openspiel(name)
    rng = random.Random(name)
    deal_rng = MT19937(sum(map(ord, name)))
    for _ in range(HANDS_PER_GAME[name]):
        ours = deal_hand(oracle.game, 0, deal_rng)  # OpenSpiel numbers every hand 0
        _play_hand(oracle, ours, rng)


def test_known_nolimit_hand_values() -> None:
    """A hand from the protocol document: all-in pre-flop, showdown."""
    game = load_game("holdem.nolimit.2p.reverse_blinds")
    holes = [[parse_card("8s"), parse_card("2h")], [parse_card("Kd"), parse_card("5c")]]
    board = [parse_card(c) for c in ("7h", "Ad", "Td", "4s", "Kc")]
    state = State(game, 0, holes, board)
    for action in (Action(RAISE, 19220), Action(RAISE, 20000), Action(CALL)):
        assert state.validate_action(action) == action
        state.apply(action)
    assert state.finished and state.round == 3
    assert format_state(state) == "STATE:0:r19220r20000c///:8s2h|Kd5c/7hAdTd/4s/Kc"
    assert state.values() == [-20000.0, 20000.0]


# -- random game definitions -------------------------------------------------


@st.composite
def game_definitions(draw: st.DrawFn) -> str:
    """ACPC game definitions of every shape: 2-6 players, 1-4 rounds, small decks and stacks."""
    no_limit = draw(st.booleans())
    # OpenSpiel plays limit games with unbounded stacks whatever the file says, and
    # game.c then reads no default stacks past the fourth player: limit games here
    # have at most four players and no stack line.
    players = draw(st.integers(2, 6 if no_limit else 4))
    rounds = draw(st.integers(1, 4))
    suits = draw(st.integers(1, 4))
    hole = draw(st.integers(1, 3))
    board = draw(st.lists(st.integers(0, 3), min_size=rounds, max_size=rounds).filter(lambda b: sum(b) <= 7))
    min_ranks = max(2, -(-(players * hole + sum(board)) // suits))
    if min_ranks > 13:
        suits = 4
        min_ranks = max(2, -(-(players * hole + sum(board)) // suits))
    assume(min_ranks <= 13)
    ranks = draw(st.integers(min_ranks, 13))
    blinds = draw(st.lists(st.integers(0, 6), min_size=players, max_size=players))
    blinds[-1] = max(blinds[-1], 1)  # OpenSpiel wants a blind of at least one chip
    lines = ["GAMEDEF", "nolimit" if no_limit else "limit", f"numPlayers = {players}", f"numRounds = {rounds}"]
    if no_limit:
        stacks = [draw(st.integers(b + 1, b + 40)) for b in blinds]
        lines.append("stack = " + " ".join(map(str, stacks)))
    lines.append("blind = " + " ".join(map(str, blinds)))
    if not no_limit:
        lines.append("raiseSize = " + " ".join(str(draw(st.integers(1, 6))) for _ in range(rounds)))
        lines.append("maxRaises = " + " ".join(str(draw(st.integers(0, 4))) for _ in range(rounds)))
    lines.append("firstPlayer = " + " ".join(str(draw(st.integers(1, players))) for _ in range(rounds)))
    lines += [f"numSuits = {suits}", f"numRanks = {ranks}", f"numHoleCards = {hole}"]
    lines += ["numBoardCards = " + " ".join(map(str, board)), "END GAMEDEF"]
    return "\n".join(lines) + "\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=game_definitions(), seed=st.integers(0, 2**32 - 1))
def test_random_game_definitions_agree_with_openspiel(openspiel: OpenSpielGames, text: str, seed: int) -> None:
    oracle = openspiel.from_text(text)
    rng = random.Random(seed)
    deal_rng = MT19937(seed)
    for _ in range(25):
        _play_hand(oracle, deal_hand(oracle.game, 0, deal_rng), rng)
