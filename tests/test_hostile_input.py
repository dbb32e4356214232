"""Hostile input from issue 10, case by case: non-ASCII everywhere, names that would
corrupt the log, extra ports, raise sizes outside 32 bits, odd white space.

Expected outcomes are the C dealer's (``project_acpc_server`` built from source and
run with the same arguments, seeds and replies; its lines are quoted below) where
this dealer matches it, and the documented refusal where it differs on purpose
(docs/reference/differences.md).

The player side runs in-process over memory streams (``play_scripted``) for exact,
fast cases, and against the real ``acpc-dealer`` process over TCP for the command
line, the files and the output streams.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import load_game, parse_game
from acpc_arena.protocol.wire import parse_action, parse_match_state
from tests.helpers.processes import (
    Outcome,
    Respond,
    ScriptedPlayer,
    calling,
    dealer_args,
    play_scripted,
    program,
    read_ports,
    spawn,
)

NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
KUHN = "kuhn.limit.2p"


def _states(outcome: Outcome) -> list[str]:
    return [line for line in outcome.log if line.startswith("STATE")]


def _first_action_then_calls(action: bytes) -> Respond:
    sent: list[str] = []

    def respond(line: str) -> bytes:
        if sent:
            return calling(line)
        sent.append(line)
        return line.encode() + b":" + action + b"\r\n"

    return respond


# -- item 13: raise sizes outside 32 bits, white space before the size --------------

# The C dealer, seed 7, one hand of holdem.nolimit.2p.reverse_blinds, seat 2 (first to
# act) sends "<state>:<action>" once, both seats call afterwards: its warning and log line.
R200 = "STATE:0:r200c/cc/cc/cc:8dJd|Td4d/As9d6s/3d/6c:200|-200:a|b"
R300 = "STATE:0:r300c/cc/cc/cc:8dJd|Td4d/As9d6s/3d/6c:300|-300:a|b"
C_RAISE_RESULTS = [
    (b"r99999999999999999999", "raise of -1 increased to 200", R200),
    (b"r2147483648", "raise of -2147483648 increased to 200", R200),
    (
        b"r-2147483649",
        "raise of 2147483647 decreased to 20000",
        "STATE:0:r20000c///:8dJd|Td4d/As9d6s/3d/6c:20000|-20000:a|b",
    ),
    (b"r4294967596", None, R300),
    (b"r\x0b300", None, R300),
    (b"r\x0c300", None, R300),
    (b"r\r300", None, R300),
    (b"r \t300", None, R300),
    (b"r+300", None, R300),
    (b"r-0300", "raise of -300 increased to 200", R200),
    (b"r0x300", "raise of 0 increased to 200", R200),
]


@pytest.mark.parametrize(("action", "warning", "logged"), C_RAISE_RESULTS, ids=[str(a) for a, _, _ in C_RAISE_RESULTS])
async def test_raise_sizes_are_read_as_the_c_dealer_reads_them(
    tmp_path: Path, action: bytes, warning: str | None, logged: str
) -> None:
    outcome = await play_scripted(tmp_path, NOLIMIT, 1, [calling, _first_action_then_calls(action)])
    assert outcome.result.ok and outcome.result.invalid_actions == [0, 0]
    assert outcome.warnings == ([warning] if warning else [])
    assert _states(outcome) == [logged]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("r99999999999999999999", -1),  # strtol saturates at 2**63 - 1, then 32 bits are kept
        ("r-99999999999999999999", 0),
        ("r9223372036854775807", -1),
        ("r9223372036854775808", -1),
        ("r2147483647", 2147483647),
        ("r2147483648", -2147483648),
        ("r-2147483648", -2147483648),
        ("r-2147483649", 2147483647),
        ("r4294967296", 0),
        ("r" + "0" * 3000 + "250", 250),
        ("r\x0b\x0c\r\n 250", 250),
    ],
)
def test_raise_size_conversion_matches_glibc_sscanf(text: str, size: int) -> None:
    assert parse_action(text, load_game(NOLIMIT)).size == size


@pytest.mark.parametrize("text", ["r\u00b2", "r\u0662\u0665\u0660", "r\uff13\uff10\uff10", "r\u00a0250", "r\u2003250"])
def test_non_ascii_digits_and_spaces_are_not_a_raise_size(text: str) -> None:
    with pytest.raises(ProtocolError, match="expected a raise size"):
        parse_action(text, load_game(NOLIMIT))


@pytest.mark.parametrize("action", ["r\u00b2".encode(), "r\u0662\u0665\u0660".encode(), b"r\xb2", "\u0155".encode()])
async def test_non_ascii_actions_become_calls(tmp_path: Path, action: bytes) -> None:
    outcome = await play_scripted(tmp_path, NOLIMIT, 1, [calling, _first_action_then_calls(action)])
    assert outcome.result.ok and outcome.result.invalid_actions == [0, 1]
    assert outcome.warnings == ["bad action format in response, changed to call"]
    assert _states(outcome)[0].startswith("STATE:0:cc/")


# -- item 1: VERSION ---------------------------------------------------------------


@pytest.mark.parametrize(
    "hello",
    [
        b"VERSION:\xb2.0.0\r\n",
        "VERSION:\u00b2.0.0\r\n".encode(),
        "VERSION:2.\u0660.0\r\n".encode(),
        b"VERSION:2.0.\xb9\r\n",
    ],
)
async def test_a_version_with_non_ascii_digits_is_invalid(tmp_path: Path, hello: bytes) -> None:
    # C dealer: "ERROR: invalid version string VERSION:².0.0" and no hand is played.
    outcome = await play_scripted(tmp_path, KUHN, 3, [calling, calling], hellos=[b"VERSION:2.0.0\r\n", hello])
    error = outcome.result.error
    assert error is not None and error.seat == 1 and error.kind == "version"
    assert "invalid version string" in str(error)
    assert outcome.result.hands_played == 0 and _states(outcome) == []


@pytest.mark.parametrize("hello", [b"VERSION:2.0.0abc\r\n", b"VERSION: 2.0.0\r\n", b"VERSION:3.0.0\r\n"])
async def test_version_lines_the_c_dealer_plays_on_are_refused(tmp_path: Path, hello: bytes) -> None:
    """A difference on purpose (docs/reference/differences.md): the C dealer plays these matches."""
    outcome = await play_scripted(tmp_path, KUHN, 3, [calling, calling], hellos=[hello, b"VERSION:2.0.0\r\n"])
    error = outcome.result.error
    assert error is not None and error.seat == 0 and error.kind == "version"


# -- game files --------------------------------------------------------------------

KUHN_TEXT = """GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 1 1
raiseSize = 1
firstPlayer = 1
maxRaises = 1
numSuits = 1
numRanks = 3
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("blind = 1 1", "blind = 1_0 1", 5),
        ("numRanks = 3", "numRanks = \u0663", 10),  # ARABIC-INDIC DIGIT THREE
        ("numRanks = 3", "numRanks = \uff13", 10),  # FULLWIDTH DIGIT THREE
        ("numRanks = 3", "numRanks = \u00b3", 10),  # SUPERSCRIPT THREE
        ("raiseSize = 1", "raiseSize = 0x1", 6),
        ("numRounds = 1", "numRounds = 1.0", 4),
        ("blind = 1 1", "blind = 1\u00a01", 5),  # NO-BREAK SPACE is not white space to sscanf
        ("numPlayers = 2", "num\u00e9Players = 2", 3),
        ("raiseSize = 1", "raiseSize = 2147483648", 6),  # game.c: -2147483648 (found by test_fuzz)
    ],
)
def test_game_numbers_are_ascii_digits(old: str, new: str, line: int) -> None:
    # game.c reads these with sscanf("%d"/"%hhu"), which stops at the first non-digit.
    with pytest.raises(ProtocolError, match=rf"^k\.game, line {line}: "):
        parse_game(KUHN_TEXT.replace(old, new), "k.game")


