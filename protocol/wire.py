"""The ACPC text formats: ``MATCHSTATE`` messages, client responses, log lines.

Reading follows the ACPC server's ``readMatchState``/``readState``/``readAction``
(actions ``f c r b k`` in either case, ``/`` separators in the betting ignored,
``|`` and ``/`` separators between cards optional); printing follows its
``printMatchState``/``printState``/``printAction`` (``f c r`` only). Every
well-formed line printed here parses back to an equal state, and every
canonical line parsed prints back identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from acpc_arena.protocol.cards import CARD_STRINGS, read_cards
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import (
    CALL_ACTION,
    FOLD,
    FOLD_ACTION,
    LIMIT_RAISE_ACTION,
    RAISE,
    Action,
    State,
)

MATCHSTATE_PREFIX: Final = "MATCHSTATE:"
"""What every state sent to a player starts with."""
VERSION_PREFIX: Final = "VERSION:"
"""What the first line a player sends starts with (``VERSION:2.0.0``)."""

_ACTION_OF_CHAR: Final = {
    char: action
    for chars, action in (("fF", FOLD_ACTION), ("cCkK", CALL_ACTION), ("rRbB", LIMIT_RAISE_ACTION))
    for char in chars
}
"""The action each letter stands for, as read in a limit game (a no-limit raise has a size)."""
_DIGITS: Final = "0123456789"
_C_SPACE: Final = " \t\n\v\f\r"
"""The characters C's ``isspace`` accepts, which ``sscanf`` skips before a number."""
_CARD_TEXT: Final = CARD_STRINGS
"""``CARD_STRINGS``, final here (compiled: a constant, not a name looked up)."""


class MatchState(NamedTuple):
    """A state as one player sees it: ``viewer`` is that player's position in the hand."""

    viewer: int
    state: State


class LogHand(NamedTuple):
    """One ``STATE:`` line of an ACPC log: the finished hand, values and names by position.

    ``path`` and ``line`` say where it was read (set by ``acpc_log.AcpcLogReader``; empty
    and 0 for a line parsed on its own).
    """

    state: State
    values: tuple[float, ...]
    names: tuple[str, ...]
    path: str = ""
    line: int = 0


class Score(NamedTuple):
    """The ``SCORE:`` line: totals and names by seat."""

    totals: tuple[float, ...]
    names: tuple[str, ...]


# -- printing ----------------------------------------------------------------


def format_action(action: Action, game: Game) -> str:
    """``f``, ``c``, ``r`` or (no-limit) ``r<size>``."""
    return action_text(action, game.no_limit)


def action_text(action: Action, no_limit: bool) -> str:
    """``format_action`` in a no-limit game or not (``State.rules.no_limit``: read without the game)."""
    kind = action.kind
    if kind is RAISE:
        return f"r{action.size}" if no_limit else "r"
    return "f" if kind is FOLD else "c"


def format_betting(state: State) -> str:
    """The betting of every round so far, rounds separated by ``/``."""
    no_limit = state.rules.no_limit
    actions = state.actions
    return "/".join(["".join([action_text(a, no_limit) for a in actions[r]]) for r in range(state.round + 1)])


def _cards_text(cards: list[int]) -> str:
    return "".join([_CARD_TEXT[c] for c in cards])


def _board_texts(state: State) -> list[str]:
    """The board's text as each round shows it (every round's cards so far, separated by ``/``)."""
    starts, cards = state.rules.board_start, _cards_text(state.board_cards)  # two letters a card
    text = cards[: 2 * starts[1]]
    texts = [text]
    for r in range(1, state.rules.num_rounds):
        text = f"{text}/{cards[2 * starts[r] : 2 * starts[r + 1]]}"
        texts.append(text)
    return texts


def shows_cards(state: State, player: int, viewer: int) -> bool:
    """Whether ``viewer`` sees ``player``'s hole cards: their own, or at a showdown they reach."""
    if player == viewer:
        return True
    if not state.finished or state.folded[player]:
        return False
    return state.num_folded + 1 != state.rules.num_players


