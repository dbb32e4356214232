"""Tables 3 and 4 of seed 001, redone in duplicate: ``python -m acpc_arena.models.training.ensemble_tables``.

Each cell is one duplicate run of the ``ensemble`` agent (row: ``--mode``)
against an opponent (column), through ``acpc-match`` (the real dealer and agent
processes; the default) or, with ``--in-process``, played through the engine in
this process with the same deals (``deal_hands``: the dealer's cards for the
seed), each deal once in each seating, positions rotating every hand as the
dealer rotates them. A cell is mbb/h of the row agent with the 95% half-width
of the duplicate estimate (the mean of each deal's two results). Results are
appended to ``OUT/cells.jsonl`` as they come (a rerun skips the cells already
there) and printed as markdown tables at the end.

    python -m acpc_arena.models.training.ensemble_tables --rows a_star,a_base --seeds 1,234,6666 --hands 2000
    python -m acpc_arena.models.training.ensemble_tables --in-process --workers 2     # both tables, two cells at a time
    python -m acpc_arena.models.training.ensemble_tables --rows a_star --columns random,call,raise,rule,cfr
    python -m acpc_arena.models.training.ensemble_tables --agent-args '--checkpoint runs/train/ensemble-networks.pt'
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.ensemble import EnsembleAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.arena.fanout import fan_out
from acpc_arena.models.ensemble.checkpoint import STYLE_NAMES
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, State
from acpc_arena.protocol.wire import MatchState

GAME = "holdem.nolimit.2p.reverse_blinds"
ROWS = ("a_tar", "a_base", "a_ave", "a_int", "a_star", "clone")
COLUMNS = (*STYLE_NAMES, "o_random")
ROW_NAMES = {"a_tar": "A_tar", "a_base": "A_base", "a_ave": "A_ave", "a_int": "A_int", "a_star": "A*", "clone": "clone"}


def agent_args(row: str, column: str) -> str | None:
    """The ensemble's options for a cell; None where the cell does not exist (A_tar has no O_random counter)."""
    if row == "a_tar":
        return f"--mode a_tar --style {column}" if column in STYLE_NAMES else None
    return f"--mode {row}"


def through_dealer(args: str, column: str, seeds: list[int], hands: int, out: Path) -> dict[str, Any]:
    command = [
        str(Path(sys.executable).parent / "acpc-match"),
        "--a", "ensemble", "--a-args", args, "--b", column,
        "--seeds", ",".join(map(str, seeds)), "--hands", str(hands), "--game", GAME,
        "--concurrency", "2", "--quiet", "--no-plots", "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"acpc-match failed: {done.stderr.strip()[-500:]}")
    report = json.loads((out / "report.json").read_text())
    duplicate = report["duplicate"]
    return {
        "mbb": duplicate["mbb_per_hand"],
        "ci95": duplicate["ci95"],
        "pairs": duplicate["samples"],
        "hands_per_second": report["hands_per_second"],
    }


def in_process(args: str, column: str, seeds: list[int], hands: int) -> dict[str, Any]:
    game = load_game(GAME)
    words = args.split()
    options = {words[i].lstrip("-").replace("-", "_"): words[i + 1] for i in range(0, len(words), 2)}
    pairs = []
    started = time.perf_counter()
    for seed in seeds:
        deals = deal_hands(game, seed, hands)
        results = np.zeros((2, hands))
        for ensemble_seat in (0, 1):
            seats: list[Any] = [
                EnsembleAgent(game, seed * 100 + 1, **options),
                agent_class(column)(game, seed * 100 + 2),
            ]
            if ensemble_seat == 1:
                seats.reverse()
            for deal in deals:
                hand = deal.hand_id
                state = State(game, hand, deal.hole_cards, deal.board_cards)
                while not state.finished:
                    player = state.current_player
                    action = seats[(player + hand) % 2].act(MatchState(player, state))
                    state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)
                for position in (0, 1):
                    seats[(position + hand) % 2].end_hand(MatchState(position, state))
                results[ensemble_seat, hand] = state.value((ensemble_seat + hand) % 2)
        pairs.extend(results.mean(axis=0))
    values = np.array(pairs) / game.big_blind * 1000
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values))
    mbb = float(values.mean())
    seconds = time.perf_counter() - started
    return {
        "mbb": mbb,
        "ci95": [mbb - half, mbb + half],
        "pairs": len(values),
        "hands_per_second": 2 * len(values) / seconds,
    }