def test_c_white_space_separates_game_values() -> None:
    game = parse_game(KUHN_TEXT.replace("blind = 1 1", "blind =\x0b1\x0c1\r"), "k.game")
    assert game.blind == (1, 1)


def test_only_a_newline_ends_a_game_file_line() -> None:
    # fgets reads "numRounds = 1\x0bnumRanks = 3" as one line of numRounds; Python's
    # splitlines would have made a numRanks line out of it.
    text = KUHN_TEXT.replace("numRanks = 3\n", "").replace("numRounds = 1", "numRounds = 1\x0bnumRanks = 3")
    with pytest.raises(ProtocolError, match=r"^k\.game, line 4: numrounds: 'numRanks' is not a whole number"):
        parse_game(text, "k.game")


def test_a_game_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.game"
    path.write_bytes(KUHN_TEXT.replace("numRanks = 3", "numRanks = 3 # caf\xe9").encode("latin-1"))
    with pytest.raises(ProtocolError, match=r"latin\.game, line 10: not UTF-8 text"):
        load_game(path)


# -- the real dealer over TCP: names, match names, ports ----------------------------


def _call_until_closed(port: int) -> None:
    player = ScriptedPlayer(port)
    player.send("VERSION:2.0.0\r\n")
    game = load_game(KUHN)
    while line := player.receive():
        view = parse_match_state(line, game)
        if not view.state.finished and view.state.current_player == view.viewer:
            player.send(f"{line}:c\r\n")
    player.close()


