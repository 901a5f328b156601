"""Pure statistics: Wilson intervals, Newcombe differences (independent and paired), the paired t
interval, saturation, the metric tally, Cohen's
kappa, and the meta-evaluation's balanced accuracy, ROC AUC and paired bootstrap.

No pytest, no numpy: plain Python that any tool can import and test on its own.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Hashable, Iterable, Sequence

from .clusters import clustered_interval
from .quantiles import t_cdf, t_quantile, z_value  # noqa: F401 (the public path: pytest_sprout.stats)

UNDERPOWERED_N = 30


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes out of n trials. n == 0 gives (0, 1)."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    z = z_value(confidence)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    # Guard the closed form against rounding at the edges: the interval always holds k/n.
    return (min(low, p), max(high, p))


def newcombe_interval(
    k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Difference p1 - p2 of two independent proportions, with Newcombe's hybrid score interval
    (his method 10, built from the two Wilson intervals). Returns (difference, low, high)."""
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need n > 0")
    p1, p2 = k1 / n1, k2 / n2
    return mover_difference((p1, *wilson_interval(k1, n1, confidence)), (p2, *wilson_interval(k2, n2, confidence)))


def mover_difference(first: tuple[float, float, float], second: tuple[float, float, float]) -> tuple[float, float, float]:
    """p1 - p2 from two (rate, low, high) with their own intervals (MOVER, Zou and Donner 2008;
    Newcombe's method 10 when the intervals are Wilson's, as a clustered interval's are for the
    effective n). Returns (difference, low, high)."""
    (p1, l1, u1), (p2, l2, u2) = first, second
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, low), min(1.0, high)


def newcombe_paired_interval(a: int, b: int, c: int, d: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """Difference of two proportions measured on the same n = a + b + c + d subjects, with
    Newcombe's score-based interval for paired data (Newcombe 1998, Stat Med 17:2635-2650, method 10).

    The cells follow Newcombe's table: ``a`` both passed, ``b`` passed the first classification and
    failed the second, ``c`` failed the first and passed the second, ``d`` failed both. Returns
    (p1 - p2, low, high) with p1 = (a + b) / n the first classification's rate and p2 = (a + c) / n
    the second's, so the difference is (b - c) / n. The interval combines the two Wilson intervals
    as the unpaired method 10 does, less twice their covariance, estimated by Newcombe's phi*: the
    phi coefficient of the 2x2 table with ad - bc reduced by n/2 when it exceeds n/2, taken as 0
    when 0 <= ad - bc <= n/2, and left as it is when negative (0 too when a margin is empty).
    Checked against Newcombe's example (36, 12, 2, 0) and Fagerland, Lydersen and Laake (2017),
    Statistical Analysis of Contingency Tables, chapter 8 (tests/test_stats.py)."""
    if min(a, b, c, d) < 0:
        raise ValueError(f"counts must be non-negative, got {(a, b, c, d)}")
    n = a + b + c + d
    if n == 0:
        raise ValueError("no pairs")
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, confidence)
    l2, u2 = wilson_interval(a + c, n, confidence)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    adjusted = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    phi = adjusted / math.sqrt(margins) if margins else 0.0
    return correlated_difference((p1, l1, u1), (p2, l2, u2), phi)


def correlated_difference(first: tuple[float, float, float], second: tuple[float, float, float],
                          correlation: float) -> tuple[float, float, float]:
    """p1 - p2 from two (rate, low, high) whose estimates are correlated (MOVER, Zou and Donner
    2008, with the covariance term; Newcombe's paired method 10 when the intervals are Wilson's and
    the correlation is the phi coefficient). Returns (difference, low, high), within [-1, 1]."""
    (p1, l1, u1), (p2, l2, u2) = first, second
    r = max(-1.0, min(1.0, correlation))
    diff = p1 - p2
    down = (p1 - l1) ** 2 - 2 * r * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * r * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    low, high = diff - math.sqrt(max(down, 0.0)), diff + math.sqrt(max(up, 0.0))
    return diff, max(-1.0, min(low, diff)), min(1.0, max(high, diff))


