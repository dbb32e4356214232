"""The dealer and agents as a user runs them: separate processes over TCP on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acpc_arena.protocol.cards import card_to_str
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import SHIPPED_GAMES, load_game
from tests.helpers.processes import REPO, check_log, free_port, play, spawn, start_agent, start_dealer

FIXTURES = Path(__file__).parent / "fixtures" / "c_dealer"


def loop_arguments(loop: str) -> list[str]:
    """The dealer's extra arguments for each of its loops: none for the blocking loop (the default),
    a metrics port for trio's."""
    return [] if loop == "sync" else ["--metrics-port", str(free_port())]


@pytest.fixture(params=["sync", "trio"])
def loop_args(request: pytest.FixtureRequest) -> list[str]:
    return loop_arguments(request.param)


TRIO_GAMES = ("holdem.nolimit.2p.reverse_blinds", "kuhn.limit.3p")
"""The games the trio loop plays against the C dealer's logs in ``make test``: no-limit, and three players. The
rules are the engine's, the same for both loops, and the blocking loop plays every game here (acpc-match plays
every game on the trio loop in other tests); the trio loop plays the other games here in ``make test-slow``."""
C_DEALER_CASES = [
    pytest.param(
        game, loop, id=f"{loop}-{game}", marks=[] if loop == "sync" or game in TRIO_GAMES else pytest.mark.slow
    )
    for loop in ("sync", "trio")
    for game in SHIPPED_GAMES
]


@pytest.mark.parametrize(
    ("game", "agents", "hands"),
    [
        ("holdem.limit.2p.reverse_blinds", [("random", ["--seed", "3"]), ("rule", ["--seed", "4"])], 300),
        ("holdem.nolimit.2p.reverse_blinds", [("random", ["--seed", "5"]), ("raise", [])], 300),
        pytest.param(
            "holdem.limit.3p", [("random", ["--seed", "1"]), ("call", []), ("raise", [])], 200, marks=pytest.mark.slow
        ),
        pytest.param(
            "holdem.nolimit.3p",
            [("rule", ["--seed", "1"]), ("random", ["--seed", "2"]), ("call", [])],
            200,
            marks=pytest.mark.slow,
        ),
        ("kuhn.limit.3p", [("random", ["--seed", "1"]), ("random", ["--seed", "2"]), ("rule", ["--seed", "3"])], 300),
        ("kuhn", [("call", []), ("raise", [])], 100),
    ],
)
def test_full_match_over_tcp(tmp_path: Path, game: str, agents: list[tuple[str, list[str]]], hands: int) -> None:
    status, out, err = play(tmp_path, game, hands, 42, agents, "-q")
    assert status == 0, err
    assert out.startswith("SCORE:")
    assert "SCORE:" in err and "ERROR" not in err
    totals = check_log(tmp_path / "match.log", load_game(game), hands)
    assert out.strip() == (tmp_path / "match.log").read_text().splitlines()[-1]
    assert abs(sum(totals)) < 1e-6


@pytest.mark.parametrize(("game", "loop"), C_DEALER_CASES)
def test_logs_match_the_c_dealer(tmp_path: Path, game: str, loop: str) -> None:
    """Recorded with the ACPC dealer and two (three) ACPC example players seeded 11, 22 (33).

    Our random agent draws exactly as the example player, so with the same seeds our
    dealer must write the same log, line for line, apart from the match name.
    """
    expected = (FIXTURES / f"{game}.log").read_text().splitlines()
    players = load_game(game).num_players
    agents = [("random", ["--seed", str(seed)]) for seed in (11, 22, 33)[:players]]
    names = ["Alice", "Bob", "Carol"][:players]
    dealer = start_dealer(tmp_path, game, game, "300", "2024", *names, "-q", *loop_arguments(loop))
    procs = [
        start_agent(agent, port, "--game", game, *extra)
        for (agent, extra), port in zip(agents, dealer.ports, strict=True)
    ]
    status, _, err = dealer.wait()
    for proc in procs:
        proc.wait(timeout=30)
    assert status == 0, err
    ours = (tmp_path / f"{game}.log").read_text().splitlines()
    assert ours[0] == f"# name/game/hands/seed {game} {game} 300 2024"
    assert ours[1:] == expected[1:]


def test_verbose_output_shows_every_message(tmp_path: Path, loop_args: list[str]) -> None:
    status, _out, err = play(tmp_path, "kuhn", 20, 1, [("call", []), ("raise", [])], *loop_args)
    assert status == 0
    lines = err.splitlines()
    assert lines[0] == "# name/game/hands/seed match kuhn 20 1"
    assert lines[4].startswith("STARTED at ")
    to_lines = [line for line in lines if line.startswith("TO ")]
    from_lines = [line for line in lines if line.startswith("FROM ")]
    first_card = card_to_str(deal_hands(load_game("kuhn"), 1, 1)[0].hole_cards[0][0])
    assert re.fullmatch(rf"TO 1 at \d+\.\d{{6}} MATCHSTATE:0:0::{first_card}\|", to_lines[0])
    assert not any("VERSION" in line for line in from_lines)  # the C dealer does not echo it either
    assert any(line.startswith("Seconds cumulatively spent in match for seat 0: ") for line in lines)
    assert lines[-2].startswith("FINISHED at ") and lines[-1].startswith("SCORE:")
    # Every state a player answered was sent to it first, and the answer echoes it.
    sent = {line.split(" ", 4)[4] for line in to_lines}
    for line in from_lines:
        text = line.split(" ", 4)[4]
        if text.startswith("MATCHSTATE"):
            assert text.rsplit(":", 1)[0] in sent


def test_players_started_as_play_match_pl_starts_them(tmp_path: Path) -> None:
    """play_match.pl runs each player as ``<executable> HOST PORT``: the agents/bin wrappers."""
    dealer = start_dealer(tmp_path, "pm", "holdem.limit.2p.reverse_blinds", "200", "9", "A", "B", "-q")
    players = [
        spawn([str(REPO / "agents" / "bin" / script), "127.0.0.1", str(port)], cwd=tmp_path)
        for script, port in zip(["random", "rule"], dealer.ports, strict=True)
    ]
    status, out, err = dealer.wait()
    for player in players:
        assert player.wait(timeout=30) == 0
    assert status == 0, err
    assert out.startswith("SCORE:") and out.strip().endswith(":A|B")
    check_log(tmp_path / "pm.log", load_game("holdem.limit.2p.reverse_blinds"), 200)