@dataclass
class Finished:
    status: int
    stdout: bytes
    stderr: bytes


def run_tcp_match(cwd: Path, args: Sequence[str | bytes], players: int = 2) -> Finished:
    """``acpc-dealer args...`` with a calling player on each port it prints; raw bytes out."""
    argv = [program("acpc-dealer"), *dealer_args(*(os.fsdecode(a) for a in args))]
    process = spawn(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ports = read_ports(process)
    threads = [threading.Thread(target=_call_until_closed, args=(port,)) for port in ports[:players]]
    for thread in threads:
        thread.start()
    out, err = process.communicate(timeout=60)
    for thread in threads:
        thread.join(timeout=30)
    return Finished(process.returncode, b" ".join(map(str.encode, map(str, ports))) + b"\n" + out, err)


# The C dealer, "m kuhn.limit.2p.game 2 7 café b": its log's hand and score lines.
C_CAFE_LOG = ["STATE:0:cc:Qs|As:-1|1:café|b", "STATE:1:cc:Ks|Qs:1|-1:b|café", "SCORE:-2|2:café|b"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_non_ascii_player_name_is_played_and_logged_byte_for_byte(tmp_path: Path, log_format: str) -> None:
    done = run_tcp_match(tmp_path, ["m", KUHN, "2", "7", "café", "b", "--log-format", log_format])
    assert done.status == 0, done.stderr
    assert b"Traceback" not in done.stderr
    log = (tmp_path / "m.log").read_bytes().decode("utf-8").splitlines()
    assert log[4:] == C_CAFE_LOG
    assert done.stdout.splitlines()[-1] == C_CAFE_LOG[-1].encode("utf-8")


def test_a_name_that_is_not_utf8_keeps_its_bytes(tmp_path: Path) -> None:
    done = run_tcp_match(tmp_path, ["m", KUHN, "2", "7", b"caf\xe9", "\u540d\u524d"])
    assert done.status == 0, done.stderr
    log = (tmp_path / "m.log").read_bytes().splitlines()
    assert log[-1] == b"SCORE:-2|2:caf\xe9|\xe5\x90\x8d\xe5\x89\x8d"
    assert done.stdout.splitlines()[-1] == log[-1]
    assert b"SCORE:-2|2:caf\xe9|\xe5\x90\x8d\xe5\x89\x8d" in done.stderr


@pytest.mark.parametrize("name", ["m\u00e4tch", "\u8a66\u5408", "caf\u00e9 2"])
def test_a_non_ascii_match_name(tmp_path: Path, name: str) -> None:
    done = run_tcp_match(tmp_path, [name, KUHN, "2", "7", "a", "b"])
    assert done.status == 0, done.stderr
    log = (tmp_path / f"{name}.log").read_bytes()
    assert log.startswith(f"# name/game/hands/seed {name} {KUHN} 2 7\n".encode())
    assert log.endswith(b"\nSCORE:-2|2:a|b\n")
    assert f"# name/game/hands/seed {name} ".encode() in done.stderr


def test_extra_ports_are_ignored(tmp_path: Path) -> None:
    # The C dealer listens on the first numPlayers ports of -p and ignores the rest.
    done = run_tcp_match(tmp_path, ["m", KUHN, "2", "7", "a", "b", "-p", "0,0,0"])
    assert done.status == 0, done.stderr
    assert len(done.stdout.splitlines()[0].split()) == 2
    assert (tmp_path / "m.log").read_text().splitlines()[-1] == "SCORE:-2|2:a|b"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["m", KUHN, "2", "7", "a|b", "c"], "ERROR: player name 'a|b' contains '|'"),
        (["m", KUHN, "2", "7", "a", "b:c"], "ERROR: player name 'b:c' contains ':'"),
        (["m", KUHN, "2", "7", "a\nSCORE:99|-99:a|b", "c"], "ERROR: player name 'a\\nSCORE:99|-99:a|b' contains"),
        (["m", KUHN, "2", "7", "a\r", "c"], "ERROR: player name 'a\\r' contains the control character '\\r'"),
        (["m", KUHN, "2", "7", "a\x7f", "c"], "ERROR: player name 'a\\x7f' contains the control character"),
        (["m", KUHN, "2", "7", "", "c"], "ERROR: player name '' is empty"),
        (["m", KUHN, "2", "7", "a #1", "c"], "ERROR: player name 'a #1' contains ' #'"),
        (["m", KUHN, "2", "7", "\u00e9" * 128, "c"], "ERROR: player name '" + "\u00e9" * 20 + "...' is 256 bytes long"),
        (["m", KUHN, "2", "7", b"caf\xe9", b"caf\xe9"], "ERROR: player name 'caf\\udce9' is given to seats 1 and 2"),
        (["m\nSCORE:1|-1:a|b", KUHN, "2", "7", "a", "b"], "ERROR: match name 'm\\nSCORE:1|-1:a|b' contains"),
    ],
)
def test_names_that_would_corrupt_the_log_are_refused(tmp_path: Path, args: list[str | bytes], message: str) -> None:
    done = subprocess.run([program("acpc-dealer"), *args], cwd=tmp_path, capture_output=True, timeout=30)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith(message)
    assert done.stderr.count(b"\n") == 1  # one line, no traceback
    assert list(tmp_path.iterdir()) == []  # refused before any file is opened


