"""The betting rules, case by case (the random differential test covers them in bulk)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game, parse_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import format_state

NL = load_game("holdem.nolimit.2p.reverse_blinds")
LIMIT = load_game("holdem.limit.2p.reverse_blinds")


def play(state: State, *actions: Action) -> State:
    for action in actions:
        valid = state.validate_action(action)
        assert valid is not None, f"{action} is invalid in {format_state(state)}"
        state.apply(valid)
    return state


def r(size: int = 0) -> Action:
    return Action(RAISE, size)


C = Action(CALL)
F = Action(FOLD)


def nolimit_game(stacks: str, blinds: str, players: int = 3) -> State:
    text = f"""GAMEDEF
nolimit
numPlayers = {players}
numRounds = 2
stack = {stacks}
blind = {blinds}
firstPlayer = 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3
END GAMEDEF
"""
    return State(parse_game(text))


def test_reverse_blinds_heads_up_order() -> None:
    state = State(NL)
    assert state.spent == [100, 50]
    assert state.current_player == 1  # the small blind acts first pre-flop
    play(state, C, C)
    assert state.round == 1 and state.current_player == 0  # the big blind acts first after


def test_nolimit_minimum_raises() -> None:
    state = State(NL)
    legal = state.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to, legal.to_call) == (200, 20000, 50)
    play(state, r(300))  # raises by 200
    assert state.legal_actions().min_raise_to == 500  # must raise by at least 200 again
    play(state, r(1000))
    assert state.legal_actions().min_raise_to == 1700
    play(state, C)
    assert state.round == 1
    assert state.legal_actions().min_raise_to == 1100  # a new round: the big blind on top of the bet


def test_nolimit_short_all_in_does_not_reopen_a_smaller_raise() -> None:
    # Player 1 has only 250: going all in raises by less than the 100 minimum.
    state = nolimit_game("1000 250 1000", "50 100 0")
    assert state.current_player == 0
    play(state, r(200))  # player 0 raises by 100; minimum next raise-to is 300
    legal = state.legal_actions()
    assert state.current_player == 1 and (legal.min_raise_to, legal.max_raise_to) == (250, 250)
    play(state, r(250))  # all in for less than a full raise
    assert state.min_no_limit_raise_to == 300  # the short all-in does not lower the bar
    legal = state.legal_actions()
    assert state.current_player == 2 and legal.min_raise_to == 300


def test_raise_sizes_are_fixed_by_the_dealer() -> None:
    state = State(NL)
    assert state.validate_action(r(150)) is None
    assert state.validate_action(r(150), try_fixing=True) == r(200)
    assert state.validate_action(r(99999), try_fixing=True) == r(20000)
    assert state.validate_action(Action(CALL, 77)) == C  # a size on a call is dropped
    assert State(LIMIT).validate_action(Action(RAISE, 5)) == r()


def test_fold_is_invalid_with_nothing_owed() -> None:
    state = State(NL)
    assert state.can_fold()
    play(state, C)
    assert not state.can_fold()  # the big blind may check
    assert state.validate_action(F) is None
    assert state.validate_action(F, try_fixing=True) is None


def test_limit_raise_cap_and_sizes() -> None:
    state = State(LIMIT)
    play(state, r(), r(), r())  # the small blind and big blind raise: cap of 3 pre-flop
    assert state.spent == [30, 40]
    assert state.legal_actions().can_raise is False
    assert state.validate_action(r()) is None
    play(state, C)
    assert state.round == 1
    play(state, r(), r(), r(), r())
    assert not state.legal_actions().can_raise  # 4 raises on the flop
    play(state, C)
    assert state.spent == [80, 80]
    play(state, C, r())
    assert state.legal_actions().max_raise_to == 120  # turn bets are 20


def test_three_way_side_pots() -> None:
    # Stacks 100, 300, 1000: two side pots. Player 0 has the best hand, player 1 the second.
    state = nolimit_game("100 300 1000", "10 20 0")
    state.hole_cards = [parse_cards("AsAh"), parse_cards("KsKh"), parse_cards("2c7d")]
    state.board_cards = parse_cards("AdKd3s")
    play(state, r(100), r(300))  # both all in: player 2, the only one left to act, may not raise
    assert state.raise_range() is None
    play(state, C)
    assert state.finished and state.round == 1
    # Main pot 3 x 100 to player 0 (trip aces); side pot 2 x 200 to player 1 (trip kings).
    assert state.values() == [200.0, 100.0, -300.0]


def test_split_pot_gives_fractions() -> None:
    state = nolimit_game("1000 1000 1000", "10 25 0")
    state.hole_cards = [parse_cards("AsKh"), parse_cards("AdKc"), parse_cards("2c3d")]
    state.board_cards = parse_cards("QsJd9h")
    play(state, C, C, C)  # player 0 completes, the big blind checks, player 2 calls
    play(state, C, C, C)
    assert state.finished
    # Everyone put in 25: players 0 and 1 split 75, i.e. +12.5 each.
    assert state.values() == [12.5, 12.5, -25.0]


def test_fold_to_a_bet_hides_cards_and_wins_the_pot() -> None:
    state = State(NL)
    play(state, r(300), F)
    assert state.finished and state.values() == [-100.0, 100.0]
    assert state.num_folded == 1


def test_all_in_skips_to_the_showdown() -> None:
    state = State(NL, 7, [parse_cards("8s2h"), parse_cards("Kd5c")], parse_cards("7hAdTd4sKc"))
    play(state, r(20000), C)
    assert state.finished and state.round == 3
    assert format_state(state) == "STATE:7:r20000c///:8s2h|Kd5c/7hAdTd/4s/Kc"


def test_ten_player_showdown() -> None:
    text = """GAMEDEF
