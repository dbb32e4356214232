"""Poker-CNN's evaluation as seed 004 did it: duplicate matches through the dealer against each opponent.

    python -m acpc_arena.models.training.poker_cnn_evaluate [--hands 2000] [--seeds 1,234,6666] [--out DIR]

Runs ``acpc-match --a poker_cnn --b OPPONENT`` for every opponent (the ACPC
example player ``random``, ``call``, ``raise``, ``rule``, ``dqn``, ``lstm_dqn``
and the teacher, ``cfr --checkpoint cfr-ehs2 --argmax``) and prints a Markdown
table of Poker-CNN's duplicate mbb/h with 95% intervals. A run whose
``report.json`` exists is read, not played again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

OPPONENTS = ("random", "call", "raise", "rule", "dqn", "lstm_dqn", "cfr:--checkpoint cfr-ehs2 --argmax")


def run(opponent: str, seeds: str, hands: int, out: Path, agent_args: str) -> dict[str, Any]:
    """``poker_cnn`` against ``opponent`` (``agent`` or ``agent:options``); the run's report."""
    agent, _, options = opponent.partition(":")
    folder = out / agent
    if not (folder / "report.json").exists():
        program = str(Path(sys.executable).parent / "acpc-match")
        command = [program, "--a", "poker_cnn", "--a-args", agent_args, "--b", agent, "--b-args", options]
        command += ["--seeds", seeds, "--hands", str(hands), "--out", str(folder), "--quiet"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"acpc-match against {opponent} failed (exit {done.returncode}): {done.stderr[-300:]}")
    report: dict[str, Any] = json.loads((folder / "report.json").read_text())
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m acpc_arena.models.training.poker_cnn_evaluate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--hands", type=int, default=2000, help="hands per match (per seat and seed)")
    parser.add_argument("--seeds", default="1,234,6666", help="deal seeds")
    parser.add_argument("--opponents", default=",".join(OPPONENTS), help="comma-separated agent[:options]")
    parser.add_argument("--agent-args", default="", help="poker_cnn's options, e.g. '--checkpoint FILE.pt'")
    parser.add_argument("--out", type=Path, default=Path("runs/poker_cnn-eval"), help="folder of the runs")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    rows = []
    try:
        for opponent in (o for o in args.opponents.split(",") if o):
            report = run(opponent, args.seeds, args.hands, args.out, args.agent_args)
            low, high = report["ci95"]
            mbb = report["mbb_per_hand"]
            rows.append(f"| {opponent.replace(':', ' ')} | {mbb:+.0f} [{low:+.0f}, {high:+.0f}] |")
            print(rows[-1], flush=True)
    except (RuntimeError, OSError, ValueError, KeyError) as exc:
        sys.exit(f"error: {exc}")
    print(f"\n| poker_cnn against | duplicate mbb/h [95% CI], seeds {args.seeds}, {args.hands} hands a seat |")
    print("| --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