def format_match_state(state: State, viewer: int, betting: str | None = None) -> str:
    """``MATCHSTATE:<viewer>:<hand>:<betting>:<cards>`` as ``viewer`` sees the hand."""
    return MatchStatePrinter(state).line(viewer, format_betting(state) if betting is None else betting)


class MatchStatePrinter:
    """Prints one hand's ``MATCHSTATE`` lines for every viewer, reusing the card text.

    The dealer prints a line per seat after every action; the hole-card and board
    text of a hand changes only with the round and at the end, so it is built once.
    """

    __slots__ = ("_boards", "_heads", "_holes", "_own_views", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        holes = [_cards_text(cards) for cards in state.hole_cards]
        self._holes = holes
        last = len(holes) - 1
        self._own_views = ["|" * viewer + holes[viewer] + "|" * (last - viewer) for viewer in range(last + 1)]
        """Each viewer's hole cards among the others' empty fields."""
        self._boards = _board_texts(state)
        hand = f":{state.hand_id}:"
        self._heads = [f"{MATCHSTATE_PREFIX}{viewer}{hand}" for viewer in range(last + 1)]
        """Each viewer's line up to the betting."""

    def line(self, viewer: int, betting: str, end: str = "") -> str:
        """``viewer``'s line, ``betting`` its betting text (``format_betting``), then ``end`` (``"\\r\\n"``, say)."""
        state = self.state
        if state.finished:
            holes = "|".join([text if shows_cards(state, p, viewer) else "" for p, text in enumerate(self._holes)])
        else:
            holes = self._own_views[viewer]
        return f"{self._heads[viewer]}{betting}:{holes}{self._boards[state.round]}{end}"

    def log_line(self, betting: str, values: Sequence[float], names: Sequence[str]) -> str:
        """The hand's log line (``format_log_line``), ``betting`` its betting text (``format_betting``)."""
        state = self.state
        cards = f"{'|'.join(self._holes)}{self._boards[state.round]}"
        return f"STATE:{state.hand_id}:{betting}:{cards}:{_values_text(values)}:{'|'.join(names)}"


def format_state(state: State) -> str:
    """``STATE:<hand>:<betting>:<all hole cards><board>``, every card shown (the log's view)."""
    holes = "|".join([_cards_text(cards) for cards in state.hole_cards])
    return f"STATE:{state.hand_id}:{format_betting(state)}:{holes}{_board_texts(state)[state.round]}"


def format_value(value: float) -> str:
    """``%.6f`` with trailing zeros and a trailing point removed (``-20000``, ``15.5``)."""
    if value % 1.0 == 0.0 and value != 0.0:  # a whole number (not inf, nan or a zero, which may be -0): its digits
        return str(int(value))
    text = f"{value:.6f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


def _values_text(values: Sequence[float]) -> str:
    return "|".join([format_value(value) for value in values])


def format_log_line(state: State, values: Sequence[float], names: Sequence[str]) -> str:
    """A log ``STATE:`` line: the finished state, each position's value and name."""
    return f"{format_state(state)}:{_values_text(values)}:{'|'.join(names)}"


def format_score_line(totals: Sequence[float], names: Sequence[str]) -> str:
    """``SCORE:<total seat 1>|...:<name seat 1>|...``."""
    return f"SCORE:{_values_text(totals)}:{'|'.join(names)}"


# -- reading -----------------------------------------------------------------


def _read_uint(text: str, pos: int, what: str) -> tuple[int, int]:
    end = pos
    while end < len(text) and text[end] in _DIGITS:
        end += 1
    if end == pos:
        raise ProtocolError(f"expected {what} at position {pos} of {text!r}")
    if end - pos > 10 and len(text[pos:end].lstrip("0")) > 10:  # past 32 bits (and int() refuses 4300 digits)
        raise ProtocolError(f"{what} of {end - pos} digits at position {pos} is out of range")
    return int(text[pos:end]), end


def read_action(text: str, pos: int, game: Game) -> tuple[Action, int]:
    """Read one action at ``text[pos:]``; returns it and the index after it.

    As the ACPC ``readAction``: one of ``fcrbk`` in either case; a no-limit raise is
    followed by its raise-to size (an optionally signed integer, after optional
    white space, read into 32 bits as ``sscanf`` reads it); a limit raise takes
    no size.
    """
    action = _ACTION_OF_CHAR.get(text[pos : pos + 1])
    if action is None:
        raise ProtocolError(f"expected an action (one of fcrbk) at position {pos} of {text!r}")
    pos += 1
    if action.kind is not RAISE or not game.no_limit:
        return action, pos
    start = pos
    while pos < len(text) and text[pos] in _C_SPACE:
        pos += 1
    negative = False
    if pos < len(text) and text[pos] in "+-":
        negative = text[pos] == "-"
        pos += 1
    digits = pos
    while pos < len(text) and text[pos] in _DIGITS:
        pos += 1
    if pos == digits:
        raise ProtocolError(f"expected a raise size at position {start} of {text!r}")
    return Action(RAISE, c_scanned_int32(text[digits:pos], negative)), pos


def c_scanned_int32(digits: str, negative: bool) -> int:
    """What glibc's ``sscanf("%d")`` stores in an ``int32_t`` for these digits and sign.

    It converts with ``strtol``, which saturates at the 64-bit ``long`` range, and the
    result is then truncated to 32 bits: ``2147483648`` becomes ``-2147483648``,
    ``-2147483649`` becomes ``2147483647`` and anything past 64 bits becomes ``-1``
    (or ``0`` when negative). The ACPC server reads raise sizes this way.
    """
    significant = digits.lstrip("0")
    if len(significant) > 19:  # past any 64-bit value: saturate without converting
        value = -(2**63) if negative else 2**63 - 1
    else:
        value = -int(significant or "0") if negative else int(significant or "0")
        value = max(-(2**63), min(2**63 - 1, value))
    return (value + 2**31) % 2**32 - 2**31


def parse_action(text: str, game: Game) -> Action:
    """One action and nothing else, e.g. ``r250`` or ``c``."""
    action, end = read_action(text, 0, game)
    if end != len(text):
        raise ProtocolError(f"unexpected text after the action in {text!r}")
    return action


def _read_state_body(text: str, pos: int, game: Game) -> tuple[State, int]:
    """``:<hand>:<betting>:<cards>`` starting at ``text[pos]`` (the ACPC ``readStateCommon``)."""
    if text[pos : pos + 1] != ":":
        raise ProtocolError(f"expected ':' at position {pos} of {text!r}")
    hand_id, pos = _read_uint(text, pos + 1, "a hand number")
    if hand_id > 0xFFFFFFFF:
        raise ProtocolError(f"hand number {hand_id} is out of range in {text!r}")
    if text[pos : pos + 1] != ":":
        raise ProtocolError(f"expected ':' after the hand number in {text!r}")
    state = State(game, hand_id)
    pos = _read_betting(text, pos + 1, state)
    return state, _read_cards(text, pos, state)


def _read_betting(text: str, pos: int, state: State) -> int:
    """Apply the actions at ``text[pos:]`` up to the ``:`` that ends the betting; returns the index after it."""
    game = state.game
    end = len(text)
    while True:
        if pos >= end:
            raise ProtocolError(f"expected ':' after the betting in {text!r}")
        char = text[pos]
        if char == ":":
            return pos + 1
        if char == "/":
            pos += 1
            continue
        action, pos = read_action(text, pos, game)
        valid = state.validate_action(action)
        if valid is None:
            raise ProtocolError(f"invalid action {format_action(action, game)!r} in the betting of {text!r}")
        state.apply(valid)


def _read_cards(text: str, pos: int, state: State) -> int:
    """Read the hole cards and the board so far into ``state``; returns the index after them."""
    game = state.game
    for p in range(game.num_players):
        if p and text[pos : pos + 1] == "|":
            pos += 1
        cards, pos = read_cards(text, pos, game.num_hole_cards)
        if cards and len(cards) != game.num_hole_cards:
            raise ProtocolError(
                f"player {p} has {len(cards)} hole cards, the game deals {game.num_hole_cards}: {text!r}"
            )
        state.hole_cards[p] = cards
    board: list[int] = []
    for r in range(state.round + 1):
        if r and text[pos : pos + 1] == "/":
            pos += 1
        cards, pos = read_cards(text, pos, game.num_board_cards[r])
        if len(cards) != game.num_board_cards[r]:
            raise ProtocolError(f"round {r + 1} needs {game.num_board_cards[r]} board cards: {text!r}")
        board.extend(cards)
    state.board_cards = board
    return pos


def read_match_state(text: str, game: Game) -> tuple[MatchState, int]:
    """Read a ``MATCHSTATE`` at the start of ``text``; returns it and the index after it."""
    if not text.startswith(MATCHSTATE_PREFIX):
        raise ProtocolError(f"expected {MATCHSTATE_PREFIX!r} at the start of {text!r}")
    viewer, pos = _read_uint(text, len(MATCHSTATE_PREFIX), "a position")
    if viewer >= game.num_players:
        raise ProtocolError(f"position {viewer} is out of range for {game.num_players} players: {text!r}")
    state, pos = _read_state_body(text, pos, game)
    _check_distinct_cards(state, text)
    return MatchState(viewer, state), pos


def _check_distinct_cards(state: State, text: str) -> None:
    seen = [c for cards in state.hole_cards for c in cards] + state.board_cards
    deck = state.game.deck
    if len(set(seen)) != len(seen) or any(c not in deck for c in seen):
        raise ProtocolError(f"cards repeated or not in this game's deck: {text!r}")


def parse_match_state(text: str, game: Game) -> MatchState:
    """A whole ``MATCHSTATE`` line (a trailing ``\\r\\n`` is allowed)."""
    text = text.rstrip("\r\n")
    match_state, end = read_match_state(text, game)
    if end != len(text):
        raise ProtocolError(f"unexpected text after the state in {text!r}")
    return match_state


class MatchStateReader:
    """Reads one player's stream of ``MATCHSTATE`` lines.

    Each line repeats the hand's whole betting; when a line extends the previous
    line's betting, only the new actions are replayed (an agent's usual case: one
    or two actions per line). The reader replays onto a state of its own and hands
    out a copy, so whatever the caller does with a returned state, the next line
    reads the same.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._head = ""
        self._betting = ""
        self._state: State | None = None

    def parse(self, text: str) -> MatchState:
        text = text.rstrip("\r\n")
        viewer_end = text.find(":", len(MATCHSTATE_PREFIX))
        hand_end = text.find(":", viewer_end + 1) if viewer_end > 0 else -1
        betting_end = text.find(":", hand_end + 1) if hand_end > 0 else -1
        if betting_end < 0 or self._state is None or text[: hand_end + 1] != self._head:
            return self._parse_whole(text, hand_end, betting_end)
        betting = text[hand_end + 1 : betting_end]
        known = self._betting
        if not betting.startswith(known) or (len(betting) > len(known) and betting[len(known)] in _DIGITS):
            return self._parse_whole(text, hand_end, betting_end)
        state = self._state
        self._state = None  # until the line is read whole: a bad line leaves nothing half-applied to continue from
        pos = _read_betting(text, hand_end + 1 + len(known), state)
        pos = _read_cards(text, pos, state)
        if pos != len(text):
            raise ProtocolError(f"unexpected text after the state in {text!r}")
        _check_distinct_cards(state, text)
        self._betting, self._state = betting, state
        return MatchState(int(text[len(MATCHSTATE_PREFIX) : viewer_end]), state.copy())

    def _parse_whole(self, text: str, hand_end: int, betting_end: int) -> MatchState:
        match_state = parse_match_state(text, self.game)
        self._head = text[: hand_end + 1]
        self._betting = text[hand_end + 1 : betting_end]
        self._state = match_state.state.copy()
        return match_state


def parse_response(text: str, game: Game) -> tuple[MatchState, Action]:
    """A client's reply ``<MATCHSTATE ...>:<action>``; text after the action is ignored, as by the ACPC server."""
    text = text.rstrip("\r\n")
    match_state, pos = read_match_state(text, game)
    if text[pos : pos + 1] != ":":
        raise ProtocolError(f"expected ':' and an action after the state in {text!r}")
    action, _ = read_action(text, pos + 1, game)
    return match_state, action


def match_states_equal(a: MatchState, b: MatchState) -> bool:
    """The ACPC ``matchStatesEqual``: same viewer, hand, betting, board so far and viewer's cards."""
    if a.viewer != b.viewer:
        return False
    sa, sb = a.state, b.state
    if sa.hand_id != sb.hand_id or sa.round != sb.round:
        return False
    if sa.actions[: sa.round + 1] != sb.actions[: sb.round + 1]:
        return False
    visible = sa.game.board_cards_after(sa.round)
    if sa.board_cards[:visible] != sb.board_cards[:visible]:
        return False
    return sa.hole_cards[a.viewer] == sb.hole_cards[b.viewer]


def parse_state(text: str, game: Game) -> State:
    """A whole ``STATE:<hand>:<betting>:<cards>`` string."""
    if not text.startswith("STATE"):
        raise ProtocolError(f"expected 'STATE' at the start of {text!r}")
    state, end = _read_state_body(text, len("STATE"), game)
    if end != len(text):
        raise ProtocolError(f"unexpected text after the state in {text!r}")
    _check_distinct_cards(state, text)
    return state


def _parse_values(text: str, count: int, line: str) -> tuple[float, ...]:
    parts = text.split("|")
    if len(parts) != count:
        raise ProtocolError(f"expected {count} values in {line!r}")
    try:
        return tuple(float(p) for p in parts)
    except ValueError:
        raise ProtocolError(f"values are not numbers in {line!r}") from None


def parse_log_line(line: str, game: Game) -> LogHand:
    """A log ``STATE:...:<values>:<names>`` line."""
    line = line.rstrip("\r\n")
    if not line.startswith("STATE"):
        raise ProtocolError(f"not a log STATE line: {line!r}")
    state, pos = _read_state_body(line, len("STATE"), game)
    _check_distinct_cards(state, line)
    rest = line[pos:]
    if not rest.startswith(":"):
        raise ProtocolError(f"expected ':' and values after the state in {line!r}")
    values_text, sep, names_text = rest[1:].partition(":")
    if not sep:
        raise ProtocolError(f"expected ':' and names after the values in {line!r}")
    values = _parse_values(values_text, game.num_players, line)
    names = tuple(names_text.split("|"))
    if len(names) != game.num_players:
        raise ProtocolError(f"expected {game.num_players} names in {line!r}")
    return LogHand(state, values, names)


def parse_score_line(line: str, num_players: int) -> Score:
    """The ``SCORE:<totals>:<names>`` line."""
    line = line.rstrip("\r\n")
    if not line.startswith("SCORE:"):
        raise ProtocolError(f"not a SCORE line: {line!r}")
    values_text, sep, names_text = line[len("SCORE:") :].partition(":")
    if not sep:
        raise ProtocolError(f"expected ':' and names in {line!r}")
    names = tuple(names_text.split("|"))
    if len(names) != num_players:
        raise ProtocolError(f"expected {num_players} names in {line!r}")
    return Score(_parse_values(values_text, num_players, line), names)
