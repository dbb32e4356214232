"""PNG plots of a run (the cumulative winnings, per seed and for the whole run) and of a
tournament (the crosstable as a heatmap).

Two players: A's winnings in each seating, and the duplicate line (the mean of
both seatings) inside its 95% band; where the all-in adjustment changes anything,
the adjusted duplicate line is drawn dashed beside it. Three or more players: each
player's duplicate line (the mean over the seed's rotations) inside its band.

The band after k hands is the cumulative sum ± 1.96 × s × √k, s the standard
deviation of the first k duplicate samples: the 95% interval of the mean per hand
so far, times k. A line of more than ``PLOTTED_POINTS`` hands is drawn through every
j-th hand and the last (``plotted``): a PNG's width holds about a thousand.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from acpc_arena.dealer.arena.estimates import Z95, excludes_zero, signed
from acpc_arena.dealer.arena.reports import MultiReport, Report
from acpc_arena.dealer.arena.tournament import Cell, Crosstable
from acpc_arena.dealer.server.logfiles import unicode_text
from acpc_arena.protocol.files import write_atomic

matplotlib.rcParams["text.parse_math"] = False  # a '$' in a player's name is no formula

RGBA = tuple[float, float, float, float]

PLOTTED_POINTS = 5000
"""The most hands a line is drawn through (``plotted``)."""


def plotted(hands: int) -> np.ndarray:
    """The hands (indices) a line over ``hands`` hands is drawn through: every one up to ``PLOTTED_POINTS``,
    else every j-th, j the smallest step that keeps within it, and the last."""
    step = max(1, math.ceil(hands / PLOTTED_POINTS))
    shown = np.arange(0, hands, step)
    return shown if not hands or shown[-1] == hands - 1 else np.append(shown, hands - 1)


def cumulative_band(samples: np.ndarray, at: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cumulative sum of ``samples`` and its 95% band (low, high) after each sample (after the samples
    of indices ``at``, if given)."""
    total = np.cumsum(samples)
    second = np.cumsum(samples * samples)
    if at is not None:
        total, second = total[at], second[at]
    k = (np.arange(len(samples)) if at is None else at) + 1.0
    mean = total / k
    variance = np.maximum(second / k - mean * mean, 0.0) * k / np.maximum(k - 1, 1)  # sample variance
    half = Z95 * np.sqrt(variance) * np.sqrt(k)
    half[k == 1] = 0.0
    return total, total - half, total + half


def _cumulative_line(ax: Axes, values: np.ndarray, label: str, **style: object) -> None:
    """The cumulative sum of ``values`` through the hands ``plotted`` picks."""
    shown = plotted(len(values))
    ax.plot(shown, np.cumsum(values)[shown], label=label, **style)  # type: ignore[arg-type]


def _band(ax: Axes, samples: np.ndarray, label: str, **style: object) -> None:
    shown = plotted(len(samples))
    total, low, high = cumulative_band(samples, shown)
    (line,) = ax.plot(shown, total, label=label, **style)  # type: ignore[arg-type]
    ax.fill_between(shown, low, high, color=line.get_color(), alpha=0.15, linewidth=0)


def duplicate_samples(report: Report, seed: int, adjusted: bool = False) -> np.ndarray | None:
    """A's duplicate samples of ``seed`` in big blinds (all-in adjusted if asked); None unless both seatings ran."""
    seats = {
        f.a_seat: f.allin_a if adjusted else f.match.values_of(report.a) for f in report.matches if f.match.seed == seed
    }
    if len(seats) != 2 or any(v is None for v in seats.values()):
        return None
    first, second = seats[0], seats[1]
    assert first is not None and second is not None
    n = min(len(first), len(second))
    return (first[:n] + second[:n]) / 2 / report.game.big_blind


