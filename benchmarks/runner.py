"""acpc-match and acpc-tournament: concurrency, agents in process, batched decisions, worker processes."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from benchmarks.timing import Row


def bench_runner() -> Iterator[Row]:
    """A whole duplicate run of fast agents (call vs raise), one match at a time and several at once."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    seeds, hands = "1,2,3,4", 2000
    rates = {}
    for concurrency in (1, 2, 4):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(
                [program, "--a", "call", "--b", "raise", "--seeds", seeds, "--hands", str(hands), "--out", out,
                 "--concurrency", str(concurrency), "--quiet", "--no-plots"],
                check=True, capture_output=True,
            )  # fmt: skip
            report = json.loads((Path(out) / "report.json").read_text())
        rates[concurrency] = report["hands_per_second"]
        note = "" if concurrency == 1 else f"{rates[concurrency] / rates[1]:.2f}x one at a time"
        yield (
            f"acpc-match call vs raise, 8 matches, concurrency {concurrency}",
            f"{rates[concurrency]:,.0f} hands/s",
            note,
        )


PAIRS = 5
"""Interleaved runs of each side of a comparison; the ratio shown is the median of the pairs' ratios."""
INPROCESS_GOAL = 10
"""``--in-process`` over TCP, the same run (issue 40): random vs call."""
BATCHED_GOAL = 8
"""``--in-process`` over TCP for lstm_dqn vs cfr, 8 matches at once (issue 59)."""


@dataclass(frozen=True)
class _Run:
    """One ``acpc-match`` run as its report and the operating system count it."""

    rate: float
    """Hands a second as acpc-match reports them (the matches and the scoring)."""
    play_rate: float
    """Hands a second of the matches alone (the scoring's seconds left out)."""
    cpu: float
    """Processor seconds a hand of the whole run, the agents' processes included."""


def _acpc_match(args: list[str]) -> _Run:
    """``acpc-match ARGS`` in a scratch folder (quiet, no plots), waited for."""
    import json
    import resource
    import subprocess
    import tempfile
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([program, *args, "--out", out, "--quiet", "--no-plots"], check=True, capture_output=True)
        report = json.loads((Path(out) / "report.json").read_text())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    hands, play = report["hands_played"], report["elapsed_seconds"] - report["scoring_seconds"]
    return _Run(report["hands_per_second"], hands / play, cpu / hands)


def _interleaved(variants: dict[str, list[str]]) -> dict[str, list[_Run]]:
    """``PAIRS`` runs of every variant (acpc-match's arguments by name), one of each in turn, the order
    turned around every round so that no variant always runs first."""
    runs: dict[str, list[_Run]] = {name: [] for name in variants}
    for round_ in range(PAIRS):
        names = list(variants) if round_ % 2 == 0 else list(reversed(variants))
        for name in names:
            runs[name].append(_acpc_match(variants[name]))
    return runs


def _ratio_row(label: str, runs: list[_Run], tcp: list[_Run], goal: float | None) -> Row:
    """The row of a variant against TCP: its median rate, and the medians of the pairs' ratios (the reported
    rate, the matches alone, processor time) with the goal's verdict."""
    ratio = statistics.median(r.rate / t.rate for r, t in zip(runs, tcp, strict=True))
    play = statistics.median(r.play_rate / t.play_rate for r, t in zip(runs, tcp, strict=True))
    cpu = statistics.median(t.cpu / r.cpu for r, t in zip(runs, tcp, strict=True))
    verdict = "" if goal is None else f" (goal {goal}x: {'met' if ratio >= goal else 'not met'})"
    return (
        label,
        f"{statistics.median(r.rate for r in runs):,.0f} hands/s",
        f"{ratio:.1f}x over TCP{verdict}; the matches alone {play:.1f}x; {cpu:.1f}x less processor time",
    )


