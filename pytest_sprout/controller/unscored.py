"""--sprout-max-unscored: a tier whose judge mostly could not decide fails the run.

An unscored item is counted apart, never as a pass or a fail; but a tier in which nothing was
scored (the endpoint was down, the key was rejected) measured nothing, and a run that says so only
in a footnote would pass. Per tier, over the items that reached the judge, this fails the tier when
nothing was scored, or when more than ``max_fraction`` of them were unscored, with a one-line
reason: the most common reason the judge gave. Plain Python over report rows.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from .gates import GateResult
from ..core.row import Row, as_rows


def reasons(row: Row) -> list[str]:
    """Why an unscored row was not scored: the tier's per-metric reasons, else its note."""
    detail = (row.extra or {}).get("unscored")
    if isinstance(detail, dict) and detail:
        return [str(v) for v in detail.values()]
    note = str(row.note or "unscored")
    return [note.removeprefix("unscored: ")]


def check(items: Iterable[Row | dict[str, Any]], max_fraction: float) -> list[GateResult]:
    judged: Counter[str] = Counter()
    unscored: Counter[str] = Counter()
    why: dict[str, Counter[str]] = {}
    for row in as_rows(items):
        if row.outcome not in ("passed", "failed", "unscored"):
            continue  # errored, skipped (refusals, unavailable tier): never judged
        tier = str(row.tier)
        judged[tier] += 1
        if row.unscored:
            unscored[tier] += 1
            why.setdefault(tier, Counter()).update(reasons(row))
    results = []
    for tier in sorted(judged):
        total, none = judged[tier], unscored[tier]
        if not none:
            continue
        reason = why[tier].most_common(1)[0][0]
        if none == total:
            message = f"{tier}: FAILED: nothing was scored ({none} of {total} judged items unscored): {reason}"
        elif none / total > max_fraction:
            message = (f"{tier}: FAILED: {none} of {total} judged items unscored ({none / total:.0%}, more than "
                       f"--sprout-max-unscored={max_fraction:g}): {reason}")
        else:
            continue
        results.append(GateResult(f"{tier}.unscored", False, message, max_fraction))
    return results
