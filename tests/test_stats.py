"""stats.py, tested without pytester (like pytest-benchmark's stats)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_sprout.core.stats import (
    Rate, Tally, balanced_accuracy, is_saturated, is_underpowered, mean_interval, newcombe_interval,
    newcombe_paired_interval, paired_ba_difference, paired_t_interval, roc_auc, t_quantile, unit_mean_interval,
    wilson_interval,
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


# --- paired differences (compare.py's --sprout-compare over the cases both runs judged) ----------


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        # Newcombe (1998), Stat Med 17:2635-2650, the paired example (a): a=36, b=12, c=2, d=0 (n=50);
        # p1 - p2 = 0.2000, method 10: 0.0569 to 0.3404.
        ((36, 12, 2, 0), (0.2, 0.0569, 0.3404)),
        # Fagerland, Lydersen and Laake (2017), Statistical Analysis of Contingency Tables, ch. 8:
        # complete response before and after consolidation therapy (Cavo et al. 2012), 59/6/16/80;
        # the Newcombe square-and-add interval: -0.0621 (-0.1186 to -0.0046). Here ad - bc exceeds
        # n/2, so it checks Newcombe's phi* (ad - bc reduced by n/2) that example (a) cannot.
        ((59, 6, 16, 80), (-0.0621, -0.1186, -0.0046)),
    ],
)
def test_newcombe_paired_matches_published_examples(cells: tuple[int, int, int, int], expected: tuple[float, float, float]) -> None:
    assert newcombe_paired_interval(*cells) == pytest.approx(expected, abs=1e-4)


def test_newcombe_paired_orientation_and_bad_counts() -> None:
    # Swapping the two classifications (b <-> c) mirrors the interval around zero.
    d, low, high = newcombe_paired_interval(36, 2, 12, 0)
    assert (d, low, high) == pytest.approx((-0.2, -0.3404, -0.0569), abs=1e-4)
    with pytest.raises(ValueError):
        newcombe_paired_interval(0, 0, 0, 0)
    with pytest.raises(ValueError):
        newcombe_paired_interval(1, -1, 0, 0)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_newcombe_paired_holds_its_estimate_within_minus_one_and_one(a: int, b: int, c: int, d: int) -> None:
    if a + b + c + d == 0:
        return
    diff, low, high = newcombe_paired_interval(a, b, c, d)
    assert diff == pytest.approx((b - c) / (a + b + c + d))
    assert -1.0 <= low <= diff <= high <= 1.0


def test_paired_interval_is_narrower_than_the_unpaired_one_on_correlated_data() -> None:
    # 100 cases, 70 pass in both runs, 25 fail in both, 5 pass only in the new run: highly
    # correlated outcomes. The same two rates (75/100 vs 70/100) as independent samples are much
    # less certain; the paired interval even tells the improvement from zero.
    d, low, high = newcombe_paired_interval(70, 5, 0, 25)
    ud, ulow, uhigh = newcombe_interval(75, 100, 70, 100)
    assert d == pytest.approx(ud) == pytest.approx(0.05)
    assert high - low < (uhigh - ulow) / 2
    assert low > 0 > ulow


def test_paired_t_interval_matches_student_sleep_data() -> None:
    # Cushny and Peebles' sleep data (Student 1908; R's datasets::sleep): the extra hours of sleep
    # with drug 2 minus drug 1 for ten patients; R's t.test(paired = TRUE): mean 1.58, 95% CI
    # 0.7001142 to 2.4598858.
    diffs = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4]
    assert paired_t_interval(diffs) == pytest.approx((1.58, 0.7001142, 2.4598858), abs=1e-6)
    assert paired_t_interval([0.1, 0.1, 0.1]) == pytest.approx((0.1, 0.1, 0.1))
    with pytest.raises(ValueError):
        paired_t_interval([1.0])


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
    tally = Tally()
    with pytest.raises(TypeError, match="t.m: outcome must be bool, float or None, got 'yes'"):
        tally.extend("t", "m", [True, 0.5, "yes", False])
    assert tally.values("t", "m") == [True, 0.5]  # what came before the refused value, as add() one by one


def test_tally_rows_follow_every_outcome_counted() -> None:
    """rows() is computed once and again after any outcome (the controller asks it three times)."""
    tally = Tally()
    tally.extend("groundedness", "grounded", [True, False], "case-1")
    first = tally.rows()
    assert tally.rows() == first and [(r.k, r.n) for r in first] == [(1, 2)]
    first.clear()  # a caller's list is its own
    assert len(tally.rows()) == 1
    tally.add("groundedness", "grounded", True, "case-2")
    assert [(r.k, r.n) for r in tally.rows()] == [(2, 3)]
    tally.extend("groundedness", "grounded", [float("nan"), None])
    assert [(r.n, r.unscored) for r in tally.rows()] == [(3, 2)]
    tally.declare("llm", "faithfulness", "mean")
    assert [(r.tier, r.kind, r.n) for r in tally.rows()][1] == ("llm", "mean", 0)


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


# --- your labels correct the judge (core/ppi.py) ---------------------------------------------------


def test_ppi_mean_matches_a_hand_derived_example() -> None:
    """Y = 1, 1, 0, 1 on four labelled items, the judge f = 1, 0, 0, 1 on them and
    1, 1, 0, 1, 1, 0, 1, 1 on eight unlabelled ones (n = 4, N = 8).

    Classic PPI (lambda = 1): mean(Y - f) = (0 + 1 + 0 + 0)/4 = 0.25, mean_N(f) = 6/8 = 0.75, so
    theta = 1.0. Var(Y - f) = 0.75/3 = 0.25 (over n - 1), /4 = 0.0625; Var_N(f) = 1.5/7, /8 =
    0.0267857; SE = sqrt(0.0892857) = 0.298807, low = 1 - 1.959964 * 0.298807 = 0.414349.

    PPI++: f over all 12 items has mean 2/3 and variance (8/9 + 16/9)/11 = 0.242424; Cov(Y, f) on
    the labelled = 0.5/3 = 0.166667; lambda = 0.166667 / ((1 + 4/8) * 0.242424) = 0.458333, and
    theta = 0.75 - 0.458333 * 0.5 + 0.458333 * 0.75 = 0.864583. Y - lambda f = 0.541667, 1, 0,
    0.541667 has variance 0.501736/3 = 0.167245, /4 = 0.041811; lambda^2 * Var_N(f)/N = 0.005627;
    SE = sqrt(0.047438) = 0.217803, low = 0.864583 - 0.426886 = 0.437697; high clipped to 1."""
    from pytest_sprout.core.ppi import ppi_mean

    labels, judged, unlabelled = [1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 0, 1, 1, 0, 1, 1]
    classic = ppi_mean(labels, judged, unlabelled, lam=1.0)
    assert (classic.rate, classic.ci_low, classic.ci_high) == (pytest.approx(1.0), pytest.approx(0.414349, abs=1e-6), 1.0)
    tuned = ppi_mean(labels, judged, unlabelled)
    assert tuned.lam == pytest.approx(0.458333, abs=1e-6)
    assert (tuned.rate, tuned.ci_low, tuned.ci_high) == (pytest.approx(0.864583, abs=1e-6), pytest.approx(0.437697, abs=1e-6), 1.0)
    assert ppi_mean(labels, judged, unlabelled, lam=0.0).rate == pytest.approx(0.75)  # the labels alone


def test_corrected_rate_matches_a_hand_derived_example() -> None:
    """80 items the judge calls supported (20 labelled, people agree on 18), 20 it rejects (10
    labelled, people call 3 supported). W = 0.8, 0.2; p = 0.9, 0.3; theta = 0.72 + 0.06 = 0.78.
    Wilson: 18/20 -> [0.698966, 0.972134], 3/10 -> [0.107791, 0.603222]. The shares' variance
    B = (0.8 * 0.12^2 + 0.2 * 0.48^2) / 100 = 0.000576.
    below = sqrt((0.8 * 0.201034)^2 + (0.2 * 0.192209)^2 + B) = sqrt(0.0279188) = 0.167089;
    above = sqrt((0.8 * 0.072134)^2 + (0.2 * 0.303222)^2 + B) = sqrt(0.0075836) = 0.087084."""
    from pytest_sprout.core.ppi import Stratum, corrected_rate

    c = corrected_rate([Stratum(80, 1.0, 20, 18), Stratum(20, 0.0, 10, 3)])
    assert c is not None and c.n_labels == 30 and not c.underpowered
    assert (c.rate, c.ci_low, c.ci_high) == (pytest.approx(0.78), pytest.approx(0.612910, abs=1e-6), pytest.approx(0.867085, abs=1e-6))
    assert corrected_rate([Stratum(10, 1.0), Stratum(5, 0.0)]) is None  # no label: nothing to correct
    few = corrected_rate([Stratum(10, 1.0, 4, 4), Stratum(0, 0.0)])
    assert few is not None and few.underpowered and few.ci_low < 0.6  # 4/4 labels: honest, not [1, 1]


def test_judge_vs_labels_and_the_plain_warning() -> None:
    from pytest_sprout.core.ppi import judge_vs_labels

    # people: 10 supported (judge accepts 9), 12 unsupported (judge rejects 1)
    pairs = [(True, True)] * 9 + [(False, True)] + [(True, False)] * 11 + [(False, False)]
    j = judge_vs_labels(pairs)
    assert (j.sensitivity.k, j.sensitivity.n, j.specificity.k, j.specificity.n) == (9, 10, 1, 12)
    assert j.misses_most_unsupported  # Wilson(1, 12) upper bound 0.354 < 0.5
    assert not judge_vs_labels([(False, False)] * 3 + [(True, False)] * 3).misses_most_unsupported
    out = j.to_json()
    assert out["specificity"]["ci_high"] == pytest.approx(wilson_interval(1, 12)[1])


def _labelled_run(rng: random.Random, truth: float, sens: float, spec: float, items: int, labels: int
                  ) -> tuple[list[bool], list[bool], list[int]]:
    people = [rng.random() < truth for _ in range(items)]
    judge = [(rng.random() < sens) if y else (rng.random() >= spec) for y in people]
    return people, judge, rng.sample(range(items), labels)


def _corrected(people: list[bool], judge: list[bool], sample: list[int]) -> Any:
    from pytest_sprout.core.ppi import corrected_rate, strata_of

    verdicts = {True: sum(judge), False: len(judge) - sum(judge)}
    return corrected_rate(strata_of([(judge[i], people[i]) for i in sample], verdicts))


def test_corrected_interval_covers_where_a_biased_judge_does_not() -> None:
    """1,000 seeded runs of 600 sentences, 85% supported by people's reading; the judge accepts 95%
    of the supported and 70% of the unsupported ones (its rate is 0.91), 60 labelled at random."""
    rng = random.Random(25)
    corrected = judge_only = 0
    for _ in range(1000):
        people, judge, sample = _labelled_run(rng, 0.85, 0.95, 0.3, 600, 60)
        c = _corrected(people, judge, sample)
        corrected += c.ci_low <= 0.85 <= c.ci_high
        low, high = wilson_interval(sum(judge), len(judge))
        judge_only += low <= 0.85 <= high
    assert corrected / 1000 >= 0.93
    assert judge_only / 1000 < 0.5


def test_corrected_interval_is_narrower_than_the_labels_alone_with_an_informative_judge() -> None:
    rng = random.Random(2025)
    corrected = labels_only = covered = 0.0
    for _ in range(1000):
        people, judge, sample = _labelled_run(rng, 0.85, 0.95, 0.8, 600, 60)
        c = _corrected(people, judge, sample)
        corrected += c.ci_high - c.ci_low
        covered += c.ci_low <= 0.85 <= c.ci_high
        low, high = wilson_interval(sum(people[i] for i in sample), len(sample))
        labels_only += high - low
    assert corrected < 0.85 * labels_only
    assert covered / 1000 >= 0.93


def test_corrected_rate_weighs_a_sample_stratified_by_verdict() -> None:
    """Half the labels on the 10% of sentences the judge rejects: the plain mean of the labels is
    far off, the corrected rate (weighted by the verdicts' shares) still covers."""
    rng = random.Random(11)
    covered = naive = 0
    for _ in range(1000):
        people, judge, _ = _labelled_run(rng, 0.85, 0.97, 0.6, 600, 0)
        accepted = [i for i, f in enumerate(judge) if f]
        rejected = [i for i, f in enumerate(judge) if not f]
        sample = rng.sample(accepted, 20) + rng.sample(rejected, min(20, len(rejected)))
        c = _corrected(people, judge, sample)
        covered += c.ci_low <= 0.85 <= c.ci_high
        low, high = wilson_interval(sum(people[i] for i in sample), len(sample))
        naive += low <= 0.85 <= high
    assert covered / 1000 >= 0.93
    assert naive / 1000 < 0.5


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60), st.integers(0, 200), st.integers(0, 200))
def test_corrected_rate_stays_in_its_interval_and_in_the_unit_interval(
    pairs: list[tuple[bool, bool]], extra_yes: int, extra_no: int,
) -> None:
    from pytest_sprout.core.ppi import corrected_rate, strata_of

    verdicts = {True: sum(f for f, _ in pairs) + extra_yes, False: sum(not f for f, _ in pairs) + extra_no}
    c = corrected_rate(strata_of(pairs, verdicts))
    assert c is not None and 0.0 <= c.ci_low <= c.rate <= c.ci_high <= 1.0
    assert c.ci_high - c.ci_low > 0.0  # never zero width, whatever the labels say


