"""ACPC game definitions: parsing ``.game`` files and the shipped standard games.

The format is the ACPC server's (``game.c``): lines between ``GAMEDEF`` and
``END GAMEDEF``, keys case-insensitive, ``=`` optional, lines starting with ``#``
ignored. Defaults follow ``game.c``: limit betting, every stack ``2**31 - 1``
(unbounded), every first player 1, at most 255 raises per round.

Where this parser is stricter than ``game.c`` (which silently skips unknown lines
and stops reading numbers at the first non-number), it raises ``ProtocolError``
naming the file and line instead, so a typo never silently changes the game.
Numbers are ASCII digits with an optional sign, as ``sscanf`` reads them (never
``20_000`` or non-ASCII digits, which Python's ``int`` would take), within the 32 bits
that ``game.c`` reads them into (a number past them is refused, not wrapped); lines
end at ``\n`` only, as ``fgets`` reads them. A file is read whole up to
``ACPC_ARENA_MAX_GAME_BYTES`` (1 MiB; ``protocol/files.py``), a FIFO or device never.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from acpc_arena.protocol.cards import MAX_RANKS, MAX_SUITS, build_deck
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import GAME_BYTES, InputError, check_regular, read_bounded

MAX_ROUNDS = 4
MAX_PLAYERS = 10
MAX_BOARD_CARDS = 7
MAX_HOLE_CARDS = 3
MAX_NUM_ACTIONS = 64
INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
UINT8_MAX = 255
_ASCII_LETTERS = frozenset(string.ascii_letters)
_ASCII_SPACE = " \t\n\v\f\r"
_SPACE_TO_BLANK = str.maketrans(_ASCII_SPACE, " " * len(_ASCII_SPACE))
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")

SHIPPED_GAMES = (
    "holdem.limit.2p.reverse_blinds",
    "holdem.nolimit.2p.reverse_blinds",
    "holdem.limit.3p",
    "holdem.nolimit.3p",
    "kuhn.limit.2p",
    "kuhn.limit.3p",
    "leduc.limit.2p",
)
GAME_ALIASES = {"kuhn": "kuhn.limit.2p", "leduc": "leduc.limit.2p"}


@dataclass(frozen=True)
class Game:
    """One ACPC game definition. Per-player tuples have ``num_players`` entries and
    per-round tuples ``num_rounds``; ``first_player`` is 0-based (the file's is 1-based)."""

    no_limit: bool
    num_players: int
    num_rounds: int
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    deck: tuple[int, ...] = field(init=False, repr=False, compare=False)
    board_start: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck", tuple(build_deck(self.num_suits, self.num_ranks)))
        starts = [0]
        for count in self.num_board_cards:
            starts.append(starts[-1] + count)
        object.__setattr__(self, "board_start", tuple(starts))

    @property
    def big_blind(self) -> int:
        """The largest blind: the unit of mbb/h."""
        return max(self.blind)

    @property
    def total_board_cards(self) -> int:
        return self.board_start[self.num_rounds]

    def board_cards_after(self, round_: int) -> int:
        """Number of board cards visible in ``round_`` (the ACPC ``sumBoardCards``)."""
        return self.board_start[round_ + 1]

    def to_text(self) -> str:
        """The definition in the canonical ACPC format (``printGame``)."""
        lines = ["GAMEDEF", "nolimit" if self.no_limit else "limit"]
        lines.append(f"numPlayers = {self.num_players}")
        lines.append(f"numRounds = {self.num_rounds}")
        if any(s < INT32_MAX for s in self.stack):
            lines.append("stack = " + " ".join(map(str, self.stack)))
        lines.append("blind = " + " ".join(map(str, self.blind)))
        if not self.no_limit:
            lines.append("raiseSize = " + " ".join(map(str, self.raise_size)))
        if any(self.first_player):
            lines.append("firstPlayer = " + " ".join(str(p + 1) for p in self.first_player))
        if any(m != UINT8_MAX for m in self.max_raises):
            lines.append("maxRaises = " + " ".join(map(str, self.max_raises)))
        lines.append(f"numSuits = {self.num_suits}")
        lines.append(f"numRanks = {self.num_ranks}")
        lines.append(f"numHoleCards = {self.num_hole_cards}")
        lines.append("numBoardCards = " + " ".join(map(str, self.num_board_cards)))
        lines.append("END GAMEDEF")
        return "\n".join(lines) + "\n"


# key -> (kind, maximum number of values); kind is "flag", "one", "players" or "rounds"
_KEYS: dict[str, tuple[str, int]] = {
    "limit": ("flag", 0),
    "nolimit": ("flag", 0),
    "numplayers": ("one", 1),
    "numrounds": ("one", 1),
    "stack": ("players", MAX_PLAYERS),
    "blind": ("players", MAX_PLAYERS),
    "raisesize": ("rounds", MAX_ROUNDS),
    "firstplayer": ("rounds", MAX_ROUNDS),
    "maxraises": ("rounds", MAX_ROUNDS),
    "numsuits": ("one", 1),
    "numranks": ("one", 1),
    "numholecards": ("one", 1),
    "numboardcards": ("rounds", MAX_ROUNDS),
}


def _split_key(line: str) -> tuple[str, str]:
    """Split ``"numPlayers = 2"`` into ``("numplayers", "2")``."""
    end = 0
    while end < len(line) and line[end] in _ASCII_LETTERS:
        end += 1
    return line[:end].lower(), line[end:]


def _shown(token: str) -> str:
    """A token for a message, cut short when long."""
    return repr(token) if len(token) <= 24 else f"{token[:12]!r}... ({len(token)} characters)"


def _parse_numbers(rest: str, where: str, key: str, most: int) -> list[int]:
    text = rest.split("#", 1)[0].replace("=", " ")
    values: list[int] = []
    for token in text.translate(_SPACE_TO_BLANK).split(" "):
        if not token:
            continue
        if not _WHOLE_NUMBER.fullmatch(token):  # int() would take "20_000" and non-ASCII digits
            raise ProtocolError(f"{where}: {key}: {_shown(token)} is not a whole number")
        significant = token.lstrip("+-").lstrip("0")
        value = int(token, 10) if len(significant) <= 10 else None  # int() refuses 4300 digits and more
        if value is None or not INT32_MIN <= value <= INT32_MAX:
            raise ProtocolError(f"{where}: {key}: {_shown(token)} is out of range ({INT32_MIN}..{INT32_MAX})")
        values.append(value)
    if not values:
        raise ProtocolError(f"{where}: {key}: no values given")
    if len(values) > most:
        raise ProtocolError(f"{where}: {key}: {len(values)} values given, at most {most} allowed")
    return values


def parse_game(text: str, source: str = "<string>") -> Game:
    """Parse an ACPC game definition; errors name ``source`` and the line."""
    values: dict[str, list[int]] = {}
    where_of: dict[str, str] = {}
    no_limit = False
    in_gamedef = False
    ended = False
    for number, raw in enumerate(text.split("\n"), start=1):  # game.c reads lines with fgets
        line = raw.strip(_ASCII_SPACE)
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {number}"
        lowered = line.lower()
        if lowered.startswith("end gamedef"):
            ended = True
            break
        if lowered.startswith("gamedef"):
            in_gamedef = True
            continue
        key, rest = _split_key(line)
        if key not in _KEYS:
            raise ProtocolError(f"{where}: unknown key {line.translate(_SPACE_TO_BLANK).split(' ')[0]!r}")
        kind, most = _KEYS[key]
        if kind == "flag":
            if rest.split("#", 1)[0].strip():
                raise ProtocolError(f"{where}: {key} takes no value")
            no_limit = key == "nolimit"
            continue
        values[key] = _parse_numbers(rest, where, key, most)
        where_of[key] = where
    if not in_gamedef:
        raise ProtocolError(f"{source}: no GAMEDEF line")
    if not ended:
        raise ProtocolError(f"{source}: no END GAMEDEF line")
    return _build_game(no_limit, values, where_of, source)


def _build_game(no_limit: bool, values: dict[str, list[int]], where_of: dict[str, str], source: str) -> Game:
    def where(key: str) -> str:
        return where_of.get(key, source)

    def one(key: str, low: int, high: int, name: str) -> int:
        if key not in values:
            raise ProtocolError(f"{source}: {name} is missing")
        value = values[key][0]
        if not low <= value <= high:
            raise ProtocolError(f"{where(key)}: invalid {name} {value} (must be {low}..{high})")
        return value

    def needed(key: str, count: int, name: str, default: int | None = None) -> tuple[int, ...]:
        if key not in values:
            if default is None:
                raise ProtocolError(f"{source}: {name} is missing (need {count} values)")
            return (default,) * count
        got = values[key]
        if len(got) < count:
            raise ProtocolError(f"{where(key)}: only read {len(got)} {name}, need {count}")
        return tuple(got[:count])

    num_rounds = one("numrounds", 1, MAX_ROUNDS, "number of rounds")
    num_players = one("numplayers", 2, MAX_PLAYERS, "number of players")
    stack = needed("stack", num_players, "stack sizes", default=INT32_MAX)
    blind = needed("blind", num_players, "blinds")
    for p in range(num_players):
        if stack[p] <= 0 or stack[p] > INT32_MAX:
            raise ProtocolError(f"{where('stack')}: stack for player {p + 1} must be 1..{INT32_MAX}")
        if blind[p] < 0:
            raise ProtocolError(f"{where('blind')}: blind for player {p + 1} is negative")
        if blind[p] > stack[p]:
            raise ProtocolError(f"{where('blind')}: blind for player {p + 1} is greater than stack size")
    if all(blind[p] >= stack[p] for p in range(num_players)):
        raise ProtocolError(f"{where('blind')}: every player is all in from the blinds; nobody could act")
    if no_limit:
        raise_size = tuple(values.get("raisesize", [0] * num_rounds)[:num_rounds])
        raise_size = raise_size + (0,) * (num_rounds - len(raise_size))
    else:
        raise_size = needed("raisesize", num_rounds, "raise sizes")
        for r, size in enumerate(raise_size):
            if size <= 0:
                raise ProtocolError(f"{where('raisesize')}: raise size on round {r + 1} must be positive")
            if size > INT32_MAX:  # game.c would wrap it to 32 bits
                raise ProtocolError(f"{where('raisesize')}: raise size on round {r + 1} is over {INT32_MAX}")
    first_player = needed("firstplayer", num_rounds, "first players", default=1)
    for r, p in enumerate(first_player):
        if not 1 <= p <= num_players:
            raise ProtocolError(f"{where('firstplayer')}: invalid first player {p} on round {r + 1}")
    max_raises = needed("maxraises", num_rounds, "max raises", default=UINT8_MAX)
    for r, m in enumerate(max_raises):
        if not 0 <= m <= UINT8_MAX:
            raise ProtocolError(f"{where('maxraises')}: max raises on round {r + 1} must be 0..{UINT8_MAX}")
    num_suits = one("numsuits", 1, MAX_SUITS, "number of suits")
    num_ranks = one("numranks", 1, MAX_RANKS, "number of ranks")
    num_hole_cards = one("numholecards", 1, MAX_HOLE_CARDS, "number of hole cards")
    num_board_cards = needed("numboardcards", num_rounds, "board card numbers")
    if any(n < 0 for n in num_board_cards) or sum(num_board_cards) > MAX_BOARD_CARDS:
        raise ProtocolError(
            f"{where('numboardcards')}: board cards must be non-negative and at most {MAX_BOARD_CARDS} in all"
        )
    if num_hole_cards * num_players + sum(num_board_cards) > num_suits * num_ranks:
        raise ProtocolError(f"{source}: too many hole and board cards for specified deck")
    return Game(
        no_limit=no_limit,
        num_players=num_players,
        num_rounds=num_rounds,
        stack=stack,
        blind=blind,
        raise_size=raise_size,
        first_player=tuple(p - 1 for p in first_player),
        max_raises=max_raises,
        num_suits=num_suits,
        num_ranks=num_ranks,
        num_hole_cards=num_hole_cards,
        num_board_cards=num_board_cards,
    )


def shipped_game_path(name: str) -> Path | None:
    """The packaged file for a shipped game's stem or alias, or None."""
    stem = GAME_ALIASES.get(name, name)
    if stem.endswith(".game"):
        stem = stem[: -len(".game")]
    if stem not in SHIPPED_GAMES:
        return None
    return Path(str(resources.files("acpc_arena.protocol") / "games" / f"{stem}.game"))


def resolve_game_path(name_or_path: str | Path) -> Path:
    """A game file path: an existing file, else a shipped game by stem or alias."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    shipped = shipped_game_path(str(name_or_path))
    if shipped is not None:
        return shipped
    if path.exists():
        check_regular(path)  # a FIFO, device or folder: InputError saying which
    known = ", ".join(SHIPPED_GAMES + tuple(GAME_ALIASES))
    raise ProtocolError(f"no game file {str(name_or_path)!r} and no shipped game of that name (shipped: {known})")


def load_game(name_or_path: str | Path) -> Game:
    """Load a game from a file, or a shipped game by its stem (``holdem.limit.2p.reverse_blinds``)."""
    path = resolve_game_path(name_or_path)
    try:
        data = read_bounded(path, GAME_BYTES)
    except InputError as exc:
        raise ProtocolError(f"could not read game definition {exc}") from None
    except OSError as exc:
        raise ProtocolError(f"could not read game definition {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProtocolError(f"could not read game definition {path}, line {line}: not UTF-8 text") from None
    return parse_game(text, str(path))


def game_name(game: Game) -> str:
    """The name of the shipped game equal to ``game``, else a short description of it."""
    for name in SHIPPED_GAMES:
        if load_game(name) == game:
            return name
    betting = "no-limit" if game.no_limit else "limit"
    return f"a {game.num_players}-player {betting} game of {game.num_rounds} rounds ({game.num_ranks} ranks)"
