"""Paired differences between two runs over the same cases (layer 0, core: plain Python).

Each pair is one item judged in both runs: its scored values in the old run and in the new (a
rate's pass/fail outcomes, a mean's scores). The difference is always new - old.

- A rate with one outcome per item on both sides (a per-item pass rate) is a paired 2x2 table:
  Newcombe's method 10 for paired proportions (``stats.newcombe_paired_interval``).
- A rate whose observations are nested in items (sentences of an answer, facts of a case) pairs
  at the item level: each side's rate is the ratio of its sums, its interval the clustered Wilson
  interval (clusters.py), and the two are combined as method 10 combines its Wilson intervals
  (MOVER, Zou and Donner 2008), with the correlation of the two runs' per-item residuals
  k_i - p n_i in place of phi. With one observation per item that correlation is phi itself, so
  the method reduces to method 10 (less Newcombe's small-sample shrinkage of phi).
- A mean pairs by item too: a paired t interval over the per-item differences; with several
  values per item, over the items' linearised contributions to the difference of the two pooled
  means (the cluster-robust analogue, which is the plain paired t when each item has one value).

No seed, no resampling: the same rows give the same interval in any order (xdist).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from .clusters import clustered_interval
from .stats import correlated_difference, newcombe_paired_interval, paired_t_interval

Pair = tuple[Sequence[Any], Sequence[Any]]  # (old values, new values) of one item, unscored ones left out

RATE_METHOD = "newcombe paired (method 10)"
CLUSTERED_RATE_METHOD = "newcombe paired (method 10, clustered by case)"
MEAN_METHOD = "paired t"
CLUSTERED_MEAN_METHOD = "paired t (clustered by case)"


@dataclass(frozen=True)
class Paired:
    """new - old over ``pairs`` items judged in both runs, with its 95% interval (None: none)."""

    delta: float
    low: float | None
    high: float | None
    method: str
    old: str  # what the old run scored on these items, for display ("k/n", "mean (n=..)")
    new: str
    pairs: int


def scored(values: Sequence[Any]) -> list[Any]:
    """The values that count: True/False and finite numbers (None and NaN are unscored)."""
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def paired_rate(pairs: Sequence[Pair], confidence: float = 0.95) -> Paired | None:
    """The paired difference of a pass/fail rate; None without a pair scored on both sides."""
    cells = [(sum(bool(v) for v in old), len(old), sum(bool(v) for v in new), len(new)) for old, new in pairs]
    cells = [c for c in cells if c[1] and c[3]]
    if not cells:
        return None
    k_old, n_old = sum(c[0] for c in cells), sum(c[1] for c in cells)
    k_new, n_new = sum(c[2] for c in cells), sum(c[3] for c in cells)
    shown = (f"{k_old}/{n_old}", f"{k_new}/{n_new}")
    if all(c[1] == 1 and c[3] == 1 for c in cells):
        both = sum(1 for c in cells if c[0] and c[2])
        new_only = sum(1 for c in cells if c[2] and not c[0])
        old_only = sum(1 for c in cells if c[0] and not c[2])
        neither = len(cells) - both - new_only - old_only
        # the first classification is the new run: method 10's p1 - p2 is new - old
        d, low, high = newcombe_paired_interval(both, new_only, old_only, neither, confidence)
        return Paired(d, low, high, RATE_METHOD, *shown, len(cells))
    p_new, p_old = k_new / n_new, k_old / n_old
    side_new = clustered_interval([(c[2], c[3]) for c in cells], confidence)
    side_old = clustered_interval([(c[0], c[1]) for c in cells], confidence)
    r = _residual_correlation([(c[2] - p_new * c[3], c[0] - p_old * c[1]) for c in cells])
    d, low, high = correlated_difference((p_new, side_new.ci_low, side_new.ci_high),
                                         (p_old, side_old.ci_low, side_old.ci_high), r)
    return Paired(d, low, high, CLUSTERED_RATE_METHOD, *shown, len(cells))


def _residual_correlation(residuals: Sequence[tuple[float, float]]) -> float:
    """Pearson's correlation of the two runs' per-item residuals (0 when either side has none)."""
    xx = math.fsum(x * x for x, _ in residuals)
    yy = math.fsum(y * y for _, y in residuals)
    if xx <= 0 or yy <= 0:
        return 0.0
    return math.fsum(x * y for x, y in residuals) / math.sqrt(xx * yy)


def paired_mean(pairs: Sequence[Pair], confidence: float = 0.95) -> Paired | None:
    """The paired difference of a mean score; None without a pair scored on both sides. With
    fewer than two pairs there is a difference but no interval."""
    cells = [([float(v) for v in old], [float(v) for v in new]) for old, new in pairs]
    cells = [(old, new) for old, new in cells if old and new]
    if not cells:
        return None
    n_old, n_new = sum(len(old) for old, _ in cells), sum(len(new) for _, new in cells)
    m_old = math.fsum(v for old, _ in cells for v in old) / n_old
    m_new = math.fsum(v for _, new in cells for v in new) / n_new
    shown = (f"{m_old:.3f} (n={n_old})", f"{m_new:.3f} (n={n_new})")
    nested = any(len(old) != 1 or len(new) != 1 for old, new in cells)
    method = CLUSTERED_MEAN_METHOD if nested else MEAN_METHOD
    if len(cells) < 2:
        return Paired(m_new - m_old, None, None, f"{method}: no interval (needs 2+ paired cases)", *shown, len(cells))
    count = len(cells)
    if nested:
        # each item's share of the difference of the two pooled means, as a paired difference
        diff = m_new - m_old
        values = [diff + count * (math.fsum(new) - m_new * len(new)) / n_new
                  - count * (math.fsum(old) - m_old * len(old)) / n_old for old, new in cells]
    else:
        values = [new[0] - old[0] for old, new in cells]
    d, low, high = paired_t_interval(values, confidence)
    return Paired(d, low, high, method, *shown, len(cells))
