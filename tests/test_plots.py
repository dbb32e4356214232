"""The run's plots: the duplicate line inside its 95% band, and the all-in-adjusted line where it differs,
read back from the figure objects and checked against the logs; the crosstable heatmap's colours."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from acpc_arena.dealer.arena.plots import cell_colours, crosstable_figure, overview_figure, seed_figure
from acpc_arena.dealer.arena.reports import build_report
from acpc_arena.dealer.arena.tournament import Cell, Crosstable
from acpc_arena.protocol.match_log import read_log
from tests.helpers.matches import run_match, values_of

BIG_BLIND = 100  # holdem.nolimit.2p.reverse_blinds


def test_the_duplicate_line_sits_in_its_band_and_the_all_in_line_is_drawn(tmp_path: Path) -> None:
    done, report_json = run_match(
        tmp_path, "--a", "random", "--b", "call", "--game", "holdem.nolimit.2p.reverse_blinds", "--seeds", "9",
        "--hands", "120",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    assert (out / "cumulative-seed-9.png").stat().st_size > 0
    assert (out / "cumulative.png").stat().st_size > 0

    # the duplicate samples and their band, from the logs by hand
    first, second = values_of(out / "seed9-a1.log", "a-random"), values_of(out / "seed9-a2.log", "a-random")
    samples = [(x + y) / 2 / BIG_BLIND for x, y in zip(first, second, strict=True)]
    cumulative = np.cumsum(samples)
    k = 100
    half = 1.96 * statistics.stdev(samples[:k]) * math.sqrt(k)

    report = build_report([read_log(p) for p in sorted(out.glob("seed9-*.log"))], a="a-random")
    figure = seed_figure(report, 9)
    ax = figure.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    duplicate = lines["duplicate (mean of both seatings), 95% band"]
    assert np.allclose(duplicate.get_ydata(), cumulative)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 1
    vertices = np.asarray(bands[0].get_paths()[0].vertices, dtype=float)
    at_k = vertices[np.isclose(vertices[:, 0], k - 1)][:, 1]
    assert sorted(at_k) == pytest.approx([cumulative[k - 1] - half, cumulative[k - 1] + half], rel=1e-2)

    assert report_json["allin_adjusted"]["mbb_per_hand"] != report_json["mbb_per_hand"]  # some hands all in early
    adjusted = lines["duplicate, all-in adjusted"]
    assert adjusted.get_linestyle() == "--"
    adjusted_y = np.asarray(adjusted.get_ydata(), dtype=float)
    assert not np.allclose(adjusted_y, cumulative)
    assert adjusted_y[-1] * 1000 / len(samples) == pytest.approx(report_json["allin_adjusted"]["mbb_per_hand"])


def test_a_crosstable_cell_whose_interval_includes_0_is_faded() -> None:
    """Full strength is matplotlib's own RdBu colour of the value (over [-limit, +limit]); a cell whose
    interval includes 0 gets another, greyer colour and grey text."""
    limit = 500.0
    rdbu = matplotlib.colormaps["RdBu"]
    full, text = cell_colours(300.0, (100.0, 500.0), limit)
    assert full == pytest.approx(rdbu((300.0 + limit) / (2 * limit))) and text == "black"
    low, low_text = cell_colours(-400.0, (-600.0, -200.0), limit)
    assert low == pytest.approx(rdbu((-400.0 + limit) / (2 * limit))) and low_text == "white"  # a dark cell
    for interval in ((-207.0, 807.0), (0.0, 600.0)):  # +300 ±507, and an interval that reaches 0
        faded, faded_text = cell_colours(300.0, interval, limit)
        assert faded != pytest.approx(full) and faded_text not in ("black", "white")
        assert max(faded[:3]) - min(faded[:3]) < max(full[:3]) - min(full[:3])  # less saturated: greyer


def test_the_heatmap_writes_a_cell_that_includes_0_in_grey() -> None:
    """x beats y +800 ±100, and z +300 ±507 (an interval that holds 0)."""
    beats_y = Cell(800.0, (700.0, 900.0), 1000)
    spans = Cell(300.0, (-207.0, 807.0), 1000)
    cells = {("x", "y"): beats_y, ("y", "x"): beats_y.negated(), ("x", "z"): spans, ("z", "x"): spans.negated()}
    figure = crosstable_figure(Crosstable(("x", "y", "z"), cells, "kuhn", (1,), 100))
    colours = {text.get_text(): text.get_color() for text in figure.axes[0].texts}
    assert colours["+300\n±507"] == colours["-300\n±507"] == "dimgrey"
    assert colours["+800\n±100"] in ("black", "white") and colours["-800\n±100"] in ("black", "white")
    plt.close(figure)


def test_the_overview_draws_each_seeds_95_percent_band(tmp_path: Path) -> None:
    """``cumulative.png``'s figure: one band per seed, from the logs of a short duplicate run."""
    done, _ = run_match(
        tmp_path, "--a", "rule", "--b", "random", "--seeds", "1,2", "--hands", "60", "--in-process", "--no-plots"
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    report = build_report([read_log(p) for p in sorted(out.glob("seed*.log"))], a="a-rule")
    figure = overview_figure(report)
    ax = figure.axes[0]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    for seed, band in zip((1, 2), bands, strict=True):
        first, second = values_of(out / f"seed{seed}-a1.log", "a-rule"), values_of(out / f"seed{seed}-a2.log", "a-rule")
        samples = [(x + y) / 2 / 10 for x, y in zip(first, second, strict=True)]  # big blind 10
        half = 1.96 * statistics.stdev(samples) * math.sqrt(60)
        vertices = np.asarray(band.get_paths()[0].vertices, dtype=float)
        at_end = vertices[np.isclose(vertices[:, 0], 59)][:, 1]
        assert [min(at_end), max(at_end)] == pytest.approx([sum(samples) - half, sum(samples) + half], rel=1e-2)
    plt.close(figure)