# --- clustered intervals (core/clusters.py) ---------------------------------------------------------


def _answers(rng: random.Random, answers: int, sentences: int) -> list[tuple[int, int]]:
    """Answers right or wrong together: 80% are good (each sentence supported with p 0.98), the
    rest bad (p 0.4); the true sentence rate is 0.8 * 0.98 + 0.2 * 0.4 = 0.864."""
    out = []
    for _ in range(answers):
        p = 0.98 if rng.random() < 0.8 else 0.4
        out.append((sum(rng.random() < p for _ in range(sentences)), sentences))
    return out


def test_clustered_interval_covers_where_the_naive_wilson_does_not() -> None:
    from pytest_sprout.core.clusters import clustered_interval

    rng = random.Random(40)
    clustered = naive = 0
    for _ in range(1000):
        counts = _answers(rng, 40, 5)
        c = clustered_interval(counts)
        clustered += c.ci_low <= 0.864 <= c.ci_high
        low, high = wilson_interval(c.k, c.n)
        naive += low <= 0.864 <= high
    assert clustered / 1000 >= 0.93
    assert naive / 1000 <= 0.85


def test_clustered_interval_hand_example_and_edges() -> None:
    """Clusters (3 of 3), (0 of 3), (3 of 3), (3 of 3): p = 9/12 = 0.75; residuals k - p n = 0.75,
    -2.25, 0.75, 0.75 give sum of squares 6.75, V = 4/3 * 6.75 / 144 = 0.0625 against the binomial
    0.75 * 0.25 / 12 = 0.015625: deff 4, effective n 3, t on 3 degrees of freedom (3.182446)."""
    from pytest_sprout.core.clusters import clustered_interval, wilson_z

    c = clustered_interval([(3, 3), (0, 3), (3, 3), (3, 3)])
    assert (c.k, c.n, c.clusters) == (9, 12, 4)
    assert c.design_effect == pytest.approx(4.0) and c.effective_n == pytest.approx(3.0)
    assert (c.ci_low, c.ci_high) == pytest.approx(wilson_z(0.75, 3.0, 3.182446))
    # one observation per cluster: the robust variance is the binomial one times C / (C - 1)
    independent = clustered_interval([(1, 1)] * 9 + [(0, 1)] * 3)
    assert independent.design_effect == pytest.approx(12 / 11)
    saturated = clustered_interval([(5, 5)] * 40)  # every sentence supported: worth 40 answers
    assert saturated.effective_n == pytest.approx(40.0) and saturated.ci_low < wilson_interval(200, 200)[0]


