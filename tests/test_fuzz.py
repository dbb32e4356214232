"""Bounded random fuzzing of the dealer's input: player lines and game files.

Player lines: a hostile seat answers every turn with a few random lines (random
bytes, non-ASCII text, near-valid actions, damaged echoes of its state, huge
numbers, control characters, comments) and then its state echoed with a random
action text; now and then it sends a line over 4096 bytes, hangs up, or opens with
a damaged ``VERSION``. The other seats play random legal actions. Every match must
end by itself (no hang, no exception), the well-behaved seats must have seen every
logged hand to its end, every log line must parse, each hand's values must equal
OpenSpiel's ``universal_poker`` payoffs for the logged cards and betting, and the
``SCORE`` line must be the sum of those values by name. The bulk runs in-process
over memory streams, a subset against the real ``acpc-dealer`` over TCP. Seeds are
fixed; ``make test-slow`` runs many more lines.

Game files: the shipped definitions, damaged at random, must each either parse or
be refused with a ``ProtocolError`` naming the file (and the line, when one line
is at fault), never another exception. Those that parse are played in OpenSpiel
(the ACPC ``game.c``) and must give the same rules.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import SHIPPED_GAMES, Game, load_game, parse_game, resolve_game_path
from acpc_arena.protocol.state import CALL, FOLD, State
from acpc_arena.protocol.wire import (
    LogHand,
    MatchStateReader,
    format_betting,
    parse_log_line,
    parse_match_state,
    parse_score_line,
)
from tests.conftest import OpenSpielGames
from tests.helpers.processes import (
    REPO,
    Outcome,
    ScriptedPlayer,
    dealer_args,
    play_scripted,
    program,
    read_ports,
    spawn,
)

# -- random lines ----------------------------------------------------------------

NON_ASCII = (
    "\u00e9\u00b2\u00b3\u00b9\u00bd\u00a0\u0085\u00ff\u0100\u0660\u0663\u06f5\u0966\uff10\uff13\u2003\u2028"
    "\u200b\ufeff\u540d\u8a66\U0001f0a1\U0001f600\u0131\u0130\u017f\u212a"
)
CONTROL = "".join(map(chr, [*range(0, 10), *range(11, 32), 127]))
C_SPACE = " \t\v\f\r"
ACTION_LETTERS = "fcrbkFCRBK"


def _text(rng: random.Random, pool: str, most: int) -> str:
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, most)))


def _digits(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return str(rng.randint(0, 25000))
    if kind < 0.6:
        return str(rng.choice([2**31 - 1, 2**31, 2**32, 2**32 + 300, 2**63 - 1, 2**63, 2**64 + 5]))
    if kind < 0.75:
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(20, 80)))
    if kind < 0.85:
        return "0" * rng.randint(1, 40) + str(rng.randint(0, 999))
    return _text(rng, "0123456789_\u0660\u0663\uff13\u00b2.eExX+-", 8)


def random_action(rng: random.Random) -> str:
    """Action text after the ``:``: mostly near-valid, sometimes anything."""
    kind = rng.random()
    if kind < 0.25:
        return rng.choice(ACTION_LETTERS)
    if kind < 0.6:
        space = _text(rng, C_SPACE, 3) if rng.random() < 0.3 else ""
        sign = rng.choice(["", "", "", "+", "-"])
        return (
            rng.choice("rRbB") + space + sign + _digits(rng) + (_text(rng, "fcr:/ x", 3) if rng.random() < 0.1 else "")
        )
    if kind < 0.75:
        return rng.choice(ACTION_LETTERS) + _text(rng, NON_ASCII + CONTROL.replace("\n", ""), 4)
    if kind < 0.9:
        return _text(rng, NON_ASCII + ACTION_LETTERS + "0123456789:/|", 10)
    return ""


def _damaged(rng: random.Random, state: str) -> str:
    """``state`` with a few characters replaced, inserted or deleted."""
    chars = list(state)
    pool = NON_ASCII + CONTROL.replace("\n", "") + "0123456789:|/cfrAKQJT98s2hd" + C_SPACE
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars) + 1)
        edit = rng.random()
        if edit < 0.4 and at < len(chars):
            chars[at] = rng.choice(pool)
        elif edit < 0.7:
            chars.insert(at, rng.choice(pool))
        elif at < len(chars):
            del chars[at]
    return "".join(chars)


def random_line(rng: random.Random, state: str) -> bytes:
    """One random line (without its end), of one of the hostile classes."""
    kind = rng.randrange(8)
    if kind == 0:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 120))).replace(b"\n", b"")
    if kind == 1:  # non-ASCII text, alone or after the state
        text = _text(rng, NON_ASCII + "abc:|/ ", 30)
        return ((state + ":" + text) if rng.random() < 0.5 else text).encode()
    if kind == 2:  # near-valid action
        return (state + ":" + random_action(rng)).encode()
    if kind == 3:  # damaged echo
        return (_damaged(rng, state) + ":" + random_action(rng)).encode()
    if kind == 4:  # huge numbers in the header
        fields = state.split(":")
        fields[rng.randrange(1, min(3, len(fields)))] = _digits(rng)
        return (":".join(fields) + ":c").encode()
    if kind == 5:  # control characters
        return (_text(rng, CONTROL.replace("\n", ""), 5) + state + _text(rng, CONTROL.replace("\n", ""), 5)).encode()
    if kind == 6:  # comments
        return (rng.choice("#;") + _text(rng, NON_ASCII + "abc ", 20)).encode()
    return ("VERSION:" + _text(rng, "0123456789.\u00b2 x", 8)).encode("utf-8")


def _end(rng: random.Random) -> bytes:
    return b"\r\n" if rng.random() < 0.7 else b"\n"


class Hostile:
    """A seat that sends random lines at each of its turns, then a random answer.

    Counts the lines it sends. At most one match-ending event (a line over 4096
    bytes or hanging up) per match, rarely.
    """

    def __init__(self, rng: random.Random, end_rate: float = 0.002, version_damage_rate: float = 0.03) -> None:
        self.rng = rng
        self.end_rate = end_rate
        self.version_damage_rate = version_damage_rate
        self.lines = 0
        self.ended = False
        self.damaged_version = False

    def hello(self) -> bytes:
        rng = self.rng
        lines = [random_line(rng, "MATCHSTATE:0:0::") for _ in range(rng.randint(0, 2))]
        lines = [b"#" + line for line in lines]  # comments before VERSION are skipped
        if rng.random() < self.version_damage_rate:
            self.damaged_version = True
            line = random_line(rng, "VERSION:2.0.0")
            lines.append(b"X" + line if line.startswith((b"#", b";")) else line)  # a comment: still waiting
        else:
            lines.append(b"VERSION:2.0.0")
        self.lines += len(lines)
        return b"".join(line + _end(rng) for line in lines)

    def __call__(self, state: str) -> bytes | None:
        rng = self.rng
        if not self.ended and rng.random() < self.end_rate:
            self.ended = True
            if rng.random() < 0.5:
                return None
            self.lines += 1
            return b"#" + b"x" * 4100 + b"\r\n"
        lines = [random_line(rng, state) for _ in range(rng.randint(0, 4))]
        lines.append((state + ":" + random_action(rng).replace("\n", "")).encode())
        self.lines += len(lines)
        return b"".join(line + _end(rng) for line in lines)


def legal_random(rng: random.Random, game: Game) -> Callable[[str], bytes]:
    """A well-behaved seat: a random legal action each turn."""

    def respond(line: str) -> bytes:
        state = parse_match_state(line, game).state
        legal = state.legal_actions()
        roll = rng.random()
        if legal.can_fold and roll < 0.1:
            action = "f"
        elif not legal.can_raise or roll < 0.6:
            action = "c"
        elif game.no_limit:
            action = f"r{rng.randint(legal.min_raise_to, legal.max_raise_to)}"
        else:
            action = "r"
        return f"{line}:{action}\r\n".encode()

    return respond


# -- checking a finished match -----------------------------------------------------

_ORACLES: dict[str, object] = {}


def spiel_values(openspiel: OpenSpielGames, game_name: str, state: State) -> list[float]:
    """The hand's payoffs from OpenSpiel, replaying the logged cards and actions."""
    oracle: Any = _ORACLES.get(game_name) or _ORACLES.setdefault(game_name, openspiel(game_name))
    spiel_state = oracle.spiel.new_initial_state()
    for cards in state.hole_cards:
        for card in cards:
            spiel_state.apply_action(oracle.chance_action(card))
    board = iter(state.board_cards)
    actions = iter(a for round_actions in state.actions for a in round_actions)
    while not spiel_state.is_terminal():
        if spiel_state.is_chance_node():
            spiel_state.apply_action(oracle.chance_action(next(board)))
            continue
        action = next(actions)
        if action.kind == FOLD:
            spiel_state.apply_action(0)
        elif action.kind == CALL:
            spiel_state.apply_action(1)
        else:
            spiel_state.apply_action(action.size if oracle.game.no_limit else 2)
    assert next(actions, None) is None
    return list(spiel_state.returns())


