"""The ACPC text formats: MATCHSTATE lines, responses, log lines; round trips and bad input."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import (
    MatchStateReader,
    format_action,
    format_log_line,
    format_match_state,
    format_score_line,
    format_state,
    format_value,
    match_states_equal,
    parse_action,
    parse_log_line,
    parse_match_state,
    parse_response,
    parse_score_line,
    parse_state,
)

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
NL = load_game("holdem.nolimit.2p.reverse_blinds")
LIMIT3 = load_game("holdem.limit.3p")

# Server messages from the ACPC protocol document (protocol.md), one game each.
PROTOCOL_EXAMPLES = {
    LIMIT: """MATCHSTATE:0:0::TdAs|
MATCHSTATE:0:0:r:TdAs|
MATCHSTATE:0:0:rr:TdAs|
MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h
MATCHSTATE:0:0:rrc/r:TdAs|/2c8c3h
MATCHSTATE:0:0:rrc/rc/:TdAs|/2c8c3h/9c
MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh
MATCHSTATE:1:1::|Qd7c
MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th
MATCHSTATE:0:2:rc/cc/crf:9d7s|/5d2cJc/3d""",
    NL: """MATCHSTATE:0:30::9s8h|
MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c
MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d
MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c
MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc""",
    LIMIT3: """MATCHSTATE:2:55::||AsTs