def test_a_non_ascii_version_over_tcp_ends_the_match_with_one_error_line(tmp_path: Path) -> None:
    process = spawn(
        [program("acpc-dealer"), *dealer_args("m", KUHN, "2", "7", "a", "b", "-q")],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ports = read_ports(process)
    good = threading.Thread(target=_call_until_closed, args=(ports[0],))
    good.start()
    bad = ScriptedPlayer(ports[1])
    bad.send(b"VERSION:\xb2.0.0\r\n")
    out, err = process.communicate(timeout=60)
    bad.close()
    good.join(timeout=30)
    assert process.returncode == 1 and out == b""
    errors = [line for line in err.splitlines() if not line.startswith(b"#")]
    assert errors == [b"ERROR: seat 2: invalid version string 'VERSION:\xb2.0.0'"]  # the byte as sent, as by C
    assert (tmp_path / "m.log").read_bytes().count(b"\n") == 4  # the header only: no hand was played


def test_a_non_ascii_game_file_name_and_comment(tmp_path: Path) -> None:
    (tmp_path / "pok\u00e9r.game").write_text("# Kuhn, \u00e0 trois cartes\n" + KUHN_TEXT, encoding="utf-8")
    done = run_tcp_match(tmp_path, ["m", "pok\u00e9r.game", "2", "7", "a", "b"])
    assert done.status == 0, done.stderr
    log = (tmp_path / "m.log").read_bytes()
    assert log.startswith("# name/game/hands/seed m pok\u00e9r.game 2 7\n".encode())
    assert log.endswith(b"\nSCORE:-2|2:a|b\n")


def test_a_non_ascii_digit_in_a_game_file_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "k.game").write_text(KUHN_TEXT.replace("numRanks = 3", "numRanks = \u0663"), encoding="utf-8")
    done = subprocess.run(
        [program("acpc-dealer"), "m", "k.game", "2", "7", "a", "b"], cwd=tmp_path, capture_output=True, timeout=30
    )
    assert done.returncode == 1 and done.stdout == b""
    assert (
        done.stderr.decode()
        == "ERROR: could not read game k.game: k.game, line 10: numranks: '\u0663' is not a whole number\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["m", KUHN, "1_000", "7", "a", "b"], "ERROR: invalid number of hands 1_000"),
        (["m", KUHN, "\u0663", "7", "a", "b"], "ERROR: invalid number of hands \u0663"),
        (["m", KUHN, "10", "\uff17", "a", "b"], "ERROR: invalid random number seed \uff17"),
        (["m", KUHN, "10", "7", "a", "b", "-p", "1_0,0"], "ERROR: bad port string 1_0,0"),
        (["m", KUHN, "10", "7", "a", "b", "--t_response", "5 "], "ERROR: invalid --t_response 5 "),
        (["m", KUHN, "10", "7", "a", "b", "--start_timeout", "\u0661"], "ERROR: could not get start timeout \u0661"),
    ],
)
def test_command_line_numbers_are_ascii_digits(tmp_path: Path, args: list[str], message: str) -> None:
    # int() takes these; the C dealer's sscanf reads "1_000" as 1 and no number at all in the others.
    done = subprocess.run([program("acpc-dealer"), *args], cwd=tmp_path, capture_output=True, timeout=30)
    assert done.returncode == 1
    assert done.stderr.decode() == message + "\n"
