"""The metric table as aligned text lines, with its notes on saturated and underpowered rows: the
terminal summary and the kill-rate table both lay out ``MetricRow``s this way. Plain Python."""

from __future__ import annotations

from typing import Iterable

from .stats import MetricRow

SATURATED_NOTE = (
    "saturated: every observation passed (or none did); the number says the check held on this "
    "set, not how good the system is, and the interval is all it can claim."
)
UNDERPOWERED_NOTE = "underpowered: fewer than 30 observations; read the interval, not the rate."


def flags(row: MetricRow) -> str:
    out = []
    if row.underpowered:
        out.append("underpowered")
    if row.saturated:
        out.append("saturated")
    if row.unscored:
        out.append(f"{row.unscored} unscored")
    return ", ".join(out)


def num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


TABLE_HEADER = ("tier", "metric", "k/n", "rate", "95% CI", "flags")


def format_table(rows: Iterable[MetricRow], header: tuple[str, ...] = TABLE_HEADER) -> list[str]:
    """The summary as aligned text lines: tier, metric, k/n, rate (or mean), 95% CI, flags."""
    rows = list(rows)
    body = []
    for r in rows:
        count = f"{r.k}/{r.n}" if r.kind == "rate" else f"n={r.n}"
        value = num(r.rate) + ("" if r.kind == "rate" else " mean")
        ci = "-" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        body.append((r.tier, r.metric, count, value, ci, flags(r)))
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    right = {2, 3}

    def fmt(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines = [fmt(header)] + [fmt(b) for b in body]
    if any(r.saturated for r in rows):
        lines.append(SATURATED_NOTE)
    if any(r.underpowered for r in rows):
        lines.append(UNDERPOWERED_NOTE)
    return lines