def bench_inprocess() -> Iterator[Row]:
    """acpc-match random vs call (4 matches of 2,000 hands, 2 at once) over TCP, with the agents inside the
    runner (--in-process) and inside 2 worker processes (--workers 2): interleaved runs, medians of the pairs."""
    common = ["--a", "random", "--b", "call", "--seeds", "1,2", "--hands", "2000", "--concurrency", "2"]
    runs = _interleaved({"tcp": common, "in": [*common, "--in-process"], "workers": [*common, "--workers", "2"]})
    tcp = runs["tcp"]
    yield (
        "acpc-match random vs call, 4 matches of 2000 hands, over TCP",
        f"{statistics.median(r.rate for r in tcp):,.0f} hands/s",
        f"median of {PAIRS} runs interleaved with the rows below; "
        f"{statistics.median(r.cpu for r in tcp) * 1e6:,.0f} us of processor time a hand",
    )
    yield _ratio_row("  the same --in-process", runs["in"], tcp, INPROCESS_GOAL)
    yield _ratio_row("  the same --workers 2", runs["workers"], tcp, None)


def bench_batched() -> Iterator[Row]:
    """lstm_dqn vs cfr in 8 matches of 300 hands, 8 at once, over TCP and in process (lstm_dqn's decisions of
    every match batched into one pass), and in process one match at a time (a decision a pass): interleaved
    runs, medians of the pairs."""
    common = ["--a", "lstm_dqn", "--b", "cfr", "--seeds", "1,2,3,4", "--hands", "300"]
    runs = _interleaved(
        {
            "tcp": [*common, "--concurrency", "8"],
            "in": [*common, "--concurrency", "8", "--in-process"],
            "one": [*common, "--concurrency", "1", "--in-process"],
        }
    )
    tcp = runs["tcp"]
    yield (
        "acpc-match lstm_dqn vs cfr, 8 matches of 300 hands, 8 at once, over TCP",
        f"{statistics.median(r.rate for r in tcp):,.0f} hands/s",
        f"median of {PAIRS} runs interleaved with the rows below; "
        f"{statistics.median(r.cpu for r in tcp) * 1e3:,.1f} ms of processor time a hand",
    )
    label, rate, note = _ratio_row(
        "  the same --in-process (decisions batched across the 8)", runs["in"], tcp, BATCHED_GOAL
    )
    yield label, rate, f"{note}; {_mean_batch(common):.1f} views an act_batch"
    yield _ratio_row("  --in-process, one match at a time", runs["one"], tcp, None)


def _mean_batch(common: list[str]) -> float:
    """The mean views of lstm_dqn's ``act_batch`` in the batched run (``DecisionBatcher.sizes``), played again in
    this process through ``play`` (acpc-match does not report it)."""
    from acpc_arena.dealer.arena import in_process
    from acpc_arena.dealer.arena.api import play

    options = dict(zip(common[::2], common[1::2], strict=True))
    batchers: list[in_process.DecisionBatcher] = []
    original = in_process.DecisionBatcher.__init__

    def recording(self: in_process.DecisionBatcher) -> None:
        original(self)
        batchers.append(self)

    in_process.DecisionBatcher.__init__ = recording  # type: ignore[method-assign]
    try:
        seeds = [int(seed) for seed in options["--seeds"].split(",")]
        play([options["--a"], options["--b"]], seeds=seeds, hands=int(options["--hands"]), concurrency=8)
    finally:
        in_process.DecisionBatcher.__init__ = original  # type: ignore[method-assign]
    return statistics.mean(size for batcher in batchers for size in batcher.sizes)


def bench_tournament() -> Iterator[Row]:
    """acpc-tournament of three fast agents with one worker process and with two (hands/s over the wall time)."""
    import subprocess
    import tempfile
    import time
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-tournament")
    seeds, hands, matches = "1,2", 2000, 3 * 4
    rates = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run(
                [program, "--agents", "random,call,rule", "--seeds", seeds, "--hands", str(hands), "--out", out,
                 "--workers", str(workers), "--quiet", "--no-plots"],
                check=True, capture_output=True,
            )  # fmt: skip
            rates[workers] = matches * hands / (time.perf_counter() - start)
        note = "" if workers == 1 else f"{rates[workers] / rates[1]:.2f}x one worker"
        yield (
            f"acpc-tournament random,call,rule, {matches} matches, {workers} worker(s)",
            f"{rates[workers]:,.0f} hands/s",
            note,
        )
