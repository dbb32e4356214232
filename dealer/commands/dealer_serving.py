"""What ``acpc-dealer`` does once its command line is read (``dealer``): open the match's files, listen
and wait for the players, play the match, print the score, and keep the pages and metrics up as asked.

The match is played by the blocking loop (``server.sync_match``) unless pages or metrics are served
(``--web``, ``--metrics-port``), which need trio (``server.trio_match``): trio, the Prometheus client,
structlog and the page process are imported only by the options that use them, so a plain match
starts with the standard library and the engine alone (``make bench SECTIONS=startup,dealer``).
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from acpc_arena.dealer.commands.dealer_options import Options
from acpc_arena.dealer.server.blocking_seat import BlockingChannel
from acpc_arena.dealer.server.console import ConsoleObserver
from acpc_arena.dealer.server.engine import MatchEngine
from acpc_arena.dealer.server.lines import accept_sync, open_listener
from acpc_arena.dealer.server.logfiles import (
    MatchFileError,
    MatchLog,
    TransactionLog,
    TransactionRecord,
    read_transactions,
)
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, MatchResult, Observers
from acpc_arena.dealer.server.sync_match import play_match_sync
from acpc_arena.protocol.commands import Interrupted
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.wire import format_score_line

if TYPE_CHECKING:
    from structlog.stdlib import BoundLogger

    from acpc_arena.dealer.observers.metrics import DealerMetrics
    from acpc_arena.dealer.observers.page_process import SideServer

Lingering = list[tuple["SideServer", float]]
"""The processes serving a match's pages and metrics, each with the seconds it stays up after the match."""


def _console_text(text: str) -> str:
    """``text`` for the console, which writes one byte per character (the players' lines as they came):
    names as the bytes they had on the command line (``os.fsencode``), as the C dealer writes them."""
    return os.fsencode(text).decode("latin-1")


class _StartError(Exception):
    """The match could not start; the message says why."""


def _match_file(options: Options, suffix: str) -> Path:
    """``<matchName><suffix>``, named with the match name's bytes from the command line."""
    return Path(options.config.name + suffix)


def _open_match_files(options: Options) -> tuple[MatchLog | None, TransactionLog | None, list[TransactionRecord]]:
    """The log and transaction files the options ask for, and the transactions to replay."""
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
    servers started are added to ``lingering``, for the caller to keep up and close."""
    config = options.config
    console = ConsoleObserver(options.quiet)
    logger, events = _structured_events(options.log_format, options.quiet)
    observers: list[MatchObserver] = [console] if events is None else [events]
    servers: Lingering = [] if lingering is None else lingering
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
            metrics, updates = _serve_metrics(options, listeners)
            observers.append(updates)
            assert metrics.server is not None
            servers.append((metrics.server, options.metrics_linger))
        web = _start_web(options, listeners, console, config, observers)
        if web is not None:
            servers.append((web, options.web_linger))
        connections.extend(_accept_players(listeners, options.start_timeout_ms))
        observer = observers[0] if len(observers) == 1 else Observers(observers)
        result = _play(options, connections, observer, log, transactions, replay, trio=web or metrics)
    except (_StartError, ProtocolError) as exc:  # ProtocolError: a transaction file that does not replay
        return error(str(exc))
    except MatchFileError as exc:  # a full disk
        return error(exc.strerror or str(exc))
    finally:
        _close(connections, files)
        if metrics is not None:
            metrics.publish()  # the final values, before the SCORE line tells the match is over
    if web is not None:
        web.feed.finished(config.name, None if result.error is None else str(result.error))
        web.feed.flush()
    return _print_score(result, config, console if logger is None else None)


def _structured_events(log_format: str, quiet: bool) -> tuple[BoundLogger | None, MatchObserver | None]:
    """The structured logger of ``--log-format json|console`` and its observer (None: the C dealer's text)."""
    if log_format == "text":
        return None, None
    from acpc_arena.dealer.server.events import EventObserver, make_logger  # structlog: only for json|console

    logger = make_logger(log_format)
    return logger, EventObserver(logger, quiet)


def _play(
    options: Options,
    connections: list[socket.socket],
    observer: MatchObserver,
    log: MatchLog | None,
    transactions: TransactionLog | None,
    replay: list[TransactionRecord],
    trio: object,
) -> MatchResult:
    """The match on the players' connections: blocking, or on trio when pages or metrics are fed (``trio``)."""
    engine = MatchEngine(options.config, observer, log, transactions, replay, batch_messages=options.batch_messages)
    if not trio:
        return play_match_sync(engine, [BlockingChannel(seat, sock) for seat, sock in enumerate(connections)])
    from acpc_arena.dealer.server.trio_match import play_polling  # trio: only with --web or --metrics-port

    return play_polling(engine, connections)


def _close(connections: list[socket.socket], files: list[MatchLog | TransactionLog]) -> None:
    for sock in connections:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
    for handle in files:
        handle.close()


def _print_score(result: MatchResult, config: MatchConfig, console: ConsoleObserver | None) -> int:
    """The exit status; a match played to its end prints its ``SCORE`` line (and on the console, as text)."""
    if result.error is not None:
        return 1
    score = format_score_line(result.totals, config.players)
    _print_line(score)
    if console is not None:
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
    from acpc_arena.dealer.observers.page_process import start_pages  # the page process: only with --web

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


def _serve_metrics(options: Options, listeners: list[socket.socket]) -> tuple[DealerMetrics, MatchObserver]:
    """Start the Prometheus endpoint (``--metrics-port``) and the observer that updates it; on failure close
    the listeners and raise ``_StartError``."""
    from acpc_arena.dealer.observers.metrics import DealerMetrics, MetricsObserver  # prometheus: --metrics-port

    metrics = DealerMetrics.fresh()
    try:
        metrics.serve(options.metrics_port or 0, options.host)
    except OSError as exc:
        for listener in listeners:
            listener.close()
        raise _StartError(f"could not serve metrics on port {options.metrics_port}: {exc}") from None
    return metrics, MetricsObserver(metrics)


def serve_then_linger(options: Options) -> int:
    """Play the match, then keep the pages up ``--web-linger`` seconds and the final metrics
    ``--metrics-linger`` seconds (a last look, a last scrape); returns the exit status."""
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