def paired_t_interval(diffs: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of paired differences (one per case: new - old) with Student's t interval on n - 1
    degrees of freedom. Needs two differences or more; equal differences give a zero-width interval."""
    n = len(diffs)
    if n < 2:
        raise ValueError("need at least two paired differences")
    mean = math.fsum(diffs) / n  # exact: the order the cases arrived in (xdist) cannot matter
    var = math.fsum((x - mean) ** 2 for x in diffs) / (n - 1)
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def is_underpowered(n: int) -> bool:
    """Fewer than 30 scored observations: too few for the interval to mean much."""
    return n < UNDERPOWERED_N


def is_saturated(k: int, n: int) -> bool:
    """Every observation passed, or none did: the number says an invariant held, not how good."""
    return n > 0 and (k == 0 or k == n)


def mean_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean with a Student t interval. One value gives an interval of the value itself ± inf,
    clipped by the caller; zero values raise."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n  # fsum: exact, so the order values arrived in (xdist) cannot matter
    if n == 1:
        return mean, -math.inf, math.inf
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def unit_mean_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of scores in [0, 1] with the Wilson interval of (sum, n).

    A score in [0, 1] with mean p has variance at most p(1 - p), the variance of a pass/fail
    outcome with that rate, so the Wilson interval on the mean is conservative. Unlike a Student t
    interval it never collapses to zero width when every score is equal (ten scores of 1.0 give
    [0.722, 1.0], as ten passes do), and it stays inside [0, 1]."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    total = math.fsum(values)  # exact: the order values arrived in (xdist) cannot matter
    if not 0.0 <= total <= n:
        raise ValueError("scores must lie in [0, 1]")
    low, high = wilson_interval(min(float(n), total), n, confidence)  # type: ignore[arg-type]
    mean = total / n
    return mean, min(low, mean), max(high, mean)


@dataclass(frozen=True)
class MetricRow:
    """One line of the summary: a (tier, metric) with its sample size and interval."""

    tier: str
    metric: str
    kind: str  # "rate" (pass/fail outcomes) or "mean" (continuous scores)
    n: int  # scored observations
    k: int | None  # passes, for rates
    rate: float | None  # k/n, or the mean
    ci_low: float | None
    ci_high: float | None
    underpowered: bool
    saturated: bool
    unscored: int = 0
    # Nested observations (sentences in answers, facts in cases, mutants in sentences): how many
    # clusters they come from and the sample size the clusters are worth (clusters.py); the
    # interval above is then the clustered one. None when every cluster holds one observation.
    clusters: int | None = None
    effective_n: float | None = None
    # --sprout-labels (core/ppi.py): the rate people would give, and the judge against the labels
    corrected: dict[str, Any] | None = None
    judge_vs_labels: dict[str, Any] | None = None
    description: str | None = None  # what the metric measures, where its tier says (judges/ragas_tier.py)

    @property
    def saturated_at(self) -> str | None:
        """Which side a saturated row sits on: "all passed" (every observation passed, or every
        score is 1) or "all failed" (none passed, every score 0); None when not saturated."""
        if not self.saturated or self.rate is None:
            return None
        return "all passed" if self.rate >= 0.5 else "all failed"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if self.saturated_at is not None:  # only on saturated rows: which side they saturate at
            out["saturated_at"] = self.saturated_at
        if self.clusters is None:  # the fields appear only where observations are nested
            del out["clusters"], out["effective_n"]
        for key in ("corrected", "judge_vs_labels", "description"):  # and only where labels (a description) were given
            if out[key] is None:
                del out[key]
        return out


def _tier_rank(tier: str) -> tuple[int, str]:
    from .model import TIERS  # local: keeps this module importable on its own

    return (TIERS.index(tier) if tier in TIERS else len(TIERS), tier)


class Tally:
    """Outcomes per (tier, metric). A value is True/False (a pass or a fail), a float (a
    continuous score), or None (unscored: counted apart, never a pass or a fail)."""

    def __init__(self, confidence: float = 0.95) -> None:
        self.confidence = confidence
        self._values: dict[tuple[str, str], list[Any]] = {}
        self._clusters: dict[tuple[str, str], list[Hashable]] = {}  # one key per value, or None
        self._kinds: dict[tuple[str, str], str] = {}  # declared kinds ("mean"), for metrics never scored
        self._rows: list[MetricRow] | None = None  # rows(), until the next outcome is counted

    def add(self, tier: str, metric: str, value: Any, cluster: Hashable = None) -> None:
        """Count one outcome; ``cluster`` names what it is nested in (the answer of a sentence)."""
        self.extend(tier, metric, (value,), cluster)

    def declare(self, tier: str, metric: str, kind: str) -> None:
        """Say what kind a metric is ("rate" or "mean"), so that one with no scored value yet is
        shown as what it is (a mean with n=0), not as a rate 0/0."""
        self._kinds[(tier, metric)] = kind
        self._values.setdefault((tier, metric), [])
        self._rows = None

    def extend(self, tier: str, metric: str, values: Iterable[Any], cluster: Hashable = None) -> None:
        """Count each of ``values`` (as ``add``), in one go: a run counts every value of every row."""
        checked = []
        try:
            for value in values:
                kind = type(value)
                if kind is float:
                    if value != value:
                        value = None  # NaN is a judge that could not decide: unscored, never dropped
                elif value is not None and kind is not bool and not isinstance(value, (int, float)):
                    raise TypeError(f"{tier}.{metric}: outcome must be bool, float or None, got {value!r}")
                elif isinstance(value, float) and math.isnan(value):  # a float subclass
                    value = None
                checked.append(value)
        finally:  # the values before a refused one are counted, as one add() at a time counts them
            if checked:
                self._values.setdefault((tier, metric), []).extend(checked)
                self._clusters.setdefault((tier, metric), []).extend([cluster] * len(checked))
                self._rows = None

    def __bool__(self) -> bool:
        return bool(self._values)

    def values(self, tier: str, metric: str) -> list[Any]:
        return list(self._values.get((tier, metric), ()))

    def cluster_counts(self, tier: str, metric: str) -> list[tuple[float, int]] | None:
        """(sum, count) of the scored values per cluster, in first-seen order; None unless some
        cluster holds more than one scored value (the observations are not nested)."""
        sums: dict[Hashable, list[float]] = {}
        for value, cluster in zip(self._values.get((tier, metric), []), self._clusters.get((tier, metric), [])):
            if value is not None:
                cell = sums.setdefault(object() if cluster is None else cluster, [0.0, 0])
                cell[0] += float(value)
                cell[1] += 1
        if all(count == 1 for _, count in sums.values()):
            return None
        return [(total, int(count)) for total, count in sums.values()]

    def row(self, tier: str, metric: str) -> MetricRow:
        values = self._values.get((tier, metric), [])
        scored = [v for v in values if v is not None]
        unscored = len(values) - len(scored)
        n = len(scored)
        if n == 0 and self._kinds.get((tier, metric)) == "mean":
            return MetricRow(tier, metric, "mean", 0, None, None, None, None, True, False, unscored)
        nested = self.cluster_counts(tier, metric) if n else None
        if all(isinstance(v, bool) for v in scored):
            k = sum(scored)
            low, high = wilson_interval(k, n, self.confidence) if n else (None, None)
            row = MetricRow(
                tier, metric, "rate", n, k, (k / n if n else None), low, high,
                is_underpowered(n), is_saturated(k, n), unscored,
            )
            return _clustered(row, nested, self.confidence) if nested else row
        floats = [float(v) for v in scored]
        on_unit_scale = min(floats) >= 0.0 and max(floats) <= 1.0
        if on_unit_scale:
            mean, low, high = unit_mean_interval(floats, self.confidence)
        else:  # scores off the 0-1 scale: Student t, as for any mean
            mean, low, high = mean_interval(floats, self.confidence)
            if math.isinf(low) or math.isinf(high):
                low, high = None, None
        saturated = n > 0 and min(floats) == max(floats) and min(floats) in (0.0, 1.0)
        row = MetricRow(
            tier, metric, "mean", n, None, mean, low, high, is_underpowered(n), saturated, unscored
        )
        return _clustered(row, nested, self.confidence) if nested and on_unit_scale else row

    def rows(self) -> list[MetricRow]:
        """A row per (tier, metric), in the tiers' order; computed once until the next outcome
        (the controller asks for its report, its gates and its terminal table)."""
        if self._rows is None:
            keys = sorted(self._values, key=lambda key: (_tier_rank(key[0]), key[1]))
            self._rows = [self.row(tier, metric) for tier, metric in keys]
        return list(self._rows)


def _clustered(row: MetricRow, counts: list[tuple[float, int]], confidence: float) -> MetricRow:
    """The row with the clustered interval (clusters.py) and its flags on the effective n."""
    from dataclasses import replace

    c = clustered_interval(counts, confidence)
    return replace(row, ci_low=min(c.ci_low, row.rate or 0.0), ci_high=max(c.ci_high, row.rate or 0.0),
                   underpowered=is_underpowered(math.ceil(c.effective_n - 1e-9)),
                   clusters=c.clusters, effective_n=round(c.effective_n, 6))


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa for two raters over the same items, with an interval honest at the bounds.

    ``kappa`` (and its interval) is None when chance agreement is 1: both raters gave one and the
    same label to every item, so agreement beyond chance is undefined. When only one rater gave
    the same label to every item, kappa is 0 by construction and has no interval (None).
    """

    n: int
    observed: float | None  # percent agreement p_o
    expected: float | None  # chance agreement p_e from the two raters' marginals
    kappa: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def cohen_kappa(table: list[list[int]], confidence: float = 0.95) -> Kappa:
    """Cohen's kappa from a square contingency table (rows: rater A's label, columns: rater B's).

    The interval is kappa +- z * SE with the large-sample variance of Fleiss, Cohen and Everitt
    (1969, Psychological Bulletin 72:323), which does not assume kappa = 0, widened where needed to
    the observed agreement's Wilson interval mapped onto kappa (so 4 agreeing sentences give
    [0.02, 1.00], not [1.00, 1.00]); clipped to [-1, 1].
    """
    size = len(table)
    if size == 0 or any(len(row) != size for row in table):
        raise ValueError(f"need a non-empty square table, got {table!r}")
    if any(c < 0 for row in table for c in row):
        raise ValueError("counts must be non-negative")
    n = sum(sum(row) for row in table)
    if n == 0:
        return Kappa(0, None, None, None, None, None, None)
    p = [[c / n for c in row] for row in table]
    rows = [sum(p[i]) for i in range(size)]  # rater A's marginals, p_i.
    cols = [sum(p[i][j] for i in range(size)) for j in range(size)]  # rater B's marginals, p_.j
    po = sum(p[i][i] for i in range(size))
    pe = sum(rows[i] * cols[i] for i in range(size))
    if pe >= 1.0 - 1e-12:
        return Kappa(n, po, pe, None, None, None, None)
    kappa = (po - pe) / (1.0 - pe)
    if max(rows) >= 1.0 - 1e-12 or max(cols) >= 1.0 - 1e-12:
        return Kappa(n, po, pe, kappa, None, None, None)  # one constant rater: the variance degenerates
    diagonal = sum(p[i][i] * (1.0 - (rows[i] + cols[i]) * (1.0 - kappa)) ** 2 for i in range(size))
    off = (1.0 - kappa) ** 2 * sum(
        p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(size) for j in range(size) if i != j
    )
    variance = (diagonal + off - (kappa - pe * (1.0 - kappa)) ** 2) / (n * (1.0 - pe) ** 2)
    se = math.sqrt(max(variance, 0.0))
    half = z_value(confidence) * se
    # The large-sample SE is 0 at kappa = 1 or -1 (every item agrees, or none): from 4 sentences
    # it would claim [1.00, 1.00]. Kappa is (p_o - p_e) / (1 - p_e), so the Wilson interval of the
    # observed agreement p_o (honest at 0 and 1 and for small n) mapped through it bounds kappa
    # too; the interval is the hull of the two, the large-sample one wherever that is the wider.
    agree_low, agree_high = wilson_interval(sum(table[i][i] for i in range(size)), n, confidence)
    low = min(kappa - half, (agree_low - pe) / (1.0 - pe))
    high = max(kappa + half, (agree_high - pe) / (1.0 - pe))
    return Kappa(n, po, pe, kappa, se, max(-1.0, low), min(1.0, high))


# --- judge against human labels (the meta-evaluation) ------------------------------------------


@dataclass(frozen=True)
class Rate:
    """k of n, with its Wilson interval (None when n is 0)."""

    k: int
    n: int

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.k, self.n) if self.n else None

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval or (None, None)
        return {"k": self.k, "n": self.n, "value": self.value, "ci_low": low, "ci_high": high}