ENDINGS = {"line_too_long", "disconnect", "version"}


def check_log(openspiel: OpenSpielGames, log: Sequence[str], game_name: str, finished: bool) -> list[LogHand]:
    """Every hand line parses, hands are numbered from 0, each hand's values are OpenSpiel's
    payoffs, and the ``SCORE`` line (there if and only if ``finished``) sums them by name."""
    game = load_game(game_name)
    hands = [parse_log_line(line, game) for line in log if line.startswith("STATE")]
    assert [hand.state.hand_id for hand in hands] == list(range(len(hands)))
    totals: dict[str, float] = {}
    for hand in hands:
        assert list(hand.values) == pytest.approx(spiel_values(openspiel, game_name, hand.state), abs=1e-9)
        for name, value in zip(hand.names, hand.values, strict=True):
            totals[name] = totals.get(name, 0.0) + value
    scores = [line for line in log if line.startswith("SCORE")]
    if finished:
        assert scores == [log[-1]]
        score = parse_score_line(log[-1], game.num_players)
        for name, total in zip(score.names, score.totals, strict=True):
            assert total == pytest.approx(totals.get(name, 0.0), abs=1e-6)
    else:
        assert scores == []
    return hands


def check_view(seen: Sequence[str], hands: Sequence[LogHand], game: Game) -> None:
    """A well-behaved seat saw every logged hand to its end, with the logged betting."""
    finished = {}
    for line in seen:
        view = parse_match_state(line, game)
        if view.state.finished:
            finished[view.state.hand_id] = format_betting(view.state)
    assert finished == {hand.state.hand_id: format_betting(hand.state) for hand in hands}


