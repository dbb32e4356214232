"""The benchmark server's lines, as the ACPC C programs send and read them.

Every line ends with ``\\n`` and is ASCII; at most ``MAX_LINE`` bytes (the C ``READBUF_LEN``). The first
line a connection sends decides what it is.

**A session (``bm_widget bm_hostname bm_port bot_command``).** The widget prints ``Log in with 'user
password'`` and passes what its user types to the server line by line:

- client ``NAME PASSWORD`` (two words); server ``LOGON OKAY - type help for commands`` or ``BAD LOGON``
  (then it closes). An unknown user and a wrong password get the same line after the same work.
- ``HELP``: the six lines of ``HELP_LINES``.
- ``GAMES``: for each game an empty line, the game's name, then `` BOT`` for each hosted bot.
- ``QSTAT``: ``USER TAG GAME * RUNS_LEFT R|Q`` for each job not finished (R: a match of it is being
  played), or ``Queue empty``.
- ``RUNMATCHES GAME RUNS TAG SEED PLAYER...``: one player a seat, in seat order, each a hosted bot's name or
  ``LOCAL`` (the widget's bot). Refused with ``BAD RUNMATCHES COMMAND: WHY``; the C server answers nothing
  on success, this one ``# QUEUED job J: RUNS runs of GAME``.
- anything else: ``UNKNOWN``. Keywords are matched case-insensitively on their first letters, as the C server
  does (``GAMESX`` is ``GAMES``).

A job's runs are played one after the other. When a run starts: ``# RUNNING USER.TAG J.I`` (I the run, from
0) and, for each ``LOCAL`` seat, ``RUN HOST PORT``. The widget takes any line starting ``run `` (in any case)
as that order: it prints ``starting match HOST:PORT`` and runs ``bot_command HOST PORT``; any other line it
prints. When the run ends: ``# FINISHED J.I PLAYER CHIPS ... (HANDS hands)``, or ``# FAILED J.I: WHY``
(its hands up to then are kept and counted).

**A request (``bm_run_matches HOST PORT USER PW WORDS...``).** The client sends its arguments after the
port joined by spaces as one line, ``USER PW WORDS...``, then prints every line it gets except ``run``
orders (which it starts as the widget does, with its ``<local script>``), and exits when the server closes
the connection or sends ``Matches finished``. The C package's ``bm_server`` does not speak this (it ships
only the session above); this server does:

- ``USER PW games``: the ``GAMES`` lines, then the server closes.
- ``USER PW run 2pl|2pn|3pl SCRIPT RUNS TAG SEED P1 P2 [P3]``: the first configured game of that kind
  (players, ``l`` limit, ``n`` no-limit), ``local`` (any case) for the client's bot; ``SCRIPT`` is the
  client's and ignored here. The session's lines follow as the runs start and end, then ``Matches
  finished``. Refused with ``BAD RUN COMMAND: WHY``.
- ``USER PW rerun 2pl|2pn|3pl SCRIPT INDEX TAG SEED P1 P2 [P3]``: run INDEX (from 0) of a set of runs with
  that seed, alone.
- ``USER PW logs J.I``: the log of run I of job J, byte for byte (``bm_run_matches ... logs 3.0 > run.log``);
  ``USER PW logs J``: every run's log, each after a line ``# LOG J.I``. ``USER PW jobs``: ``QSTAT``'s
  lines for the user's jobs, with their ids and states.

Seeds (as ``bm_server.c``'s ``parseMatchSpec``): SEED 0 gives each run a random seed; otherwise one run
plays SEED itself and RUNS runs play the first RUNS outputs of MT19937 seeded with SEED (``init_genrand``);
``rerun`` INDEX plays output INDEX (the C code leaves it unclear how a one-run set is rerun: run it again).

Beyond the C server: a line longer than ``MAX_LINE`` gets ``LINE TOO LONG``, a connection that sends no
line within the login time ``LOGON TIMEOUT``, too many failed logons from one address or for one name
``LOGON RATE LIMITED - try again later``, a full server ``SERVER BUSY``, and too many sessions of one user
``TOO MANY CONNECTIONS``; each then closes the connection.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from acpc_arena.dealer.benchmark_server.config import LOCAL, BmConfig, GameConfig
from acpc_arena.protocol.rng import MT19937

MAX_LINE = 4096
LOGON_OKAY = "LOGON OKAY - type help for commands"
BAD_LOGON = "BAD LOGON"
UNKNOWN = "UNKNOWN"
BAD_RUNMATCHES = "BAD RUNMATCHES COMMAND"
BAD_RUN = "BAD RUN COMMAND"
MATCHES_FINISHED = "Matches finished"
QUEUE_EMPTY = "Queue empty"
LINE_TOO_LONG = "LINE TOO LONG"
LOGON_TIMEOUT = "LOGON TIMEOUT"
RATE_LIMITED = "LOGON RATE LIMITED - try again later"
SERVER_BUSY = "SERVER BUSY"
TOO_MANY_CONNECTIONS = "TOO MANY CONNECTIONS"
HELP_LINES = (
    "HELP - this message",
    "GAMES - list available games and players",
    "QSTAT - show the current queue",
    "RUNMATCHES game #runs tag rngSeed player ... - submit match request",
    "  - Player order decides match seating",
    '  - "LOCAL" player runs the bm_widget agent (bot_command)',
)
TAG = re.compile(r"[!-.0-~]{1,200}")
"""A tag as ``bm_server.c`` takes it (one word without ``/``), of printable ASCII, at most 200 characters."""
REQUESTS = ("games", "run", "rerun", "logs", "jobs")
"""The third words of a first line that make it a request (``bm_run_matches``' lines); any other third word
is left unread, as ``bm_server.c`` reads a logon's first two words only."""
MATCH_REF = re.compile(r"(\d{1,18})(?:\.(\d{1,9}))?")


class RequestError(ValueError):
    """A request refused; ``str`` says why in a few words."""


@dataclass(frozen=True)
class JobRequest:
    game: GameConfig
    tag: str
    seed: int
    players: tuple[str, ...]
    """Per seat: a hosted bot's name or ``LOCAL``."""
    seeds: tuple[int, ...]
    """Each run's deal seed."""
    first_index: int = 0
    """The index of the first run (a rerun's INDEX)."""


def run_seeds(seed: int, runs: int) -> tuple[int, ...]:
    """The deal seeds of ``runs`` runs asked for with ``seed`` (the module's docstring says how)."""
    if seed == 0:
        return tuple(secrets.randbits(32) for _ in range(runs))
    if runs == 1:
        return (seed,)
    rng = MT19937(seed)
    return tuple(rng.genrand_int32() for _ in range(runs))


def _whole(text: str, what: str, high: int) -> int:
    if not text.isascii() or not text.isdigit() or int(text) > high:
        raise RequestError(f"{what} must be a whole number from 0 to {high}, not {text[:20]!r}")
    return int(text)


def _players(game: GameConfig, words: list[str], local: str = LOCAL) -> tuple[str, ...]:
    """A player for each seat from the first of ``words`` (the rest are not read, as in ``bm_server.c``):
    ``local`` (``LOCAL`` exactly in a session; ``local`` in any case in a request) or a hosted bot's name."""
    seats = game.game.num_players
    if len(words) < seats:
        raise RequestError(f"{game.name} has {seats} seats: name {seats} players, not {len(words)}")
    players = []
    for word in words[:seats]:
        if word == local or (local != LOCAL and word.lower() == local and word not in game.bots):
            players.append(LOCAL)
        elif word in game.bots:
            players.append(word)
        else:
            raise RequestError(f"no bot {word[:40]!r} in {game.name} (GAMES lists them; LOCAL is yours)")
    return tuple(players)


def _tag(text: str) -> str:
    if not TAG.fullmatch(text):
        raise RequestError("the tag must be one word of 1 to 200 printable ASCII characters, without '/'")
    return text


def parse_runmatches(config: BmConfig, words: list[str]) -> JobRequest:
    """``GAME RUNS TAG SEED PLAYER...`` (the words after ``RUNMATCHES``) as a request."""
    if len(words) < 4:
        raise RequestError("write: RUNMATCHES game #runs tag rngSeed player ...")
    game = config.games.get(words[0])
    if game is None:
        raise RequestError(f"no game {words[0][:60]!r} (GAMES lists them)")
    runs = _whole(words[1], "#runs", game.max_match_runs)
    tag = _tag(words[2])
    seed = _whole(words[3], "rngSeed", 2**32 - 1)
    players = _players(game, words[4:])
    return JobRequest(game, tag, seed, players, run_seeds(seed, runs))


def parse_run(config: BmConfig, words: list[str], rerun: bool) -> JobRequest:
    """``KIND SCRIPT RUNS|INDEX TAG SEED P1 P2 [P3]`` (the words after ``run`` or ``rerun``) as a request."""
    if len(words) < 5:
        raise RequestError(f"write: {'rerun' if rerun else 'run'} 2pl|2pn|3pl script runs tag seed player ...")
    game = config.game_of_kind(words[0])
    if game is None:
        kinds = ", ".join(sorted({g.kind for g in config.games.values()}))
        raise RequestError(f"no game of kind {words[0][:20]!r} here (kinds: {kinds})")
    tag = _tag(words[3])
    seed = _whole(words[4], "seed", 2**32 - 1)
    players = _players(game, words[5:], local="local")
    if not rerun:
        runs = _whole(words[2], "runs", game.max_match_runs)
        return JobRequest(game, tag, seed, players, run_seeds(seed, runs))
    index = _whole(words[2], "match index", 2**20)
    if seed == 0:  # each run had a random seed: the server finds it (``earlier_seed``)
        return JobRequest(game, tag, seed, players, (), first_index=index)
    rng = MT19937(seed)
    for _ in range(index):
        rng.genrand_int32()
    return JobRequest(game, tag, seed, players, (rng.genrand_int32(),), first_index=index)


def parse_match_ref(text: str) -> tuple[int, int | None]:
    """``J`` or ``J.I`` as (job, run or None)."""
    found = MATCH_REF.fullmatch(text)
    if found is None:
        raise RequestError(f"name a job as J or a run as J.I, not {text[:30]!r}")
    return int(found[1]), None if found[2] is None else int(found[2])


def game_list(config: BmConfig) -> list[str]:
    """``GAMES``' lines: an empty line and the game's name, then a line `` BOT`` per hosted bot."""
    lines = []
    for game in config.games.values():
        lines += ["", game.name, *(f" {bot}" for bot in game.bots)]
    return lines


def login_words(line: str) -> list[str] | None:
    """The words of a first line that logs in: ``[NAME, PASSWORD]`` for a session (whatever follows is left
    unread, as ``bm_server.c`` leaves it), ``[NAME, PASSWORD, REQUEST, WORDS...]`` for a request (``REQUESTS``);
    None for fewer than two words."""
    words = line.split()
    if len(words) < 2:
        return None
    return words if len(words) > 2 and words[2].lower() in REQUESTS else words[:2]
