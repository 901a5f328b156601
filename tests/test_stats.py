"""stats.py, tested without pytester (like pytest-benchmark's stats)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_sprout.core.stats import (
    Rate, Tally, balanced_accuracy, is_saturated, is_underpowered, mean_interval, newcombe_interval,
    paired_ba_difference, roc_auc, t_quantile, unit_mean_interval, wilson_interval,
)


@st.composite
def k_n(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(1, 5000))
    return draw(st.integers(0, n)), n


@given(k_n(), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_stays_in_unit_interval_and_contains_the_rate(kn: tuple[int, int], confidence: float) -> None:
    k, n = kn
    low, high = wilson_interval(k, n, confidence)
    assert 0.0 <= low <= k / n <= high <= 1.0


@given(k_n())
def test_wilson_matches_the_closed_form(kn: tuple[int, int]) -> None:
    k, n = kn
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = wilson_interval(k, n)
    assert low == pytest.approx(max(0.0, centre - half), abs=1e-12)
    assert high == pytest.approx(min(1.0, centre + half), abs=1e-12)


@given(st.integers(1, 400))
def test_wilson_narrows_as_n_grows(n: int) -> None:
    low1, high1 = wilson_interval(n // 2, n)
    low2, high2 = wilson_interval(2 * (n // 2), 2 * n)
    assert high2 - low2 < high1 - low1


def test_wilson_known_values() -> None:
    # Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662; 0/10 -> 0 to 0.2775.
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_newcombe_hand_worked_example() -> None:
    # Newcombe (1998), example (a): 56/70 vs 48/80, difference 0.2000, 95% CI 0.0524 to 0.3339.
    d, low, high = newcombe_interval(56, 70, 48, 80)
    assert (d, low, high) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)


def test_underpowered_and_saturated() -> None:
    assert is_underpowered(29) and not is_underpowered(30)
    assert is_saturated(10, 10) and is_saturated(0, 10)
    assert not is_saturated(9, 10) and not is_saturated(0, 0)


def test_t_quantile_known_values() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(0.975, 2) == pytest.approx(4.303, abs=1e-3)
    assert t_quantile(0.975, 10) == pytest.approx(2.228, abs=1e-3)
    assert t_quantile(0.975, 30) == pytest.approx(2.042, abs=1e-3)


def test_mean_interval() -> None:
    # Worked by hand: s = sqrt(0.5 / 3), standard error s / 2, t(0.975, 3) = 3.182446;
    # half-width 3.182446 * sqrt(1/6) / 2 = 0.649614.
    mean, low, high = mean_interval([0.0, 1.0, 0.5, 0.5])
    assert mean == 0.5
    assert (low, high) == pytest.approx((0.5 - 0.649614, 0.5 + 0.649614), abs=1e-6)
    mean, low, high = mean_interval([2.0, 4.0])  # s = sqrt(2), se = 1, t(0.975, 1) = 12.7062
    assert (mean, low, high) == pytest.approx((3.0, 3.0 - 12.7062, 3.0 + 12.7062), abs=1e-3)


def test_tally_rates_means_and_unscored() -> None:
    tally = Tally()
    tally.extend("groundedness", "grounded", [True] * 40)
    tally.extend("llm", "faithfulness", [0.5, 1.0, None, float("nan")])
    grounded, faith = tally.rows()
    assert (grounded.k, grounded.n, grounded.saturated, grounded.underpowered) == (40, 40, True, False)
    assert grounded.ci_low == pytest.approx(wilson_interval(40, 40)[0])
    assert faith.kind == "mean" and faith.n == 2 and faith.unscored == 2 and faith.rate == 0.75


def test_tally_rows_are_ordered_by_tier_then_metric() -> None:
    tally = Tally()
    tally.add("llm", "b", True)
    tally.add("groundedness", "z", True)
    tally.add("groundedness", "a", False)
    assert [(r.tier, r.metric) for r in tally.rows()] == [("groundedness", "a"), ("groundedness", "z"), ("llm", "b")]


def test_tally_rejects_non_outcomes() -> None:
    with pytest.raises(TypeError):
        Tally().add("t", "m", "yes")


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=60))
def test_unit_mean_interval_holds_the_mean_and_never_collapses(values: list[float]) -> None:
    mean, low, high = unit_mean_interval(values)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert high - low > 0.0  # even when every score is equal


def test_equal_scores_get_the_interval_of_as_many_passes() -> None:
    tally = Tally()
    tally.extend("llm", "faithfulness", [1.0] * 10)
    tally.extend("llm", "relevancy", [0.8] * 40)
    faith, rel = tally.rows()
    assert (faith.ci_low, faith.ci_high) == pytest.approx(wilson_interval(10, 10)) and faith.saturated
    assert faith.ci_low == pytest.approx(0.722, abs=1e-3)
    assert rel.rate == pytest.approx(0.8) and rel.ci_low < 0.8 < rel.ci_high and not rel.saturated
    off_scale = Tally()
    off_scale.extend("x", "tokens", [3.0, 5.0, 4.0])  # not in [0, 1]: a Student t interval
    row = off_scale.rows()[0]
    assert row.rate == 4.0 and row.ci_low < 4.0 < row.ci_high


# --- the meta-evaluation's statistics ------------------------------------------------------------


def test_roc_auc_and_its_hanley_mcneil_interval_by_hand() -> None:
    """Scores 0.1, 0.4 (unsupported) and 0.35, 0.8 (supported): of the 4 supported/unsupported
    pairs, 3 are ordered right, so AUC = 0.75. Hanley and McNeil: Q1 = 0.75/1.25 = 0.6,
    Q2 = 2*0.5625/1.75 = 0.642857; variance = (0.75*0.25 + 1*(0.6-0.5625) + 1*(0.642857-0.5625))/4
    = 0.305357/4 = 0.076339, SE 0.276296."""
    auc, low, high = roc_auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True])
    assert auc == pytest.approx(0.75)
    se = math.sqrt(0.305357 / 4)
    assert low == pytest.approx(max(0.0, 0.75 - 1.959964 * se), abs=1e-5) and high == 1.0
    assert roc_auc([0.5, 0.5, 0.5], [True, False, True])[0] == pytest.approx(0.5)  # ties count half
    assert roc_auc([0.9, 0.1], [False, True])[0] == 0.0
    assert roc_auc([0.2, 0.3], [True, True]) is None


def test_balanced_accuracy_is_the_mean_of_the_class_recalls_with_a_mover_interval() -> None:
    ba, low, high = balanced_accuracy(Rate(30, 40), Rate(10, 20))
    assert ba == pytest.approx((0.75 + 0.5) / 2)
    l1, u1 = wilson_interval(30, 40)
    l2, u2 = wilson_interval(10, 20)
    assert low == pytest.approx(ba - math.hypot(0.75 - l1, 0.5 - l2) / 2)
    assert high == pytest.approx(ba + math.hypot(u1 - 0.75, u2 - 0.5) / 2)
    assert balanced_accuracy(Rate(3, 3), Rate(0, 0)) is None


def test_paired_bootstrap_of_a_balanced_accuracy_difference() -> None:
    labels = [True] * 10 + [False] * 10
    same = [True] * 10 + [False] * 10
    assert paired_ba_difference(labels, same, same) == {
        "value": 0.0, "ci_low": 0.0, "ci_high": 0.0, "resamples": 2000, "seed": 0,
    }
    # the second judge misses half the unsupported claims: 0.25 worse, on every resample at least 0
    worse = [True] * 10 + [True] * 5 + [False] * 5
    d = paired_ba_difference(labels, same, worse)
    assert d["value"] == pytest.approx(0.25) and 0.0 < d["ci_low"] <= 0.25 <= d["ci_high"] <= 0.5
    assert d == paired_ba_difference(labels, same, worse)  # fixed seed
    assert paired_ba_difference([True, True], [True, True], [True, False]) is None
