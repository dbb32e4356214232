"""Training curves as PNG images: CFR's exploitability (``acpc-cfr curve``) and the ensemble's fitness
(``acpc-train ensemble``'s ``ensemble-fitness.png``). Needs matplotlib (the ``[plots]`` extra).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from acpc_arena.models.checkpoints import read_sidecar
from acpc_arena.protocol.game import parse_game


def plot_cfr_curve(checkpoint: Path, out: Path) -> Path:
    """The exploitability history in a checkpoint's description, against iterations, as a PNG."""
    meta = read_sidecar(Path(checkpoint).with_suffix(".npz"))
    sampled = meta.get("sampled_exploitability_history") or []
    exact = meta.get("exploitability_history") or []
    if not sampled and not exact:
        raise ValueError(f"{checkpoint}: no exploitability was recorded during training (train with --every K)")
    game = parse_game(meta["game"], "checkpoint game")
    big_blind = max(game.blind) or 1
    figure, axes = plt.subplots(figsize=(7, 4))
    if sampled:
        iterations = [row[0] for row in sampled]
        for column, label in ((1, "best response on its own deals (overstates)"), (2, "same response on other deals")):
            axes.plot(iterations, [1000 * row[column] / big_blind for row in sampled], marker="o", label=label)
        deals = meta.get("sampled_exploitability_deals", "?")
        axes.set_title(f"abstract-game exploitability ({deals} + {deals} deals)")
        axes.legend()
    else:
        axes.plot([row[0] for row in exact], [1000 * row[1] / big_blind for row in exact], marker="o")
        axes.set_yscale("log")
        axes.set_title(f"{meta.get('game_name', '')}: exploitability")
    axes.set_xlabel("iterations")
    axes.set_ylabel("mbb/hand")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


def plot_fitness_curves(curves: dict[str, list[dict[str, float]]], networks: tuple[str, ...], path: Path) -> None:
    """Seed 001's evolution: the best and mean fitness of each of the nine ``networks``' generations, a panel each,
    as a PNG."""
    figure, axes = plt.subplots(3, 3, figsize=(12, 9), sharex=True)
    for ax, name in zip(axes.flat, networks, strict=True):
        points = curves.get(name, [])
        ax.plot([p["generation"] for p in points], [p["best"] for p in points], label="best")
        ax.plot([p["generation"] for p in points], [p["mean"] for p in points], label="mean")
        ax.set_title(f"A_tar {name.upper()}" if name != "base" else "A_base (curriculum)")
        ax.grid(alpha=0.3)
    axes.flat[0].legend()
    for ax in axes[-1]:
        ax.set_xlabel("generation")
    for ax in axes[:, 0]:
        ax.set_ylabel("fitness f(i)")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