@dataclass(frozen=True)
class Cell:
    """One cell of the tables to play: the row's ensemble options against the column's agent."""

    row: str
    column: str
    options: str
    seeds: list[int]
    hands: int
    in_process: bool
    out: Path


def play_cell(cell: Cell) -> dict[str, Any]:
    """The cell's result (in a worker process of ``fan_out``)."""
    if cell.in_process:
        return in_process(cell.options, cell.column, cell.seeds, cell.hands)
    return through_dealer(cell.options, cell.column, cell.seeds, cell.hands, cell.out)


def cell_text(result: dict[str, Any] | None) -> str:
    if result is None:
        return "-"
    low, high = result["ci95"]
    return f"{result['mbb']:+.0f} ± {(high - low) / 2:.0f}"


def markdown(cells: dict[tuple[str, str], dict[str, Any]], rows: list[str], columns: list[str]) -> str:
    lines = ["| agent | " + " | ".join(c.upper() if c in STYLE_NAMES else f"`{c}`" for c in columns) + " |"]
    lines.append("| --- |" + " --- |" * len(columns))
    for row in rows:
        lines.append(f"| {ROW_NAMES[row]} | " + " | ".join(cell_text(cells.get((row, c))) for c in columns) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m acpc_arena.models.training.ensemble_tables", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--rows", default=",".join(ROWS), help=f"ensemble modes ({','.join(ROWS)})")
    parser.add_argument("--columns", default=",".join(COLUMNS), help="opponents (any shipped agent)")
    parser.add_argument("--seeds", default="1,234,6666", help="deal seeds")
    parser.add_argument("--hands", type=int, default=2000, help="hands per seat and seed")
    parser.add_argument("--in-process", action="store_true", help="play through the engine here, not the dealer")
    parser.add_argument("--out", type=Path, default=Path("matches/ensemble-tables"), help="results folder")
    parser.add_argument("--workers", type=int, default=1, help="cells played at once, in worker processes")
    parser.add_argument(
        "--agent-args", default="", help="more ensemble options for every cell, e.g. '--checkpoint F --library F'"
    )
    args = parser.parse_args(argv)
    rows, columns = args.rows.split(","), args.columns.split(",")
    if unknown := [r for r in rows if r not in ROWS]:
        parser.error(f"unknown rows {unknown}: choose from {', '.join(ROWS)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "cells.jsonl"
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            cells[(entry["row"], entry["column"])] = entry
    jobs: list[Cell] = []
    for row in rows:
        for column in columns:
            options = agent_args(row, column)
            if options is None or (row, column) in cells:
                continue
            options = f"{options} {args.agent_args}".strip()
            jobs.append(Cell(row, column, options, seeds, args.hands, args.in_process, args.out / f"{row}-{column}"))
    for index, result in fan_out(play_cell, jobs, args.workers):
        cell = jobs[index]
        entry = {"row": cell.row, "column": cell.column, "seeds": seeds, "hands": args.hands}
        cells[(cell.row, cell.column)] = entry | {"in_process": args.in_process} | result
        with log.open("a") as f:
            f.write(json.dumps(cells[(cell.row, cell.column)]) + "\n")
        print(f"{ROW_NAMES[cell.row]} vs {cell.column}: {cell_text(result)} mbb/h", flush=True)
    print(markdown(cells, rows, columns))


if __name__ == "__main__":
    main()
