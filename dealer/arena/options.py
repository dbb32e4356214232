"""What the arena's commands take on their command lines, checked in one place: argument types for
``argparse`` (each says in one line what it takes), ``check_seeds``, which ``play`` uses too, and the
option groups several commands share (``add_deals``, ``add_time_limits``, ``add_metrics``,
``add_run_outputs``, ``add_concurrency``), each defined once."""

from __future__ import annotations

import argparse
import os
import shlex
import string
from collections.abc import Sequence

from acpc_arena.dealer.server.match_config import (
    DEFAULT_T_HAND_MS,
    DEFAULT_T_PER_HAND_MS,
    DEFAULT_T_RESPONSE_MS,
    MAX_TIMEOUT_MS,
    UINT32_MAX,
)
from acpc_arena.protocol.commands import number

SIDES = ("a", "b", "c")
"""The contestants' labels, in seat order of a run's first rotation: ``acpc-match --a``, ``--b``, and
``--c`` for three-player games."""

MAX_SEED = 2**32 - 1
"""The largest deal seed: the ACPC dealer's seed is an unsigned 32-bit number."""

positive_int = number(int, lambda v: v > 0, "a whole number above 0")
hand_count = number(
    int, lambda v: 1 <= v <= UINT32_MAX, f"a whole number from 1 to {UINT32_MAX} (as acpc-dealer takes)"
)
"""Hands a match: the bound of ``acpc-dealer`` (and of the C dealer, an unsigned 32-bit count above 0)."""
milliseconds = number(int, lambda v: 1 <= v <= MAX_TIMEOUT_MS, "a whole number of milliseconds from 1 to 2^63")
port_number = number(int, lambda v: 1 <= v <= 65535, "a port number from 1 to 65535")
port_or_any = number(int, lambda v: 0 <= v <= 65535, "a port number from 0 (any free port) to 65535")
seconds = number(float, lambda v: 0 <= v < float("inf"), "a number of seconds, 0 or more")


def check_seeds(seeds: Sequence[int]) -> tuple[int, ...]:
    """``seeds`` as a tuple; ValueError, one line, unless there is one or more, all distinct, each from 0
    to ``MAX_SEED``."""
    if not seeds or len(set(seeds)) != len(seeds) or any(not 0 <= s <= MAX_SEED for s in seeds):
        shown = ",".join(str(s) for s in seeds) or "none"
        raise ValueError(f"seeds must be distinct numbers from 0 to 2**32-1, not {shown}")
    return tuple(seeds)


def seed_list(text: str) -> tuple[int, ...]:
    """``--seeds``: deal seeds separated by commas (``check_seeds``)."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be whole numbers separated by commas: {text!r}") from None
    try:
        return check_seeds(seeds)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_concurrency(parser: argparse.ArgumentParser, what: str, default: int | None = None, old: bool = True) -> None:
    """``--concurrency N``, the one name of "how many at once" in every command: ``what`` says of what
    (default ``default``, or one per CPU core); with ``old``, ``--workers N`` is still taken as its former
    spelling (hidden from the help, for a release)."""
    cores = max(1, os.cpu_count() or 1)
    shown = "one per CPU core" if default is None else str(default)
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=cores if default is None else default,
        metavar="N",
        help=f"{what} at once (default: {shown})",
    )
    if old:
        parser.add_argument("--workers", dest="concurrency", type=positive_int, help=argparse.SUPPRESS)


DEFAULT_GAME = "holdem.limit.2p.reverse_blinds"
"""The game of a run or tournament not told one."""


def add_seeds(parser: argparse.ArgumentParser, default: tuple[int, ...] = (1, 234, 6666)) -> None:
    """``--seeds``: the deal seeds (``seed_list``)."""
    parser.add_argument("--seeds", type=seed_list, default=default, help="comma-separated deal seeds")


def add_deals(parser: argparse.ArgumentParser, hands: int) -> None:
    """What a run deals: ``--seeds``, ``--hands`` a match (default ``hands``) and ``--game``."""
    add_seeds(parser)
    parser.add_argument("--hands", type=hand_count, default=hands, help="hands per match")
    parser.add_argument("--game", default=DEFAULT_GAME, help="game file or shipped game")


def add_time_limits(parser: argparse.ArgumentParser) -> None:
    """The dealer's time limits, in milliseconds: ``--t-response``, ``--t-hand``, ``--t-per-hand``."""
    parser.add_argument(
        "--t-response", type=milliseconds, default=DEFAULT_T_RESPONSE_MS, help="ms per response (ACPC --t_response)"
    )
    parser.add_argument("--t-hand", type=milliseconds, default=DEFAULT_T_HAND_MS, help="ms per hand (ACPC --t_hand)")
    parser.add_argument(
        "--t-per-hand",
        type=milliseconds,
        default=DEFAULT_T_PER_HAND_MS,
        help="average ms per hand (ACPC --t_per_hand)",
    )