def check_outcome(
    openspiel: OpenSpielGames, outcome: Outcome, game_name: str, hostile: int, must_end: bool, may_end: bool
) -> None:
    """The match ended cleanly, early if and only if the hostile seat made it end
    (``must_end``: a long line or hanging up; ``may_end``: a damaged ``VERSION``),
    and its log and the other seats' views are whole and right."""
    result = outcome.result
    if result.error is None:
        assert not must_end
    else:
        assert must_end or may_end, result.error
        assert result.error.seat == hostile and result.error.kind in ENDINGS, result.error
    hands = check_log(openspiel, outcome.log, game_name, finished=result.error is None)
    assert len(hands) == result.hands_played
    for seat, seen in enumerate(outcome.seen):
        if seat != hostile:
            check_view(seen, hands, load_game(game_name))


GAMES_2P = ["kuhn.limit.2p", "leduc.limit.2p", "holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds"]
GAMES_3P = ["kuhn.limit.3p", "holdem.limit.3p", "holdem.nolimit.3p"]


async def fuzz_matches(openspiel: OpenSpielGames, tmp_path: Path, seed: int, matches: int, hands: int) -> int:
    """Play ``matches`` fuzzed matches in-process; returns the number of random lines sent."""
    rng = random.Random(seed)
    sent = 0
    for _ in range(matches):
        game_name = rng.choice(GAMES_2P + GAMES_3P)
        game = load_game(game_name)
        hostile_seat = rng.randrange(game.num_players)
        hostile = Hostile(random.Random(rng.random()))
        responders = [
            hostile if seat == hostile_seat else legal_random(random.Random(rng.random()), game)
            for seat in range(game.num_players)
        ]
        hellos = [hostile.hello() if seat == hostile_seat else b"VERSION:2.0.0\r\n" for seat in range(game.num_players)]
        names = [f"p{seat + 1}" for seat in range(game.num_players)]
        outcome = await play_scripted(
            tmp_path, game_name, hands, responders, hellos, seed=rng.randrange(2**32), names=names, t_response_ms=20_000
        )
        check_outcome(
            openspiel, outcome, game_name, hostile_seat, must_end=hostile.ended, may_end=hostile.damaged_version
        )
        sent += hostile.lines
    return sent


