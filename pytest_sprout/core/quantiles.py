"""Normal and Student t quantiles (and the t CDF), exact or to 1e-6: plain Python, no scipy."""

from __future__ import annotations

import math
from statistics import NormalDist


def z_value(confidence: float = 0.95) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def t_cdf(t: float, df: int) -> float:
    """Student t CDF for integer df, exact (Abramowitz and Stegun 26.7.3 and 26.7.4)."""
    theta = math.atan2(t, math.sqrt(df))
    c2, total, term = math.cos(theta) ** 2, 1.0, 1.0
    if df % 2 == 0:  # A = sin(theta) * (1 + 1/2 c^2 + 1*3/(2*4) c^4 + ...)
        for j in range(2, df - 1, 2):
            term *= c2 * (j - 1) / j
            total += term
        a = math.sin(theta) * total
    else:  # A = 2/pi * (theta + sin(theta) cos(theta) (1 + 2/3 c^2 + 2*4/(3*5) c^4 + ...))
        for j in range(3, df - 1, 2):
            term *= c2 * (j - 1) / j
            total += term
        a = 2 / math.pi * (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0))
    return (1.0 + a) / 2.0


def t_quantile(p: float, df: int) -> float:
    """Student t quantile: exact for df 1 and 2, the exact CDF inverted by bisection for df < 30,
    a Cornish-Fisher expansion above (error < 1e-6 for df >= 30)."""
    if df <= 0:
        raise ValueError("df must be positive")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if df < 30:
        lo, hi = -1e3, 1e3
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        return (lo + hi) / 2
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