def add_metrics(parser: argparse.ArgumentParser, linger: str, push: bool = False) -> None:
    """``--metrics-port`` and ``--metrics-linger`` (``linger`` its help), and with ``push`` ``--metrics-push``."""
    parser.add_argument("--metrics-port", type=port_number, default=None, help="serve Prometheus metrics on this port")
    parser.add_argument("--metrics-linger", type=seconds, default=0.0, metavar="SECONDS", help=linger)
    if push:
        parser.add_argument(
            "--metrics-push",
            metavar="GATEWAY",
            default=None,
            help="push the final metrics to this Prometheus Pushgateway (host:port or URL) as job acpc-match",
        )


def add_run_outputs(parser: argparse.ArgumentParser, aivat: str, plots: str) -> None:
    """``--aivat``/``--no-aivat`` (``aivat`` its help), ``--no-plots`` (``plots``: what it skips) and ``--quiet``."""
    parser.add_argument("--aivat", action=argparse.BooleanOptionalAction, default=None, help=aivat)
    parser.add_argument("--no-plots", action="store_true", help=f"skip the {plots}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (drawn only on a terminal)")


COMMAND_FIELDS = ("host", "port", "game", "seed")
"""What a bot's command line template may name in braces (``{port}``), filled in for each match."""
REQUIRED_FIELDS = ("host", "port")
"""What every template names: where the match's dealer listens (a port of its own for each match)."""


def check_command(command: str) -> None:
    """Refuse a command line template that cannot be filled in: ValueError, one line naming it and why
    (unbalanced quotes, a lone brace, a field other than ``COMMAND_FIELDS``, no ``REQUIRED_FIELDS``)."""
    fields = " ".join(f"{{{name}}}" for name in COMMAND_FIELDS)
    try:
        parts = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"command {command!r}: {str(exc).lower()} (quote it as a shell would)") from None
    if not parts:
        raise ValueError(f"command {command!r} is empty")
    for part in parts:
        try:
            named = [field for _, field, _, _ in string.Formatter().parse(part) if field is not None]
        except ValueError:
            raise ValueError(
                f"command {command!r}: a lone brace in {part!r} (the fields are {fields}; "
                "a brace itself is written {{ or }})"
            ) from None
        unknown = next((field for field in named if field not in COMMAND_FIELDS), None)
        if unknown is not None:
            raise ValueError(
                f"command {command!r}: {{{unknown}}} is not a field (the fields are {fields}; "
                "a brace itself is written {{ or }})"
            )
        try:
            part.format(**dict.fromkeys(COMMAND_FIELDS, "0"))
        except (ValueError, IndexError, KeyError, AttributeError) as exc:
            raise ValueError(f"command {command!r}: {part!r} cannot be filled in ({exc})") from None
    given = {field for part in parts for _, field, _, _ in string.Formatter().parse(part) if field is not None}
    missing = [f"{{{name}}}" for name in REQUIRED_FIELDS if name not in given]
    if missing:
        raise ValueError(
            f"command {command!r}: no {' and no '.join(missing)} in it (the bot learns where its match's dealer "
            "listens from {host} and {port})"
        )


def command_template(text: str) -> str:
    """``--a-cmd``, ``--b-cmd``: a bot's command line template (``check_command``), checked as it is parsed."""
    try:
        check_command(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def named_command(text: str) -> str:
    """``acpc-tournament --cmd``: ``NAME=COMMAND``, the command a template (``check_command``)."""
    name, equals, command = text.partition("=")
    if not equals or not command.strip():
        raise argparse.ArgumentTypeError(f"--cmd takes NAME=COMMAND, e.g. 'mybot=./mybot {{host}} {{port}}': {text!r}")
    return name + equals + command_template(command)
