"""A small HTTP/1.1 server on trio (h11 parses the bytes): GET and POST, JSON, files, server-sent events.

Served on 127.0.0.1 unless told otherwise. Every bound a client could stretch is held
(``Limits``): the connections open at once, in all and from one address (one more gets 503
and is closed, so no one address's idle sockets keep another out), the wait for the first
request on a new connection (``first_seconds``) and for a next one on an open connection
(``idle_seconds``: closed without a word), the time
to send a request once its first byte came (``request_seconds``: 408), its head and
body sizes (``MAX_HEADER_BYTES``: 431, ``MAX_BODY_BYTES``: 413), and each send of an
answer (``send_seconds``: a client that stops reading is dropped). Files are sent in
chunks of ``FILE_CHUNK`` bytes; no connection holds a thread. ``Guard`` checks every
request's ``Host`` (421: DNS rebinding) and ``Origin`` (403: another site's page). Every
answer carries ``X-Content-Type-Options: nosniff`` and a Content-Security-Policy. One
bad client never stops the server.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import math
import mimetypes
import os
import socket
import sys
import traceback
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import h11
import trio

MAX_HEADER_BYTES = 16384
MAX_BODY_BYTES = 65536
REQUEST_SECONDS = 10.0
"""To send a whole request (head and body) once its first byte came."""
IDLE_SECONDS = 60.0
"""To start a request on an open connection (the first one too)."""
SEND_SECONDS = 20.0
"""For each send of an answer (a chunk of a file, an event) to be taken by the client."""
MAX_CONNECTIONS = 512
MAX_ADDRESS_CONNECTIONS = 128
"""Connections open at once from one address (a browser opens six or so a site; a page of live events keeps
one; a hundred viewers may share an address), a quarter of all."""
FIRST_SECONDS = 5.0
"""To start the first request on a new connection (one that sends nothing is closed)."""
FILE_CHUNK = 65536

PAGE_POLICY = (
    "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of the app's own answers: its script, style and requests, from itself only."""
FILE_POLICY = "default-src 'none'; img-src 'self'; sandbox"
"""That of a served folder's files: nothing in them runs, whatever they hold."""


@dataclass(frozen=True)
class Limits:
    """How much one server gives its clients (see the module)."""

    connections: int
    request_seconds: float
    idle_seconds: float
    send_seconds: float
    address_connections: int = MAX_ADDRESS_CONNECTIONS
    first_seconds: float = FIRST_SECONDS


def page_limits() -> Limits:
    """The pages' bounds: the module's constants as they are when called."""
    return Limits(MAX_CONNECTIONS, REQUEST_SECONDS, IDLE_SECONDS, SEND_SECONDS, MAX_ADDRESS_CONNECTIONS, FIRST_SECONDS)


