"""The run's plots: the duplicate line inside its 95% band, and the all-in-adjusted line where it differs,
read back from the figure objects and checked against the logs."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from acpc_arena.dealer.arena.plots import seed_figure
from acpc_arena.dealer.arena.report import build_report, read_log
from tests.test_match_runner import run_match, values_of

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
