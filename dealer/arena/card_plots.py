"""A report card's plots: the bot's win rate against each reference with its 95% interval
(``card-winrates.png``), and its cumulative AIVAT-corrected winnings against each (``card-aivat.png``;
the logged winnings where AIVAT is unavailable, dashed). Imported only to draw (matplotlib)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from acpc_arena.dealer.arena.plots import save_png  # its import sets the backend (Agg) and the settings
from acpc_arena.dealer.arena.report_card import PLOTS, ReportCard


def plot_card(card: ReportCard, out_dir: Path) -> list[Path]:
    """Draw the card's two plots in ``out_dir``; returns their paths (an ``OSError`` names the file)."""
    return [_winrates(card, out_dir / PLOTS[0]), _cumulative(card, out_dir / PLOTS[1])]


def _winrates(card: ReportCard, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(card.pairs) + 1.6))
    names = [pair.reference for pair in card.pairs]
    means = [pair.main["mbb_per_hand"] for pair in card.pairs]
    lows = [mean - pair.main["ci95"][0] for mean, pair in zip(means, card.pairs, strict=True)]
    highs = [pair.main["ci95"][1] - mean for mean, pair in zip(means, card.pairs, strict=True)]
    colours = [
        "#2a7a3a" if pair.main["ci95"][0] > 0 else "#b03030" if pair.main["ci95"][1] < 0 else "#777777"
        for pair in card.pairs
    ]
    rows = list(range(len(names)))
    ax.errorbar(means, rows, xerr=[lows, highs], fmt="none", ecolor="#444444", capsize=3)
    ax.scatter(means, rows, c=colours, zorder=3)
    ax.axvline(0, color="#999999", linewidth=1)
    ax.set_yticks(rows, names)
    ax.invert_yaxis()
    ax.set_xlabel("mbb/hand, 95% interval (AIVAT where known, else duplicate)")
    ax.set_title(f"{card.bot} against the references ({card.game})")
    fig.tight_layout()
    return save_png(fig, path)


def _cumulative(card: ReportCard, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for pair in card.pairs:
        curve = pair.figures.get("aivat_curve")
        style = "-"
        if not curve:
            curve, style = pair.figures.get("results_curve") or [], "--"
        if curve:
            ax.plot([h for h, _ in curve], [v / card.big_blind for _, v in curve], style, label=pair.reference)
    ax.axhline(0, color="#999999", linewidth=1)
    ax.set_xlabel("hands (both seatings, seed after seed)")
    ax.set_ylabel("big blinds")
    ax.set_title(f"{card.bot}: cumulative AIVAT-corrected winnings (dashed: as logged)")
    if card.pairs:
        ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    return save_png(fig, path)
