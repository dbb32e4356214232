"""acpc-match and acpc-tournament: concurrency, agents in process, batched decisions, worker processes."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from benchmarks.timing import PURE, Row


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


def bench_inprocess() -> Iterator[Row]:
    """acpc-match with the agents inside the runner (--in-process) and inside 2 worker processes (--workers 2)
    against the same run over TCP."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    variants = {"": None, "--in-process": None, "--workers 2": None, "--in-process ": PURE}
    """acpc-match's flags (a trailing space: the engine from its sources) and the environment."""
    goals = {"random": 10, "lstm_dqn": 20}
    """The targets for --in-process over TCP on 2 cores, by agent A (docs/guides/acpc-match.md, "Faster")."""
    for a, b, seeds, hands in (("random", "call", "1,2", 2000), ("lstm_dqn", "cfr", "1,2", 500)):
        rates = {}
        for flags, env in variants.items():
            with tempfile.TemporaryDirectory() as out:
                subprocess.run(
                    [program, "--a", a, "--b", b, "--seeds", seeds, "--hands", str(hands), "--out", out,
                     "--concurrency", "2", "--quiet", "--no-plots", *flags.split()],
                    check=True, capture_output=True, env=env,
                )  # fmt: skip
                rates[flags] = json.loads((Path(out) / "report.json").read_text())["hands_per_second"]
        matches = 2 * len(seeds.split(","))
        yield (f"acpc-match {a} vs {b}, {matches} matches of {hands} hands, over TCP", f"{rates['']:,.0f} hands/s", "")
        tcp, inside, workers = rates[""], rates["--in-process"], rates["--workers 2"]
        yield ("  the same --in-process", f"{inside:,.0f} hands/s", f"{inside / tcp:.1f}x over TCP (goal {goals[a]}x)")
        yield ("  the same --workers 2", f"{workers:,.0f} hands/s", f"{workers / tcp:.1f}x over TCP")
        pure = rates["--in-process "]
        yield (
            "  the same --in-process, the engine from its sources",
            f"{pure:,.0f} hands/s",
            f"{pure / rates['']:.1f}x over TCP; the compiled engine {rates['--in-process'] / pure:.2f}x its rate",
        )


def bench_batched() -> Iterator[Row]:
    """lstm_dqn vs cfr in 8 matches over TCP and in process, one match at a time (a decision per network pass),
    all 8 at once (lstm_dqn's decisions of every match batched into one pass) and in 2 workers (4 at once each)."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    program = str(Path(sys.executable).parent / "acpc-match")
    variants = ("--concurrency 2", "--in-process --concurrency 1", "--in-process --concurrency 8", "--workers 2")
    rates: dict[str, float] = {}
    for flags in variants:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(
                [program, "--a", "lstm_dqn", "--b", "cfr", "--seeds", "1,2,3,4", "--hands", "300", "--out", out,
                 "--quiet", "--no-plots", *flags.split()],
                check=True, capture_output=True,
            )  # fmt: skip
            rates[flags] = json.loads((Path(out) / "report.json").read_text())["hands_per_second"]
    tcp, one, batched, workers = (rates[flags] for flags in variants)
    yield ("acpc-match lstm_dqn vs cfr, 8 matches of 300 hands, over TCP", f"{tcp:,.0f} hands/s", "")
    yield ("  --in-process, one match at a time", f"{one:,.0f} hands/s", f"{one / tcp:.1f}x over TCP")
    yield (
        "  --in-process, 8 matches at once (decisions batched)",
        f"{batched:,.0f} hands/s",
        f"{batched / tcp:.1f}x over TCP (goal 20x); {batched / one:.2f}x one at a time",
    )
    yield ("  --workers 2 (4 matches at once in each)", f"{workers:,.0f} hands/s", f"{workers / tcp:.1f}x over TCP")


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
