"""What a report reads and computes: competition logs, PHH export, all-in valuation, local best response."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from acpc_arena.protocol.completions import index_combinations
from benchmarks.timing import Row, best_of


def bench_logs() -> Iterator[Row]:
    """Reading competition logs (every line checked by the engine) and exporting PHH, against a bare split."""
    import bz2
    import gzip
    import tempfile
    from pathlib import Path

    from acpc_arena.dealer.arena.phh import export_log
    from acpc_arena.protocol.acpc_log import AcpcLogReader
    from tests.helpers.logs import write_long_log

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

        t_split = best_of(3, split_only) / lines
        yield ("bytes decoded and split at ':', no checks", f"{1 / t_split:,.0f} lines/s", "reference")

        def read_all(path: Path) -> int:
            return sum(1 for _ in AcpcLogReader(path))

        for name in ("m.log", "m.log.gz", "m.log.bz2"):
            t_read = best_of(3, functools.partial(read_all, Path(folder) / name)) / lines
            yield (
                f"AcpcLogReader, no-limit 2p, {name}",
                f"{1 / t_read:,.0f} lines/s",
                f"{t_read / t_split:.0f}x the split",
            )
        head = Path(folder) / "head.log"
        head.write_text("".join(data.decode().splitlines(keepends=True)[:300]))
        t_phh = best_of(1, lambda: export_log(head, Path(folder) / "phh")) / 300
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
            boards = unseen[index_combinations(len(unseen), 5)]
            equity.expected_showdown_values(rank_hands_of_players(boards, holes), [20000, 20000], [False, False])

    index_combinations(48, 5)  # built once per process, in neither figure
    t_plain = best_of(1, enumerate_boards) / len(deals)
    t_first = best_of(1, lambda: [equity.PreflopTable(game).equity(d[:2], d[2:]) for d in deals]) / len(deals)
    t_table = best_of(3, lambda: [equity.PreflopTable(game).equity(d[:2], d[2:]) for d in deals]) / len(deals)
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
    from acpc_arena.dealer.lbr.evaluation import evaluate
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
