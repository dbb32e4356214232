"""The C ``bm_server.config`` format, read into a ``BmConfig``.

One setting a line; ``#`` or ``;`` starts a comment line; keywords are case-insensitive::

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
        bot cfr cfr             # bot NAME AGENT [OPTIONS...]: a shipped agent, or
        bot ex ./example.sh     # bot NAME SCRIPT: run as SCRIPT HOST PORT POSITION (the C way), or
        bot t ./t.sh {host} {port}  # a command line template with {host} {port} {game} {seed}
    }
    user neil test              # a user and password (stored hashed in the database at start)

Defaults are the C server's. A game file is looked up beside the config, then among the
shipped games; a relative script beside the config. A bad line is refused with one line naming
the file and line (``InputError``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from acpc_arena.agents.registry import AGENTS
from acpc_arena.dealer.arena.options import COMMAND_FIELDS, check_command
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import GAME_BYTES as CONFIG_BYTES
from acpc_arena.protocol.files import InputError, read_bounded
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

NAME = re.compile(r"[A-Za-z0-9_.-]{1,32}")
"""A user's or bot's name: it goes into log names, file names and the protocol's words."""
LOCAL = "LOCAL"
"""The player name that stands for the requesting user's own bot (``local`` for ``bm_run_matches``)."""
UINT16 = 65535
SERVER_KEYS = {
    "port": "port",
    "maxrunningbots": "max_running_bots",
    "startuptimeoutsecs": "startup_timeout_secs",
    "responsetimeoutsecs": "response_timeout_secs",
    "handtimeoutsecs": "hand_timeout_secs",
    "avghandtimesecs": "avg_hand_time_secs",
}
GAME_KEYS = {"maxmatchruns": "max_match_runs", "maxrunningjobs": "max_running_jobs", "matchhands": "match_hands"}


def check_name(name: str, what: str) -> None:
    """ValueError, one line, unless ``name`` is 1 to 32 of ``A-Z a-z 0-9 _ . -`` (and not ``LOCAL``)."""
    if not NAME.fullmatch(name) or name.upper() == LOCAL:
        raise ValueError(f"{what} {name!r}: use 1 to 32 letters, digits, '_', '.' or '-' (and not LOCAL)")


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


def _number(path: Path, number: int, key: str, words: list[str], low: int, high: int) -> int:
    if len(words) != 2 or not words[1].isdigit() or not low <= int(words[1]) <= high:
        raise InputError(path, number, f"{key} takes one whole number from {low} to {high}")
    return int(words[1])


def _game(path: Path, number: int, words: list[str], games: dict[str, GameConfig]) -> GameConfig:
    if len(words) not in (2, 3) or (len(words) == 3 and words[2] != "{"):
        raise InputError(path, number, "write a game block as: game FILE {")
    name = words[1]
    if name in games:
        raise InputError(path, number, f"game {name} is already defined")
    if not name.isascii() or not name.isprintable():
        raise InputError(path, number, f"game {name!r}: the name goes into the logs' headers: use ASCII")
    beside = path.parent / name
    try:
        game_path = beside if beside.is_file() else resolve_game_path(name)
        game = load_game(game_path)
    except ProtocolError as exc:
        raise InputError(path, number, str(exc)) from None
    return GameConfig(name, game_path, game)


def _bot(path: Path, number: int, line: str, game: GameConfig) -> HostedBot:
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise InputError(path, number, f"bot: {exc}") from None
    if len(words) < 3:
        raise InputError(path, number, "write a bot as: bot NAME AGENT [OPTIONS...] or bot NAME COMMAND...")
    name, program, rest = words[1], words[2], words[3:]
    try:
        check_name(name, "bot name")
    except ValueError as exc:
        raise InputError(path, number, str(exc)) from None
    if name in game.bots:
        raise InputError(path, number, f"bot {name} is already defined for {game.name}")
    if program in AGENTS:
        return HostedBot(name, agent=program, args=tuple(rest))
    script = path.absolute().parent / program  # a script beside the config, wherever the server was started
    words = [str(script) if script.exists() else program, *rest]
    command = shlex.join(words)
    if not any("{" + field_name + "}" in command for field_name in COMMAND_FIELDS):
        return HostedBot(name, command=command, positional=True)
    try:
        check_command(command)
    except ValueError as exc:
        raise InputError(path, number, str(exc)) from None
    return HostedBot(name, command=command)


def read_config(path: Path) -> BmConfig:
    """Read a ``bm_server.config``; InputError (one line: file, line, reason) for anything it cannot use."""
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
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        words = line.split()
        key = words[0].lower()
        if key == "}":
            if game is None or len(words) != 1:
                raise InputError(path, number, "'}' closes a game block, alone on its line")
            game = None
        elif key in SERVER_KEYS:
            if game is not None:
                raise InputError(path, number, f"{words[0]} must be defined outside of game blocks")
            setattr(config, SERVER_KEYS[key], _number(path, number, words[0], words, 0, UINT16))
        elif key in GAME_KEYS:
            if game is None:
                raise InputError(path, number, f"{words[0]} must be defined within a game block")
            high = 2**32 - 1 if key == "matchhands" else UINT16
            value = _number(path, number, words[0], words, 1 if key == "matchhands" else 0, high)
            setattr(game, GAME_KEYS[key], value)
        elif key == "game":
            if game is not None:
                raise InputError(path, number, "can't define a game within another game block")
            game = _game(path, number, words, config.games)
            config.games[game.name] = game
        elif key == "bot":
            if game is None:
                raise InputError(path, number, "bots must be defined within a game block")
            bot = _bot(path, number, line, game)
            game.bots[bot.name] = bot
        elif key == "user":
            if game is not None:
                raise InputError(path, number, "users must be defined outside of game blocks")
            if len(words) != 3:
                raise InputError(path, number, "write a user as: user NAME PASSWORD")
            try:
                check_name(words[1], "user name")
            except ValueError as exc:
                raise InputError(path, number, str(exc)) from None
            if words[1] in config.users:
                raise InputError(path, number, f"duplicate user {words[1]}")
            config.users[words[1]] = words[2]
        else:
            raise InputError(path, number, f"unknown configuration option {words[0]!r}")
    if game is not None:
        raise InputError(path, 0, f"the block of game {game.name} is not closed with '}}'")
    if not config.games:
        raise InputError(path, 0, "no game block: the server would have nothing to play")
    return config
