"""The limit hold'em ``cfr`` agent with and without its turn table (``models/cfr/turn_table.py``): the table's
build and load, the agent's decisions by round, and local best response against it."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from benchmarks.timing import Row

if TYPE_CHECKING:
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets
    from acpc_arena.models.cfr.turn_table import TurnTableFile

ROUNDS = ("pre-flop", "flop", "turn", "river")
SAMPLE_BOARDS = 160
"""Boards whose rows are built to time the build (the whole table: minutes)."""
BLOCKS, BLOCK_HANDS = 6, 60
"""Decision timing: blocks of hands, each played with the table and without it in turn (the same deals)."""
LBR_DEALS, LBR_REPEATS = 40, 2
"""Local best response: deals (each in both positions) of each run, runs with and without the table in turn."""


def bench_cfr_table() -> Iterator[Row]:
    """The turn table's build (a sample of boards, scaled; the whole table if it is not built yet), its load,
    the decisions' median by round (goal: at most 0.2 ms overall), and LBR's time on 1,000 limit deals scaled
    from ``LBR_DEALS`` (goal: at most 120 s on 2 cores)."""
    from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets
    from acpc_arena.models.cfr.checkpoint import load_policy
    from acpc_arena.models.checkpoints import checkpoint_path

    abstraction = load_policy(checkpoint_path("cfr-ehs2-exact")).abstraction
    assert isinstance(abstraction, ExactStrengthBuckets) and abstraction.turn_table_file is not None
    table_file = abstraction.turn_table_file
    yield from _build_rows(abstraction, table_file)
    try:
        yield from _decision_rows(abstraction, table_file)
        yield from _lbr_rows(abstraction, table_file)
    finally:
        abstraction.turn_table_file = table_file


def _build_rows(abstraction: ExactStrengthBuckets, table_file: TurnTableFile) -> Iterator[Row]:
    """The build of ``SAMPLE_BOARDS`` boards' rows on one core, scaled to the table on every core; the whole
    table built where it is missing; its size and the time to load it."""
    import tempfile
    from pathlib import Path

    from acpc_arena.models.cfr.turn_table import build_table, canonical_turns, load_table
    from acpc_arena.models.training.cfr_cli import turn_table

    edges = abstraction.edges[1]
    boards = canonical_turns()[:: len(canonical_turns()) // SAMPLE_BOARDS][:SAMPLE_BOARDS]
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        build_table(edges, Path(folder) / "sample.npy", boards=boards)
        per_board = (time.perf_counter() - start) / len(boards)
    cores = os.cpu_count() or 1
    yield (
        "cfr turn table: build, scaled from a sample",
        f"{per_board * len(canonical_turns()) / cores:.0f} s",
        f"{1000 * per_board:.1f} ms a board on one core ({len(boards)} boards), x {len(canonical_turns()):,} "
        f"boards / {cores} cores",
    )
    if not table_file.path.exists():
        start = time.perf_counter()
        turn_table("cfr-ehs2-exact", 0)
        yield ("cfr turn table: build (acpc-cfr turn-table)", f"{time.perf_counter() - start:.0f} s", f"{cores} cores")
    start = time.perf_counter()
    load_table(table_file.path)
    yield (
        "cfr turn table: size, and its load (mapped, digest checked)",
        f"{table_file.path.stat().st_size / 2**20:.1f} MiB",
        f"loads in {1000 * (time.perf_counter() - start):.0f} ms",
    )


def _decision_rows(abstraction: ExactStrengthBuckets, table_file: TurnTableFile) -> Iterator[Row]:
    """The agent's decisions in seat 0 against an always-call player, by round: median with the table and
    without it, blocks of the same deals alternating (a busy moment slows both alike)."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.models.cfr import hand_strength
    from acpc_arena.protocol.game import load_game

    game = load_game("holdem.limit.2p.reverse_blinds")
    agents = {True: CFRAgent(game, seed=1), False: CFRAgent(game, seed=1)}
    times: dict[bool, list[list[float]]] = {True: [[] for _ in ROUNDS], False: [[] for _ in ROUNDS]}
    for block in range(BLOCKS):
        for with_table in (True, False):
            abstraction.turn_table_file = table_file if with_table else None
            hand_strength.TURN_BOARDS.clear()  # no board kept from the other's turn
            for round_, seconds in _timed_decisions(agents[with_table], block * BLOCK_HANDS, BLOCK_HANDS):
                if block:  # the first block warms up
                    times[with_table][round_].append(seconds)
    for round_, name in enumerate(ROUNDS):
        table, exact = statistics.median(times[True][round_]), statistics.median(times[False][round_])
        yield (
            f"cfr decision, {name}: median with the turn table",
            f"{1000 * table:.3f} ms",
            f"without: {1000 * exact:.3f} ms ({exact / table:.1f}x); {len(times[True][round_])} decisions",
        )
    table = statistics.median([t for row in times[True] for t in row])
    exact = statistics.median([t for row in times[False] for t in row])
    yield (
        "cfr decision, every round: median with the turn table",
        f"{1000 * table:.3f} ms",
        f"goal: at most 0.2 ms; without: {1000 * exact:.3f} ms",
    )


def _timed_decisions(agent: CFRAgent, first: int, hands: int) -> Iterator[tuple[int, float]]:
    """(round, seconds) of each of ``agent``'s decisions in seat 0 on hands ``first``... of seed 3's deals."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL_ACTION
    from acpc_arena.protocol.wire import MatchState

    rng = MT19937(3)
    for hand_id in range(first + hands):
        state = deal_hand(agent.game, hand_id, rng)
        if hand_id < first:
            continue
        agent.begin_hand(MatchState(0, state))
        while not state.finished:
            action = CALL_ACTION
            if state.current_player == 0:
                round_, start = state.round, time.perf_counter()
                action = agent.act(MatchState(0, state))
                yield round_, time.perf_counter() - start
            state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)


def _lbr_rows(abstraction: ExactStrengthBuckets, table_file: TurnTableFile) -> Iterator[Row]:
    """LBR against ``cfr`` on ``LBR_DEALS`` limit deals (seed 1), with and without the table in turn, scaled
    to 1,000 deals: wall and CPU seconds (medians), and the agent's part of the CPU."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.dealer.lbr.evaluation import evaluate
    from acpc_arena.models.cfr import hand_strength
    from acpc_arena.protocol.game import load_game

    game = load_game("holdem.limit.2p.reverse_blinds")
    runs: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for _ in range(LBR_REPEATS):
        for with_table in (True, False):
            abstraction.turn_table_file = table_file if with_table else None
            hand_strength.TURN_BOARDS.clear()
            result = evaluate(partial(CFRAgent, game, seed=1), game, [1], LBR_DEALS)
            runs[with_table].append((result.seconds, result.cpu_seconds, result.agent_cpu_seconds))
    scale = 1000 / LBR_DEALS
    for with_table in (True, False):
        wall, cpu, agent = (statistics.median(run[i] for run in runs[with_table]) for i in range(3))
        yield (
            f"lbr vs cfr, 1,000 limit deals {'with' if with_table else 'without'} the turn table",
            f"{scale * cpu:.0f} s CPU",
            f"{scale * wall:.0f} s wall, the agent {scale * agent:.0f} s CPU; scaled from {LBR_DEALS} deals "
            f"x 2 positions, median of {LBR_REPEATS}" + (" (goal: at most 120 s on 2 cores)" if with_table else ""),
        )
