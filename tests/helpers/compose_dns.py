"""docker/prometheus/prometheus.yml as the compose stack runs it, in a network namespace of its own.

Run under ``unshare`` (tests/test_metrics_stack.py's ``UNSHARE``) as ``python -m tests.helpers.compose_dns
WORKDIR SERVICE=PORT...``: it brings the namespace's loopback up, points ``/etc/resolv.conf`` (in
this mount namespace only) at a DNS stub on 127.0.0.1 that stands in for Docker's embedded DNS (a
service's name answers only while the service runs: here, the SERVICEs given; any other name is
NXDOMAIN), serves each given service's metrics page on its PORT, starts Prometheus with the
repository's configuration and prints, as JSON, Prometheus's active targets once every given
service is scraped, and the names the stub was asked for.
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from acpc_arena.dealer.observers.metrics import DealerMetrics, RunMetrics
from tests.helpers.processes import REPO, start_prometheus

CONFIG = REPO / "docker" / "prometheus" / "prometheus.yml"
PROMETHEUS_PORT = 9090
# What each compose service serves on its metrics port: the run's families, the dealer's.
METRICS = {"match": RunMetrics, "dealer": DealerMetrics}
TYPE_A = 1
CLASS_IN = 1


def dns_answer(query: bytes, running: set[str]) -> tuple[str, bytes]:
    """The queried name and the reply (RFC 1035 section 4): 127.0.0.1 for a running service's A
    record, an empty answer for its other types, NXDOMAIN for any other name."""
    end, labels = 12, []
    while query[end]:
        length = query[end]
        labels.append(query[end + 1 : end + 1 + length].decode().lower())
        end += 1 + length
    (qtype,) = struct.unpack("!H", query[end + 1 : end + 3])
    end += 5  # the root label, QTYPE and QCLASS
    name = ".".join(labels)
    known = name in running
    answer = b""
    if known and qtype == TYPE_A:  # the name as a pointer to the question's, TYPE, CLASS, TTL, RDLENGTH, RDATA
        answer = b"\xc0\x0c" + struct.pack("!HHIH", TYPE_A, CLASS_IN, 5, 4) + socket.inet_aton("127.0.0.1")
    recursion_desired = query[2] & 0x01
    flags = 0x8000 | 0x0400 | recursion_desired << 8 | 0x0080 | (0 if known else 3)  # QR AA RD RA RCODE
    header = query[:2] + struct.pack("!HHHHH", flags, 1, 1 if answer else 0, 0, 0)
    return name, header + query[12:end] + answer


def _serve_dns(sock: socket.socket, running: set[str], asked: list[str]) -> None:
    while True:
        query, client = sock.recvfrom(4096)
        name, reply = dns_answer(query, running)
        asked.append(name)
        sock.sendto(reply, client)


def _active_targets() -> list[dict[str, Any]]:
    url = f"http://127.0.0.1:{PROMETHEUS_PORT}/api/v1/targets?state=active"
    with urllib.request.urlopen(url, timeout=5) as response:
        targets: list[dict[str, Any]] = json.load(response)["data"]["activeTargets"]
    return targets


def main(workdir: Path, services: dict[str, int]) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    resolv_conf = workdir / "resolv.conf"
    resolv_conf.write_text("nameserver 127.0.0.1\n")
    subprocess.run(["mount", "--bind", str(resolv_conf), "/etc/resolv.conf"], check=True)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 53))
    asked: list[str] = []
    threading.Thread(target=_serve_dns, args=(sock, set(services), asked), daemon=True).start()
    for name, port in services.items():
        METRICS[name](CollectorRegistry()).serve(port)
    prometheus = start_prometheus(CONFIG, workdir, PROMETHEUS_PORT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                targets = _active_targets()
                if len([t for t in targets if t["health"] == "up"]) >= len(services) and asked:
                    break
            except OSError:
                pass  # Prometheus still starting
            if time.monotonic() > deadline:
                raise SystemExit((workdir / "prometheus.err").read_text()[-3000:])
            time.sleep(0.5)
        time.sleep(6)  # one more DNS refresh (5 s): a name that did not answer has been asked again
        summary = [
            {"instance": t["labels"]["instance"], "health": t["health"], "url": t["scrapeUrl"]}
            for t in _active_targets()
        ]
        print(json.dumps({"targets": summary, "asked": sorted(set(asked))}))
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=30)


if __name__ == "__main__":
    main(Path(sys.argv[1]), {name: int(port) for name, port in (a.split("=") for a in sys.argv[2:])})
