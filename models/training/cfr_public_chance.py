"""Training runs of the public chance sampling solver: resumable, saved as ordinary CFR checkpoints.

A run keeps its whole state (regrets, strategy sums, iterations done, the random
generator) in ``<out>.state.npz`` every ``save_every`` iterations, written whole
or not at all; started again with the same output it goes on from there, so a
run killed at any point loses at most ``save_every`` iterations and ends with the
same strategy as one never stopped. The checkpoint (``<out>.npz`` and its
sidecar) holds the average strategy, the bucket edges and the flop bucket table.
"""

from __future__ import annotations

import io
import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Protocol

import numpy as np
from tqdm import tqdm

from acpc_arena.models.cfr.checkpoint import save_policy
from acpc_arena.models.cfr.public_chance import BoardKeys, PublicChanceSolver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.models.checkpoints import CheckpointError
from acpc_arena.protocol.commands import Interrupted, deferred_interrupts
from acpc_arena.protocol.files import write_atomic
from acpc_arena.protocol.game import load_game, resolve_game_path

GAME = "holdem.limit.2p.reverse_blinds"


class NamedBoardKeys(BoardKeys, Protocol):
    name: str


def state_path(out: Path) -> Path:
    return Path(out).with_suffix(".state.npz")


def save_state(path: Path, solver: PublicChanceSolver, settings: dict[str, object], seconds: float) -> None:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        regrets=solver.regrets,
        strategy_sum=solver.strategy_sum,
        iterations=np.array(solver.iterations),
        rng=np.array(json.dumps(solver.rng.bit_generator.state)),
        seconds=np.array(seconds),
        settings=np.array(json.dumps(settings, sort_keys=True)),
    )
    write_atomic(path, buffer.getvalue())


def load_state(path: Path, solver: PublicChanceSolver, settings: dict[str, object]) -> float:
    """Put the saved run at ``path`` into ``solver`` and return the seconds it had run; ``CheckpointError``
    if it is damaged or was made with other settings."""
    try:
        with np.load(path, allow_pickle=False) as data:
            saved = json.loads(str(data["settings"]))
            if saved != json.loads(json.dumps(settings, sort_keys=True)):
                raise CheckpointError(f"{path}: a run with other settings ({saved}); remove it or change --out")
            regrets, strategy_sum = data["regrets"], data["strategy_sum"]
            if regrets.shape != solver.regrets.shape or strategy_sum.shape != solver.strategy_sum.shape:
                raise CheckpointError(f"{path}: tables of shape {regrets.shape} do not fit this abstraction")
            solver.regrets[...] = regrets
            solver.strategy_sum[...] = strategy_sum
            solver.iterations = int(data["iterations"])
            solver.rng.bit_generator.state = json.loads(str(data["rng"]))
            return float(data["seconds"])
    except CheckpointError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{path}: damaged training state ({exc})") from None


def train_public_chance(
    out: Path,
    abstraction: NamedBoardKeys,
    iterations: int,
    algorithm: str = "pcs-dcfr",
    seed: int = 1,
    save_every: int = 100,
    show_progress: bool = True,
) -> tuple[Path, PublicChanceSolver]:
    """Run (or resume) public chance sampling to ``iterations`` and save the checkpoint ``out``.

    Ctrl-C or SIGTERM saves the state and the average strategy reached and raises ``Interrupted``.
    """
    game = load_game(GAME)
    solver = PublicChanceSolver(build_tree(game), abstraction, algorithm, seed)
    settings: dict[str, object] = {"abstraction": abstraction.name, "algorithm": algorithm, "seed": seed}
    state = state_path(out)
    seconds = load_state(state, solver, settings) if state.exists() else 0.0
    started = time.perf_counter()

    def save() -> Path:
        spent = seconds + time.perf_counter() - started
        save_state(state, solver, settings, spent)
        extra = {
            "game_name": GAME,
            "seed": seed,
            "sampling": "public chance: one board an iteration, every hand of both players",
            "seconds": round(spent, 1),
        }
        return save_policy(out, solver, resolve_game_path(GAME).read_text(), abstraction.name, extra)

    with (
        deferred_interrupts() as interrupted,
        tqdm(
            total=iterations,
            initial=solver.iterations,
            unit="it",
            disable=not show_progress,
            file=sys.stderr,
            mininterval=1.0,
        ) as bar,
    ):
        while solver.iterations < iterations:
            solver.iterate(1)
            bar.update(1)
            if interrupted():
                path = save()
                raise Interrupted(f"{solver.iterations} iterations saved in {path} (run again to go on)")
            if save_every and solver.iterations % save_every == 0 and solver.iterations < iterations:
                save()
    return save(), solver
