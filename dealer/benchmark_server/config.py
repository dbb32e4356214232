"""The C ``bm_server.config`` format, read into a ``BmConfig`` as ``bm_server.c``'s ``readConfig`` reads it.

One setting a line; a line whose first non-blank is ``#`` or ``;`` is a comment; a keyword is matched as the
line's first letters in any case, in C's order (``KEYWORDS``); after a value, anything (a comment, more words)
is left unread, as C's ``sscanf`` leaves it::

    port 54000                  # outside game blocks: port, maxRunningBots, the four time limits, users
    maxRunningBots 0            # hosted bots running at once, 0: no bound
    startupTimeoutSecs 60       # seconds the players have to connect
    responseTimeoutSecs 600     # dealer --t_response, in seconds
    handTimeoutSecs 21000       # dealer --t_hand, in seconds
    avgHandTimeSecs 7           # dealer --t_per_hand, in seconds
    game holdem.limit.2p.reverse_blinds.game {
        maxMatchRuns 10         # runs one request may ask for
        maxRunningJobs 1        # matches of this game at once, 0: no bound
        matchHands 5000         # hands a match
        bot cfr cfr             # bot NAME AGENT [OPTIONS...]: an agent's spec (a plugin too), or
        bot ex ./example.sh     # bot NAME SCRIPT: run as SCRIPT HOST PORT POSITION (the C way), or
        bot t ./t.sh {host} {port}  # a command line template with {host} {port} {game} {seed}
    }                           # ends the block
    user neil test              # a user and password (stored hashed in the database at start)

Names of users and bots are one word each, as C reads them (``test@Bot``, ``neil@x``, a user ``LOCAL``), but
not a bot ``LOCAL`` (C's reserved name), nor what a log or a file name cannot hold (``check_name``: ``/``,
``|``, ``:``). Defaults are the C server's. A game file is looked up beside the config, then among the shipped
games; a relative script beside the config, and so a plugin's ``path/file.py:Class`` (``agents.registry``: a
spec that names no agent is refused as the config is read). Beyond C: a number out of its range (C wraps it
round) and a config with no game are refused; a block left open at the end is closed, as C leaves it. A bad
line is refused with one line naming the file and line (``InputError``); ``acpc-bm-server`` then exits 1, as C
does.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from acpc_arena.agents.registry import AGENTS, absolute_spec, check_spec, entry_points, is_spec
from acpc_arena.dealer.arena.options import COMMAND_FIELDS, check_command
from acpc_arena.dealer.server.logfiles import check_player_name
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import GAME_BYTES as CONFIG_BYTES
from acpc_arena.protocol.files import InputError, read_bounded
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

LOCAL = "LOCAL"
"""The player name that stands for the requesting user's own bot (``local`` for ``bm_run_matches``)."""
UINT16 = 65535
UINT32 = 2**32 - 1
SERVER_KEYS = {
    "port": "port",
    "maxrunningbots": "max_running_bots",
    "startuptimeoutsecs": "startup_timeout_secs",
    "responsetimeoutsecs": "response_timeout_secs",
    "handtimeoutsecs": "hand_timeout_secs",
    "avghandtimesecs": "avg_hand_time_secs",
}
GAME_KEYS = {"maxmatchruns": "max_match_runs", "maxrunningjobs": "max_running_jobs", "matchhands": "match_hands"}
KEYWORDS = (
    "port", "game", "}", "maxRunningBots", "startupTimeoutSecs", "responseTimeoutSecs", "handTimeoutSecs",
    "avgHandTimeSecs", "maxMatchRuns", "maxRunningJobs", "matchHands", "bot", "user",
)  # fmt: skip
"""The keywords in the order ``bm_server.c``'s ``readConfig`` tries them, each matched as the line's first letters
in any case (``port5`` is ``port 5``, ``bots`` is ``bot s``)."""
NUMBER = re.compile(r"\s*([+-]?)([0-9]+)")
"""What C's ``sscanf("%hu")`` takes after a keyword: blanks, a sign, digits; whatever follows is left unread."""