def balanced_accuracy(tpr: Rate, tnr: Rate, confidence: float = 0.95) -> tuple[float, float, float] | None:
    """(BA, low, high): the mean of the two class recalls, with the MOVER interval built from their
    Wilson intervals (Zou and Donner 2008). None unless both classes are present."""
    if not tpr.n or not tnr.n:
        return None
    r1, r2 = tpr.k / tpr.n, tnr.k / tnr.n
    l1, u1 = wilson_interval(tpr.k, tpr.n, confidence)
    l2, u2 = wilson_interval(tnr.k, tnr.n, confidence)
    ba = (r1 + r2) / 2
    low = ba - math.sqrt((r1 - l1) ** 2 + (r2 - l2) ** 2) / 2
    high = ba + math.sqrt((u1 - r1) ** 2 + (u2 - r2) ** 2) / 2
    return ba, max(0.0, low), min(1.0, high)


def roc_auc(scores: Sequence[float], labels: Sequence[bool], confidence: float = 0.95) -> tuple[float, float, float] | None:
    """(AUC, low, high): the probability that a supported claim scores above an unsupported one
    (ties count half; Mann-Whitney with mid-ranks), with the Hanley-McNeil (1982) standard error.
    None unless both classes are present."""
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    if not pos or not neg:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    auc = (rank_sum - pos * (pos + 1) / 2) / (pos * neg)
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (pos - 1) * (q1 - auc * auc) + (neg - 1) * (q2 - auc * auc)) / (pos * neg)
    half = z_value(confidence) * math.sqrt(max(var, 0.0))
    return auc, max(0.0, auc - half), min(1.0, auc + half)




