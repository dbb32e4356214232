"""What the benchmark server's page process serves, rendered from a reading of the database (``Reading``):
the page ``/`` (``page_html``, every value escaped), its JSON ``/api/bm`` (``reading_json``) and the
families of ``/metrics`` (``metric_families``; ``refused_page`` is the server's own part, the connections
refused at logon). ``rendered`` makes all three at once, off the request's path."""

from __future__ import annotations

import html
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.metrics_core import Metric

from acpc_arena.dealer.benchmark_server.protocol import (
    BAD_LOGON,
    LOGON_TIMEOUT,
    RATE_LIMITED,
    SERVER_BUSY,
    TOO_MANY_CONNECTIONS,
)
from acpc_arena.dealer.benchmark_server.store import JobStatus, RunRow
from acpc_arena.dealer.web.http import json_bytes

PAGE_REFRESH_S = 5
"""The HTML page reloads itself this often."""
DURATION_BUCKETS = (1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 24 * 3600.0, float("inf"))
REFUSALS = {
    BAD_LOGON: "bad_logon",
    LOGON_TIMEOUT: "logon_timeout",
    RATE_LIMITED: "rate_limited",
    SERVER_BUSY: "server_busy",
    TOO_MANY_CONNECTIONS: "too_many_connections",
}
"""The server's refusals at logon and their ``reason`` labels."""


class _Families:
    """A collector of families made elsewhere (``prometheus_client`` renders registries, not families)."""

    def __init__(self, families: Callable[[], Sequence[Metric]]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        yield from self.families()


def render(families: Sequence[Metric]) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(lambda: families))
    return generate_latest(registry)


def refused_page(refused: Counter[str]) -> bytes:
    """The server's part of ``/metrics``: connections refused at logon, by reason (each from 0)."""
    family = CounterMetricFamily("acpc_bm_logons_refused", "Connections refused at logon", labels=["reason"])
    for line, reason in REFUSALS.items():
        family.add_metric([reason], refused[line])
    return render([family])


@dataclass
class Durations:
    """A histogram of runs' seconds: how many took at most each of ``DURATION_BUCKETS``, and their sum."""

    counts: list[int] = field(default_factory=lambda: [0] * len(DURATION_BUCKETS))
    total: float = 0.0

    def add(self, seconds: float) -> None:
        for index, bound in enumerate(DURATION_BUCKETS):
            if seconds <= bound:
                self.counts[index] += 1
        self.total += seconds


@dataclass
class Rendered:
    """A reading as each page sends it, made by the watcher's thread so that a request costs a copy."""

    page: bytes = b""
    api: bytes = b"{}"
    metrics: bytes = b""


@dataclass
class Reading:
    """What the database held at ``taken``."""

    taken: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    jobs: list[JobStatus] = field(default_factory=list)
    running: list[RunRow] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    finished: dict[tuple[str, str], int] = field(default_factory=dict)
    """Runs ended, by (game, ``done`` or ``failed``)."""
    durations: dict[str, Durations] = field(default_factory=dict)
    error: str | None = None


def metric_families(reading: Reading) -> list[Metric]:
    """``/metrics``' families from the database's reading."""
    counts = reading.counts
    families: list[Metric] = [
        GaugeMetricFamily("acpc_bm_runs_queued", "Runs waiting to be played", value=counts.get("queued", 0)),
        GaugeMetricFamily("acpc_bm_runs_running", "Runs being played", value=counts.get("running", 0)),
        GaugeMetricFamily("acpc_bm_jobs_active", "Jobs with runs left to play", value=len(reading.jobs)),
        GaugeMetricFamily(
            "acpc_bm_jobs_running", "Jobs with a run being played", value=sum(job.running for job in reading.jobs)
        ),
    ]
    ended = CounterMetricFamily("acpc_bm_runs_finished", "Runs played to their end", labels=["game"])
    failed = CounterMetricFamily("acpc_bm_runs_failed", "Runs that failed", labels=["game"])
    for (game, state), count in sorted(reading.finished.items()):
        (ended if state == "done" else failed).add_metric([game], count)
    seconds = HistogramMetricFamily("acpc_bm_run_seconds", "Seconds each run took", labels=["game"])
    for game, durations in sorted(reading.durations.items()):
        buckets = [(_le(bound), float(count)) for bound, count in zip(DURATION_BUCKETS, durations.counts, strict=True)]
        seconds.add_metric([game], buckets, sum_value=durations.total)
    return [*families, ended, failed, seconds]