nolimit
numPlayers = 10
numRounds = 4
stack = 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000
blind = 50 100 0 0 0 0 0 0 0 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937

    game = parse_game(text)
    state = deal_hand(game, 0, MT19937(3))
    while not state.finished:
        state.apply(C)
    assert state.round == 3
    values = state.values()
    assert sum(values) == pytest.approx(0)
    assert max(values) > 0 and sum(1 for v in values if v == -100) >= 8


def test_applying_to_a_finished_hand_is_an_error() -> None:
    state = play(State(NL), r(300), F)
    with pytest.raises(ProtocolError, match="the hand is over"):
        state.apply(C)
    with pytest.raises(ProtocolError, match="the hand is over"):
        state.legal_actions()
    assert state.validate_action(C) is None


def test_value_of_an_unfinished_hand_is_an_error() -> None:
    with pytest.raises(ProtocolError, match="not finished"):
        State(NL).value(0)


def test_bad_nolimit_raise_is_an_error_not_a_corruption() -> None:
    state = State(NL)
    with pytest.raises(ProtocolError, match="raise to 50 is not between"):
        state.apply(r(50))


def test_a_game_nobody_can_act_in_is_rejected() -> None:
    with pytest.raises(ProtocolError, match="every player is all in from the blinds"):
        nolimit_game("10 20 30", "10 20 30")


def test_copy_is_independent() -> None:
    state = play(State(NL), r(300))
    other = state.copy()
    play(other, C)
    assert state.round == 0 and other.round == 1
    assert format_state(state) != format_state(other)


@settings(deadline=None)
@given(
    game_name=st.sampled_from(
        ["holdem.nolimit.2p.reverse_blinds", "holdem.nolimit.3p", "holdem.limit.3p", "kuhn.limit.3p", "leduc"]
    ),
    seed=st.integers(0, 2**32 - 1),
    choices=st.lists(st.floats(0, 1), min_size=60, max_size=60),
)
def test_chips_are_conserved(game_name: str, seed: int, choices: list[float]) -> None:
    """Whatever is played, the values of a finished hand sum to zero."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937

    game = load_game(game_name)
    state = deal_hand(game, 0, MT19937(seed))
    for x in choices:
        if state.finished:
            break
        legal = state.legal_actions()
        if legal.can_fold and x < 0.1:
            action = F
        elif legal.can_raise and x > 0.5:
            size = legal.min_raise_to + int((x - 0.5) * 2 * (legal.max_raise_to - legal.min_raise_to))
            action = r(size if game.no_limit else 0)
        else:
            action = C
        play(state, action)
    while not state.finished:
        state.apply(C)
    values = state.values()
    assert sum(values) == pytest.approx(0.0, abs=1e-9)
    assert all(-v <= s for v, s in zip(values, state.spent, strict=True))
