"""One rule for player names, the same for ``acpc-dealer`` and for the runner (``acpc-match``,
``acpc-tournament``, ``play``): printable ASCII without ``|`` and ``:``, the characters that separate
a log line's fields. A control character could plant a line; a non-ASCII one would not read back as
the same name. The commands' own one-line errors are checked in test_hostile_input.py (acpc-dealer)
and test_runner_faults.py (acpc-match)."""

from __future__ import annotations

import pytest

from acpc_arena.dealer.arena.runner import Contestant
from acpc_arena.dealer.cli import UsageError, parse_args
from acpc_arena.dealer.logfiles import check_player_name

ACCEPTED = ["Bot", "a b", "x-1_(v2)", "~!@#$%^&*+=[]{};'\",.<>/?`\\"]
REFUSED = {
    "a|b": "'|'",
    "b:c": "':'",
    "a\tb": "the control character '\\t'",
    "a\nSCORE:1|-1:a|b": "the control character '\\n'",
    "a\x7f": "the control character '\\x7f'",
    "caf\u00e9": "the non-ASCII character '\u00e9'",
    "a\u00a0b": "the non-ASCII character '\\xa0'",
    "\u540d": "the non-ASCII character '\u540d'",
}


def refused_by_dealer(name: str) -> bool:
    try:
        parse_args(["m", "kuhn", "2", "7", name, "b"])
    except UsageError:
        return True
    return False


def refused_by_runner(name: str) -> bool:
    try:
        Contestant("b", agent="call", title=name)  # the log's name: b-<title>
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("name", ACCEPTED)
def test_printable_ascii_names_are_taken_by_both(name: str) -> None:
    check_player_name(name)
    assert not refused_by_dealer(name)
    assert not refused_by_runner(name)


@pytest.mark.parametrize(("name", "what"), REFUSED.items())
def test_what_a_log_cannot_hold_is_refused_by_both_with_its_first_bad_character(name: str, what: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_player_name(name)
    message = str(refused.value)
    assert message == f"player name {name!r} contains {what}: it cannot go in an ACPC log " + (
        "(use printable ASCII without '|' and ':')"
    )
    assert "\n" not in message
    assert refused_by_dealer(name)
    assert refused_by_runner(name)