def _le(bound: float) -> str:
    return "+Inf" if bound == float("inf") else f"{bound:g}"


def reading_json(reading: Reading) -> dict[str, Any]:
    return {
        "taken": reading.taken,
        "error": reading.error,
        "counts": reading.counts,
        "queue": [
            {"job": job.job_id, "user": job.user, "tag": job.tag, "game": job.game, "runs_left": job.runs_left,
             "running": job.running}
            for job in reading.jobs
        ],
        "running": [
            {"run": f"{run.job_id}.{run.run_index}", "user": run.user, "tag": run.tag, "game": run.game,
             "players": list(run.players), "started": run.started}
            for run in reading.running
        ],
        "results": reading.results,
    }  # fmt: skip


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], empty: str) -> str:
    if not rows:
        return f"<p>{html.escape(empty)}</p>"
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _interval(row: dict[str, Any]) -> str:
    low, high = row["ci95"]
    if not row["hands"]:
        return "no hands read"
    if not np.isfinite(low):
        return f"{row['mbb_per_hand']:+.1f} (one hand)"
    return f"{row['mbb_per_hand']:+.1f} [{low:+.1f}, {high:+.1f}]"


def _aivat_cell(aivat: dict[str, Any]) -> str:
    """The AIVAT estimate and the runs it is over; or, none having it, that it is computed or why not."""
    computing = f"{aivat['pending']} run{'s' if aivat['pending'] != 1 else ''} computing"
    if aivat["runs"]:
        shown = f"{_interval(aivat)}, AIVAT over {aivat['runs']} of {aivat['of_runs']} runs"
        return f"{shown}, {computing}" if aivat["pending"] else shown
    if aivat["pending"]:
        return computing
    return f"none: {aivat['reason']}"


def page_html(reading: Reading) -> str:
    """The page: the queue, the runs being played, the results (every value escaped)."""
    now = time.time()
    queue = [(j.job_id, j.user, j.tag, j.game, j.runs_left, "R" if j.running else "Q") for j in reading.jobs]
    running = [
        (f"{r.job_id}.{r.run_index}", r.user, r.tag, r.game, " ".join(r.players),
         f"{now - r.started:.0f} s" if r.started else "")
        for r in reading.running
    ]  # fmt: skip
    results = [
        (r["game"], r["user"], r["opponent"], r["runs"], r["hands"], _interval(r), _aivat_cell(r["aivat"]),
         r["unread_runs"])
        for r in reading.results
    ]  # fmt: skip
    counts = ", ".join(f"{state} {count}" for state, count in sorted(reading.counts.items())) or "no runs yet"
    error = f"<p><strong>{html.escape(reading.error)}</strong></p>" if reading.error else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{PAGE_REFRESH_S}">
<title>Benchmark server</title></head><body>
<h1>Benchmark server</h1>{error}
<p>Runs: {html.escape(counts)}. Read {time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(reading.taken))}.</p>
<h2>Queue</h2>
{_table(("job", "user", "tag", "game", "runs left", "state"), queue, "Queue empty")}
<h2>Running</h2>
{_table(("run", "user", "tag", "game", "seats", "for"), running, "No run is being played.")}
<h2>Results</h2>
<p>The user's bot against each hosted side: chips won per hand in mbb/h (1000 x chips / big blind) with its 95%
interval, over the hands of the finished runs' logs; beside it the AIVAT estimate, the luck of the cards and of
the hosted bot's choices taken out, over the runs whose hosted bot is a shipped agent (its policy known).</p>
{
        _table(
            (
                "game",
                "user",
                "against",
                "runs",
                "hands",
                "mbb/h [95% interval]",
                "AIVAT mbb/h [95% interval]",
                "logs unread",
            ),
            results,
            "No finished run of a user's bot yet.",
        )
    }
<p><a href="/metrics">metrics</a> · <a href="/api/bm">JSON</a></p>
</body></html>
"""


def rendered(reading: Reading) -> Rendered:
    """The three answers of ``reading``."""
    return Rendered(page_html(reading).encode(), json_bytes(reading_json(reading)), render(metric_families(reading)))
