"""PNG plots of a run: A's cumulative winnings, per seed and for the whole run."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from acpc_arena.dealer.arena.report import Report


def plot_run(report: Report, out_dir: Path) -> list[Path]:
    """One PNG per seed (each seating and the duplicate mean) and one overview; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    big = report.game.big_blind
    paths = []
    by_seed: dict[int, dict[int, np.ndarray]] = {}
    for figure in report.matches:
        by_seed.setdefault(figure.match.seed, {})[figure.a_seat] = figure.match.values_of(report.a) / big
    overview, ax_all = plt.subplots(figsize=(8, 4.5), dpi=110)
    for seed in sorted(by_seed):
        seats = by_seed[seed]
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
        for seat in sorted(seats):
            ax.plot(np.cumsum(seats[seat]), label=f"{report.a} in seat {seat + 1}", linewidth=1)
        if len(seats) == 2:
            n = min(len(seats[0]), len(seats[1]))
            duplicate = np.cumsum((seats[0][:n] + seats[1][:n]) / 2)
            ax.plot(duplicate, label="duplicate (mean of both seatings)", color="black", linewidth=1.8)
            ax_all.plot(duplicate, label=f"seed {seed}", linewidth=1.2)
        ax.axhline(0, color="grey", linewidth=0.6)
        ax.set_title(f"{report.a} vs {report.b}, seed {seed}: {report.a}'s cumulative winnings")
        ax.set_xlabel("hand")
        ax.set_ylabel("big blinds won")
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        path = out_dir / f"cumulative-seed-{seed}.png"
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    main = report.duplicate if report.duplicate_pairs else report.per_hand
    ax_all.axhline(0, color="grey", linewidth=0.6)
    ax_all.set_title(
        f"{report.a} vs {report.b} ({report.game_file}): "
        f"{main.mbb_per_hand:+.0f} mbb/h [{main.ci95[0]:+.0f}, {main.ci95[1]:+.0f}]"
    )
    ax_all.set_xlabel("hand")
    ax_all.set_ylabel(f"big blinds won by {report.a} (duplicate)")
    if by_seed:
        ax_all.legend(loc="best", fontsize=8)
    overview.tight_layout()
    path = out_dir / "cumulative.png"
    overview.savefig(path)
    plt.close(overview)
    paths.append(path)
    return paths
