"""``acpc-dealer``: the ACPC dealer's command line, served with trio.

    acpc-dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]

Options as the ACPC ``dealer``: ``-f`` fixed seats, ``-l``/``-L`` log file off/on
(on by default), ``-p p1port,p2port,...``, ``-q`` quiet, ``-t``/``-T`` transaction
file off/on (off by default), ``-a`` append to the log and transaction files (and
replay the transaction file), ``--t_response MS``, ``--t_hand MS``,
``--t_per_hand MS``, ``--start_timeout MS``. Extras: ``--host`` (bind address,
default 127.0.0.1; ``0.0.0.0`` to listen everywhere as the C dealer does),
``--metrics-port PORT``, ``--metrics-linger SECONDS``, ``--log-format text|json|console``, ``--max-invalid N``,
``--batch-messages`` (hold the messages to a seat that is not to act until it
must act: fewer system calls, but not when the C dealer sends them), ``--web PORT``
(the table live in a browser, and the log's folder in the replayer, served by a
process of their own: see ``pages``) and ``--web-linger SECONDS`` (the pages stay
up that long after the match).

``gameDefFile`` may name a shipped game (``holdem.limit.2p.reverse_blinds``).
The listening ports go to standard output first, then the final ``SCORE`` line;
the exit status is 0 when every hand was played and 1 otherwise (a usage error
too, as the C dealer's). Ctrl-C or SIGTERM ends the match with one line on standard
error, the log keeping the hands played, and status 130 or 143.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import socket
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:  # imported where used: --help starts with the standard library alone (make bench
    # SECTIONS=startup), a plain match without trio, the metrics and the pages (make bench SECTIONS=dealer)
    from acpc_arena.dealer.observers.metrics import DealerMetrics
    from acpc_arena.dealer.observers.page_process import SideServer
    from acpc_arena.dealer.server.console import ConsoleObserver
    from acpc_arena.dealer.server.logfiles import MatchLog, TransactionLog, TransactionRecord
    from acpc_arena.dealer.server.match import MatchConfig, MatchObserver

Lingering = list[tuple["SideServer", float]]
"""The processes serving a match's pages and metrics, each with the seconds it stays up after the match."""

USAGE = """usage: dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]
  -f use fixed dealer button at table
  -l/L disable/enable log file - enabled by default
  -p player1_port,player2_port,... [default is random]
  -q only print errors, warnings, and final value to stderr
  -t/T disable/enable transaction file - disabled by default
  -a append to log/transaction files - disabled by default
  --t_response [milliseconds] maximum time per response
  --t_hand [milliseconds] maximum player time per hand
  --t_per_hand [milliseconds] maximum average player time for match
  --start_timeout [milliseconds] maximum time to wait for players to connect
    <0 [default] is no timeout
extras of acpc-dealer:
  --host ADDRESS bind address [default 127.0.0.1]
  --metrics-port PORT serve Prometheus metrics on /metrics
  --metrics-linger SECONDS keep serving the final metrics this long after the match [default 0]
  --log-format text|json|console standard error as the C dealer's lines [text] or structured events
  --max-invalid N end the match after N invalid actions by one seat [default unlimited]
  --batch-messages hold messages to a seat until it must act [default: send each at once]
"""
"""The C ``dealer``'s usage (its own words, ``usage: dealer``), printed as it prints it for a command line
with too few arguments."""


def help_text() -> str:
    """``acpc-dealer --help``: one usage line, the description, then every option with its default."""
    from acpc_arena.dealer.server.match_config import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS
    from acpc_arena.protocol.commands import plain

    usage, c_options = USAGE.split("\n", 1)
    paragraphs = __doc__.strip().split("\n\n")
    description = plain(f"{paragraphs[0]}\n\n{paragraphs[-1]}")
    defaults = (
        f"  [defaults: --t_response {DEFAULT_T_RESPONSE_MS}, --t_hand {DEFAULT_T_HAND_MS}, "
        f"--t_per_hand {DEFAULT_T_PER_HAND_MS}; each also spelled with hyphens, --t-response ...]\n"
    )
    extras = (
        "  --web PORT the table live in a browser, and the log's folder in the replayer [default: none]\n"
        "  --web-linger SECONDS keep the pages up this long after the match [default 0]\n"
    )
    return (
        f"{usage.replace('usage: dealer', 'usage: acpc-dealer')}\n\n{description}\n\noptions as the C dealer's:\n"
        + (c_options.replace("extras of acpc-dealer:\n", defaults + "extras of acpc-dealer:\n") + extras)
    )


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


