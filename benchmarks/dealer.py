"""acpc-dealer's rate over TCP (beside the C dealer where there is one), and with its pages and metrics served."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from benchmarks.timing import Row


class _Run(NamedTuple):
    """One match: wall seconds, the dealer process's own user and system seconds, its log's bytes."""

    wall: float
    user: float
    system: float
    log: bytes

    def per_action(self, user_only: bool = False) -> float:
        """Microseconds of the dealer's processor time per action in its log."""
        return 1e6 * (self.user + (0 if user_only else self.system)) / _actions(self.log)


def _match(dealer: list[str], players: list[list[str]], game_file: str, hands: int) -> _Run:
    """One quiet match: the dealer command and one command per seat ({port} filled in), in a fresh folder.
    The dealer's processor time is its own (``wait4``'s rusage: what ``/proc/PID/stat`` holds at its end)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as cwd:
        start = time.perf_counter()
        process = subprocess.Popen(
            [*dealer, "bench", game_file, str(hands), "7", "A", "B", "-q"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdout is not None
        ports = process.stdout.readline().split()
        seats = [
            subprocess.Popen([part.replace("{port}", port) for part in player], cwd=cwd, stderr=subprocess.DEVNULL)
            for player, port in zip(players, ports, strict=True)
        ]
        process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
        for seat in seats:
            seat.wait(timeout=60)
        if process.returncode != 0:
            raise RuntimeError(f"the match failed: {dealer}")
        log = (Path(cwd) / "bench.log").read_bytes()
    return _Run(elapsed, usage.ru_utime, usage.ru_stime, log)


_ACTION = re.compile(rb"[fc]|r[0-9]*")


def _actions(log: bytes) -> int:
    """The actions in an ACPC log (the betting field of its ``STATE`` lines)."""
    return sum(len(_ACTION.findall(line.split(b":")[2])) for line in log.splitlines() if line.startswith(b"STATE:"))


_CALL = re.compile(r"\d+ +(\w+)\(")


def _syscalls(dealer: list[str], players: list[list[str]], game_file: str, hands: int) -> tuple[float, str]:
    """System calls the dealer process makes per action once its players connect (``strace -f``, from its
    first ``accept`` on: not its start-up), and the three most frequent with their counts per action."""
    import collections
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "trace"
        run = _match(["strace", "-f", "-o", str(trace), *dealer], players, game_file, hands)
        names = [match[1] for match in map(_CALL.match, trace.read_text().splitlines()) if match]
    first = next(i for i, name in enumerate(names) if name.startswith("accept"))
    counts, actions = collections.Counter(names[first:]), _actions(run.log)
    common = ", ".join(f"{count / actions:.2f} {name}" for name, count in counts.most_common(3))
    return counts.total() / actions, common


def _check_runs(*programs: Path) -> None:
    """Raise a one-line error for a program that does not start here (not built, built for another system)."""
    import subprocess

    for program in programs:
        try:
            subprocess.run([str(program)], capture_output=True, timeout=30)
        except OSError as exc:
            raise SystemExit(f"bench dealer: {program} does not run here ({exc.strerror}): build it (make)") from None


def bench_dealer() -> Iterator[Row]:
    """acpc-dealer beside the C dealer, both with ACPC_SERVER_DIR's two C ``example_player``s, on limit and
        no-limit reverse-blinds hold'em: 5 interleaved pairs of 10,000-hand matches, the median of the pairs'
        rate ratios (goal >= 0.8x; whether its hot path is compiled, ``protocol.native``, is said, and the load
        average over the pairs: the machine's other work slows the two unevenly) and of each
        dealer process's own processor time per action; where ``strace``
    is installed, each dealer's system calls per action over 2,000 hands (goal: no more than the C dealer). Without
        ACPC_SERVER_DIR (a folder where the ACPC server was built; nothing of it is part of this project), the
        players are two ``acpc-agent random`` and only acpc-dealer's figures are given.
    """
    import statistics

    from acpc_arena.protocol.game import resolve_game_path
    from acpc_arena.protocol.native import is_compiled

    compiled = "compiled" if is_compiled() else "not compiled (make install)"
    bin_dir = Path(sys.executable).parent
    ours = [str(bin_dir / "acpc-dealer")]
    hands, pairs = 10_000, 5
    c_dir = os.environ.get("ACPC_SERVER_DIR")
    if c_dir:
        _check_runs(Path(c_dir) / "dealer", Path(c_dir) / "example_player")
    for name in ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds"):
        path = str(resolve_game_path(name))
        if c_dir:
            player = [str(Path(c_dir) / "example_player"), path, "127.0.0.1", "{port}"]
            dealers = {"ours": ours, "C": [str(Path(c_dir) / "dealer")]}
        else:
            player = [str(bin_dir / "acpc-agent"), "random", "127.0.0.1", "{port}", "--game", path]
            dealers = {"ours": ours}
        runs: dict[str, list[_Run]] = {key: [] for key in dealers}
        loads = []
        for _ in range(pairs):  # interleaved, so a busy moment slows both alike
            for key, command in dealers.items():
                runs[key].append(_match(command, [player, player], path, hands))
            loads.append(os.getloadavg()[0])
        load = f"load average {statistics.median(loads):.2f} on {os.cpu_count()} processors"

        def rate(key: str, runs: dict[str, list[_Run]] = runs) -> float:
            return statistics.median(hands / run.wall for run in runs[key])

        def per_action(key: str, user_only: bool = False, runs: dict[str, list[_Run]] = runs) -> float:
            return statistics.median(run.per_action(user_only) for run in runs[key])

        cpu = f"user {per_action('ours', True):.1f} us"
        if not c_dir:
            yield (
                f"acpc-dealer + 2 acpc-agent random, {name}",
                f"{rate('ours'):,.0f} hands/s",
                f"median of {pairs}; {compiled}; {load}",
            )
            yield ("  its processor time per action", f"{per_action('ours'):.1f} us", f"{cpu} (goal <= 12 us)")
            continue
        ratios = [c.wall / o.wall for o, c in zip(runs["ours"], runs["C"], strict=True)]
        logs = {run.log for run in runs["C"]}
        same = "identical" if logs == {run.log for run in runs["ours"]} else "DIFFER"
        if len(logs) > 1:
            same = "not compared (the players are not deterministic)"
        yield (
            f"acpc-dealer / C dealer, 2 C example players, {name}",
            f"{statistics.median(ratios):.2f}x",
            f"median of {pairs} pairs (goal >= 0.8x): {rate('ours'):,.0f} vs {rate('C'):,.0f} hands/s; logs {same}; "
            f"{compiled}; {load}",
        )
        yield (
            "  processor time per action, acpc-dealer",
            f"{per_action('ours'):.1f} us",
            f"{cpu} (goal <= 12 us); C dealer {per_action('C'):.1f} us, user {per_action('C', True):.1f} us",
        )
        if shutil.which("strace"):
            ours_calls, ours_common = _syscalls(ours, [player, player], path, 2_000)
            c_calls, c_common = _syscalls(dealers["C"], [player, player], path, 2_000)
            yield (
                "  system calls per action (strace -f), acpc-dealer",
                f"{ours_calls:.2f}",
                f"goal <= C dealer's {c_calls:.2f}; {ours_common} (C: {c_common}); 2,000 hands",
            )


def _web_rate(folder: Path, player: list[str], game_path: str, hands: int, mode: str) -> tuple[float, float]:
    """Hands/s of one match of ``acpc-dealer`` in ``folder`` (from the players' start to its ``SCORE`` line)
    and the dealer process's own processor seconds by then. ``mode``: "plain" (no pages, no metrics),
    "alone" (``--web 0 --metrics-port``, nobody asking), "loaded" (the same under ``tests.helpers.web_load``'s
    load) or "busy" (alone, beside two niced busy loops: what sharing the processors costs by itself)."""
    import subprocess
    import urllib.request

    from tests.helpers.processes import free_port
    from tests.helpers.web_load import page_url, start_load, stop_load

    metrics_port = free_port()
    served = [] if mode == "plain" else ["--web", "0", "--metrics-port", str(metrics_port)]
    command = [str(Path(sys.executable).parent / "acpc-dealer"), "bench", game_path, str(hands), "7", "A", "B", "-q"]
    dealer = subprocess.Popen(
        [*command, *served], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert dealer.stdout is not None
    ports = dealer.stdout.readline().split()
    load = None
    busy = [
        subprocess.Popen([sys.executable, "-c", "import os\nos.nice(10)\nwhile True: pass"])
        for _ in range(2 if mode == "busy" else 0)
    ]
    if served:
        url = page_url(dealer.stderr)
        urllib.request.urlopen(url + "api/live", timeout=60).read()  # the page process is up, as under load
        if mode == "loaded":
            metrics = f"http://127.0.0.1:{metrics_port}/metrics"
            load = start_load(url, metrics, 200, ["0/bigA.log", "0/bigB.log"])
    try:
        start = time.perf_counter()
        seats = [
            subprocess.Popen([part.replace("{port}", port) for part in player], cwd=folder, stderr=subprocess.DEVNULL)
            for port in ports
        ]
        score = dealer.stdout.readline()
        elapsed = time.perf_counter() - start
        fields = Path(f"/proc/{dealer.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # its utime and stime, not its children's
        _, err = dealer.communicate(timeout=600)
        for seat in seats:
            seat.wait(timeout=60)
    finally:
        if load is not None:
            stop_load(load)
        for loop in busy:
            loop.kill()
            loop.wait()
    if dealer.returncode != 0 or not score.startswith("SCORE:"):
        raise RuntimeError(f"the match failed: {err}")
    return hands / elapsed, cpu


def bench_web() -> Iterator[Row]:
    """The dealer's rate with its pages and metrics served, alone and under load: 200 live-event clients,
    16 scrapers on /metrics, a client pulling 20,000-hand logs (``tests.helpers.web_load``, niced as the page
    process is). Runs interleaved for 5 rounds: the plain dealer, served with nobody asking, under load, and
    beside two niced busy loops (what sharing the processors with busy processes costs by itself); the
    median of the rounds' ratios (goal under load >= 0.90), in hands/s and in the dealer process's own
    processor time. The players are ACPC_SERVER_DIR's C ``example_player`` when there is one, else
    ``acpc-agent random``."""
    import statistics
    import tempfile

    from acpc_arena.protocol.game import resolve_game_path
    from tests.helpers.web_load import GAME, LOG_HANDS, write_log

    game_path = str(resolve_game_path(GAME))
    c_dir = os.environ.get("ACPC_SERVER_DIR")
    if c_dir:
        player, who = [str(Path(c_dir) / "example_player"), game_path, "127.0.0.1", "{port}"], "2 C example players"
    else:
        agent = str(Path(sys.executable).parent / "acpc-agent")
        player, who = [agent, "random", "127.0.0.1", "{port}", "--game", game_path], "2 acpc-agent random"
    hands, rounds = 10_000, 5
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "alone": [], "loaded": [], "busy": []}
    with tempfile.TemporaryDirectory() as folder:
        for seed, name in enumerate(("bigA.log", "bigB.log"), start=1):
            write_log(Path(folder) / name, LOG_HANDS, seed)
        for _ in range(rounds):
            for mode, measured in runs.items():
                measured.append(_web_rate(Path(folder), player, game_path, hands, mode))

    def ratios(top: str, bottom: str, index: int) -> list[float]:
        return [a[index] / b[index] for a, b in zip(runs[top], runs[bottom], strict=True)]

    def rates(mode: str) -> str:
        return ", ".join(f"{rate:,.0f}" for rate, _ in runs[mode])

    def told(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}x (rounds: {', '.join(f'{v:.2f}' for v in values)})"

    def cpu(mode: str) -> float:
        return statistics.median(1e6 * seconds / hands for _, seconds in runs[mode])

    yield (
        f"acpc-dealer + {who}, {GAME}",
        f"{statistics.median(r for r, _ in runs['plain']):,.0f} hands/s",
        f"{hands} hands a run, {rounds} rounds: {rates('plain')}; its process {cpu('plain'):.0f} ms per 1000 hands",
    )
    yield (
        "  the same with --web and --metrics-port, nobody asking",
        f"{statistics.median(r for r, _ in runs['alone']):,.0f} hands/s",
        f"{told(ratios('alone', 'plain', 0))} the plain rate; {rates('alone')}",
    )
    yield (
        "  the same under load (200 live clients, 16 scrapers, 20,000-hand logs pulled)",
        f"{statistics.median(r for r, _ in runs['loaded']):,.0f} hands/s",
        f"{told(ratios('loaded', 'alone', 0))} the rate nobody asking (goal >= 0.90); {rates('loaded')}",
    )
    yield (
        "  the same beside two niced busy loops instead (no client)",
        f"{statistics.median(r for r, _ in runs['busy']):,.0f} hands/s",
        f"{told(ratios('busy', 'alone', 0))} the rate nobody asking: sharing the processors, by itself",
    )
    yield (
        "  the dealer's own processor time, served alone / plain",
        f"{cpu('alone'):.0f} ms/1000 hands",
        f"{told(ratios('alone', 'plain', 1))}",
    )
    yield (
        "  the dealer's own processor time, under load / alone",
        f"{cpu('loaded'):.0f} ms/1000 hands",
        f"{told(ratios('loaded', 'alone', 1))}",
    )