MATCHSTATE:2:55:rcc/rfc/rc/rf:||AsTs/4cJh8h/Kd/8c
MATCHSTATE:0:90:crfc/rc/rc/r:Ad6h||/TsKd7h/Kh/6d
MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d""",
}


@pytest.mark.parametrize("game", list(PROTOCOL_EXAMPLES), ids=["limit", "nolimit", "limit3p"])
def test_protocol_document_examples_round_trip(game: Game) -> None:
    for line in PROTOCOL_EXAMPLES[game].splitlines():
        parsed = parse_match_state(line + "\r\n", game)
        assert format_match_state(parsed.state, parsed.viewer) == line


def test_example_states_decode() -> None:
    ms = parse_match_state("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc", NL)
    state = ms.state
    assert ms.viewer == 1 and state.hand_id == 31
    assert state.finished and state.round == 3 and state.spent == [20000, 20000]
    assert [a.size for a in state.actions[1]] == [1800, 3600, 9000, 0]
    ms = parse_match_state("MATCHSTATE:0:90:crfc/rc/rc/r:Ad6h||/TsKd7h/Kh/6d", LIMIT3)
    assert ms.state.current_player == 2 and ms.state.folded == [False, True, False]


def test_responses_accept_every_action_letter() -> None:
    base = "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c"
    for text, action in [("r250", Action(RAISE, 250)), ("R250", Action(RAISE, 250)), ("b250", Action(RAISE, 250))]:
        assert parse_response(f"{base}:{text}\r\n", NL)[1] == action
    for text in ("c", "C", "k", "K"):
        assert parse_response(f"{base}:{text}", NL)[1] == Action(CALL)
    assert parse_response(f"{base}:F", NL)[1] == Action(FOLD)
    assert parse_response("MATCHSTATE:0:0:rr:TdAs|:B", LIMIT)[1] == Action(RAISE)
    assert parse_response("MATCHSTATE:0:0:rr:TdAs|:r250", LIMIT)[1] == Action(RAISE)  # limit: size ignored
    assert format_action(Action(RAISE, 250), NL) == "r250"
    assert format_action(Action(RAISE, 250), LIMIT) == "r"
    assert parse_action("r-5", NL) == Action(RAISE, -5)  # read as the C reader does; the dealer fixes it


def test_responses_with_bad_actions() -> None:
    base = "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c"
    for bad in (f"{base}:x", f"{base}:", f"{base}:r", f"{base}:rabc", base, f"{base}c"):
        with pytest.raises(ProtocolError):
            parse_response(bad, NL)


def test_cards_are_hidden_until_a_showdown_is_reached() -> None:
    holes = [[0, 1], [2, 3], [4, 5]]
    state = State(LIMIT3, 4, holes, [8, 9, 10, 11, 12])
    assert format_match_state(state, 1) == "MATCHSTATE:1:4::|2h2s|"
    for action in (Action(CALL), Action(FOLD), Action(CALL)):  # player 2 acts first; player 0 folds
        state.apply(action)
    while not state.finished:
        state.apply(Action(CALL))
    # At the showdown players 1 and 2 see each other's cards but not the folded player 0's.
    assert format_match_state(state, 1) == "MATCHSTATE:1:4:cfc/cc/cc/cc:|2h2s|3c3d/4c4d4h/4s/5c"
    assert format_match_state(state, 0).endswith(":2c2d|2h2s|3c3d/4c4d4h/4s/5c")
    assert format_state(state).endswith(":2c2d|2h2s|3c3d/4c4d4h/4s/5c")  # the log shows everything
    won = State(NL, 5, [[0, 1], [2, 3]], [8, 9, 10, 11, 12])
    won.apply(Action(FOLD))
    assert format_match_state(won, 0) == "MATCHSTATE:0:5:f:2c2d|"


def test_values_print_like_the_c_dealer() -> None:
    assert format_value(-20000.0) == "-20000"
    assert format_value(15.5) == "15.5"
    assert format_value(0.0) == "0"
    assert format_value(100 / 3) == "33.333333"
    assert format_value(-12.125) == "-12.125"
    assert format_score_line([-20000, 20000.5], ["Alice", "Bob"]) == "SCORE:-20000|20000.5:Alice|Bob"
    assert parse_score_line("SCORE:-20000|20000.5:Alice|Bob\n", 2).totals == (-20000.0, 20000.5)


def test_log_line_from_the_reference() -> None:
    line = "STATE:0:r19220r20000c///:8s2h|Kd5c/7hAdTd/4s/Kc:-20000|20000:Alice|Bob"
    hand = parse_log_line(line, NL)
    assert hand.values == (-20000.0, 20000.0) and hand.names == ("Alice", "Bob")
    assert hand.state.values() == [-20000.0, 20000.0]
    assert format_log_line(hand.state, hand.values, hand.names) == line


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "MATCHSTATE",
        "MATCHSTATE:",
        "MATCHSTATE:2:0::TdAs|",  # position out of range
        "MATCHSTATE:x:0::TdAs|",
        "MATCHSTATE:0:x::TdAs|",
        "MATCHSTATE:0:0:TdAs|",  # no betting field
        "MATCHSTATE:0:0:q:TdAs|",  # not an action
        "MATCHSTATE:0:0:rrrr:TdAs|",  # a fourth raise pre-flop
        "MATCHSTATE:0:0:f:TdAs|",  # fold with nothing owed... by the small blind? no: owed; see below
        "MATCHSTATE:0:0:cf:TdAs|",  # the big blind folds when it could check
        "MATCHSTATE:0:0::Td|",  # one hole card of two
        "MATCHSTATE:0:0:rrc/:TdAs|/2c8c",  # two flop cards of three
        "MATCHSTATE:0:0::TdTd|",  # a card twice
        "MATCHSTATE:0:0::TdAs|junk",
        "MATCHSTATE:0:0::1dAs|",
        "MATCHSTATE:0:4294967296::TdAs|",
    ],
)
def test_malformed_states_raise_protocol_error(bad: str) -> None:
    if bad == "MATCHSTATE:0:0:f:TdAs|":
        assert parse_match_state(bad, LIMIT).state.finished  # the small blind owes 5: folding is valid
        return
    with pytest.raises(ProtocolError):
        parse_match_state(bad, LIMIT)


def test_nolimit_betting_errors() -> None:
    for bad in ("MATCHSTATE:0:0:r150:9s8h|", "MATCHSTATE:0:0:r20001:9s8h|", "MATCHSTATE:0:0:r:9s8h|"):
        with pytest.raises(ProtocolError):
            parse_match_state(bad, NL)


@settings(deadline=None)
@given(text=st.text(alphabet="MATCHSTE:0123456789/|rcfkbAKQJT98765432cdhs \r\n-", max_size=60))
def test_arbitrary_text_never_crashes(text: str) -> None:
    for game in (LIMIT, NL):
        for parse in (parse_match_state, parse_state):
            with contextlib.suppress(ProtocolError):
                parse(text, game)
        with contextlib.suppress(ProtocolError):
            parse_response(text, game)


def _random_hand(game_name: str, seed: int, choices: list[float]) -> list[State]:
    """A random hand, with a copy of the state after every action."""
    game = load_game(game_name)
    state = deal_hand(game, seed % 1000, MT19937(seed))
    states = [state.copy()]
    for x in choices:
        if state.finished:
            break
        legal = state.legal_actions()
        if legal.can_fold and x < 0.1:
            action = Action(FOLD)
        elif legal.can_raise and x > 0.55:
            span = legal.max_raise_to - legal.min_raise_to
            action = Action(RAISE, legal.min_raise_to + int((x - 0.55) / 0.45 * span) if game.no_limit else 0)
        else:
            action = Action(CALL)
        state.apply(action)
        states.append(state.copy())
    return states


@settings(max_examples=50, deadline=None)
@given(
    game_name=st.sampled_from(SHIPPED_GAMES),
    seed=st.integers(0, 2**32 - 1),
    choices=st.lists(st.floats(0, 1), min_size=40, max_size=40),
)
def test_every_printed_state_parses_back(game_name: str, seed: int, choices: list[float]) -> None:
    game = load_game(game_name)
    readers = [MatchStateReader(game) for _ in range(game.num_players)]
    for state in _random_hand(game_name, seed, choices) + _random_hand(game_name, seed + 1, choices[::-1]):
        for viewer in range(game.num_players):
            line = format_match_state(state, viewer)
            parsed = parse_match_state(line, game)
            incremental = readers[viewer].parse(line)  # replays only what is new since its last line
            assert format_match_state(incremental.state, viewer) == line
            assert incremental.state.current_player == parsed.state.current_player
            assert format_match_state(parsed.state, parsed.viewer) == line
            assert match_states_equal(parsed, parsed._replace(state=state))
            assert parsed.state.current_player == state.current_player
            assert parsed.state.spent == state.spent
        text = format_state(state)
        assert format_state(parse_state(text, game)) == text
        if state.finished:
            line = format_log_line(state, state.values(), [f"p{i}" for i in range(game.num_players)])
            hand = parse_log_line(line, game)
            assert format_log_line(hand.state, hand.values, hand.names) == line
            assert hand.state.values() == list(hand.values)


def test_match_states_equal_notices_every_difference() -> None:
    ms = parse_match_state("MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c", NL)
    same = parse_match_state("MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c", NL)
    assert match_states_equal(ms, same)
    for other in (
        "MATCHSTATE:1:30:cc/r250:|9s8h/8c8d5c",
        "MATCHSTATE:0:31:cc/r250:9s8h|/8c8d5c",
        "MATCHSTATE:0:30:cc/r251:9s8h|/8c8d5c",
        "MATCHSTATE:0:30:cc/r250:9s8d|/8c8h5c",
        "MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5d",
        "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c",
    ):
        assert not match_states_equal(ms, parse_match_state(other, NL)), other
    # The C reader ignores '/' in the betting and takes missing separators between cards.
    assert match_states_equal(ms, parse_match_state("MATCHSTATE:0:30:ccr250:9s8h/8c8d5c", NL))


def test_incremental_reader_falls_back_when_a_line_does_not_extend_the_last() -> None:
    reader = MatchStateReader(NL)
    for line in (
        "MATCHSTATE:0:30:r200:9s8h|",
        "MATCHSTATE:0:30:r2000:9s8h|",  # not r200 plus more: a different raise
        "MATCHSTATE:0:30:r2000c/:9s8h|/8c8d5c",
        "MATCHSTATE:1:31::|JdTc",  # a new hand
        "MATCHSTATE:1:31:r300:|JdTc",
    ):
        assert format_match_state(reader.parse(line).state, int(line.split(":")[1])) == line
    with pytest.raises(ProtocolError):
        reader.parse("MATCHSTATE:1:31:r300r100:|JdTc")  # an invalid raise after a good prefix
    with pytest.raises(ProtocolError):
        reader.parse("MATCHSTATE:1:31:r300c/:|JdTc/8c8d")  # too few flop cards


def test_incremental_reader_hands_out_states_the_caller_cannot_change_it_through() -> None:
    """An agent that explores on the state it was given (applies actions, edits cards) changes nothing for the
    reader: each next line reads as it would on its own."""
    reader = MatchStateReader(LIMIT)
    lines = PROTOCOL_EXAMPLES[LIMIT].splitlines()[:7]  # one hand, each line extending the last
    for line in lines:
        state = reader.parse(line).state
        assert format_match_state(state, 0) == line
        if not state.finished:
            state.apply(Action(RAISE) if state.raise_range() else Action(CALL))
        state.hole_cards[0] = []
        state.board_cards.clear()
        state.spent[0] += 100
        state.actions[0].append(Action(FOLD))
    reader.parse(lines[5])  # a line that fails after a good prefix leaves nothing half-read behind
    with pytest.raises(ProtocolError):
        reader.parse("MATCHSTATE:0:0:rrc/rc/rrrrr:TdAs|/2c8c3h/9c")  # a fifth raise on the turn
    assert format_match_state(reader.parse(lines[6]).state, 0) == lines[6]
