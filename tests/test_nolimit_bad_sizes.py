"""Every agent that plays heads-up no-limit hold'em against opponents that bet badly or oddly: ``spar_fuzz``
(asks for raises over its stack and under the minimum, all in 30% of the time; the dealer's corrections made,
as ``acpc-dealer`` makes them) and every bot of the no-limit sparring suite (shovers, overbets of two or three
pots, min-raise chains, limps, pot fractions, odd sizes). Played in process under the dealer's time limits:
every match ends with every hand played and no agent error or time-out.
The same over TCP, with the raw fuzzing client, for ``ensemble`` and ``cfr``: ``test_nolimit_guard_dealer.py``."""

from __future__ import annotations

import pytest

from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.reports import Report
from acpc_arena.protocol.game import load_game

GAME = "holdem.nolimit.2p.reverse_blinds"
HANDS = 20
BAD_SIZERS = ["spar_fuzz", "spar_shove10", "spar_shove30", "spar_shove60", "spar_overbet", "spar_minraise"]
BAD_SIZERS += ["spar_limper", "spar_fractions", "spar_oddsize"]


def plays_nolimit(name: str) -> bool:
    try:
        agent_class(name)(load_game(GAME), seed=1)
    except ValueError:
        return False
    return True


NOLIMIT_AGENTS = [name for name in AGENTS if name != "human" and plays_nolimit(name)]


def test_the_nolimit_agents_are_the_ones_expected() -> None:
    expected = {"random", "call", "raise", "rule", "equity", "cfr", "lstm_dqn", "dqn", "poker_cnn", "ensemble"}
    expected |= {f"o{i}" for i in range(1, 9)} | {"o_random", "spar_fuzz"}
    expected |= {"spar_shove10", "spar_shove30", "spar_shove60", "spar_overbet", "spar_minraise", "spar_limper"}
    expected |= {"spar_fractions", "spar_oddsize"}
    assert set(NOLIMIT_AGENTS) == expected


@pytest.mark.parametrize("opponent", BAD_SIZERS)
@pytest.mark.parametrize("agent", NOLIMIT_AGENTS)
def test_every_nolimit_agent_plays_out_a_bad_sizing_opponent(agent: str, opponent: str) -> None:
    report = play((agent, opponent), GAME, seeds=(17,), hands=HANDS, t_response_ms=10000, t_hand_ms=60000)
    assert isinstance(report, Report)
    for match in report.matches:
        assert match.error is None, (agent, opponent, match.error)
        assert match.match.score is not None and len(match.match.hands) == HANDS, (agent, opponent)
