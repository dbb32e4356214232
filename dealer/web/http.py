"""A small HTTP/1.1 server on trio (h11 parses the bytes): GET and POST, JSON, files, server-sent events.

Served on 127.0.0.1 unless told otherwise. Requests are bounded: ``MAX_HEADER_BYTES``
of head, ``MAX_BODY_BYTES`` of body, ``REQUEST_SECONDS`` to send them; a client that
breaks any bound gets a 4xx and its connection is closed; one bad client never stops
the server.
"""

from __future__ import annotations

import json
import math
import mimetypes
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import h11
import trio

MAX_HEADER_BYTES = 16384
MAX_BODY_BYTES = 65536
REQUEST_SECONDS = 10.0


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: bytes = b""

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
    events: AsyncIterator[str] | None = None
    """Server-sent events: each item is sent as one ``data:`` event (``""``: a keep-alive comment)
    until the iterator ends."""
    headers: list[tuple[str, str]] = field(default_factory=list)


def json_response(value: Any, status: int = 200) -> Response:
    """``value`` as JSON; infinities and NaNs (a report's interval of one sample) become null,
    which browsers parse."""
    return Response(status, json.dumps(_finite(value), separators=(",", ":"), allow_nan=False).encode())


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def file_response(path: Path) -> Response:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    try:
        return Response(200, path.read_bytes(), kind)
    except OSError:
        raise HttpError(404, f"no such file: {path.name}") from None


Handler = Callable[[Request], Awaitable[Response]]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port), made before any trio run."""
    return socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)


async def serve(handler: Handler, sock: socket.socket) -> None:
    """Serve ``handler`` on the listening ``sock`` until cancelled (``sock`` stays open)."""
    listener = trio.SocketListener(trio.socket.from_stdlib_socket(sock.dup()))

    async def connection(stream: trio.SocketStream) -> None:
        await _connection(stream, handler)

    await trio.serve_listeners(connection, [listener])


async def _connection(stream: trio.abc.Stream, handler: Handler) -> None:
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADER_BYTES)
    try:
        while True:
            with trio.move_on_after(REQUEST_SECONDS) as scope:
                request = await _read_request(stream, connection)
            if scope.cancelled_caught:
                await _send_error(stream, connection, HttpError(408, "the request took too long"))
                return
            if request is None:
                return
            try:
                response = await handler(request)
            except HttpError as error:
                response = json_response({"error": error.message}, error.status)
            except Exception as exc:  # a fault of the page's code: that request fails, the server goes on
                print(f"acpc-web: {request.method} {request.path}: {type(exc).__name__}: {exc}", file=sys.stderr)
                response = json_response({"error": f"{type(exc).__name__}: {exc}"}, 500)
            await _send_response(stream, connection, response)
            if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                return
            connection.start_next_cycle()
    except HttpError as error:
        await _send_error(stream, connection, error)
    except (h11.ProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        with trio.move_on_after(1):
            await stream.aclose()


async def _read_request(stream: trio.abc.Stream, connection: h11.Connection) -> Request | None:
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
            return Request(head.method.decode("ascii", "replace"), unquote(parts.path), query, bytes(body))
        elif isinstance(event, h11.ConnectionClosed):
            return None


async def _send_response(stream: trio.abc.Stream, connection: h11.Connection, response: Response) -> None:
    headers = [("content-type", response.content_type), *response.headers]
    if response.events is None:
        headers.append(("content-length", str(len(response.body))))
        headers.append(("cache-control", "no-store"))
        await stream.send_all(connection.send(h11.Response(status_code=response.status, headers=headers)))
        await stream.send_all(connection.send(h11.Data(data=response.body)))
        await stream.send_all(connection.send(h11.EndOfMessage()))
        return
    headers = [("content-type", "text/event-stream"), ("cache-control", "no-store")]
    await stream.send_all(connection.send(h11.Response(status_code=200, headers=headers)))
    async for item in response.events:
        text = "".join(f"data: {line}\n" for line in item.split("\n")) + "\n" if item else ": keep-alive\n\n"
        await stream.send_all(connection.send(h11.Data(data=text.encode())))
    await stream.send_all(connection.send(h11.EndOfMessage()))


async def _send_error(stream: trio.abc.Stream, connection: h11.Connection, error: HttpError) -> None:
    if connection.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    body = json.dumps({"error": error.message}).encode()
    headers = [("content-type", "application/json"), ("content-length", str(len(body))), ("connection", "close")]
    try:
        await stream.send_all(connection.send(h11.Response(status_code=error.status, headers=headers)))
        await stream.send_all(connection.send(h11.Data(data=body)))
        await stream.send_all(connection.send(h11.EndOfMessage()))
    except (h11.LocalProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
