"""The test helper that values logged hands apart from the engine agrees with the C dealer's logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from acpc_arena.protocol.game import SHIPPED_GAMES, load_game
from tests.helpers.hand_values import hand_values

FIXTURES = Path(__file__).parent / "fixtures" / "c_dealer"


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_values_of_every_hand_the_c_dealer_logged(game_name: str) -> None:
    game = load_game(game_name)
    lines = [line for line in (FIXTURES / f"{game_name}.log").read_text().splitlines() if line.startswith("STATE")]
    assert len(lines) == 300
    showdowns = 0
    for line in lines:
        logged = [float(v) for v in line.split(":")[4].split("|")]
        assert hand_values(line, game) == pytest.approx(logged), line
        showdowns += "f" not in line.split(":")[2]
    assert showdowns > 0
