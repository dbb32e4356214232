"""Game definition files: the shipped games, the format's leniencies, and clear errors."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import GAME_ALIASES, INT32_MAX, SHIPPED_GAMES, load_game, parse_game, resolve_game_path


def test_holdem_limit_reverse_blinds() -> None:
    game = load_game("holdem.limit.2p.reverse_blinds")
    assert not game.no_limit
    assert (game.num_players, game.num_rounds) == (2, 4)
    assert game.blind == (10, 5)
    assert game.raise_size == (10, 10, 20, 20)
    assert game.first_player == (1, 0, 0, 0)
    assert game.max_raises == (3, 4, 4, 4)
    assert game.stack == (INT32_MAX, INT32_MAX)
    assert (game.num_suits, game.num_ranks, game.num_hole_cards) == (4, 13, 2)
    assert game.num_board_cards == (0, 3, 1, 1)
    assert game.big_blind == 10
    assert len(game.deck) == 52


def test_holdem_nolimit_and_small_games() -> None:
    nl = load_game("holdem.nolimit.2p.reverse_blinds")
    assert nl.no_limit and nl.stack == (20000, 20000) and nl.blind == (100, 50) and nl.big_blind == 100
    assert nl.max_raises == (255,) * 4
    kuhn3 = load_game("kuhn.limit.3p")
    assert kuhn3.num_players == 3 and kuhn3.num_ranks == 4 and kuhn3.stack == (2, 2, 2)
    leduc = load_game("leduc")
    assert leduc == load_game("leduc.limit.2p")
    assert (leduc.raise_size, leduc.max_raises, leduc.num_board_cards) == ((2, 4), (2, 2), (0, 1))
    assert (leduc.num_suits, leduc.num_ranks, leduc.blind) == (2, 3, (1, 1))
    assert load_game("kuhn") == load_game("kuhn.limit.2p")


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_shipped_games_agree_with_openspiel_parser(pyspiel: ModuleType, name: str) -> None:
    """OpenSpiel reads the same file with the ACPC game.c reader."""
    game = load_game(name)
    params = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(
        resolve_game_path(name).read_text()
    ).get_parameters()
    assert params["betting"] == ("nolimit" if game.no_limit else "limit")
    assert params["numPlayers"] == game.num_players
    assert params["numRounds"] == game.num_rounds
    assert params["blind"].split() == [str(b) for b in game.blind]
    rounds = game.num_rounds  # OpenSpiel pads per-round lists of one-round games
    assert params["firstPlayer"].split()[:rounds] == [str(p + 1) for p in game.first_player]
    assert params["numBoardCards"].split()[:rounds] == [str(b) for b in game.num_board_cards]
    assert (params["numSuits"], params["numRanks"], params["numHoleCards"]) == (
        game.num_suits,
        game.num_ranks,
        game.num_hole_cards,
    )
    if game.no_limit:
        assert params["stack"].split() == [str(s) for s in game.stack]
    else:
        assert params["raiseSize"].split()[:rounds] == [str(s) for s in game.raise_size]
        assert params["maxRaises"].split()[:rounds] == [str(m) for m in game.max_raises]


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_canonical_text_round_trips(name: str) -> None:
    game = load_game(name)
    assert parse_game(game.to_text()) == game


def test_shipped_names_resolve_with_or_without_suffix(tmp_path: Path) -> None:
    assert resolve_game_path("holdem.limit.2p.reverse_blinds.game").name == "holdem.limit.2p.reverse_blinds.game"
    assert set(GAME_ALIASES) == {"kuhn", "leduc"}
    own = tmp_path / "mine.game"
    own.write_text(load_game("kuhn").to_text())
    assert load_game(own) == load_game("kuhn")
    assert load_game(str(own)) == load_game("kuhn")


def test_format_leniencies_and_defaults() -> None:
    text = """
# a comment
gamedef
NOLIMIT
NumPlayers 3
numrounds= 2
STACK = 500 600 700   # trailing comment
Blind 0 10 5
numSuits=2
numRanks 6