def seed_figure(report: Report, seed: int) -> Figure:
    """One seed: A in each seating, the duplicate line in its band, the all-in-adjusted line if it differs."""
    big = report.game.big_blind
    a, b = unicode_text(report.a), unicode_text(report.b)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for figure in sorted((f for f in report.matches if f.match.seed == seed), key=lambda f: f.a_seat):
        values = figure.match.values_of(report.a) / big
        _cumulative_line(ax, values, f"{a} in seat {figure.a_seat + 1}", linewidth=1)
    duplicate = duplicate_samples(report, seed)
    if duplicate is not None:
        _band(ax, duplicate, "duplicate (mean of both seatings), 95% band", color="black", linewidth=1.8)
        adjusted = duplicate_samples(report, seed, adjusted=True)
        if adjusted is not None and not np.allclose(adjusted, duplicate):
            _cumulative_line(ax, adjusted, "duplicate, all-in adjusted", color="tab:red", linestyle="--")
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_title(f"{a} vs {b}, seed {seed}: {a}'s cumulative winnings")
    ax.set_xlabel("hand")
    ax.set_ylabel("big blinds won")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def overview_figure(report: Report) -> Figure:
    """Every seed's duplicate line in its band, the run's estimate in the title."""
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for seed in report.seeds:
        duplicate = duplicate_samples(report, seed)
        if duplicate is not None:
            _band(ax, duplicate, f"seed {seed}", linewidth=1.2)
    main = report.duplicate if report.duplicate_pairs else report.per_hand
    ax.axhline(0, color="grey", linewidth=0.6)
    a, b = unicode_text(report.a), unicode_text(report.b)
    ax.set_title(
        f"{a} vs {b} ({report.game_file}): {main.mbb_per_hand:+.0f} mbb/h [{main.ci95[0]:+.0f}, {main.ci95[1]:+.0f}]"
    )
    ax.set_xlabel("hand")
    ax.set_ylabel(f"big blinds won by {a} (duplicate, 95% band)")
    if report.duplicate_pairs:
        ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def multi_figure(report: MultiReport) -> Figure:
    """Each player's duplicate line over all seeds (the rotations' mean), in its band."""
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    big = report.game.big_blind
    for name in report.players:
        parts = [
            np.mean([m.values_of(name)[: entry["hands"]] for m in report.matches if m.seed == entry["seed"]], axis=0)
            for entry in report.per_seed
            if "duplicate" in entry
        ]
        if parts:
            est = report.duplicate[name]
            label = f"{unicode_text(name)}: {est.mbb_per_hand:+.0f} mbb/h [{est.ci95[0]:+.0f}, {est.ci95[1]:+.0f}]"
            _band(ax, np.concatenate(parts) / big, label, linewidth=1.2)
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_title(f"{', '.join(map(unicode_text, report.players))} ({report.game_file}), seeds one after another")
    ax.set_xlabel("hand")
    ax.set_ylabel("big blinds won (duplicate over the rotations, 95% band)")
    if report.duplicate_samples:
        ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def save_png(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path``, whole or not at all; an ``OSError`` names ``path``."""
    image = io.BytesIO()
    try:
        fig.savefig(image, format="png")
    finally:
        plt.close(fig)
    try:
        write_atomic(path, image.getvalue())
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    return path


def plot_run(report: Report | MultiReport, out_dir: Path) -> list[Path]:
    """One PNG per seed and one overview (one overview for three or more players); returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(report, MultiReport):
        return [save_png(multi_figure(report), out_dir / "cumulative.png")]
    paths = [save_png(seed_figure(report, seed), out_dir / f"cumulative-seed-{seed}.png") for seed in report.seeds]
    paths.append(save_png(overview_figure(report), out_dir / "cumulative.png"))
    return paths


HEATMAP = "RdBu"
FADED_GREY = (0.88, 0.88, 0.88)
"""The grey that a cell whose interval includes 0 is faded towards, ``FADE`` of the way."""
FADE = 0.75
FADED_TEXT = "dimgrey"


def cell_colours(mbb_per_hand: float, ci95: tuple[float, float], limit: float) -> tuple[RGBA, str]:
    """A crosstable cell's fill and text colour: ``HEATMAP`` over [-limit, +limit] where the 95% interval
    excludes 0; where it includes 0 (no significant result), that colour faded towards grey and grey text."""
    fill = matplotlib.colormaps[HEATMAP](Normalize(-limit, limit)(mbb_per_hand))
    if excludes_zero(ci95):
        return fill, "white" if abs(mbb_per_hand) > 0.6 * limit else "black"
    red, green, blue = ((1 - FADE) * c + FADE * g for c, g in zip(fill[:3], FADED_GREY, strict=True))
    return (red, green, blue, 1.0), FADED_TEXT


def crosstable_figure(table: Crosstable) -> Figure:
    """The crosstable as a heatmap: rows and columns by average against the field, red where the row
    loses and blue where it wins, each cell's mbb/h and 95% half-width written in it; cells whose
    interval includes 0 faded (``cell_colours``)."""
    order = table.ranking()
    columns = [*order, "average"]
    cells: dict[tuple[int, int], Cell] = {}
    for i, row in enumerate(order):
        for j, column in enumerate(columns):
            cell = table.average(row) if column == "average" else table.cells.get((row, column))
            if cell is not None and column != row:
                cells[(i, j)] = cell
    finite = np.abs([c.mbb_per_hand for c in cells.values() if math.isfinite(c.mbb_per_hand)])
    limit = float(np.percentile(finite, 90)) if finite.size else 1.0
    limit = limit if limit > 0 else 1.0
    image = np.ones((len(order), len(columns), 4))  # white where there is no cell
    size = max(6.0, 1.0 + 0.9 * len(columns))
    fig, ax = plt.subplots(figsize=(size + 1.5, 0.8 * size + 0.5), dpi=110)
    for (i, j), cell in cells.items():
        fill, text = cell_colours(cell.mbb_per_hand, cell.ci95, limit)
        image[i, j] = fill
        label = f"{signed(cell.mbb_per_hand, 0)}\n±{cell.half_width:.0f}"
        ax.text(j, i, label, ha="center", va="center", fontsize=7, color=text)
    ax.imshow(image)
    ax.axvline(len(order) - 0.5, color="black", linewidth=1.2)
    ax.set_xticks(range(len(columns)), columns, rotation=45, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    seeds = ",".join(map(str, table.seeds))
    ax.set_title(
        f"{table.game_file}, seeds {seeds}, {table.hands} hands a match\n"
        "the row's duplicate mbb/hand against the column, ± 95% half-width; faded: the interval includes 0",
        fontsize=9,
    )
    mappable = ScalarMappable(Normalize(-limit, limit), HEATMAP)
    fig.colorbar(mappable, ax=ax, label="mbb/hand", shrink=0.8)
    fig.tight_layout()
    return fig


def plot_crosstable(table: Crosstable, path: Path) -> Path:
    """Write the heatmap of ``crosstable_figure``; returns its path."""
    return save_png(crosstable_figure(table), path)
