"""Your labels correct the judge: prediction-powered estimates of the rate people would give, and
the judge's sensitivity and specificity against those labels. Pure Python, no pytest.

Two estimators, one idea (Angelopoulos et al., Science 2023; PPI++: Angelopoulos, Duchi and Zrnic
2023). A few items carry a human label Y beside the judge's verdict f; every item carries f. The
judge's mean over all items is corrected by the mean error (Y - lambda f) on the labelled ones:

    theta = lambda * mean_all(f) + mean_labelled(Y - lambda * f)

``ppi_mean`` is PPI++ for a mean with any judge score in [0, 1]: lambda is power-tuned to
Cov(Y, f) / ((1 + n/N) Var(f)) (clipped to [0, 1], so 0 gives the labels alone), with a normal
interval. ``corrected_rate`` is what the plugin uses for yes/no verdicts: with a binary f, the
power-tuned (regression) estimator with f's mean over all items is exactly the rate people give
within each verdict, weighted by that verdict's share of all items (the labels stratified by the
judge's verdict). Computed that way it is valid whether the labels are a simple random sample or a
sample stratified by verdict (``--sprout-label-sample`` oversamples rare rejections), and its
interval is built from each verdict's Wilson interval (MOVER, Zou and Donner 2008) plus the
uncertainty of the verdicts' shares, so that it stays honest at 0 and 1 and for a handful of
labels where a normal interval would collapse to zero width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .stats import UNDERPOWERED_N, Rate, wilson_interval, z_value

CORRECTED_METHOD = "ppi++ (labels stratified by the judge's verdict; Wilson-MOVER interval)"


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _var(values: Sequence[float]) -> float:
    """Sample variance (n - 1); 0 for one value."""
    if len(values) < 2:
        return 0.0
    m = _mean(values)
    return math.fsum((v - m) ** 2 for v in values) / (len(values) - 1)


def _cov(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) < 2:
        return 0.0
    ma, mb = _mean(a), _mean(b)
    return math.fsum((x - ma) * (y - mb) for x, y in zip(a, b)) / (len(a) - 1)


@dataclass(frozen=True)
class PPIEstimate:
    rate: float
    ci_low: float
    ci_high: float
    lam: float  # the power-tuning weight on the judge (0: labels alone, 1: classic PPI)
    n_labels: int
    n_unlabelled: int


def ppi_mean(
    labels: Sequence[float], judged_labelled: Sequence[float], judged_unlabelled: Sequence[float],
    confidence: float = 0.95, lam: float | None = None,
) -> PPIEstimate:
    """PPI++ estimate of the mean of Y (Angelopoulos, Duchi and Zrnic 2023, mean estimation).

    ``labels`` and ``judged_labelled`` are Y and f on the n labelled items, ``judged_unlabelled`` f
    on the N others. theta = mean_n(Y) + lambda (mean_N(f) - mean_n(f)); its variance is
    Var(Y - lambda f)/n + lambda^2 Var(f)/N; lambda = Cov(Y, f) / ((1 + n/N) Var(f)) minimises it
    (clipped to [0, 1]) unless given."""
    n, big_n = len(labels), len(judged_unlabelled)
    if n == 0 or len(judged_labelled) != n:
        raise ValueError("need at least one label, with one judge score per label")
    if big_n == 0:
        lam = 0.0 if lam is None else lam
    if lam is None:
        var_f = _var(list(judged_labelled) + list(judged_unlabelled))
        lam = 0.0 if var_f == 0 else _cov(labels, judged_labelled) / ((1 + n / big_n) * var_f)
        lam = min(1.0, max(0.0, lam))
    residual = [y - lam * f for y, f in zip(labels, judged_labelled)]
    rate = _mean(residual) + (lam * _mean(judged_unlabelled) if big_n else 0.0)
    variance = _var(residual) / n + (lam * lam * _var(judged_unlabelled) / big_n if big_n else 0.0)
    half = z_value(confidence) * math.sqrt(variance)
    return PPIEstimate(rate, max(0.0, rate - half), min(1.0, rate + half), lam, n, big_n)


@dataclass(frozen=True)
class Stratum:
    """The items one judge verdict covers: how many (all of this run's), the judge's value on
    them (1.0 supported, 0.0 not), and how many of them carry a label and how many of those
    people call supported."""

    items: int
    judge: float
    labelled: int = 0
    supported: int = 0


@dataclass(frozen=True)
class Corrected:
    """The corrected rate of one metric: ``metrics[*].corrected`` in the JSON report."""

    rate: float
    ci_low: float
    ci_high: float
    n_labels: int
    method: str = CORRECTED_METHOD

    @property
    def underpowered(self) -> bool:
        return self.n_labels < UNDERPOWERED_N

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "n_labels": self.n_labels, "method": self.method, "underpowered": self.underpowered}


def corrected_rate(strata: Sequence[Stratum], confidence: float = 0.95) -> Corrected | None:
    """The rate people would give every item, from the labels within each judge verdict.

    theta = sum_s W_s p_s, W_s the share of all items with verdict s and p_s the share of its
    labelled items people call supported (the judge's own value where a verdict has no label:
    nothing corrects it, and its Wilson interval [0, 1] says so). The interval's half-widths are
    sqrt(sum_s W_s^2 (p_s - l_s)^2 + B) below and the same with u_s above, (l_s, u_s) the Wilson
    interval of p_s, and B = sum_s W_s (p_s - theta)^2 / N the variance of the shares estimated
    from N items. None without labels."""
    total = sum(s.items for s in strata)
    labelled = sum(s.labelled for s in strata)
    if labelled == 0 or total == 0:
        return None
    if any(s.labelled > s.items or not 0 <= s.supported <= s.labelled for s in strata):
        raise ValueError(f"impossible strata {strata!r}")
    parts = []
    for s in strata:
        weight = s.items / total
        p = s.supported / s.labelled if s.labelled else s.judge
        low, high = wilson_interval(s.supported, s.labelled, confidence)
        parts.append((weight, p, min(low, p), max(high, p)))
    rate = math.fsum(w * p for w, p, _, _ in parts)
    shares = math.fsum(w * (p - rate) ** 2 for w, p, _, _ in parts) / total
    below = math.sqrt(math.fsum((w * (p - lo)) ** 2 for w, p, lo, _ in parts) + shares)
    above = math.sqrt(math.fsum((w * (hi - p)) ** 2 for w, p, _, hi in parts) + shares)
    return Corrected(rate, max(0.0, rate - below), min(1.0, rate + above), labelled)


def strata_of(pairs: Sequence[tuple[bool, bool]], verdicts: Mapping[bool, int]) -> list[Stratum]:
    """Strata from (judge verdict, label) pairs of the labelled items and the count of every
    item's verdict ({True: supported, False: not})."""
    out = []
    for verdict in (True, False):
        mine = [label for judged, label in pairs if judged is verdict]
        out.append(Stratum(verdicts.get(verdict, 0), 1.0 if verdict else 0.0, len(mine), sum(mine)))
    return out


@dataclass(frozen=True)
class JudgeVsLabels:
    """The judge against people's labels on the labelled items: ``metrics[*].judge_vs_labels``.

    sensitivity: of the items people call supported, the share the judge calls supported;
    specificity: of the items people call unsupported, the share the judge rejects."""

    sensitivity: Rate
    specificity: Rate

    @property
    def misses_most_unsupported(self) -> bool:
        """The judge's specificity is below one half even at its interval's upper bound."""
        interval = self.specificity.interval
        return interval is not None and interval[1] < 0.5

    def to_json(self) -> dict[str, Any]:
        return {"sensitivity": self.sensitivity.to_json(), "specificity": self.specificity.to_json(),
                "misses_most_unsupported": self.misses_most_unsupported}


def judge_vs_labels(pairs: Sequence[tuple[bool, bool]]) -> JudgeVsLabels:
    """From (judge verdict, label) pairs."""
    positives = [judged for judged, label in pairs if label]
    negatives = [judged for judged, label in pairs if not label]
    return JudgeVsLabels(Rate(sum(positives), len(positives)), Rate(len(negatives) - sum(negatives), len(negatives)))