numHoleCards 1
numBoardCards 0 2
end gamedef
anything after the end is ignored
"""
    game = parse_game(text)
    assert game.no_limit and game.num_players == 3 and game.num_rounds == 2
    assert game.stack == (500, 600, 700) and game.blind == (0, 10, 5)
    assert game.first_player == (0, 0)
    assert game.max_raises == (255, 255)
    assert game.deck == tuple(rank * 4 + suit for suit in (2, 3) for rank in range(7, 13))


def test_reduced_deck_uses_top_ranks_and_suits() -> None:
    kuhn = load_game("kuhn")
    assert kuhn.deck == (43, 47, 51)  # Qs Ks As: the top three ranks of the top suit
    leduc = load_game("leduc")
    assert leduc.deck == (42, 46, 50, 43, 47, 51)  # Qh Kh Ah Qs Ks As: suit outer, rank inner


GOOD = """GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 1 1
raiseSize = 1
maxRaises = 1
numSuits = 1
numRanks = 3
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("numPlayers = 2", "numPlayers = 11"), "line 3: invalid number of players 11"),
        (("numPlayers = 2", "numPlayers = 1"), "invalid number of players 1"),
        (("numRounds = 1", "numRounds = 5"), "invalid number of rounds 5"),
        (("numRounds = 1", "numRounds = x"), "line 4: numrounds: 'x' is not a whole number"),
        (("blind = 1 1", "blind = 1"), "line 5: only read 1 blinds, need 2"),
        (("blind = 1 1", "blind = 1 -1"), "blind for player 2 is negative"),
        (("raiseSize = 1", "raiseSize = 0"), "raise size on round 1 must be positive"),
        (("raiseSize = 1\n", ""), "raise sizes is missing"),
        (("numSuits = 1", "numSuits = 5"), "invalid number of suits 5"),
        (("numRanks = 3", "numRanks = 14"), "invalid number of ranks 14"),
        (("numRanks = 3", "numRanks = 1"), "too many hole and board cards for specified deck"),
        (("numHoleCards = 1", "numHoleCards = 4"), "invalid number of hole cards 4"),
        (("numBoardCards = 0", "numBoardCards = 8"), "at most 7 in all"),
        (("maxRaises = 1", "maxRaises = 256"), "max raises on round 1 must be 0..255"),
        (("maxRaises = 1", "maxRaises = 1 1 1 1 1"), "5 values given, at most 4 allowed"),
        (("limit\n", "limit\nnumBets = 3\n"), "line 3: unknown key 'numBets'"),
        (("limit\n", "limit please\n"), "limit takes no value"),
        (("END GAMEDEF\n", ""), "no END GAMEDEF line"),
        (("GAMEDEF\n", ""), "no GAMEDEF line"),
        (("numHoleCards = 1\n", ""), "number of hole cards is missing"),
        (("blind = 1 1", "blind = 1 1\nstack = 1 0"), "stack for player 2 must be"),
        (("blind = 1 1", "blind = 1 3\nstack = 2 2"), "blind for player 2 is greater than stack size"),
        (("numPlayers = 2\n", "numPlayers = 2\nfirstPlayer = 3\n"), "invalid first player 3 on round 1"),
    ],
)
def test_malformed_definitions_name_file_and_line(change: tuple[str, str], message: str) -> None:
    text = GOOD.replace(*change, 1)
    assert text != GOOD
    with pytest.raises(ProtocolError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        parse_game(text, "broken.game")
    assert "broken.game" in str(info.value)


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError, match=r"no game file 'nope\.game' and no shipped game"):
        load_game("nope.game")
    binary = tmp_path / "binary.game"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ProtocolError, match="could not read game definition"):
        load_game(binary)
    empty = tmp_path / "empty.game"
    empty.write_text("")
    with pytest.raises(ProtocolError, match=r"empty\.game: no GAMEDEF line"):
        load_game(empty)
