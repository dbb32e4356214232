"""The compiled hot path (``protocol.native``): the same program as its sources, and the rule that
picks between them.

The compiled ``state``, ``wire`` and ``cards`` are checked against their own ``.py`` files run by
the interpreter (``ACPC_ARENA_PURE=1``): the same hands, played and printed and read back, must
give the same text. The rest of the suite checks both against independent oracles (the C
dealer's logs, OpenSpiel, pokerkit) with whichever is in use: compiled after ``make install``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acpc_arena.protocol import native

PLAY_HANDS = r"""
import hashlib, pickle, random, sys
from acpc_arena.protocol import native
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action
from acpc_arena.protocol.wire import MatchStateReader, format_action, format_log_line, format_match_state
from acpc_arena.protocol.wire import parse_match_state, read_action

digest = hashlib.sha256()
GAMES = ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds", "holdem.nolimit.3p")
for name in (*GAMES, "kuhn.limit.3p", "leduc.limit.2p"):
    game = load_game(name)
    deals, choice = MT19937(7), random.Random(7)
    readers = [MatchStateReader(game) for _ in range(game.num_players)]
    for hand_id in range(400):
        state = deal_hand(game, hand_id, deals)
        while True:
            for viewer, reader in enumerate(readers):
                line = format_match_state(state, viewer)
                for view in (reader.parse(line), parse_match_state(line, game)):
                    assert format_match_state(view.state, view.viewer) == line, line
                digest.update(line.encode())
            if state.finished:
                break
            x = choice.random()
            bounds = state.raise_range()
            if x < 0.1 and state.can_fold():
                action = FOLD_ACTION
            elif x < 0.5 or bounds is None:
                action = CALL_ACTION
            else:
                action = Action(RAISE, choice.randint(*bounds)) if game.no_limit else LIMIT_RAISE_ACTION
            text = format_action(action, game)
            assert read_action(text, 0, game) == (action, len(text))
            state.apply(action)
            restored = pickle.loads(pickle.dumps(state)) if hand_id % 7 == 0 else state.copy()
            for field in ("hole_cards", "board_cards", "spent", "actions", "acting_players", "folded", "round",
                          "finished", "current_player", "max_spent", "min_no_limit_raise_to", "num_folded",
                          "num_all_in", "round_raises"):
                assert getattr(restored, field) == getattr(state, field), field
            state = restored
        digest.update(format_log_line(state, state.values(), [str(p) for p in range(game.num_players)]).encode())
print(native.is_compiled(), digest.hexdigest())
"""


def _play(pure: bool) -> tuple[str, str]:
    env = {**os.environ, native.PURE_VARIABLE: "1" if pure else "0"}
    done = subprocess.run([sys.executable, "-c", PLAY_HANDS], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    compiled, digest = done.stdout.split()
    return compiled, digest


@pytest.mark.skipif(not native.compiled_and_fresh(), reason="the hot path is not compiled here (make install)")
def test_the_compiled_engine_plays_prints_and_reads_as_its_sources() -> None:
    compiled = _play(pure=False)
    pure = _play(pure=True)
    assert compiled[0] == "True" and pure[0] == "False"
    assert compiled[1] == pure[1]


def _fake_build(root: Path, modules: tuple[str, ...], library: bool, stamp: float) -> None:
    """Sources (all stamped ``stamp``) and empty compiled files under ``root`` laid out as ``acpc_arena``."""
    for name in (*native.COMPILED, *native.TYPED_AGAINST):
        source = root.joinpath(*name.split(".")).with_suffix(".py")
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("")
        os.utime(source, (stamp, stamp))
    suffix = native._extension_suffix()
    for name in (*modules, *([f"{native.GROUP}__mypyc"] if library else [])):
        root.joinpath(*name.split(".")).with_suffix(f".cpython-311-x86_64-linux-gnu.{suffix}").write_bytes(b"")


def test_the_compiled_modules_are_used_only_all_together_and_newer_than_the_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "ROOT", tmp_path)
    _fake_build(tmp_path, (), library=False, stamp=1_000_000)
    assert not native.compiled_and_fresh()  # nothing compiled
    _fake_build(tmp_path, native.COMPILED, library=True, stamp=1_000_000)
    assert native.compiled_and_fresh()
    later = time.time() + 10
    for edited in ("protocol/wire.py", "dealer/server/engine.py", "dealer/server/lines.py"):
        os.utime(tmp_path / edited, (later, later))  # edited after the build
        assert not native.compiled_and_fresh(), edited
        os.utime(tmp_path / edited, (1_000_000, 1_000_000))
    assert native.compiled_and_fresh()
    for typed_against in ("protocol/game.py", "dealer/server/match.py"):  # the compiled code was checked against it
        os.utime(tmp_path / typed_against, (later, later))
        assert not native.compiled_and_fresh(), typed_against
        os.utime(tmp_path / typed_against, (1_000_000, 1_000_000))
    for missing in ("protocol.state", "dealer.server.sync_match", f"{native.GROUP}__mypyc"):
        (compiled,) = native.compiled_files(missing)
        compiled.unlink()
        assert not native.compiled_and_fresh(), missing
        compiled.write_bytes(b"")
        os.utime(compiled, (1_000_000, 1_000_000))
    assert native.compiled_and_fresh()


def test_acpc_arena_pure_imports_the_sources() -> None:
    env = {**os.environ, native.PURE_VARIABLE: "1"}
    code = "from acpc_arena.protocol import native, state, wire, cards; print(native.is_compiled(), state.__file__)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", str(native.FOLDER / "state.py")]