CI_LINES = 3_000
SLOW_LINES = 55_000  # more than the 53,750 lines of the QA campaign


async def test_random_lines_in_process(openspiel: OpenSpielGames, tmp_path: Path) -> None:
    sent = await fuzz_matches(openspiel, tmp_path, seed=20261122, matches=12, hands=40)
    assert sent >= CI_LINES


@pytest.mark.slow
async def test_random_lines_in_process_at_length(openspiel: OpenSpielGames, tmp_path: Path) -> None:
    sent = await fuzz_matches(openspiel, tmp_path, seed=1, matches=150, hands=60)
    assert sent >= SLOW_LINES


# -- the real dealer over TCP -------------------------------------------------------


def _good_seat(port: int, game: Game, rng: random.Random, seen: list[str]) -> None:
    player = ScriptedPlayer(port)
    respond = legal_random(rng, game)
    reader = MatchStateReader(game)
    player.send("VERSION:2.0.0\r\n")
    while line := player.receive():
        seen.append(line)
        view = reader.parse(line)
        if not view.state.finished and view.state.current_player == view.viewer:
            player.send(respond(line))
    player.close()


def _hostile_seat(port: int, game: Game, hostile: Hostile) -> None:
    player = ScriptedPlayer(port)
    reader = MatchStateReader(game)
    try:
        player.send(hostile.hello())
        while line := player.receive():
            view = reader.parse(line)
            if not view.state.finished and view.state.current_player == view.viewer:
                reply = hostile(line)
                if reply is None:
                    break
                player.send(reply)
    except OSError:  # the dealer hung up first
        pass
    player.close()