def check_name(name: str, what: str) -> None:
    """ValueError, one line, unless ``name`` can name a user or a bot: one word (``bm_server.c`` reads names with
    ``%s``) that a log can hold as a player's name (``check_player_name``) and a file's name can hold (no
    ``/``, not ``.`` or ``..``)."""
    if "/" in name or name in (".", ".."):
        raise ValueError(f"{what} {name[:40]!r}: it goes into the logs' file names: no '/', not '.' or '..'")
    try:
        check_player_name(name)
    except ValueError as exc:
        raise ValueError(f"{what} {name[:40]!r}: {exc}") from None


def keyword(line: str) -> str | None:
    """The config keyword ``line`` starts with, as ``bm_server.c`` matches them (``KEYWORDS``), or None."""
    return next((key for key in KEYWORDS if line[: len(key)].lower() == key.lower()), None)


@dataclass(frozen=True)
class HostedBot:
    """A bot the server starts itself: a shipped agent with options, or a command."""

    name: str
    agent: str | None = None
    args: tuple[str, ...] = ()
    command: str | None = None
    """A command line template (``{host}``, ``{port}``, ... filled in for each match)."""
    positional: bool = False
    """A C-style script: run as ``SCRIPT HOST PORT POSITION`` (``command`` is the script alone)."""

    def command_line(self, position: int) -> str | None:
        """The runner's command template for this bot as the ``position``-th hosted bot of its match."""
        if self.command is None:
            return None
        if self.positional:
            return f"{self.command} {{host}} {{port}} {position}"
        return self.command


@dataclass
class GameConfig:
    name: str
    """The game as the config names it (in ``GAMES``, requests and the logs' headers)."""
    path: Path
    game: Game
    max_match_runs: int = 10
    max_running_jobs: int = 1
    match_hands: int = 5000
    bots: dict[str, HostedBot] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """``bm_run_matches``' name for it: ``2pl``, ``2pn``, ``3pl``, ..."""
        return f"{self.game.num_players}p{'n' if self.game.no_limit else 'l'}"


@dataclass
class BmConfig:
    path: Path
    port: int = 54000
    max_running_bots: int = 0
    startup_timeout_secs: int = 60
    response_timeout_secs: int = 600
    hand_timeout_secs: int = 3000 * 7
    avg_hand_time_secs: int = 7
    games: dict[str, GameConfig] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)
    """Users the config names, with their passwords."""

    def game_of_kind(self, kind: str) -> GameConfig | None:
        """The first game of ``bm_run_matches``' kind (``2pl``, ``2pn``, ``3pl``), or None."""
        return next((game for game in self.games.values() if game.kind == kind.lower()), None)


def _number(path: Path, number: int, key: str, rest: str, low: int, high: int) -> int:
    """The whole number ``rest`` starts with (``NUMBER``), within ``low`` to ``high``: InputError otherwise."""
    found = NUMBER.match(rest)
    if found is None:
        raise InputError(path, number, f"{key} takes a whole number from {low} to {high}: none after it")
    sign, digits = found.groups()
    value = int(digits) if len(digits) <= 20 else high + 1  # never int() of thousands of digits
    if sign == "-" and value:
        value = -1  # C would wrap it round (-1: 65535): refused instead
    if not low <= value <= high:
        shown = f"{sign}{digits[:20]}{'...' if len(digits) > 20 else ''}"
        raise InputError(path, number, f"{key} takes a whole number from {low} to {high}, not {shown}")
    return value


def _game(path: Path, number: int, rest: str, games: dict[str, GameConfig]) -> GameConfig:
    words = rest.split()
    if not words:
        raise InputError(path, number, "write a game block as: game FILE {")
    name = words[0]  # bm_server.c reads one word: what follows it ('{', a comment) is not read
    if name in games:
        raise InputError(path, number, f"game {name} is already defined")
    if not name.isascii() or not name.isprintable():
        raise InputError(path, number, f"game {name!r}: the name goes into the logs' headers: use ASCII")
    beside = path.parent / name
    try:
        game_path = beside if beside.is_file() else resolve_game_path(name)
        game = load_game(game_path)
    except (ProtocolError, OSError, ValueError) as exc:
        raise InputError(path, number, str(exc)) from None
    return GameConfig(name, game_path, game)


COMMENT = re.compile(r"(^|\s)[#;].*")
"""A comment after a bot's words: from a ``#`` or ``;`` that starts a word to the end of the line."""


