"""Intervals for nested observations: sentences in answers, facts in cases, mutants in sentences.

The sentences of one answer come from one generation and one retrieval, so they tend to be right
or wrong together: 40 answers of 5 sentences carry less than 200 independent observations. The
interval here is Wilson's on the effective sample size n / deff, with the design effect deff
estimated from the clusters (Kish 1965): the cluster-robust variance of the ratio k/n,

    V = C / (C - 1) * sum_c (k_c - p n_c)^2 / n^2,

over the binomial variance p (1 - p) / n, never below 1; and the t quantile on C - 1 degrees of
freedom in place of z, since the variance is estimated from C clusters. When every observation is
equal the design effect cannot be estimated, and the interval is Wilson's on the number of clusters
(as if every answer's sentences agreed, which is what the data show).

Why not a cluster bootstrap: it needs a seed and thousands of resamples, and at a rate of 0 or 1
every resample agrees, so its interval collapses to zero width exactly where an honest one is
widest. This one is closed-form, deterministic, built from per-cluster (k, n) sums (so xdist gives
the same numbers in any order), stays inside [0, 1] and keeps Wilson's behaviour at the bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .quantiles import t_quantile, z_value


def wilson_z(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's interval for a rate p observed over n (possibly fractional) trials, quantile z."""
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / denom
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


@dataclass(frozen=True)
class Clustered:
    k: float  # successes: a sum of per-cluster scores, so possibly fractional
    n: int
    clusters: int
    design_effect: float
    effective_n: float
    ci_low: float
    ci_high: float


def clustered_interval(counts: Sequence[tuple[float, int]], confidence: float = 0.95) -> Clustered:
    """(k_c, n_c) per cluster: the rate's interval accounting for within-cluster correlation."""
    counts = [(k, n) for k, n in counts if n > 0]
    if any(k < 0 or k > n for k, n in counts):
        raise ValueError(f"need 0 <= k <= n in every cluster, got {counts!r}")
    k = sum(c[0] for c in counts)
    n = sum(c[1] for c in counts)
    clusters = len(counts)
    if n == 0:
        return Clustered(0, 0, 0, 1.0, 0.0, 0.0, 1.0)
    p = k / n
    z = z_value(confidence) if clusters < 2 else t_quantile(1 - (1 - confidence) / 2, clusters - 1)
    if k in (0, n) or clusters < 2:
        deff = n / clusters
    else:
        robust = clusters / (clusters - 1) * math.fsum((kc - p * nc) ** 2 for kc, nc in counts) / (n * n)
        deff = max(1.0, robust / (p * (1 - p) / n))
    effective = n / deff
    low, high = wilson_z(p, effective, z)
    return Clustered(k, n, clusters, deff, effective, low, high)
