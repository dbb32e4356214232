"""The running figures (``estimates.Running``) that the live pages, the run's progress and the benchmark
server's page keep: checked against Python's ``statistics`` over the same results (a live table's too),
and the duplicate samples against pairs made by hand."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from acpc_arena.dealer.arena.estimates import Running, duplicate_pair
from acpc_arena.dealer.web.live import LiveBoard
from acpc_arena.protocol.game import load_game

RESULTS = [10.0, -5.0, 0.0, 20.0, -15.0, 5.0, 5.0, -10.0, 2.5]
BIG_BLIND = 10


def _expected(values: list[float], big_blind: int = BIG_BLIND) -> tuple[float, float, float]:
    """mbb/h and its 95% interval, from ``statistics`` (the normal 97.5% quantile from ``NormalDist``)."""
    mean = statistics.fmean(values)
    half = statistics.NormalDist().inv_cdf(0.975) * statistics.stdev(values) / math.sqrt(len(values))
    scale = 1000 / big_blind
    return mean * scale, (mean - half) * scale, (mean + half) * scale


def test_results_taken_one_at_a_time_give_their_mean_and_interval() -> None:
    running = Running()
    for value in RESULTS:
        running.add(value)
    figure = running.estimate(BIG_BLIND)
    mbb, low, high = _expected(RESULTS)
    assert figure.samples == len(RESULTS)
    assert figure.mbb_per_hand == pytest.approx(mbb, rel=1e-12)
    assert figure.ci95 == pytest.approx((low, high), rel=1e-9)


def test_results_taken_in_batches_or_as_sums_give_the_same_figures() -> None:
    batches = Running()
    for part in (RESULTS[:3], [], RESULTS[3:4], RESULTS[4:]):
        batches.add_all(np.array(part))
    sums = Running.of_sums(len(RESULTS), sum(RESULTS), sum(v * v for v in RESULTS))
    mbb, low, high = _expected(RESULTS)
    for running in (batches, sums):
        figure = running.estimate(BIG_BLIND)
        assert figure.mbb_per_hand == pytest.approx(mbb, rel=1e-12)
        assert figure.ci95 == pytest.approx((low, high), rel=1e-9)


def test_no_result_is_nan_and_one_an_infinite_interval() -> None:
    empty = Running().estimate(BIG_BLIND)
    assert empty.samples == 0 and math.isnan(empty.mbb_per_hand) and all(math.isnan(x) for x in empty.ci95)
    one = Running()
    one.add(3.0)
    figure = one.estimate(BIG_BLIND)
    assert figure.mbb_per_hand == 300.0 and figure.ci95 == (-math.inf, math.inf)


def test_a_duplicate_pair_averages_hand_i_of_the_two_seatings_as_far_as_both_went() -> None:
    first, second = np.array([10.0, -4.0, 6.0]), np.array([-2.0, 8.0])
    assert duplicate_pair(first, second).tolist() == [4.0, 2.0]


def test_a_live_table_shows_each_seats_total_and_the_first_seats_running_interval() -> None:
    board = LiveBoard()
    start = {"game": "leduc.limit.2p", "hands": 100, "players": ["a-x", "b-y"]}
    board.apply({"tables": [{"name": "m", "start": start}]})
    by_hand = [[v, -v] for v in RESULTS]
    board.apply({"tables": [{"name": "m", "values": by_hand[:4]}]})
    board.apply({"tables": [{"name": "m", "values": by_hand[4:]}]})
    shown = board.tables["m"].to_json()
    mbb, low, high = _expected(RESULTS, load_game("leduc.limit.2p").big_blind)
    assert shown["hands_played"] == len(RESULTS)
    assert shown["totals"] == [sum(RESULTS), -sum(RESULTS)]
    assert shown["seat1_mbb"] == pytest.approx(mbb, rel=1e-12)
    assert shown["seat1_ci95"] == pytest.approx([low, high], rel=1e-9)
