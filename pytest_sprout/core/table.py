"""The metric table as aligned text lines, with its notes on saturated and underpowered rows: the
terminal summary and the kill-rate table both lay out ``MetricRow``s this way. Plain Python."""

from __future__ import annotations

from typing import Iterable

from .stats import MetricRow

SATURATED_NOTE = (
    "saturated (all passed): every observation passed; the number says the check held on this "
    "set, not how good the system is, and the interval is all it can claim."
)
SATURATED_FAILED_NOTE = (
    "saturated (all failed): every observation failed; the check never held on this set (read the "
    "failures' reasons), and the interval is all it can claim."
)
# How a flag names the two sides of a saturated row (a kill-rate table says "all killed" instead).
SIDES = {"all passed": "all passed", "all failed": "all failed"}
UNDERPOWERED_NOTE = "underpowered: fewer than 30 observations; read the interval, not the rate."
CLUSTERS_NOTE = (
    "clusters: the answers (or cases, or sentences) nested observations come from; their interval "
    "counts what the clusters are worth, not each observation as independent."
)


def flags(row: MetricRow, sides: dict[str, str] = SIDES) -> str:
    out = []
    if row.underpowered:
        out.append("underpowered")
    if row.saturated:
        out.append(f"saturated ({sides[row.saturated_at]})" if row.saturated_at else "saturated")
    if row.unscored:
        out.append(f"{row.unscored} unscored")
    return ", ".join(out)


def num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


TABLE_HEADER = ("tier", "metric", "k/n", "rate", "95% CI", "flags")


def corrected_cells(row: MetricRow, nested: bool = False) -> tuple[str, ...]:
    """The line under a labelled metric: the rate people would give, corrected by the labels."""
    c = row.corrected or {}
    ci = f"[{c['ci_low']:.3f}, {c['ci_high']:.3f}]"
    flag = "underpowered" if c.get("underpowered") else ""
    labels = f"{c['n_labels']} label" + ("s" if c["n_labels"] != 1 else "")
    cells = ("", "  corrected by labels", labels, num(c["rate"]), ci, flag)
    return (*cells[:3], "", *cells[3:]) if nested else cells


def saturated_notes(rows: Iterable[MetricRow]) -> list[str]:
    """The notes for the saturated rows among ``rows``: one per side that occurs."""
    sides = {r.saturated_at for r in rows if r.saturated}
    return [note for side, note in (("all passed", SATURATED_NOTE), ("all failed", SATURATED_FAILED_NOTE))
            if side in sides]


def format_table(rows: Iterable[MetricRow], header: tuple[str, ...] = TABLE_HEADER,
                 sides: dict[str, str] = SIDES) -> list[str]:
    """The summary as aligned text lines: tier, metric, k/n, rate (or mean), 95% CI, flags; with
    a clusters column after k/n when a metric's observations are nested (sentences in answers)."""
    rows = list(rows)
    nested = any(r.clusters is not None for r in rows)
    body = []
    for r in rows:
        count = f"{r.k}/{r.n}" if r.kind == "rate" else f"n={r.n}"
        value = num(r.rate) + ("" if r.kind == "rate" else " mean")
        ci = "-" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        cells: tuple[str, ...] = (r.tier, r.metric, count, value, ci, flags(r, sides))
        if nested:
            cells = (*cells[:3], "" if r.clusters is None else str(r.clusters), *cells[3:])
        body.append(cells)
        if r.corrected is not None:
            body.append(corrected_cells(r, nested))
    if nested:
        header = (*header[:3], "clusters", *header[3:])
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    right = {2, 3, 4} if nested else {2, 3}

    def fmt(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines = [fmt(header)] + [fmt(b) for b in body]
    lines += saturated_notes(rows)
    if any(r.underpowered for r in rows):
        lines.append(UNDERPOWERED_NOTE)
    if nested:
        lines.append(CLUSTERS_NOTE)
    return lines