def paired_ba_difference(
    labels: Sequence[bool], first: Sequence[bool | None], second: Sequence[bool | None],
    resamples: int = 2000, seed: int = 0, confidence: float = 0.95,
) -> dict[str, Any] | None:
    """Balanced accuracy of ``first`` minus that of ``second`` on the same examples, with a paired
    percentile bootstrap (resampling within each class, fixed seed). Unscored verdicts count as
    wrong for both. None unless both classes are present."""
    import random

    pos = [i for i, y in enumerate(labels) if y]
    neg = [i for i, y in enumerate(labels) if not y]
    if not pos or not neg:
        return None
    right_a = [(p is True) == y for p, y in zip(first, labels)]
    right_b = [(p is True) == y for p, y in zip(second, labels)]

    def diff(ps: Sequence[int], ns: Sequence[int]) -> float:
        da = sum(right_a[i] for i in ps) / len(ps) + sum(right_a[i] for i in ns) / len(ns)
        db = sum(right_b[i] for i in ps) / len(ps) + sum(right_b[i] for i in ns) / len(ns)
        return (da - db) / 2

    rng = random.Random(seed)
    draws = sorted(
        diff([rng.choice(pos) for _ in pos], [rng.choice(neg) for _ in neg]) for _ in range(resamples)
    )
    tail = (1 - confidence) / 2
    low, high = draws[int(tail * resamples)], draws[min(resamples - 1, int((1 - tail) * resamples))]
    return {"value": diff(pos, neg), "ci_low": low, "ci_high": high, "resamples": resamples, "seed": seed}