def whole_number(text: str) -> int | None:
    """``text`` as a whole number if it is 1 to 18 ASCII digits (a path's or a parameter's index), else None:
    ``²``, ``-1`` or five thousand digits are no index (a 404, not a fault)."""
    return int(text) if 0 < len(text) <= 18 and text.isascii() and text.isdigit() else None


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    """Lower-case names; a repeated header keeps its last value."""

    def json(self) -> Any:
        """The body as JSON; ``HttpError`` 400 when it is not."""
        try:
            return json.loads(self.body or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise HttpError(400, "the body is not JSON") from None


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    events: AsyncGenerator[bytes, None] | None = None
    """Server-sent events: each item is sent as it is (``sse_event``) until the generator ends."""
    headers: list[tuple[str, str]] = field(default_factory=list)
    file: Path | None = None
    """A file sent in chunks instead of ``body``."""
    policy: str = PAGE_POLICY


def json_response(value: Any, status: int = 200) -> Response:
    """``value`` as JSON; infinities and NaNs (a report's interval of one sample) become null,
    which browsers parse."""
    return Response(status, json_bytes(value))


def json_bytes(value: Any) -> bytes:
    return json.dumps(_finite(value), separators=(",", ":"), allow_nan=False).encode()


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def file_response(path: Path, content_type: str) -> Response:
    """``path`` sent in chunks as ``content_type``, under the policy that runs nothing (``FILE_POLICY``)."""
    return Response(content_type=content_type, file=path, policy=FILE_POLICY)


def resource_response(data: bytes, name: str) -> Response:
    """One of the app's own files (its page, script, style), whole."""
    return Response(200, data, mimetypes.guess_type(name)[0] or "application/octet-stream")


def sse_event(text: str) -> bytes:
    """``text`` as one server-sent event (``""``: a keep-alive comment)."""
    if not text:
        return b": keep-alive\n\n"
    return ("".join(f"data: {line}\n" for line in text.split("\n")) + "\n").encode()


Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Guard:
    """The ``Host`` values a server answers and the rule for ``Origin``.

    ``hosts`` None answers any Host (a metrics endpoint, scraped by whatever name
    finds it). ``any_address_port``: a server on every address also answers any IP
    address with that port (a name other than ``hosts`` is refused: a DNS rebinding
    page uses one). An ``Origin``, when sent, must be ``http://`` and the request's Host.
    """

    hosts: frozenset[str] | None
    any_address_port: int | None = None

    def check(self, request: Request) -> None:
        host = request.headers.get("host", "").lower()
        if self.hosts is not None and host not in self.hosts and not self._an_address(host):
            raise HttpError(421, f"this server does not answer for Host {host!r}: open it by its address")
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() != f"http://{host}":
            raise HttpError(403, f"a request from another site ({origin!r}) is refused")

    def _an_address(self, host: str) -> bool:
        if self.any_address_port is None:
            return False
        name, _, port = host.rpartition(":")
        try:
            ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        return port == str(self.any_address_port)


WILDCARDS = ("", "0.0.0.0", "::")


def guard_for(host: str, port: int) -> Guard:
    """The guard of a server asked to serve on ``host:port``: the loopback names with the port, and ``host``
    (a wildcard ``host``: any IP address with the port, and this machine's name)."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host in WILDCARDS:
        names.update({socket.gethostname().lower(), socket.getfqdn().lower()})
    else:
        names.add(f"[{host}]" if ":" in host else host.lower())
    hosts = {f"{name}:{port}" for name in names} | (names if port == 80 else set())
    return Guard(frozenset(hosts), port if host in WILDCARDS else None)


async def serve(handler: Handler, sock: socket.socket, guard: Guard, limits: Limits | None = None) -> None:
    """Serve ``handler`` on the listening ``sock`` until cancelled (``sock`` stays open)."""
    bounds = limits or page_limits()
    listener = trio.SocketListener(trio.socket.from_stdlib_socket(sock.dup()))
    open_now = 0
    per_address: Counter[str] = Counter()

    async def connection(stream: trio.SocketStream) -> None:
        nonlocal open_now
        address = _peer(stream)
        if open_now >= bounds.connections or per_address[address] >= bounds.address_connections:
            await _refuse(stream)
            return
        open_now += 1
        per_address[address] += 1
        try:
            await _connection(stream, handler, guard, bounds)
        finally:
            open_now -= 1
            per_address[address] -= 1
            if not per_address[address]:
                del per_address[address]

    await trio.serve_listeners(connection, [listener])


def _peer(stream: trio.SocketStream) -> str:
    """The address a connection comes from ('' where it cannot be told: such connections share a bound)."""
    try:
        return str(stream.socket.getpeername()[0])
    except (OSError, IndexError, TypeError):
        return ""


class _Stalled(Exception):
    """The client took more than ``send_seconds`` to take one send."""


async def _send(stream: trio.abc.Stream, data: bytes, limits: Limits) -> None:
    with trio.move_on_after(limits.send_seconds) as scope:
        await stream.send_all(data)
    if scope.cancelled_caught:
        raise _Stalled


async def _refuse(stream: trio.abc.Stream) -> None:
    """503 to a connection over the limit, without reading it."""
    body = b'{"error":"too many connections: try again later"}'
    head = f"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
    with trio.move_on_after(1), contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await stream.send_all(head.encode() + b"connection: close\r\n\r\n" + body)
    with trio.move_on_after(1):
        await stream.aclose()


async def _connection(stream: trio.abc.Stream, handler: Handler, guard: Guard, limits: Limits) -> None:
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADER_BYTES)
    first = True
    try:
        while True:
            request = await _read_request(stream, connection, limits, first)
            first = False
            if request is None:
                return
            response = await _answer(request, handler, guard)
            await _send_response(stream, connection, response, limits)
            if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                return
            connection.start_next_cycle()
    except HttpError as error:
        await _send_error(stream, connection, error, limits)
    except (h11.ProtocolError, trio.BrokenResourceError, trio.ClosedResourceError, _Stalled):
        pass
    finally:
        with trio.move_on_after(1):
            await stream.aclose()


async def _answer(request: Request, handler: Handler, guard: Guard) -> Response:
    try:
        guard.check(request)
        return await handler(request)
    except HttpError as error:
        return json_response({"error": error.message}, error.status)
    except Exception as exc:  # a fault of the page's code: that request fails, the server goes on
        # where it failed, and nothing of the request (its path or parameters: anyone's text in the server's log)
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        print(f"acpc-web: a request failed: {type(exc).__name__} at {where}", file=sys.stderr)
        return json_response({"error": f"the server failed on this request ({type(exc).__name__})"}, 500)


async def _read_request(
    stream: trio.abc.Stream, connection: h11.Connection, limits: Limits, first: bool = False
) -> Request | None:
    """The next request; None when the client closes, or sends nothing for ``idle_seconds`` (``first_seconds``
    for the ``first`` request of a connection).

    Once its first byte has come, the whole request must come within ``request_seconds`` (408)."""
    started = bool(connection.trailing_data[0])
    scope = trio.CancelScope(
        deadline=trio.current_time()
        + (limits.request_seconds if started else limits.first_seconds if first else limits.idle_seconds)
    )
    request: Request | None = None
    with scope:
        request = await _receive(stream, connection, scope, limits, started)
    if scope.cancelled_caught:
        if connection.their_state is h11.IDLE and not connection.trailing_data[0]:
            return None
        raise HttpError(408, "the request took too long")
    return request


async def _receive(
    stream: trio.abc.Stream, connection: h11.Connection, scope: trio.CancelScope, limits: Limits, started: bool
) -> Request | None:
    head: h11.Request | None = None
    body = bytearray()
    received = 0
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError as exc:
            raise HttpError(exc.error_status_hint, "bad request") from None
        if event is h11.NEED_DATA:
            data = await stream.receive_some(65536)
            if data and not started:
                started = True
                scope.deadline = trio.current_time() + limits.request_seconds
            connection.receive_data(bytes(data))  # b"": end of file, which h11 turns into ConnectionClosed or an error
            received += len(data)
            continue
        if isinstance(event, h11.Request):
            if received - len(connection.trailing_data[0]) > MAX_HEADER_BYTES:
                raise HttpError(431, "the request's head is too long")
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_BODY_BYTES:
                raise HttpError(413, "the body is too long")
        elif isinstance(event, h11.EndOfMessage):
            assert head is not None
            target = head.target.decode("ascii", "replace")
            parts = urlsplit(target)
            query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
            headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in head.headers}
            method = head.method.decode("ascii", "replace")
            return Request(method, unquote(parts.path), query, bytes(body), headers)
        elif isinstance(event, h11.ConnectionClosed):
            return None


def _headers(response: Response, content_type: str) -> list[tuple[str, str]]:
    return [
        ("content-type", content_type),
        ("cache-control", "no-store"),
        ("x-content-type-options", "nosniff"),
        ("content-security-policy", response.policy),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        *response.headers,
    ]


async def _send_response(
    stream: trio.abc.Stream, connection: h11.Connection, response: Response, limits: Limits
) -> None:
    if response.file is not None:
        await _send_file(stream, connection, response, limits)
        return
    if response.events is None:
        headers = [*_headers(response, response.content_type), ("content-length", str(len(response.body)))]
        await _send(stream, connection.send(h11.Response(status_code=response.status, headers=headers)), limits)
        await _send(stream, connection.send(h11.Data(data=response.body)), limits)
        await _send(stream, connection.send(h11.EndOfMessage()), limits)
        return
    async with contextlib.aclosing(response.events) as events:
        head = h11.Response(status_code=200, headers=_headers(response, "text/event-stream"))
        await _send(stream, connection.send(head), limits)
        async for frame in events:
            await _send(stream, connection.send(h11.Data(data=frame)), limits)
    await _send(stream, connection.send(h11.EndOfMessage()), limits)


async def _send_file(stream: trio.abc.Stream, connection: h11.Connection, response: Response, limits: Limits) -> None:
    """The file in chunks, each sent within ``send_seconds``; a file that shrinks meanwhile ends the connection."""
    assert response.file is not None
    try:
        file = open(response.file, "rb")  # noqa: SIM115 (closed below, after the head is sent)
    except OSError:
        missing = json_response({"error": f"no such file: {response.file.name}"}, 404)
        await _send_response(stream, connection, missing, limits)
        return
    with file:
        left = os.fstat(file.fileno()).st_size
        headers = [*_headers(response, response.content_type), ("content-length", str(left))]
        await _send(stream, connection.send(h11.Response(status_code=200, headers=headers)), limits)
        while left > 0:
            chunk = file.read(min(FILE_CHUNK, left))
            if not chunk:
                raise _Stalled  # cut short: the client sees the connection close before the length it was told
            await _send(stream, connection.send(h11.Data(data=chunk)), limits)
            left -= len(chunk)
    await _send(stream, connection.send(h11.EndOfMessage()), limits)


async def _send_error(stream: trio.abc.Stream, connection: h11.Connection, error: HttpError, limits: Limits) -> None:
    if connection.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    body = json.dumps({"error": error.message}).encode()
    response = Response(error.status, body)
    headers = [*_headers(response, "application/json"), ("content-length", str(len(body))), ("connection", "close")]
    try:
        await _send(stream, connection.send(h11.Response(status_code=error.status, headers=headers)), limits)
        await _send(stream, connection.send(h11.Data(data=body)), limits)
        await _send(stream, connection.send(h11.EndOfMessage()), limits)
    except (h11.LocalProtocolError, trio.BrokenResourceError, trio.ClosedResourceError, _Stalled):
        pass