def test_tally_gives_nested_metrics_their_clusters() -> None:
    tally = Tally()
    for answer, verdicts in enumerate([[True] * 5, [False] * 5, [True] * 5, [True] * 5]):
        tally.extend("groundedness", "grounded_sentence", verdicts, f"case-{answer}")
        tally.add("groundedness", "grounded", all(verdicts), f"case-{answer}")
    nested = tally.row("groundedness", "grounded_sentence")
    assert (nested.k, nested.n, nested.clusters) == (15, 20, 4)
    assert nested.to_json()["clusters"] == 4 and nested.underpowered
    assert nested.ci_high - nested.ci_low > wilson_interval(15, 20)[1] - wilson_interval(15, 20)[0]
    flat = tally.row("groundedness", "grounded")
    assert flat.clusters is None and "clusters" not in flat.to_json()
    assert (flat.ci_low, flat.ci_high) == wilson_interval(3, 4)


def test_label_sample_takes_the_rare_rejections_first() -> None:
    from pytest_sprout.checks.labels import label_sample

    rows = [{"case_id": f"c{i}", "suite": "s", "tier": "groundedness", "nodeid": f"s.yaml::c{i}[groundedness]",
             "outcome": "passed", "metrics": {"grounded_sentence": [i % 10 != 0]},
             "sentences": [{"text": f"Sentence {i}.", "supported": i % 10 != 0}]} for i in range(100)]
    sample = label_sample(rows, 20, "seed")
    assert len(sample) == 20 and sum(s["sentence"] in {f"Sentence {i}." for i in range(0, 100, 10)} for s in sample) == 10
    assert label_sample(rows, 20, "seed") == sample and label_sample(rows, 20, "other") != sample
    assert len(label_sample(rows, 500, "seed")) == 100