class HelpRequested(Exception):
    """``-h`` or ``--help``: the usage goes to standard output and the exit status is 0."""


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


def _console_text(text: str) -> str:
    """``text`` for the console, which writes one byte per character (the players' lines as they came):
    names as the bytes they had on the command line (``os.fsencode``), as the C dealer writes them."""
    return os.fsencode(text).decode("latin-1")


def _check_header_text(text: str, what: str) -> None:
    """Refuse a line break or other control character: it would plant lines in the log."""
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise UsageError(f"{what} {text!r} contains the control character {bad!r}")


def _ports(text: str) -> list[int]:
    from acpc_arena.protocol.game import MAX_PLAYERS

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


def parse_args(argv: list[str]) -> Options:
    if any(arg in ("-h", "--help") for arg in argv):
        raise HelpRequested
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
    from acpc_arena.protocol.game import load_game

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
    args = parser.parse_intermixed_args(argv)
    positional = args.positional
    if len(positional) < 4:
        raise UsageError("")
    match_name, game_file, hands_text, seed_text = positional[:4]
    try:
        game = load_game(game_file)
    except ProtocolError as exc:
        raise UsageError(f"could not read game {game_file}: {exc}") from None
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
    ports = _ports(args.ports)[: game.num_players] if args.ports else []  # the C dealer ignores extra ports
    config = MatchConfig(
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
    try:
        start_timeout = _integer(args.start_timeout)
    except ValueError:
        raise UsageError(f"could not get start timeout {args.start_timeout}") from None
    written = {"the log": match_name + ".log" if args.log else None}
    written["the transaction file"] = match_name + ".transactions" if args.transactions else None
    why = written_input(written, [game_file])
    if why is not None:
        raise UsageError(why)
    return Options(
        config=config,
        ports=ports + [0] * (game.num_players - len(ports)),
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


class _StartError(Exception):
    """The match could not start; the message says why."""


def _match_file(options: Options, suffix: str) -> Path:
    """``<matchName><suffix>``, named with the match name's bytes from the command line."""
    return Path(options.config.name + suffix)


def _open_match_files(options: Options) -> tuple[MatchLog | None, TransactionLog | None, list[TransactionRecord]]:
    """The log and transaction files the options ask for, and the transactions to replay."""
    from acpc_arena.dealer.server.logfiles import MatchLog, TransactionLog, read_transactions
    from acpc_arena.protocol.errors import ProtocolError

    replay: list[TransactionRecord] = []
    log = transactions = None
    try:
        if options.transactions:
            tlog_path = _match_file(options, ".tlog")
            if options.append:
                replay = read_transactions(tlog_path)
            transactions = TransactionLog(tlog_path, append=options.append)
        if options.log:
            log = MatchLog(_match_file(options, ".log"), append=options.append)
    except (OSError, ProtocolError) as exc:
        if transactions is not None:
            transactions.close()
        raise _StartError(f"could not open the match files: {exc}") from None
    return log, transactions, replay


def _open_listeners(options: Options) -> list[socket.socket]:
    """One listening socket per seat, on the ports asked for (0: any free port)."""
    from acpc_arena.dealer.server.lines import open_listener

    listeners: list[socket.socket] = []
    for seat, port in enumerate(options.ports):
        try:
            listeners.append(open_listener(options.host, port))
        except OSError as exc:
            for listener in listeners:
                listener.close()
            raise _StartError(f"could not create listen socket for player {seat + 1}: {exc}") from None
    return listeners


def _accept_players(listeners: list[socket.socket], start_timeout_ms: int) -> list[socket.socket]:
    """Accept one player per listener, in seat order, closing each listener once used."""
    from acpc_arena.dealer.server.lines import accept_sync

    deadline = time.monotonic() + start_timeout_ms / 1000 if start_timeout_ms >= 0 else math.inf
    connections: list[socket.socket] = []
    for seat, listener in enumerate(listeners):
        try:
            connection = accept_sync(listener, deadline)
        except OSError as exc:  # the process ends: the sockets close with it
            raise _StartError(f"could not accept seat {seat + 1}: {exc}") from None
        listener.close()
        if connection is None:
            for other in listeners[seat + 1 :]:
                other.close()
            for accepted in connections:
                accepted.close()
            raise _StartError(f"timed out waiting for seat {seat + 1} to connect")
        connections.append(connection)
    return connections


def _print_line(text: str) -> None:
    """A line on standard output, as bytes: names keep the bytes they had on the command line."""
    sys.stdout.flush()
    sys.stdout.buffer.write(os.fsencode(text) + b"\n")
    sys.stdout.buffer.flush()


def serve(options: Options, lingering: Lingering | None = None) -> int:
    """Listen, wait for the players, play the match; returns the exit status. The page and metrics
    servers started are added to ``lingering``, for the caller to keep up and close.

    The match is played by a plain blocking loop (``dealer.sync_match``), or with trio when pages or
    metrics are served (``--web``, ``--metrics-port``).
    """
    from acpc_arena.dealer.server.console import ConsoleObserver
    from acpc_arena.dealer.server.logfiles import MatchFileError
    from acpc_arena.dealer.server.match import Observers
    from acpc_arena.protocol.errors import ProtocolError
    from acpc_arena.protocol.wire import format_score_line

    config = options.config
    console = ConsoleObserver(options.quiet)
    logger = None
    observers: list[MatchObserver] = [console]
    servers: Lingering = [] if lingering is None else lingering
    if options.log_format != "text":
        from acpc_arena.dealer.server.events import EventObserver, make_logger

        logger = make_logger(options.log_format)
        observers = [EventObserver(logger, options.quiet)]
    web: SideServer | None = None

    def error(text: str) -> int:
        if web is not None:
            web.feed.finished(config.name, text)
            web.feed.flush()
        if logger:
            logger.error("error", match=config.name, text=text)
        else:
            console.line(_console_text(f"ERROR: {text}"))
        return 1

    try:
        log, transactions, replay = _open_match_files(options)
    except _StartError as exc:
        return error(str(exc))
    files = [handle for handle in (log, transactions) if handle is not None]
    connections: list[socket.socket] = []
    metrics: DealerMetrics | None = None
    try:
        listeners = _open_listeners(options)
        ports = [listener.getsockname()[1] for listener in listeners]
        _print_line(" ".join(map(str, ports)))
        if logger:
            logger.info("listening", match=config.name, host=options.host, ports=ports)
        else:
            console.line(_console_text(config.header()))
        if log is not None:
            log.write_text(config.header())
        if options.metrics_port is not None:
            metrics = _serve_metrics(options.metrics_port, options.host, listeners)
            observers.append(_metrics_observer(metrics, servers, options.metrics_linger))
        web = _start_web(options, listeners, console, config, observers)
        if web is not None:
            servers.append((web, options.web_linger))
        connections.extend(_accept_players(listeners, options.start_timeout_ms))
        observer = observers[0] if len(observers) == 1 else Observers(observers)
        if web is None and metrics is None:
            from acpc_arena.dealer.server.blocking_seat import BlockingChannel
            from acpc_arena.dealer.server.sync_match import play_match_sync

            channels = [BlockingChannel(seat, sock) for seat, sock in enumerate(connections)]
            result = play_match_sync(
                config, channels, observer, log, transactions, replay, batch_messages=options.batch_messages
            )
        else:  # the pages and metrics are fed from trio
            import trio

            from acpc_arena.dealer.server.seat import PollingSocketChannel
            from acpc_arena.dealer.server.trio_match import play_match

            result = trio.run(
                partial(play_match, batch_messages=options.batch_messages),
                config,
                [PollingSocketChannel(seat, sock) for seat, sock in enumerate(connections)],
                observer,
                log,
                transactions,
                replay,
            )
    except (_StartError, ProtocolError) as exc:  # ProtocolError: a transaction file that does not replay
        return error(str(exc))
    except MatchFileError as exc:  # a full disk
        return error(exc.strerror or str(exc))
    finally:
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for handle in files:
            handle.close()
        if metrics is not None:
            metrics.publish()  # the final values, before the SCORE line tells the match is over
    if web is not None:
        web.feed.finished(config.name, None if result.error is None else str(result.error))
        web.feed.flush()
    if result.error is not None:
        return 1
    score = format_score_line(result.totals, config.players)
    _print_line(score)
    if not logger:
        console.line(_console_text(score))
    return 0


def _start_web(
    options: Options,
    listeners: list[socket.socket],
    console: ConsoleObserver,
    config: MatchConfig,
    observers: list[MatchObserver],
) -> SideServer | None:
    """The live table's pages (``--web PORT``), serving the log's folder too, the match's table among
    ``observers``; None without ``--web``. The match is on the board before the address is printed."""
    if options.web_port is None:
        return None
    from acpc_arena.dealer.observers.page_process import start_pages

    folder = _match_file(options, ".log").parent
    try:
        web = start_pages(folder, options.host, options.web_port)
    except OSError as exc:
        for listener in listeners:
            listener.close()
        raise _StartError(f"could not serve the web pages on port {options.web_port}: {exc}") from None
    observers.append(web.feed.table(config.name, config))
    web.feed.flush()
    console.line(f"the table live at {web.url}")
    return web


def _serve_metrics(port: int, host: str, listeners: list[socket.socket]) -> DealerMetrics:
    """Start the Prometheus endpoint; on failure close the listeners and raise ``_StartError``."""
    from prometheus_client import CollectorRegistry

    from acpc_arena.dealer.observers.metrics import DealerMetrics

    metrics = DealerMetrics(CollectorRegistry())
    try:
        metrics.serve(port, host)
    except OSError as exc:
        for listener in listeners:
            listener.close()
        raise _StartError(f"could not serve metrics on port {port}: {exc}") from None
    return metrics


def _metrics_observer(metrics: DealerMetrics, servers: Lingering, linger: float) -> MatchObserver:
    """The observer that updates ``metrics``; their server is added to ``servers``, to stay up ``linger``
    seconds after the match."""
    from acpc_arena.dealer.observers.metrics import MetricsObserver

    assert metrics.server is not None
    servers.append((metrics.server, linger))
    return MetricsObserver(metrics)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        options = parse_args(argv)
    except HelpRequested:
        sys.stdout.write(help_text())
        sys.exit(0)
    except UsageError as exc:
        if str(exc):
            print(f"ERROR: {exc}", file=sys.stderr)
        else:
            sys.stdout.write(USAGE)
        sys.exit(1)
    from acpc_arena.protocol.commands import run_command

    run_command("acpc-dealer", lambda: _serve_then_linger(options))


def _serve_then_linger(options: Options) -> int:
    """Play the match, then keep the pages up ``--web-linger`` seconds and the final metrics
    ``--metrics-linger`` seconds (a last look, a last scrape); returns the exit status."""
    from acpc_arena.protocol.commands import Interrupted

    lingering: Lingering = []
    try:
        status = serve(options, lingering)
        waited = 0.0
        for server, seconds in sorted(lingering, key=lambda pair: pair[1]):
            time.sleep(seconds - waited)
            waited = seconds
            server.close()
    except* KeyboardInterrupt:
        raise Interrupted(
            f"the log keeps the hands played ({_match_file(options, '.log')})" if options.log else ""
        ) from None
    finally:
        for server, _ in lingering:
            server.close()
    return status


if __name__ == "__main__":
    main()