def tcp_fuzz_match(openspiel: OpenSpielGames, cwd: Path, game_name: str, hands: int, seed: int) -> int:
    """One match of the real ``acpc-dealer`` with a hostile seat 2; returns the lines it sent."""
    game = load_game(game_name)
    rng = random.Random(seed)
    names = [f"p{seat + 1}" for seat in range(game.num_players)]
    args = ["m", game_name, str(hands), str(seed), *names, "-q", "--t_response", "20000"]
    dealer = spawn(
        [program("acpc-dealer"), *dealer_args(*args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    ports = read_ports(dealer)
    hostile = Hostile(random.Random(rng.random()), end_rate=0.001, version_damage_rate=0.0)
    seen: list[list[str]] = [[] for _ in ports]
    threads = [
        threading.Thread(target=_hostile_seat, args=(port, game, hostile))
        if seat == 1
        else threading.Thread(target=_good_seat, args=(port, game, random.Random(rng.random()), seen[seat]))
        for seat, port in enumerate(ports)
    ]
    for thread in threads:
        thread.start()
    out, err = dealer.communicate(timeout=120)
    for thread in threads:
        thread.join(timeout=30)
    assert b"Traceback" not in err
    log = (cwd / "m.log").read_bytes().decode("ascii").splitlines()
    if dealer.returncode == 0:
        assert not hostile.ended
        assert out.decode("ascii").splitlines() == [log[-1]]
    else:
        assert dealer.returncode == 1 and (hostile.ended or hostile.damaged_version), err
        assert b"ERROR: seat 2: " in err
    hands_logged = check_log(openspiel, log, game_name, finished=dealer.returncode == 0)
    for seat in (0, 2)[: game.num_players - 1]:
        check_view(seen[seat], hands_logged, game)
    return hostile.lines


@pytest.mark.parametrize(
    ("game_name", "hands", "seed"),
    [("holdem.nolimit.2p.reverse_blinds", 40, 11), ("leduc.limit.2p", 60, 12), ("holdem.nolimit.3p", 30, 13)],
)
def test_random_lines_over_tcp(
    openspiel: OpenSpielGames, tmp_path: Path, game_name: str, hands: int, seed: int
) -> None:
    assert tcp_fuzz_match(openspiel, tmp_path, game_name, hands, seed) >= 100


# -- damaged game files ----------------------------------------------------------------

NUMBER_TOKENS = [
    "0", "1", "2", "3", "4", "7", "13", "255", "256", "-1", "+2", "007", "2147483647", "2147483648", "4294967297",
    "99999999999999999999", "20_000", "1.5", "1e3", "0x10", "\u0662", "\uff12", "\u00b2", "2\u00a03", "", "x",
]  # fmt: skip
KEY_NOISE = ["\u00e9", "\u0130", "\u212a", "\u00a0", "\v", "\f", "\r", "\t", "\x00", "=", "#", " ", "\u2028", "\x85"]


def _damage_game(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    kind = rng.randrange(9)
    if kind == 0:  # a number replaced
        words = lines[at].split(" ")
        numeric = [i for i, w in enumerate(words) if w.lstrip("+-").isdigit()]
        if numeric:
            words[rng.choice(numeric)] = rng.choice(NUMBER_TOKENS)
        lines[at] = " ".join(words)
    elif kind == 1:  # a line dropped
        del lines[at]
    elif kind == 2:  # a line repeated or moved
        lines.insert(rng.randrange(len(lines) + 1), lines[at] if rng.random() < 0.5 else lines.pop(at))
    elif kind == 3:  # a character of noise
        pos = rng.randint(0, len(lines[at]))
        lines[at] = lines[at][:pos] + rng.choice(KEY_NOISE) + lines[at][pos:]
    elif kind == 4:  # case changed
        lines[at] = lines[at].swapcase() if rng.random() < 0.5 else lines[at].upper()
    elif kind == 5:  # a value added or removed
        lines[at] = lines[at] + " " + rng.choice(NUMBER_TOKENS) if rng.random() < 0.5 else lines[at].rsplit(" ", 1)[0]
    elif kind == 6:  # the file cut short
        return "\n".join(lines)[: rng.randrange(len(text) + 1)]
    elif kind == 7:  # white space changed
        lines[at] = lines[at].replace(" ", rng.choice(["", "\t", "\v", "  ", " = ", "\u00a0"]))
    else:  # random text
        lines.insert(at, _text(rng, NON_ASCII + CONTROL.replace("\n", "") + "abcdefgilmnoprstuNPRS=0123456789 ", 20))
    return "\n".join(lines)


def damaged_game_files(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    sources = [resolve_game_path(name).read_text() for name in SHIPPED_GAMES]
    texts = []
    for _ in range(count):
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 3)):
            text = _damage_game(rng, text)
        texts.append(text)
    return texts


def _parse_or_refuse(text: str, source: str) -> Game | None:
    """The game, or None when refused with a one-line error naming ``source`` and a real line."""
    try:
        return parse_game(text, source)
    except ProtocolError as exc:
        message = str(exc)
        assert message.startswith(source) and "\n" not in message, message
        line = re.match(rf"{re.escape(source)}, line (\d+): ", message)
        assert line is None or 1 <= int(line.group(1)) <= text.count("\n") + 1, message
        return None


GAME_FILES_CI = 4_000


def test_damaged_game_files_parse_or_name_their_line(tmp_path: Path) -> None:
    texts = damaged_game_files(seed=7, count=GAME_FILES_CI)
    accepted = [text for text in texts if _parse_or_refuse(text, "fuzz.game") is not None]
    assert 300 < len(accepted) < len(texts) - 300  # both outcomes are exercised
    path = tmp_path / "fuzz.game"
    rng = random.Random(8)
    for text in texts[:300]:  # as files, with bytes that are not UTF-8 now and then
        data = text.encode()
        if rng.random() < 0.3:
            pos = rng.randrange(len(data) + 1)
            data = data[:pos] + bytes([rng.randrange(128, 256)]) + data[pos:]
        path.write_bytes(data)
        try:
            load_game(path)
        except ProtocolError as exc:
            assert str(exc).startswith(("could not read game definition " + str(path), str(path))), exc
            assert "\n" not in str(exc)


# Runs apart: game.c refusing a definition ends OpenSpiel's process (SIGSEGV). OpenSpiel's
# own gamedef reader is stricter than game.c about '=' and spacing; what it cannot read,
# it cannot judge ("unread").
_JUDGE = """
import json, random, sys
import pyspiel
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import parse_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import Action, CALL, FOLD, RAISE
from tests.conftest import OpenSpielGame
for index, text in enumerate(json.load(sys.stdin)):
    print(index, flush=True)
    try:
        pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    except Exception:  # SpielError, or ValueError from its std::stoi
        print("unread", flush=True)
        continue
    oracle = OpenSpielGame(pyspiel, parse_game(text), text)
    game = oracle.game
    rng, deal_rng = random.Random(index), MT19937(index)
    for _ in range(3):
        ours = deal_hand(game, 0, deal_rng)
        spiel = oracle.spiel.new_initial_state()
        for card in [c for cards in ours.hole_cards for c in cards]:
            spiel.apply_action(oracle.chance_action(card))
        board = iter(ours.board_cards)
        while True:
            while spiel.is_chance_node():
                spiel.apply_action(oracle.chance_action(next(board)))
            if spiel.is_terminal():
                break
            assert spiel.current_player() == ours.current_player
            assert list(spiel.to_struct().player_contributions) == ours.spent
            legal = ours.legal_actions()
            roll = rng.random()
            if legal.can_fold and roll < 0.15:
                action, spiel_action = Action(FOLD), 0
            elif not legal.can_raise or roll < 0.55:
                action, spiel_action = Action(CALL), 1
            elif game.no_limit:
                size = rng.randint(legal.min_raise_to, legal.max_raise_to)
                action, spiel_action = Action(RAISE, size), size
            else:
                action, spiel_action = Action(RAISE), 2
            assert spiel_action in spiel.legal_actions()
            ours.apply(action)
            spiel.apply_action(spiel_action)
        assert ours.finished and ours.values() == list(spiel.returns())
    print("ok", flush=True)
"""


def openspiel_can_judge(text: str, game: Game) -> bool:
    """Whether OpenSpiel reads ``text`` with ``game.c``'s meaning.

    OpenSpiel's gamedef reader fills what a file leaves out with its own defaults
    (no-limit, stacks of 1200), not ``game.c``'s: the betting line, and for no-limit
    the stack line, must be there. OpenSpiel plays limit games with unbounded stacks,
    and ``game.c`` refuses limit games of more than four players without stacks
    (a difference on purpose: docs/reference/differences.md).
    """
    lines = [line.strip().lower() for line in text.split("\n")]
    if ("nolimit" if game.no_limit else "limit") not in lines:
        return False
    if game.no_limit:
        return any(line.startswith("stack") for line in lines)
    return all(s == 2**31 - 1 for s in game.stack) and game.num_players <= 4


def test_damaged_game_files_that_parse_are_the_same_game_in_openspiel(pyspiel: ModuleType) -> None:
    texts = [
        text
        for text in damaged_game_files(seed=9, count=800)
        if (game := _parse_or_refuse(text, "f")) and openspiel_can_judge(text, game)
    ]
    assert len(texts) >= 100
    judge = subprocess.run(
        [sys.executable, "-c", _JUDGE], input=json.dumps(texts), capture_output=True, text=True, cwd=REPO, timeout=300
    )
    reports = judge.stdout.split()
    if judge.returncode != 0:
        failed = texts[int(reports[-1])]
        pytest.fail(f"OpenSpiel disagrees or fails on this definition:\n{failed}\n{judge.stderr[-2000:]}")
    assert reports.count("ok") + reports.count("unread") == len(texts)
    assert reports.count("ok") >= 100
