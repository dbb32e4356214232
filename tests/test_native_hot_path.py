"""What the hot path (``protocol.native``) does once a hand rather than once an action: the per-game rules
``State`` reads, the deal's Mersenne Twister drawn 624 words at a time, the log line the dealer prints from
its hand's printer, the value formatting, and a hand's last states held for the seat's next send.

Expected values are computed here independently: the C dealer's ``%.6f`` printing with the zeros cut, the
log line assembled field by field from the state's cards and actions, numpy's MT19937 stream.
"""

from __future__ import annotations

import decimal
import random

import numpy as np
import pytest

from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver
from acpc_arena.protocol.cards import cards_to_str
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game, parse_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State, rules_of
from acpc_arena.protocol.wire import MatchStatePrinter, format_betting, format_log_line, format_value


def c_value(value: float) -> str:
    """The C dealer's ``%.6f`` (the binary value exactly, rounded half to even at the sixth decimal, as glibc's
    printf rounds it), its trailing zeros and then a bare point cut."""
    with decimal.localcontext() as context:
        context.prec = 80
        exact = decimal.Decimal(value).quantize(decimal.Decimal("0.000001"), rounding=decimal.ROUND_HALF_EVEN)
    text = f"{exact:f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


@pytest.mark.parametrize(
    "value", [0.0, -0.0, 1.0, -1.0, 20000.0, -20000.0, 15.5, -2.25, 1 / 3, -2 / 3, 2.0**60, -1e22, 1e-7, 12345.000001]
)
def test_values_are_printed_as_the_c_dealer_prints_them(value: float) -> None:
    assert format_value(value) == c_value(value)


def test_the_rules_of_a_game_are_read_once_and_are_its_own() -> None:
    game = load_game("holdem.nolimit.3p")
    rules = rules_of(game)
    assert rules_of(game) is rules and State(game).rules is rules
    assert (rules.stack, rules.blind, rules.first_player) == (list(game.stack), list(game.blind), [2, 0, 0, 0])
    assert (rules.num_players, rules.num_rounds, rules.no_limit, rules.start_max_spent) == (3, 4, True, 100)
    again = parse_game(game.to_text())  # an equal game, another object: rules of its own
    assert again == game and rules_of(again) is not rules and rules_of(again).game is again


def test_a_deal_drawn_across_the_twist_of_624_words_is_numpy_s_stream() -> None:
    ours, reference = MT19937(99), np.random.RandomState(99)._bit_generator
    assert [ours.genrand_int32() for _ in range(624 * 3 + 5)] == [int(reference.random_raw()) for _ in range(1877)]
    assert ours.genrand_real2() == int(reference.random_raw()) / 2**32


def _log_line_by_hand(state: State, values: list[float], names: list[str]) -> str:
    """The log's ``STATE`` line assembled field by field (the ACPC ``printState`` with every card shown)."""
    game = state.game

    def text(action: Action) -> str:
        return f"r{action.size}" if action.kind is RAISE and game.no_limit else "fcr"[action.kind]

    rounds = ["".join(map(text, state.actions[r])) for r in range(state.round + 1)]
    holes = "|".join(cards_to_str(cards) for cards in state.hole_cards)
    starts = game.board_start
    board = "/".join(cards_to_str(state.board_cards[starts[r] : starts[r + 1]]) for r in range(state.round + 1))
    return f"STATE:{state.hand_id}:{'/'.join(rounds)}:{holes}{board}:{'|'.join(map(c_value, values))}:{'|'.join(names)}"


def _played(game: Game, hand_id: int, deals: MT19937, choice: random.Random) -> State:
    state = deal_hand(game, hand_id, deals)
    while not state.finished:
        bounds = state.raise_range()
        x = choice.random()
        if x < 0.15 and state.can_fold():
            state.apply(FOLD_ACTION)
        elif x < 0.55 or bounds is None:
            state.apply(CALL_ACTION)
        else:
            state.apply(Action(RAISE, choice.randint(*bounds)) if game.no_limit else LIMIT_RAISE_ACTION)
    return state


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_the_dealer_s_log_line_from_its_printer_is_the_state_field_by_field(name: str) -> None:
    game = load_game(name)
    deals, choice = MT19937(3), random.Random(3)
    names = [f"p{p}" for p in range(game.num_players)]
    for hand_id in range(300):
        state = _played(game, hand_id, deals, choice)
        values = state.values()
        assert values == [state.value(p) for p in range(game.num_players)]
        expected = _log_line_by_hand(state, values, names)
        assert MatchStatePrinter(state).log_line(format_betting(state), values, names) == expected
        assert format_log_line(state, values, names) == expected


class _Reading(MatchObserver):
    wants_messages = True


@pytest.mark.parametrize(("observer", "held_at_the_end"), [(None, True), (_Reading(), False)])
def test_a_hand_s_last_states_wait_for_the_seat_s_next_send_unless_the_observer_reads_them(
    observer: MatchObserver | None, held_at_the_end: bool
) -> None:
    """Kuhn, both seats calling: each hand ends at its second action, and every seat is sent its last state."""
    engine = MatchEngine(MatchConfig("m", load_game("kuhn.limit.2p"), "kuhn.limit.2p", 2, 7, ("a", "b")), observer)
    for seat in (0, 1):
        engine.version_received(seat, b"VERSION:2.0.0\r\n")
    engine.start(0.0)
    ends = 0
    while not engine.over:
        messages = engine.messages()
        for seat, _, _, noted in messages:
            if noted:
                engine.sent(seat, 0.0, 0.0)
        asked = engine.next_reply()
        if asked is None:
            ends += 1
            assert [held for _, _, held, _ in messages] == [held_at_the_end] * 2
            assert all(b":cc:" in data for _, data, _, _ in messages)  # the hand's last state, to every seat
            engine.next_hand()
            continue
        assert [held for _, _, held, _ in messages] == [False, False]  # unbatched: every other state goes at once
        question = next(data for seat, data, _, _ in messages if seat == asked[0])
        assert engine.receive(question.rstrip(b"\r\n") + b":c\r\n", 0.0, 0.0)
    assert ends == 2
