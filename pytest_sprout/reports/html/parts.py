"""The pieces every part of the HTML report draws with: escaping, number formatting, the CSS class
of an outcome, and the forest plot (a metric's rate and 95% interval as inline SVG). The bottom of
reports/html/: `sections` and `page` build on it."""

from __future__ import annotations

import html
import math
from typing import Any

from ...core.util import BIDI, bidi_escaped

# The CSS class that colours an outcome (page.STYLE defines them).
OUTCOME_CLASS = {"passed": "pass", "failed": "fail", "skipped": "skip", "unscored": "unsc"}


def outcome_class(outcome: str) -> str:
    return OUTCOME_CLASS.get(outcome, "")


def esc(value: Any) -> str:
    """Text or attribute-safe HTML for any value (quotes escaped too; bidi controls written as
    escapes, so an answer cannot reorder what the page shows)."""
    return html.escape(bidi_escaped("" if value is None else str(value)), quote=True)


def data_attr(value: Any) -> str:
    """A data attribute the page's script reads back as the text itself (a label names its sentence
    by it): HTML-escaped, with bidi controls as character references, so the page's source holds
    none raw and ``getAttribute`` still gives the exact text."""
    text = html.escape("" if value is None else str(value), quote=True)
    return BIDI.sub(lambda m: f"&#x{ord(m.group()):x};", text)


def num(value: Any, digits: int = 3) -> str:
    return "-" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value:.{digits}f}"


# --- forest plot -----------------------------------------------------------------------------

def axis_low(metrics: list[dict[str, Any]]) -> float:
    """Where a forest plot's axis starts: 0, or, when every point and interval sits at 0.5 or
    above, a multiple of 0.05 just below the lowest of them, so that intervals near 1.0 are wide
    enough to read (the axis labels say where it starts)."""
    lows = [v for m in metrics for v in (m.get("ci_low"), m.get("rate")) if isinstance(v, (int, float))]
    highs = [v for m in metrics for v in (m.get("ci_high"), m.get("rate")) if isinstance(v, (int, float))]
    if not lows or min(lows) < 0.5 or max(highs) > 1.0:
        return 0.0
    return max(0.0, math.floor((min(lows) - 0.01) * 20) / 20)


PLOT_LEFT, PLOT_WIDTH, ROW_H, TOP = 210, 420, 36, 26


def _x(value: float, low: float = 0.0) -> float:
    """The x position of a value on an axis from ``low`` to 1 (axis_low zooms it)."""
    return PLOT_LEFT + (max(low, min(1.0, value)) - low) / (1.0 - low) * PLOT_WIDTH


def forest_plot(tier: str, metrics: list[dict[str, Any]], gates: dict[str, float]) -> str:
    """An inline SVG: one line per metric, the point at the rate (or mean), the bar its 95%
    interval, a hollow point and an 'underpowered' label when n < 30, a 'saturated (all passed)' or
    'saturated (all failed)' label when every observation passed or none did, and a red tick at a --sprout-min bound."""
    low = axis_low(metrics)
    height = TOP + ROW_H * len(metrics) + 24 + (14 if low else 0)
    width = PLOT_LEFT + PLOT_WIDTH + 250
    out = [
        f'<svg class="forest" role="img" data-tier="{esc(tier)}" data-axis-low="{low:g}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{esc(tier)}: rate and 95% interval per metric</title>",
    ]
    bottom = TOP + ROW_H * len(metrics)
    for i in range(5):
        tick = low + (1.0 - low) * i / 4
        x = _x(tick, low)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{TOP - 8}" x2="{x:.1f}" y2="{bottom}"/>')
        out.append(f'<text class="muted" x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{round(tick, 4):g}</text>')
    if low:
        out.append(f'<text class="muted" x="{PLOT_LEFT}" y="{bottom + 30}">axis zoomed: it starts at {low:g}, '
                   "not 0, because every interval lies above it</text>")
    out.append(f'<line class="axis" x1="{PLOT_LEFT}" y1="{bottom}" x2="{PLOT_LEFT + PLOT_WIDTH}" y2="{bottom}"/>')
    out.append(f'<text class="muted" x="{PLOT_LEFT + PLOT_WIDTH + 10}" y="{TOP - 10}">k/n, rate, 95% CI</text>')
    for i, m in enumerate(metrics):
        y = TOP + ROW_H * i + ROW_H / 2
        name = str(m.get("metric"))
        out.append(f'<g class="metric" data-metric="{esc(name)}">')
        out.append(f'<text x="{PLOT_LEFT - 10}" y="{y + 4:.1f}" text-anchor="end">{esc(name)}</text>')
        rate, ci_lo, ci_hi, n = m.get("rate"), m.get("ci_low"), m.get("ci_high"), m.get("n") or 0
        count = f"{m.get('k')}/{n}" if m.get("kind") == "rate" else f"mean, n={n}"
        tip = f"{tier}.{name}: {count}, {num(rate)}, 95% CI [{num(ci_lo)}, {num(ci_hi)}]"
        if isinstance(ci_lo, (int, float)) and isinstance(ci_hi, (int, float)):
            x1, x2 = _x(ci_lo, low), _x(ci_hi, low)
            out.append(f'<line class="ci" x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}"><title>{esc(tip)}</title></line>')
            for xc in (x1, x2):
                out.append(f'<line class="ci" x1="{xc:.1f}" y1="{y - 5:.1f}" x2="{xc:.1f}" y2="{y + 5:.1f}"/>')
        if isinstance(rate, (int, float)):
            shape = "pt under" if m.get("underpowered") else "pt"
            out.append(f'<circle class="{shape}" cx="{_x(rate, low):.1f}" cy="{y:.1f}" r="5"><title>{esc(tip)}</title></circle>')
        else:
            out.append(f'<text class="muted" x="{PLOT_LEFT + 6}" y="{y + 4:.1f}">no scored observations</text>')
        if name in gates:
            gx = _x(gates[name], low)
            out.append(f'<line class="gate" x1="{gx:.1f}" y1="{y - 10:.1f}" x2="{gx:.1f}" y2="{y + 10:.1f}">'
                       f'<title>{esc(f"--sprout-min {tier}.{name}={gates[name]:g}")}</title></line>')
        flags = []
        if m.get("underpowered"):
            flags.append(("flag-under", "underpowered"))
        if m.get("saturated"):
            flags.append(("flag-sat", f"saturated ({m['saturated_at']})" if m.get("saturated_at") else "saturated"))
        if m.get("unscored"):
            flags.append(("muted", f"{m['unscored']} unscored"))
        if isinstance(rate, (int, float)) and not 0.0 <= rate <= 1.0:
            flags.append(("muted", "off the 0-1 scale"))
        label = f"{count}  {num(rate)}  [{num(ci_lo)}, {num(ci_hi)}]"
        tx = PLOT_LEFT + PLOT_WIDTH + 10
        out.append(f'<text x="{tx}" y="{y + (0 if flags else 4):.1f}">{esc(label)}</text>')
        if flags:
            text = "".join(f'<tspan class="{cls}">{esc(word)} </tspan>' for cls, word in flags)
            out.append(f'<text x="{tx}" y="{y + 13:.1f}" font-size="11">{text}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
