"""``acpc-match --metrics-push``: the final values go to a Pushgateway (here a stand-in HTTP
server that records what it is sent, in the Pushgateway's API: PUT /metrics/job/<job>)."""

from __future__ import annotations

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

from tests.helpers.processes import program


class _Gateway(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, str]]] = []

    def do_PUT(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        self.received.append(("PUT", self.path, body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_final_metrics_are_pushed(tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        gateway = f"127.0.0.1:{server.server_address[1]}"
        done = subprocess.run(
            [program("acpc-match"), "--a", "call", "--b", "raise", "--game", "kuhn", "--seeds", "3", "--hands", "25",
             "--metrics-push", gateway, "--quiet", "--no-plots", "--out", str(tmp_path / "run")],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr
    ((method, path, body),) = _Gateway.received
    assert (method, path) == ("PUT", "/metrics/job/acpc-match")
    assert 'acpc_match_hands_total{a="a-call",b="b-raise"} 50.0' in body  # 2 matches of 25 hands
    assert 'acpc_match_matches_total{a="a-call",b="b-raise",status="finished"} 2.0' in body