def _bot(path: Path, number: int, rest: str, game: GameConfig) -> HostedBot:
    try:
        words = shlex.split(COMMENT.sub("", rest, count=1))
    except ValueError as exc:
        raise InputError(path, number, f"bot: {exc}") from None
    if len(words) < 2:
        raise InputError(path, number, "write a bot as: bot NAME SCRIPT, bot NAME AGENT [OPTIONS...]")
    name, program, options = words[0], words[1], words[2:]
    if name == LOCAL:
        raise InputError(path, number, "LOCAL is a reserved bot name")
    try:
        check_name(name, "bot name")
    except ValueError as exc:
        raise InputError(path, number, str(exc)) from None
    if name in game.bots:
        raise InputError(path, number, f"bot {name} is already defined for {game.name}")
    if is_spec(program):
        return HostedBot(name, agent=_agent(path, number, program), args=tuple(options))
    script = path.absolute().parent / program  # a script beside the config, wherever the server was started
    command = shlex.join([str(script) if script.exists() else program, *options])
    if not any("{" + field_name + "}" in command for field_name in COMMAND_FIELDS):
        # a C bot script: run as SCRIPT HOST PORT POSITION; bm_server.c reads no word after it
        return HostedBot(name, command=shlex.quote(str(script) if script.exists() else program), positional=True)
    try:
        check_command(command)
    except ValueError as exc:
        raise InputError(path, number, str(exc)) from None
    return HostedBot(name, command=command)


def _agent(path: Path, number: int, spec: str) -> str:
    """A hosted agent's spec, a file's path taken beside the config; a plugin's checked (a shipped agent is
    imported only when it plays)."""
    if spec not in AGENTS or spec in entry_points():
        try:
            spec = absolute_spec(spec, path.absolute().parent)
            check_spec(spec)
        except ValueError as exc:
            raise InputError(path, number, str(exc)) from None
    return spec


def _user(path: Path, number: int, rest: str, users: dict[str, str]) -> tuple[str, str]:
    words = rest.split()
    if len(words) < 2:
        raise InputError(path, number, "write a user as: user NAME PASSWORD")
    name, password = words[0], words[1]  # bm_server.c reads two words: what follows them is not read
    try:
        check_name(name, "user name")
    except ValueError as exc:
        raise InputError(path, number, str(exc)) from None
    if name in users:
        raise InputError(path, number, f"duplicate user {name}")
    return name, password


def read_config(path: Path) -> BmConfig:
    """Read a ``bm_server.config`` as ``bm_server.c`` reads it (the module says how); InputError (one line: file,
    line, reason) for anything it cannot use."""
    try:
        data = read_bounded(path, CONFIG_BYTES)
    except OSError as exc:
        raise InputError(path, 0, exc.strerror or str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, 0, "not UTF-8 text") from None
    config = BmConfig(path)
    game: GameConfig | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.lstrip()
        if not line or line[0] in "#;":
            continue
        key = keyword(line)
        if key is None:
            raise InputError(path, number, f"unknown configuration option {line.split()[0][:40]!r}")
        rest = line[len(key) :]
        lower = key.lower()
        if key == "}":
            game = None  # bm_server.c ends the block (if any) and reads nothing after the brace
        elif lower in SERVER_KEYS:
            if game is not None:
                raise InputError(path, number, f"{key} must be defined outside of game blocks")
            setattr(config, SERVER_KEYS[lower], _number(path, number, key, rest, 0, UINT16))
        elif lower in GAME_KEYS:
            if game is None:
                raise InputError(path, number, f"{key} must be defined within a game block")
            high = UINT32 if lower == "matchhands" else UINT16
            setattr(game, GAME_KEYS[lower], _number(path, number, key, rest, 1 if lower == "matchhands" else 0, high))
        elif key == "game":
            if game is not None:
                raise InputError(path, number, "can't define a game within another game block")
            game = _game(path, number, rest, config.games)
            config.games[game.name] = game
        elif key == "bot":
            if game is None:
                raise InputError(path, number, "bots must be defined within a game block")
            bot = _bot(path, number, rest, game)
            game.bots[bot.name] = bot
        else:
            if game is not None:
                raise InputError(path, number, "users must be defined outside of game blocks")
            name, password = _user(path, number, rest, config.users)
            config.users[name] = password
    if not config.games:
        raise InputError(path, 0, "no game block: the server would have nothing to play")
    return config
