"""The dealer's compiled loop (``protocol.native``'s ``dealer.server`` modules): built and checked with the
engine's, loaded from its sources whenever they are, and the same program either way.

The rule's lists are checked against the sources themselves (their imports, read with ``ast``) and
against the Makefile (what makes ``make install`` rebuild); the compiled dealer is checked against its
sources on a match whose replies include every kind of fault the rules fix.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acpc_arena.protocol import native

REPO = Path(__file__).parent.parent
DEALER_MODULES = ("engine", "sync_match", "blocking_seat", "lines")
"""The driver's modules ``acpc-dealer`` plays every action through."""


def _project_imports(path: Path) -> set[str]:
    """The project's modules (``protocol.game``) that the file at ``path`` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "acpc_arena" and REPO.joinpath(*parts[1:]).with_suffix(".py").is_file():
                found.add(".".join(parts[1:]))
    return found


def test_the_dealer_loop_is_in_the_compiled_group() -> None:
    assert {f"dealer.server.{name}" for name in DEALER_MODULES} <= set(native.COMPILED)


def test_every_module_the_compiled_code_imports_is_compiled_or_typed_against() -> None:
    """An edit to any of them makes the build stale (``compiled_and_fresh``)."""
    imported = set().union(
        *(_project_imports(REPO.joinpath(*name.split(".")).with_suffix(".py")) for name in native.COMPILED)
    )
    assert imported - set(native.COMPILED) - set(native.TYPED_AGAINST) == set()
    assert imported >= {"dealer.server.match", "protocol.game"}  # the reading above finds imports at all


def test_the_makefile_rebuilds_when_any_of_them_changes() -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here")
    rule = "print-native-sources: ; @echo $(NATIVE_SOURCES)"
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval", rule, "print-native-sources"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    listed = set(done.stdout.split())
    needed = {f"{name.replace('.', '/')}.py" for name in (*native.COMPILED, *native.TYPED_AGAINST)}
    assert needed | {"protocol/native_build.py"} <= listed
    assert all((REPO / path).is_file() for path in listed)


LOAD = r"""
import sys
sys.modules["mypy_extensions"] = None  # as where mypy is not installed: the sources must not need it
from acpc_arena.dealer.server import blocking_seat, engine, lines, seat, sync_match
from acpc_arena.protocol import native, state
print(native.is_compiled(), *(m.__file__ for m in (engine, sync_match, blocking_seat, lines)))
print(issubclass(seat.SocketChannel, lines.LineChannel))
"""


def _load(pure: bool) -> list[str]:
    env = {**os.environ, native.PURE_VARIABLE: "1" if pure else "0"}
    done = subprocess.run([sys.executable, "-c", LOAD], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_sources_of_the_dealer_load_with_the_engine_s_without_mypy_extensions() -> None:
    compiled, *files, subclass = _load(pure=True)
    assert compiled == "False"
    assert files == [str(REPO / "dealer" / "server" / f"{name}.py") for name in DEALER_MODULES]
    assert subclass == "True"


@pytest.mark.skipif(not native.compiled_and_fresh(), reason="the hot path is not compiled here (make install)")
def test_the_compiled_dealer_loads_and_the_trio_channels_still_subclass_its_line_channel() -> None:
    compiled, *files, subclass = _load(pure=False)
    assert compiled == "True"
    assert not any(file.endswith(".py") for file in files)
    assert subclass == "True"


PLAY_MATCH = r"""
import hashlib, random, sys
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.lines import SeatError
from acpc_arena.dealer.server.match import MatchObserver
from acpc_arena.dealer.server.match_config import MatchConfig
from acpc_arena.protocol import native
from acpc_arena.protocol.game import load_game, resolve_game_path

digest = hashlib.sha256()

class Record(MatchObserver):
    wants_messages = True
    def warning(self, seat, kind, text): digest.update(f"W{seat}{kind}{text}".encode())
    def action_taken(self, seat, action, seconds): digest.update(f"A{seat}{action}".encode())
    def message_sent(self, seat, stamp, line): digest.update(f"S{seat}{line}".encode())

class Quiet(Record):  # reads no messages: a hand's last states are held for each seat's next send
    wants_messages = False

class Lines:
    next_hand = 0
    last_record = ""
    def write_line(self, line): digest.update(line.encode())
    def record(self, action, hand_id, sent, received): digest.update(f"T{action}{hand_id}".encode())

FAULTS = [b"#a comment\n", b"MATCHSTATE:9:9::\n", b"garbage\n"]
for name, batch, observer in (("holdem.limit.2p.reverse_blinds", False, Record()),
                              ("holdem.nolimit.2p.reverse_blinds", True, Record()),
                              ("holdem.nolimit.3p", False, Quiet())):
    path = str(resolve_game_path(name))
    config = MatchConfig("t", load_game(path), path, 300, 7, ("A", "B", "C")[: load_game(path).num_players],
                         max_invalid_actions=10**6)
    engine, choice = MatchEngine(config, observer, Lines(), Lines(), batch_messages=batch), random.Random(5)
    for seat in range(config.game.num_players):
        engine.version_received(seat, b"VERSION:2.0.0\r\n")
    engine.start(0.0)
    clock = 0.0
    while not engine.over:
        sent = {}
        for seat, data, held, noted in engine.messages():
            digest.update(b"%d%d%d" % (seat, held, noted) + data)
            sent[seat] = data.rstrip(b"\r\n")
            if noted:
                engine.sent(seat, clock, clock)
        asked = engine.next_reply()
        if asked is None:
            engine.next_hand()
            continue
        replies = [b":c", b":f", b":r", b":r1", b":r20000", b":r999999", b":x", b"", b":r 300"]
        while True:
            clock += 0.001
            x = choice.random()
            line = choice.choice(FAULTS) if x < 0.05 else sent[asked[0]] + choice.choice(replies) + b"\r\n"
            if engine.receive(line, clock, clock):
                break
    result = engine.finish(clock)
    digest.update(repr((result.totals, result.invalid_actions, result.fixed_actions)).encode())
print(native.is_compiled(), digest.hexdigest())
"""


def _play(pure: bool) -> list[str]:
    env = {**os.environ, native.PURE_VARIABLE: "1" if pure else "0"}
    done = subprocess.run([sys.executable, "-c", PLAY_MATCH], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(not native.compiled_and_fresh(), reason="the hot path is not compiled here (make install)")
def test_the_compiled_dealer_deals_warns_and_logs_as_its_sources() -> None:
    compiled, pure = _play(pure=False), _play(pure=True)
    assert (compiled[0], pure[0]) == ("True", "False")
    assert re.fullmatch("[0-9a-f]{64}", compiled[1])
    assert compiled[1] == pure[1]
