"""The games page (docs/reference/games.md) lists exactly the shipped game files, and each row says
what its file says: players, betting, blinds, stacks, rounds, raises and cards, worked out here from the
parsed file."""

from __future__ import annotations

from pathlib import Path

from acpc_arena.protocol.game import GAME_ALIASES, INT32_MAX, SHIPPED_GAMES, Game, load_game

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "games.md"


def _numbers(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values))


def described(game: Game) -> list[str]:
    """The page's cells from players to cards, as the file gives them."""
    stacks = {"unbounded" if s == INT32_MAX else str(s) for s in game.stack}
    assert len(stacks) == 1, "the page gives one stack for every seat"
    raises = "" if game.no_limit else f"{_numbers(game.raise_size)}; at most {_numbers(game.max_raises)}"
    cards = f"{game.num_ranks * game.num_suits}; {game.num_hole_cards} hole"
    if any(game.num_board_cards):
        cards += f", board {_numbers(game.num_board_cards)}"
    return [
        str(game.num_players),
        "no-limit" if game.no_limit else "limit",
        _numbers(game.blind),
        stacks.pop(),
        str(game.num_rounds),
        raises,
        cards,
    ]


def page_rows() -> dict[str, list[str]]:
    """The games table's rows by game name: the cells from players to cards."""
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = cells[0].split("`")[1]
        aliases = {alias for alias, target in GAME_ALIASES.items() if target == name}
        assert cells[0] == f"`{name}`" + "".join(f" (`{a}`)" for a in sorted(aliases)), cells[0]
        rows[name] = cells[1:8]
    return rows


def test_the_games_page_lists_every_shipped_game_once() -> None:
    assert sorted(page_rows()) == sorted(SHIPPED_GAMES)
    shipped = sorted(p.name.removesuffix(".game") for p in (PAGE.parents[2] / "protocol" / "games").glob("*.game"))
    assert shipped == sorted(SHIPPED_GAMES)


def test_each_row_says_what_its_file_says() -> None:
    for name, cells in page_rows().items():
        assert cells == described(load_game(name)), name
