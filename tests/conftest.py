"""Fixtures shared by the test modules.

The reference libraries that are optional for the suite come as fixtures, so a
missing one skips only the tests that use it: ``pyspiel`` (OpenSpiel) and
``openspiel``, the OpenSpiel oracle for our games. Helpers that run the real
programs (the dealer and agents as processes over TCP) are plain functions in
``tests/helpers/processes.py``; the processes they start (``spawn``) end with the test
that started them (``no_process_left``), also when the run is interrupted by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import importlib
import os

# The suite runs on every core at once (``make test``: pytest-xdist), each worker and the programs it starts
# with torch's OpenMP threads: waiting threads that spin take the cores from the others' work. Passive waiting
# changes when a thread sleeps, never what it computes. Set before torch is imported, and inherited by the
# programs the tests start.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import signal
from collections.abc import Iterator
from types import FrameType, ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from acpc_arena.protocol.game import Game, load_game, parse_game, resolve_game_path
from tests.helpers.processes import ending_spawned

# Hypothesis: `make test` runs the same hundred examples of each property every time
# (derandomized, nothing stored in the repository); `make test-slow` passes
# --hypothesis-profile=slow for many fresh ones.
_HYPOTHESIS = settings(database=None, deadline=10_000, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", _HYPOTHESIS, max_examples=100, derandomize=True)
settings.register_profile("slow", _HYPOTHESIS, max_examples=20_000)
settings.load_profile("ci")


def _sigterm_as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends the run as Ctrl-C does (the SIGINT handler in place, trio's inside a trio test), so
    ``no_process_left`` still ends what the test under way started."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


def pytest_sessionstart(session: pytest.Session) -> None:
    signal.signal(signal.SIGTERM, _sigterm_as_ctrl_c)


@pytest.fixture(autouse=True)
def no_process_left() -> Iterator[None]:
    """Whatever a test started with ``tests.helpers.processes.spawn`` and is still running when the test ends
    (passed, failed, timed out or interrupted) is terminated, then killed."""
    with ending_spawned():
        yield


@pytest.fixture(scope="session")
def pyspiel() -> ModuleType:
    """OpenSpiel's ``pyspiel``; the test is skipped where OpenSpiel is not installed."""
    return pytest.importorskip("pyspiel")


class OpenSpielGame:
    """One of our games loaded into OpenSpiel's ``universal_poker`` (the ACPC ``game.c``), cards translated.

    OpenSpiel reads the definition's own text; the betting abstraction and the cards' translation are the
    package's (``acpc_arena.agents.openspiel.games``): no-limit games use ``fullgame`` betting (every raise size
    is an action), limit games ``fcpa``, whose ``bet`` is the limit raise.
    """

    def __init__(self, pyspiel: ModuleType, game: Game, text: str) -> None:
        self.game = game
        games = importlib.import_module("acpc_arena.agents.openspiel.games")  # it needs pyspiel, an extra
        self.games = games
        params = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text).get_parameters()
        params["bettingAbstraction"] = games.default_betting(game)
        self.spiel = pyspiel.load_game("universal_poker", params)

    def chance_action(self, card: int) -> int:
        """OpenSpiel numbers a reduced deck from its lowest rank and suit."""
        return int(self.games.spiel_card(self.game, card))

    def our_card_text(self, spiel_card: str) -> str:
        return str(self.games.arena_card_text(self.game, spiel_card))

    def acpc_state(self, spiel_state: Any) -> str:
        """OpenSpiel's ACPC state string with its cards renamed to the ACPC deck's."""
        line = spiel_state.to_struct().acpc_state.splitlines()[0]
        head, _, cards = line.rpartition(":")
        renamed = []
        i = 0
        while i < len(cards):
            if cards[i] in "|/":
                renamed.append(cards[i])
                i += 1
            else:
                renamed.append(self.our_card_text(cards[i : i + 2]))
                i += 2
        return head + ":" + "".join(renamed)


class OpenSpielGames:
    """Makes ``OpenSpielGame`` oracles: of a shipped game by name, or of a definition's text."""

    def __init__(self, pyspiel: ModuleType) -> None:
        self.pyspiel = pyspiel

    def __call__(self, name: str) -> OpenSpielGame:
        return OpenSpielGame(self.pyspiel, load_game(name), resolve_game_path(name).read_text())

    def from_text(self, text: str) -> OpenSpielGame:
        return OpenSpielGame(self.pyspiel, parse_game(text), text)


@pytest.fixture(scope="session")
def openspiel(pyspiel: ModuleType) -> OpenSpielGames:
    """``openspiel(name)`` or ``openspiel.from_text(text)``: OpenSpiel oracles; skips where OpenSpiel is missing."""
    return OpenSpielGames(pyspiel)
