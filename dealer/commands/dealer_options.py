"""``acpc-dealer``'s command line read as the ACPC ``dealer`` reads it (``parse_args``): the match it names
(``MatchConfig``, the game file loaded) and the options, each checked, a usage error in one line."""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from typing import NoReturn

from acpc_arena.dealer.server.logfiles import check_player_names
from acpc_arena.dealer.server.match_config import (
    DEFAULT_T_HAND_MS,
    DEFAULT_T_PER_HAND_MS,
    DEFAULT_T_RESPONSE_MS,
    MAX_TIMEOUT_MS,
    UINT32_MAX,
    MatchConfig,
)
from acpc_arena.protocol.commands import written_input
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import MAX_PLAYERS, Game, load_game

_INTEGER = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")


class UsageError(Exception):
    pass


@dataclass
class Options:
    config: MatchConfig
    ports: list[int]
    quiet: bool
    log: bool
    transactions: bool
    append: bool
    start_timeout_ms: int
    host: str
    metrics_port: int | None
    log_format: str
    batch_messages: bool = False
    metrics_linger: float = 0.0
    web_port: int | None = None
    web_linger: float = 0.0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _integer(text: str) -> int:
    """A decimal integer in ASCII digits, after optional white space and a sign, as
    ``sscanf`` reads one; ``int`` alone would also take ``1_000`` and non-ASCII digits."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(text)
    return int(text, 10)


def _uint(text: str, what: str, high: int, low: int = 0) -> int:
    try:
        value = _integer(text)
    except ValueError:
        raise UsageError(f"invalid {what} {text}") from None
    if not low <= value <= high:
        raise UsageError(f"invalid {what} {text}")
    return value


def _check_header_text(text: str, what: str) -> None:
    """Refuse a line break or other control character: it would plant lines in the log."""
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise UsageError(f"{what} {text!r} contains the control character {bad!r}")


def _ports(text: str) -> list[int]:
    try:
        ports = [_integer(p) for p in text.split(",")]
    except ValueError:
        raise UsageError(f"bad port string {text}") from None
    if len(ports) > MAX_PLAYERS or not all(0 <= p <= 65535 for p in ports):
        raise UsageError(f"bad port string {text}")
    return ports


def _seconds(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"invalid {what} {text}") from None
    if not 0 <= value < math.inf:
        raise UsageError(f"invalid {what} {text}")
    return value


def _parser() -> _Parser:
    """The C dealer's options (each time limit also spelled with hyphens) and acpc-dealer's extras."""
    parser = _Parser(prog="acpc-dealer", add_help=False)
    parser.add_argument("positional", nargs="*")
    parser.add_argument("-f", dest="fixed", action="store_true")
    parser.add_argument("-l", dest="log", action="store_false", default=True)
    parser.add_argument("-L", dest="log", action="store_true")
    parser.add_argument("-p", dest="ports", default="")
    parser.add_argument("-q", dest="quiet", action="store_true")
    parser.add_argument("-t", dest="transactions", action="store_false", default=False)
    parser.add_argument("-T", dest="transactions", action="store_true")
    parser.add_argument("-a", dest="append", action="store_true")
    parser.add_argument("--t_response", "--t-response", dest="t_response", default=str(DEFAULT_T_RESPONSE_MS))
    parser.add_argument("--t_hand", "--t-hand", dest="t_hand", default=str(DEFAULT_T_HAND_MS))
    parser.add_argument("--t_per_hand", "--t-per-hand", dest="t_per_hand", default=str(DEFAULT_T_PER_HAND_MS))
    parser.add_argument("--start_timeout", "--start-timeout", dest="start_timeout", default="-1")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--metrics-port", dest="metrics_port", default=None)
    parser.add_argument("--metrics-linger", dest="metrics_linger", default="0")
    parser.add_argument("--log-format", dest="log_format", default="text", choices=["text", "json", "console"])
    parser.add_argument("--max-invalid", dest="max_invalid", default=str(UINT32_MAX))
    parser.add_argument("--batch-messages", dest="batch_messages", action="store_true")
    parser.add_argument("--web", dest="web_port", default=None)
    parser.add_argument("--web-linger", dest="web_linger", default="0")
    return parser


def _match_config(args: argparse.Namespace) -> MatchConfig:
    """The match the positional arguments and the limits name, each checked as the C dealer checks it."""
    positional = args.positional
    if len(positional) < 4:
        raise UsageError("")
    match_name, game_file, hands_text, seed_text = positional[:4]
    game = _game(game_file)
    names = positional[4 : 4 + game.num_players]
    if len(names) < game.num_players:
        raise UsageError("")
    _check_header_text(match_name, "match name")
    _check_header_text(game_file, "game file name")
    try:
        check_player_names(names)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    hands = _uint(hands_text, "number of hands", high=UINT32_MAX, low=1)
    try:
        seed = _integer(seed_text) % 2**32  # sscanf("%u") wraps negative seeds the same way
    except ValueError:
        raise UsageError(f"invalid random number seed {seed_text}") from None
    return MatchConfig(
        name=match_name,
        game=game,
        game_file=game_file,
        hands=hands,
        seed=seed,
        players=tuple(names),
        fixed_seats=args.fixed,
        max_invalid_actions=_uint(args.max_invalid, "--max-invalid", high=UINT32_MAX),
        t_response_ms=_uint(args.t_response, "--t_response", high=MAX_TIMEOUT_MS),
        t_hand_ms=_uint(args.t_hand, "--t_hand", high=MAX_TIMEOUT_MS),
        t_per_hand_ms=_uint(args.t_per_hand, "--t_per_hand", high=MAX_TIMEOUT_MS),
    )


def _game(game_file: str) -> Game:
    try:
        return load_game(game_file)
    except ProtocolError as exc:
        raise UsageError(f"could not read game {game_file}: {exc}") from None


def parse_args(argv: list[str]) -> Options:
    args = _parser().parse_intermixed_args(argv)
    config = _match_config(args)
    num_players = config.game.num_players
    ports = _ports(args.ports)[:num_players] if args.ports else []  # the C dealer ignores extra ports
    try:
        start_timeout = _integer(args.start_timeout)
    except ValueError:
        raise UsageError(f"could not get start timeout {args.start_timeout}") from None
    written = {"the log": config.name + ".log" if args.log else None}
    written["the transaction file"] = config.name + ".transactions" if args.transactions else None
    why = written_input(written, [config.game_file])
    if why is not None:
        raise UsageError(why)
    return Options(
        config=config,
        ports=ports + [0] * (num_players - len(ports)),
        quiet=args.quiet,
        log=args.log,
        transactions=args.transactions,
        append=args.append,
        start_timeout_ms=start_timeout,
        host=args.host,
        metrics_port=None if args.metrics_port is None else _uint(args.metrics_port, "--metrics-port", high=65535),
        log_format=args.log_format,
        batch_messages=args.batch_messages,
        metrics_linger=_seconds(args.metrics_linger, "--metrics-linger"),
        web_port=None if args.web_port is None else _uint(args.web_port, "--web", high=65535),
        web_linger=_seconds(args.web_linger, "--web-linger"),
    )
