"""``make bench``: speed figures, side by side in one run, printed as a table.

Each section measures ours and, where there is one, a reference in the same
process and run, and reports the ratio; these machines are noisy, so ratios
measured together mean more than absolute rates.

    python -m tests.bench [section ...]
    # sections: evaluator engine dealer runner inprocess batched tournament cfr dqn logs lbr poker_cnn ensemble web
    #           startup
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from acpc_arena.agents.base import Agent
    from acpc_arena.protocol.game import Game

Row = tuple[str, str, str]


def _best_of(repeats: int, work: Callable[[], object]) -> float:
    """Fastest wall-clock seconds of ``repeats`` runs of ``work``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def bench_evaluator() -> Iterator[Row]:
    import eval7

    from acpc_arena.protocol.cards import CARD_STRINGS
    from acpc_arena.protocol.evaluator import rank_hand, rank_hands
    from tests.test_evaluator import category_counts_of_all_seven_card_hands

    rng = np.random.default_rng(0)
    count = 1_000_000
    hands = np.argsort(rng.random((count // 10, 52)), axis=1)[:, :7].astype(np.uint8)
    hands = np.tile(hands, (10, 1))
    rng.shuffle(hands)
    rank_hands(hands[:10])
    eval7_cards = [eval7.Card(s) for s in CARD_STRINGS]
    sample = [[eval7_cards[c] for c in h] for h in hands[:200_000].tolist()]
    t_eval7 = _best_of(3, lambda: [eval7.evaluate(h) for h in sample]) / len(sample)
    t_batch = _best_of(3, lambda: rank_hands(hands)) / count
    board = [0, 17, 34, 51, 22]
    holes = np.array([h for h in itertools.combinations(range(52), 2) if not set(h) & set(board)], dtype=np.uint8)
    holes = np.tile(holes, (1000, 1))
    t_board = _best_of(3, lambda: rank_hands(holes, fixed=board)) / len(holes)
    lists = hands[:200_000].tolist()
    t_scalar = _best_of(3, lambda: [rank_hand(h) for h in lists]) / len(lists)
    yield ("eval7.evaluate, one call per 7-card hand", f"{1 / t_eval7 / 1e6:.2f} M hands/s", "reference")
    yield (
        "rank_hands, 7 random cards per row",
        f"{1 / t_batch / 1e6:.1f} M hands/s",
        f"{t_eval7 / t_batch:.1f}x eval7",
    )
    yield (
        "rank_hands, 2 hole cards + shared board",
        f"{1 / t_board / 1e6:.1f} M hands/s",
        f"{t_eval7 / t_board:.1f}x eval7",
    )
    yield (
        "rank_hand, one call per 7-card hand",
        f"{1 / t_scalar / 1e6:.2f} M hands/s",
        f"{t_eval7 / t_scalar:.2f}x eval7",
    )
    start = time.perf_counter()
    counts = category_counts_of_all_seven_card_hands()
    elapsed = time.perf_counter() - start
    yield (
        "all 133,784,560 7-card hands, category counts",
        f"{elapsed:.1f} s",
        f"{counts.sum() / elapsed / 1e6:.0f} M hands/s, {t_eval7 * counts.sum() / elapsed:.0f}x eval7",
    )


def _engine_rates(hands: int = 20_000) -> dict[str, tuple[float, float]]:
    """Hands/s and actions per hand of random play through the engine, by game."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.evaluator import rank_hand
    from acpc_arena.protocol.game import load_game
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action

    rank_hand([0, 5, 10, 15, 20, 25, 30])  # build the 7-card table outside the timing

    def play(game_name: str) -> tuple[float, float]:
        game = load_game(game_name)
        deal_rng = MT19937(1)
        choice = random.Random(1)
        draw = choice.random
        actions = 0
        start = time.perf_counter()
        for hand_id in range(hands):
            state = deal_hand(game, hand_id, deal_rng)
            while not state.finished:
                x = draw()
                if x < 0.06 and state.can_fold():
                    action = FOLD_ACTION
                elif x < 0.53:
                    action = CALL_ACTION
                else:
                    bounds = state.raise_range()
                    if bounds is None:
                        action = CALL_ACTION
                    elif game.no_limit:
                        action = Action(RAISE, choice.randint(bounds[0], bounds[1]))
                    else:
                        action = LIMIT_RAISE_ACTION
                state.apply(action)
                actions += 1
            state.values()
        elapsed = time.perf_counter() - start
        return hands / elapsed, actions / hands

    return {name: play(name) for name in ENGINE_GAMES}


ENGINE_GAMES = ("holdem.nolimit.2p.reverse_blinds", "holdem.limit.2p.reverse_blinds", "holdem.nolimit.3p")
PURE = {**os.environ, "ACPC_ARENA_PURE": "1"}
"""The environment that imports the engine's sources rather than its compiled modules (protocol/native.py)."""


def bench_engine() -> Iterator[Row]:
    """Random hands through the engine, compiled (when ``make install`` could) and from its sources."""
    import json
    import subprocess

    from acpc_arena.protocol.native import is_compiled

    ours = _engine_rates()
    code = "import json; from tests import bench; print(json.dumps(bench._engine_rates()))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=PURE,
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    pure = json.loads(done.stdout)
    engine = "compiled" if is_compiled() else "not compiled"
    for name in ENGINE_GAMES:
        rate, per_hand = ours[name]
        yield (
            f"engine ({engine}): random hands of {name}",
            f"{rate:,.0f} hands/s",
            f"deal + {per_hand:.1f} actions + showdown",
        )
        yield (
            "  the same from the sources (ACPC_ARENA_PURE=1)",
            f"{pure[name][0]:,.0f} hands/s",
            f"the engine in use {rate / pure[name][0]:.2f}x its rate",
        )


def _timed_match(
    dealer: list[str], players: list[list[str]], game_file: str, hands: int, env: dict[str, str] | None = None
) -> float:
    """Wall seconds of one quiet match: the dealer command (run with ``env``) and one command per seat
    ({port} filled in)."""
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
            env=env,
        )
        assert process.stdout is not None
        ports = process.stdout.readline().split()
        seats = [
            subprocess.Popen([part.replace("{port}", port) for part in player], cwd=cwd, stderr=subprocess.DEVNULL)
            for player, port in zip(players, ports, strict=True)
        ]
        process.communicate(timeout=600)
        for seat in seats:
            seat.wait(timeout=60)
        elapsed = time.perf_counter() - start
        if process.returncode != 0:
            raise RuntimeError(f"the match failed: {dealer}")
    return elapsed


def bench_dealer() -> Iterator[Row]:
    """acpc-dealer with two fast agents over TCP; the C dealer beside it if ACPC_SERVER_DIR has one.

    ACPC_SERVER_DIR may name a folder where the ACPC server was built (``dealer`` and
    ``example_player``); nothing of it is part of this project.
    """
    import os
    from pathlib import Path

    from acpc_arena.protocol.game import resolve_game_path

    bin_dir = Path(sys.executable).parent
    ours = [str(bin_dir / "acpc-dealer")]
    hands = 10_000
    c_dir = os.environ.get("ACPC_SERVER_DIR")
    for name in ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds"):
        path = str(resolve_game_path(name))
        agent = [str(bin_dir / "acpc-agent"), "random", "127.0.0.1", "{port}", "--game", path]
        best = min(_timed_match(ours, [agent, agent], path, hands) for _ in range(2))
        batched = min(_timed_match([*ours, "--batch-messages"], [agent, agent], path, hands) for _ in range(2))
        yield (f"acpc-dealer + 2 acpc-agent random, {name}", f"{hands / best:,.0f} hands/s", f"{hands} hands, quiet")
        yield (
            f"  the same with --batch-messages, {name}",
            f"{hands / batched:,.0f} hands/s",
            f"{best / batched:.2f}x the rate of sending each message at once (the default)",
        )
        if c_dir:
            c_dealer = [str(Path(c_dir) / "dealer")]
            c_player = [str(Path(c_dir) / "example_player"), path, "127.0.0.1", "{port}"]
            runs: dict[str, list[float]] = {"ours": [], "batched": [], "pure": [], "C": []}
            for _ in range(3):  # alternating, the best of each
                runs["ours"].append(_timed_match(ours, [c_player, c_player], path, hands))
                runs["batched"].append(_timed_match([*ours, "--batch-messages"], [c_player, c_player], path, hands))
                runs["pure"].append(_timed_match(ours, [c_player, c_player], path, hands, env=PURE))
                runs["C"].append(_timed_match(c_dealer, [c_player, c_player], path, hands))
            ours_c, batched_c, pure_c, theirs = (min(runs[key]) for key in ("ours", "batched", "pure", "C"))
            yield (
                f"acpc-dealer + 2 C example players, {name}",
                f"{hands / ours_c:,.0f} hands/s",
                f"C dealer {hands / theirs:,.0f} hands/s: ours {theirs / ours_c:.2f}x its rate (goal 1x)",
            )
            yield (
                f"  the same with --batch-messages, {name}",
                f"{hands / batched_c:,.0f} hands/s",
                f"{ours_c / batched_c:.2f}x the default's rate, {theirs / batched_c:.2f}x the C dealer's",
            )
            yield (
                f"  the same, the engine from its sources, {name}",
                f"{hands / pure_c:,.0f} hands/s",
                f"the engine in use {pure_c / ours_c:.2f}x its rate, {theirs / pure_c:.2f}x the C dealer's",
            )


def _web_rate(folder: Path, player: list[str], game_path: str, hands: int, mode: str) -> tuple[float, float]:
    """Hands/s of one match of ``acpc-dealer`` in ``folder`` (from the players' start to its ``SCORE`` line)
    and the dealer process's own processor seconds by then. ``mode``: "plain" (no pages, no metrics),
    "alone" (``--web 0 --metrics-port``, nobody asking), "loaded" (the same under ``tests.test_web_load``'s
    load) or "busy" (alone, beside two niced busy loops: what sharing the processors costs by itself)."""
    import subprocess
    import urllib.request

    from tests.test_web_load import free_port, page_url, start_load, stop_load

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
    16 scrapers on /metrics, a client pulling 20,000-hand logs (``tests.test_web_load``, niced as the page
    process is). Runs interleaved for 5 rounds: the plain dealer, served with nobody asking, under load, and
    beside two niced busy loops (what sharing the processors with busy processes costs by itself); the
    median of the rounds' ratios (goal under load >= 0.90), in hands/s and in the dealer process's own
    processor time. The players are ACPC_SERVER_DIR's C ``example_player`` when there is one, else
    ``acpc-agent random``."""
    import statistics
    import tempfile

    from acpc_arena.protocol.game import resolve_game_path
    from tests.test_web_load import GAME, LOG_HANDS, write_log

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


def bench_cfr() -> Iterator[Row]:
    """Leduc CFR+ to 2.6e-4 against OpenSpiel's C++ solver; hold'em training; limit and no-limit decisions."""
    import pyspiel

    from acpc_arena.models.cfr.abstraction import ExactCards, all_deals
    from acpc_arena.models.cfr.solver import Solver
    from acpc_arena.models.cfr.tree import build_tree
    from acpc_arena.protocol.game import load_game

    target, step = 2.6e-4, 50
    game = pyspiel.load_game("leduc_poker")
    reference = pyspiel.CFRPlusSolver(game)
    theirs = spent = 0.0
    while True:
        start = time.perf_counter()
        for _ in range(step):
            reference.evaluate_and_update_policy()
        spent += time.perf_counter() - start
        theirs += step
        if pyspiel.exploitability(game, reference.average_policy()) <= target:
            break
    leduc = load_game("leduc")
    solver = Solver(build_tree(leduc), ExactCards(leduc), "cfr+", worlds=all_deals(leduc))
    ours = 0.0
    while True:
        start = time.perf_counter()
        solver.iterate(step)
        ours += time.perf_counter() - start
        if solver.exploitability() <= target:
            break
    yield ("OpenSpiel CFRPlusSolver (C++), leduc_poker to 2.6e-4", f"{spent:.2f} s", f"{int(theirs)} iterations")
    yield (
        "acpc-cfr CFR+, leduc.limit.2p to 2.6e-4",
        f"{ours:.2f} s",
        f"{solver.iterations} iterations; {ours / spent:.3f} of OpenSpiel's time",
    )
    yield _nolimit_decisions()
    for deals in (1, 32):
        seconds, peak = _holdem_training(500, deals)
        yield (
            f"hold'em improved 9 buckets, 500 iterations x {deals} deal{'s' if deals > 1 else ''}",
            f"{seconds:.1f} s",
            f"{500 / seconds:.1f} it/s, {500 * deals / seconds:,.0f} deals/s, peak memory {peak:.0f} MB",
        )
    seconds, peak = _holdem_training(50, 64, "make_abstraction(game, DEFAULT_HOLDEM_ABSTRACTION)")
    yield (
        "hold'em default E[HS^2] buckets, 50 iterations x 64 deals",
        f"{seconds:.1f} s",
        f"{50 / seconds:.1f} it/s, {50 * 64 / seconds:,.0f} deals/s, peak memory {peak:.0f} MB",
    )
    seconds, peak = _public_chance_training(5)
    yield (
        "hold'em public chance sampling (pcs-dcfr), ehs2-exact-200-150-100, 5 boards",
        f"{seconds / 5:.2f} s/iteration",
        f"{3 * 3600 * 5 / seconds:,.0f} iterations in 3 hours, peak memory {peak:.0f} MB",
    )
    from acpc_arena.agents.cfr import CFRAgent

    holdem = load_game("holdem.limit.2p.reverse_blinds")
    for checkpoint in ("cfr-ehs2", "cfr-ehs2-exact"):
        seconds, peak = _agent_load("cfr", {"checkpoint": checkpoint})
        times = _decision_times(CFRAgent(holdem, seed=1, checkpoint=checkpoint), holdem)
        yield (
            f"cfr agent, {checkpoint} checkpoint, one decision",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms "
            f"(goal 20 ms); loads in {seconds:.2f} s, peak memory {peak:.0f} MB",
        )


def _public_chance_training(iterations: int) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of public chance sampling iterations in a fresh process (the
    flop buckets made up: building the real table takes minutes; a lookup costs the same)."""

    script = f"""
import json, time, numpy as np
from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets
from acpc_arena.models.cfr.public_chance import PublicChanceSolver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.game import load_game
game = load_game("holdem.limit.2p.reverse_blinds")
edges = [np.linspace(0, 1, n + 1)[1:-1] for n in (200, 150, 100)]
flops = (np.arange(1755 * 1326) % 200).astype(np.uint8).reshape(1755, 1326)
solver = PublicChanceSolver(build_tree(game), ExactStrengthBuckets(game, (200, 150, 100), edges, flops))
solver.iterate(1)
start = time.perf_counter()
solver.iterate({iterations})
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def _nolimit_decisions() -> Row:
    """Decision latency of the shipped no-limit CFR agent against an opponent betting random sizes."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.game import load_game
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL, RAISE, Action
    from acpc_arena.protocol.wire import MatchState

    game = load_game("holdem.nolimit.2p.reverse_blinds")
    agent = CFRAgent(game, seed=1)
    cards, choices = MT19937(5), np.random.default_rng(5)
    latencies = []
    for hand_id in range(600):
        state = deal_hand(game, hand_id, cards)
        seat = hand_id % 2
        agent.begin_hand(MatchState(seat, state))
        while not state.finished:
            legal = state.legal_actions()
            if state.current_player == seat:
                start = time.perf_counter()
                action = agent.act(MatchState(seat, state))
                latencies.append(time.perf_counter() - start)
            elif legal.can_raise and choices.random() < 0.4:
                action = Action(RAISE, int(choices.integers(legal.min_raise_to, legal.max_raise_to + 1)))
            else:
                action = Action(CALL)
            state.apply(action)
    times = np.array(latencies[20:])
    return (
        "cfr agent, one no-limit decision (cfr-nl, CPU)",
        f"{1 / times.mean():,.0f} decisions/s",
        f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
    )


def _holdem_training(iterations: int, deals: int, abstraction: str = "NineBuckets(game)") -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of a training run in a fresh process."""

    script = f"""
import json, time, numpy as np
from acpc_arena.models.cfr.abstraction import NineBuckets, sample_deals
from acpc_arena.models.cfr.checkpoint import DEFAULT_HOLDEM_ABSTRACTION, make_abstraction
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.game import load_game
game = load_game("holdem.limit.2p.reverse_blinds")
rng = np.random.default_rng(0)
solver = Solver(build_tree(game), {abstraction}, "mccfr", sampler=lambda: sample_deals(game, {deals}, rng),
                dtype=np.float32)
start = time.perf_counter()
solver.iterate({iterations})
seconds = time.perf_counter() - start
# ru_maxrss would include the parent's peak (it survives fork and exec); VmHWM is this process's own
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def _timed_script(script: str) -> tuple[float, float]:
    """Run ``script`` in a fresh Python; it prints a JSON [seconds, peak memory in MB] as its last line."""
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seconds, peak = json.loads(done.stdout.strip().splitlines()[-1])
    return float(seconds), float(peak)


def _decision_times(agent: Agent, game: Game, hands: int = 400) -> np.ndarray:
    """Seconds of each of ``agent``'s decisions (after the first 20) in seat 0 against an always-call player."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL_ACTION
    from acpc_arena.protocol.wire import MatchState

    rng = MT19937(3)
    latencies = []
    for hand_id in range(hands):
        state = deal_hand(game, hand_id, rng)
        agent.begin_hand(MatchState(0, state))
        while not state.finished:
            view = MatchState(state.current_player, state)
            if state.current_player == 0:
                start = time.perf_counter()
                action = agent.act(view)
                latencies.append(time.perf_counter() - start)
            else:
                action = CALL_ACTION
            state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)
    return np.array(latencies[20:])


def _agent_load(name: str, options: dict[str, object]) -> tuple[float, float]:
    """Seconds to load agent ``name`` on limit hold'em and the peak resident memory (MB), in a fresh process."""

    script = f"""
import json, time
start = time.perf_counter()
from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.game import load_game
agent_class({name!r})(load_game("holdem.limit.2p.reverse_blinds"), seed=1, **{options!r})
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def bench_dqn() -> Iterator[Row]:
    """Decision latency of the Q-network agents (seed 000's, NFQ's; CPU, or GPU if any) and training throughput."""
    import torch

    from acpc_arena.agents.dqn import DQNAgent, LSTMDQNAgent
    from acpc_arena.models.training.dqn import Trainer, config_for
    from acpc_arena.protocol.game import load_game

    game = load_game("holdem.limit.2p.reverse_blinds")
    device = "GPU" if torch.cuda.is_available() else "CPU"
    for cls in (LSTMDQNAgent, DQNAgent):
        times = _decision_times(cls(game), game)
        yield (
            f"{cls.name} agent, one decision ({device})",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
        )
    from acpc_arena.agents.nfq import NFQAgent

    times = _decision_times(NFQAgent(game), game)
    yield (
        f"nfq agent, one decision ({device}, no search)",
        f"{1 / times.mean():,.0f} decisions/s",
        f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
    )
    for network in ("lstm_dqn", "dqn"):
        trainer = Trainer(config_for(network, "tuned", hands=3000, reward="chips"), show_progress=False)
        stats = trainer.run()
        yield (f"{network} training, tuned preset ({device})", f"{stats['hands_per_second']:,.0f} hands/s", "")


def bench_logs() -> Iterator[Row]:
    """Reading competition logs (every line checked by the engine) and exporting PHH, against a bare split."""
    import bz2
    import gzip
    import tempfile
    from pathlib import Path

    from acpc_arena.dealer.arena.phh import export_log
    from acpc_arena.protocol.acpc_log import AcpcLogReader
    from tests.test_acpc_logs import write_long_log

    lines = 20_000
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "m.log"
        write_long_log(plain, lines)
        data = plain.read_bytes()
        (Path(folder) / "m.log.gz").write_bytes(gzip.compress(data))
        (Path(folder) / "m.log.bz2").write_bytes(bz2.compress(data))

        def split_only() -> None:
            with open(plain, "rb") as file:
                for raw in file:
                    raw.decode("latin-1").split(":")

        t_split = _best_of(3, split_only) / lines
        yield ("bytes decoded and split at ':', no checks", f"{1 / t_split:,.0f} lines/s", "reference")

        def read_all(path: Path) -> int:
            return sum(1 for _ in AcpcLogReader(path))

        for name in ("m.log", "m.log.gz", "m.log.bz2"):
            t_read = _best_of(3, functools.partial(read_all, Path(folder) / name)) / lines
            yield (
                f"AcpcLogReader, no-limit 2p, {name}",
                f"{1 / t_read:,.0f} lines/s",
                f"{t_read / t_split:.0f}x the split",
            )
        head = Path(folder) / "head.log"
        head.write_text("".join(data.decode().splitlines(keepends=True)[:300]))
        t_phh = _best_of(1, lambda: export_log(head, Path(folder) / "phh")) / 300
        yield (
            "PHH export (pokerkit replays each hand)",
            f"{1 / t_phh:,.0f} hands/s",
            f"{t_phh / t_read:.0f}x reading a line",
        )
        yield _allin_valuation(Path(folder) / "cache")


def _allin_valuation(cache: Path) -> Row:
    """A hold'em hand all in before the flop, valued for the report: once the deal is in the pre-flop
    table (the next report, or the other seating of a duplicate pair) against enumerating its boards."""
    import os

    import acpc_arena.protocol.equity as equity
    from acpc_arena.protocol.evaluator import rank_hands_of_players
    from acpc_arena.protocol.game import load_game

    os.environ["ACPC_ARENA_CACHE"] = str(cache)
    game = load_game("holdem.nolimit.2p.reverse_blinds")
    deals = [random.Random(seed).sample(range(52), 4) for seed in range(5)]

    def enumerate_boards() -> None:
        for deal in deals:
            holes = [deal[:2], deal[2:]]
            unseen = np.array([c for c in game.deck if c not in deal], dtype=np.uint8)
            boards = unseen[equity.index_combinations(len(unseen), 5)]
            equity.expected_showdown_values(rank_hands_of_players(boards, holes), [20000, 20000], [False, False])

    equity.index_combinations(48, 5)  # built once per process, in neither figure
    t_plain = _best_of(1, enumerate_boards) / len(deals)
    t_first = _best_of(1, lambda: [equity.PreflopTable(game).equity(d[:2], d[2:]) for d in deals]) / len(deals)
    t_table = _best_of(3, lambda: [equity.PreflopTable(game).equity(d[:2], d[2:]) for d in deals]) / len(deals)
    return (
        "all-in pre-flop hand valued from the table (read from disk)",
        f"{t_table * 1e3:,.2f} ms/hand",
        f"{t_plain / t_table:,.0f}x faster than enumerating its boards ({t_plain:.2f} s); new deal {t_first:.2f} s",
    )


def bench_lbr() -> Iterator[Row]:
    """Local best response's cost per decision: all its work (range updates through the agent's
    ``policies``, equities, fold probabilities) and the agent's own play, over its decisions."""
    from functools import partial

    from acpc_arena.agents.registry import agent_class
    from acpc_arena.dealer.arena.lbr import evaluate
    from acpc_arena.protocol.game import load_game

    for name, game_name, hands in (
        ("call", "holdem.limit.2p.reverse_blinds", 30),
        ("cfr", "holdem.limit.2p.reverse_blinds", 30),
        ("cfr", "holdem.nolimit.2p.reverse_blinds", 10),
    ):
        game = load_game(game_name)
        cls = agent_class(name)
        result = evaluate(partial(cls, game, seed=1), game, [1], hands)
        cpu = result.cpu_seconds  # CPU time: the figure that matters on a shared machine
        kind = "no-limit" if game.no_limit else "limit"
        per_decision = 1000 / max(result.decisions, 1)
        yield (
            f"lbr vs {name}, {kind} hold'em: one LBR decision",
            f"{(cpu - result.agent_cpu_seconds) * per_decision:.1f} ms CPU",
            f"LBR's own work (target: under 50 ms in limit); with the agent's policies "
            f"{cpu * per_decision:.1f} ms CPU; {result.decisions} decisions in {2 * hands} hands",
        )


def bench_poker_cnn() -> Iterator[Row]:
    """Decision latency of the Poker-CNN agent (seed 004; target: p99 under 5 ms on CPU) and its training rate."""
    import torch

    from acpc_arena.agents.poker_cnn import PokerCNNAgent
    from acpc_arena.protocol.game import load_game

    device = "GPU" if torch.cuda.is_available() else "CPU"
    for game_name in ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds"):
        game = load_game(game_name)
        times = _decision_times(PokerCNNAgent(game), game)
        yield (
            f"poker_cnn agent, one decision, {game_name.split('.')[1]} ({device})",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
        )


_ENSEMBLE_PLAY = """
import json, time
import numpy as np
from acpc_arena.agents.ensemble import EnsembleAgent
from acpc_arena.agents.styles import RandomStyleAgent
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState
game = load_game("holdem.nolimit.2p.reverse_blinds")
agent, opponent = EnsembleAgent(game, seed=1, mode=MODE), RandomStyleAgent(game, seed=2)
times, cpu = [], []
for deal in deal_hands(game, 9, HANDS):
    seat = deal.hand_id % 2
    state = State(game, deal.hand_id, deal.hole_cards, deal.board_cards)
    while not state.finished:
        player = state.current_player
        if player == seat:
            start, start_cpu = time.perf_counter(), time.thread_time()
            action = agent.act(MatchState(player, state))
            times.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
        else:
            action = opponent.act(MatchState(player, state))
            action = state.validate_action(action, try_fixing=True) or action
        state.apply(action)
    agent.end_hand(MatchState(seat, state))
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
times, cpu = np.array(times[50:]), np.array(cpu[50:])
quantiles = [float(np.percentile(times, 50)), float(np.percentile(times, 99)), float(np.percentile(cpu, 99))]
print(json.dumps([*quantiles, len(times), peak / 1024]))
"""


def bench_ensemble() -> Iterator[Row]:
    """Seed 001's ensemble: decision latency and peak memory against o_random (seed's goal: p99 < 100 ms,
    < 0.5 GB resident), the batched population forward pass of the shipped and of table 2's network, and
    the evolution's in-process play rate."""
    import json
    import subprocess

    import torch

    from acpc_arena.agents.registry import agent_class
    from acpc_arena.models.ensemble.network import SHIPPED, TABLE_2, count_weights, forward, init_population
    from acpc_arena.models.ensemble.opponent_model import OpponentModel
    from acpc_arena.models.training.ensemble_play import duplicate_deals, play
    from acpc_arena.protocol.game import load_game

    device = "GPU" if torch.cuda.is_available() else "CPU"
    for mode in ("a_star", "a_base"):
        script = _ENSEMBLE_PLAY.replace("MODE", repr(mode)).replace("HANDS", "600")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        p50, p99, p99_cpu, count, peak = json.loads(done.stdout.strip().splitlines()[-1])
        verdict = "met" if p99 < 0.1 and peak < 512 else "NOT met"
        yield (
            f"ensemble --mode {mode}, one decision vs o_random ({device})",
            f"p99 {1000 * p99:.1f} ms",
            f"p50 {1000 * p50:.1f} ms, p99 of CPU time {1000 * p99_cpu:.1f} ms over {count} decisions, "
            f"peak resident {peak:.0f} MB: goal (wall p99 < 100 ms, < 512 MB) {verdict}",
        )
    torch.set_num_threads(1)
    for label, config, population in (("shipped", SHIPPED, 20), ("table 2", TABLE_2, 20)):
        params = init_population(config, population, torch.Generator().manual_seed(0))
        opponent, steps = torch.zeros(population, 64, 5, 4), torch.zeros(population, 64, 5, 6)
        seconds = _best_of(3, lambda: forward(params, config, opponent, steps))  # noqa: B023
        yield (
            f"ensemble {label} network ({count_weights(config):,} weights), 20 x 64 decisions, 1 thread",
            f"{20 * 64 / seconds:,.0f} decisions/s",
            f"{1000 * seconds:.1f} ms a batched pass",
        )
    nolimit = load_game("holdem.nolimit.2p.reverse_blinds")
    params = init_population(SHIPPED, 20, torch.Generator().manual_seed(0))
    for style in ("o1", "o6"):
        deals = duplicate_deals(nolimit, 3, 50)
        opponents = [agent_class(style)(nolimit, seed=1)]
        start = time.perf_counter()
        play(params, SHIPPED, opponents, [OpponentModel()], deals)
        seconds = time.perf_counter() - start
        yield (f"ensemble evolution play vs {style}, population 20", f"{20 * 100 / seconds:,.0f} hands/s", "")


def bench_startup() -> Iterator[Row]:
    """Start-up of the commands' help, median wall seconds of interleaved runs beside ``python -c pass``."""
    import statistics
    import subprocess

    bin_dir = Path(sys.executable).parent
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "acpc-dealer --help": [str(bin_dir / "acpc-dealer"), "--help"],
        "acpc-match --help": [str(bin_dir / "acpc-match"), "--help"],
        "acpc-agent random --help": [str(bin_dir / "acpc-agent"), "random", "--help"],
    }
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(11):  # alternating, so a busy moment slows each command alike
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
            seconds[name].append(time.perf_counter() - start)
    base = statistics.median(seconds["python -c pass"])
    for name, runs in seconds.items():
        median = statistics.median(runs)
        note = "the interpreter alone" if name == "python -c pass" else f"+{median - base:.3f} s over python -c pass"
        yield (f"start-up: {name}", f"{median:.3f} s", f"median of {len(runs)}; {note}")


SECTIONS: dict[str, Callable[[], Iterator[Row]]] = {
    "evaluator": bench_evaluator,
    "engine": bench_engine,
    "dealer": bench_dealer,
    "runner": bench_runner,
    "inprocess": bench_inprocess,
    "batched": bench_batched,
    "tournament": bench_tournament,
    "cfr": bench_cfr,
    "dqn": bench_dqn,
    "logs": bench_logs,
    "lbr": bench_lbr,
    "poker_cnn": bench_poker_cnn,
    "ensemble": bench_ensemble,
    "web": bench_web,
    "startup": bench_startup,
}


def main(argv: list[str]) -> None:
    chosen = argv or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        sys.exit(f"bench: no section {', '.join(unknown)}; the sections: {' '.join(SECTIONS)}")
    rows: list[Row] = []
    for name in chosen:
        for row in SECTIONS[name]():
            rows.append(row)
            print("  ".join(row), file=sys.stderr, flush=True)
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    print()
    print(f"{'measure':<{widths[0]}}  {'figure':>{widths[1]}}  note")
    print(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}")
    for a, b, c in rows:
        print(f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c}")


if __name__ == "__main__":
    main(sys.argv[1:])
