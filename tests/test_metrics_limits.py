"""``--metrics-port`` against clients that hold connections: half-sent requests are closed after the
request timeout, connections over the limit are refused at once, and no connection costs a thread.

The dealer waits for players that never come; its ``/metrics`` is served meanwhile by
the page process (``web.side``), whose bounds are ``METRICS_LIMITS``. Thread counts are
read from ``/proc/PID/status``.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from acpc_arena.dealer.web.side import METRICS_LIMITS
from tests.helpers.processes import free_port, start_dealer, wait_until


def _answered(port: int) -> bool:
    """A scrape gets 200 (False while every slot is still taken: the page process refuses or resets it)."""
    try:
        return _scrape(port)[0] == 200
    except OSError:
        return False


def _threads(pid: int) -> int:
    match = re.search(r"Threads:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    assert match is not None
    return int(match.group(1))


def _scrape(port: int, headers: str = "") -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET /metrics HTTP/1.1\r\nHost: dealer:9101\r\nConnection: close\r\n{headers}\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def _answer(sock: socket.socket, seconds: float) -> bytes:
    """What the server sends on ``sock`` before it closes it (waiting up to ``seconds``)."""
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def test_held_connections_are_bounded_in_time_and_number_and_cost_no_thread(tmp_path: Path) -> None:
    port = free_port()
    dealer = start_dealer(tmp_path, "waiting", "kuhn", "10", "7", "A", "B", "-q", "--metrics-port", str(port))
    held: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, page = _scrape(port)
                break
            except OSError:
                assert time.monotonic() < deadline, "no metrics"
                time.sleep(0.1)
        assert status == 200 and b"acpc_dealer_matches_running" in page
        pid = dealer.process.pid
        (side,) = (int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
        threads = _threads(dealer.process.pid), _threads(side)

        # Half-sent requests: each is answered 408 and closed once the request timeout has passed.
        sent = time.monotonic()
        for i in range(40):  # from as many addresses: one address has a bound of its own, tried below
            sock = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.1.{i + 1}", 0))
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: dealer:9101\r\n")
            held.append(sock)
        status, page = _scrape(port)  # scrapes are answered meanwhile
        assert status == 200 and b"acpc_dealer_matches_running" in page
        assert (_threads(dealer.process.pid), _threads(side)) == threads
        answers = [_answer(sock, METRICS_LIMITS.request_seconds + 10) for sock in held]
        waited = time.monotonic() - sent
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers[:3]
        assert METRICS_LIMITS.request_seconds - 0.5 < waited < METRICS_LIMITS.request_seconds + 5
        for sock in held:
            sock.close()
        held.clear()

        # Connections over the limit are answered 503 at once and closed; the ones within it stay open.
        for i in range(METRICS_LIMITS.connections + 20):
            held.append(socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.2.{i + 1}", 0)))
        deadline = time.monotonic() + 1
        refused = [a for a in (_answer(sock, max(0.01, deadline - time.monotonic())) for sock in held) if a]
        assert len(refused) == 20 and all(a.startswith(b"HTTP/1.1 503") for a in refused), refused[:3]
        assert (_threads(dealer.process.pid), _threads(side)) == threads
        for sock in held:
            sock.close()
        held.clear()

        # One address has a bound of its own: its connections beyond it are refused, another's are not.
        for _ in range(METRICS_LIMITS.address_connections + 5):
            held.append(socket.create_connection(("127.0.0.1", port), source_address=("127.0.3.1", 0)))
        deadline = time.monotonic() + 1
        refused = [a for a in (_answer(sock, max(0.01, deadline - time.monotonic())) for sock in held) if a]
        assert len(refused) == 5 and all(a.startswith(b"HTTP/1.1 503") for a in refused), refused[:3]
        wait_until(lambda: _answered(port), 10, "a scrape from another address")
        for sock in held:
            sock.close()
        held.clear()

        # Any Host is answered (Prometheus scrapes by name), once the closed connections' slots are free;
        # another site's page is not.
        wait_until(lambda: _answered(port), 10, "a scrape answered after the held connections closed")
        status, page = _scrape(port, "Origin: http://evil.example\r\n")
        assert status == 403 and b"acpc_dealer" not in page
    finally:
        for sock in held:
            sock.close()
        dealer.process.terminate()
        dealer.wait(timeout=30)
