"""The HTML report: one self-contained file (inline CSS, SVG and a little JS; no network).

``render_html(report)`` turns the ``--sprout-report`` JSON (``build_report``'s dict, with the
``gates`` entry when gates ran) into a page: a forest plot per tier of every metric with its 95%
interval and its flags, the gates and the comparison with a baseline, then the items, failures
first, filterable by tier, suite and outcome, each row expandable to its sentences, citations,
evidence and reasons. Every value from the report is escaped.

The filters can be set from the URL fragment (``report.html#outcome=failed&tier=alce``), and
``expand=all`` opens every shown row. Once the script has run, ``<body>`` carries
``data-sprout-ready="1"``, ``data-shown`` (the number of rows the filters let through),
``data-plots``/``data-plots-drawn`` (forest plots, and those with a non-empty drawn box) and
``data-table-height`` (the laid-out height of the items table, in pixels) and ``data-page-width``
(the page's scroll width: no wider than the window when nothing overflows it).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable

from ...core.row import Row, as_rows
from ...core.util import short_hash
from ..markdown import INCOMPLETE_BANNER, OUTCOME_ORDER, item_reasons, outcome_counts
from ..safe_write import atomic_write_text
from . import sections
from .parts import esc, forest_plot, num as _num, outcome_class

# The page may load nothing from anywhere: no network, no CDN, no external asset.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d232a;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:15px;margin:16px 0 6px}
.meta{color:#4b5563;margin:0 0 12px}.meta code{font-size:12px}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;margin-right:4px;border:1px solid}
.b-under{color:#92400e;border-color:#f59e0b;background:#fef3c7}.b-sat{color:#5b21b6;border-color:#8b5cf6;background:#ede9fe}
.b-uns{color:#374151;border-color:#9ca3af;background:#f3f4f6}
.pass{color:#166534}.fail{color:#b91c1c;font-weight:600}.skip{color:#6b7280}.unsc{color:#92400e}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{background:#f9fafb;font-weight:600}
tr.item{cursor:pointer}tr.item:hover{background:#f8fafc}
tr.detail>td{background:#fbfbfd;padding:8px 16px 12px 40px}
button.toggle{border:0;background:none;cursor:pointer;font-size:13px;width:20px;padding:0}
.filters{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin:8px 0}
.filters label{font-size:13px;color:#374151}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:8px;border-radius:4px;font-size:12px;margin:4px 0}
.sent td{font-size:13px}.ev{color:#374151;font-style:italic}
svg.forest text{font:12px system-ui,sans-serif;fill:#1d232a}svg.forest .axis{stroke:#9ca3af}svg.forest .grid{stroke:#eef0f3}
svg.forest .ci{stroke:#1f4e8c;stroke-width:2}svg.forest .pt{fill:#1f4e8c;stroke:#1f4e8c;stroke-width:2}
svg.forest .pt.under{fill:#fff}svg.forest .flag-under{fill:#b45309}svg.forest .flag-sat{fill:#6d28d9}
svg.forest .muted{fill:#6b7280}svg.forest .gate{stroke:#b91c1c;stroke-width:2}
.note{color:#4b5563;font-size:13px;margin:4px 0}
"""

SCRIPT = """
(function () {
  var body = document.body;
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.item'));
  var pick = {tier: document.getElementById('f-tier'), suite: document.getElementById('f-suite'),
              outcome: document.getElementById('f-outcome')};
  var text = document.getElementById('f-text');
  var count = document.getElementById('shown');
  function setOpen(row, open) {
    row.setAttribute('aria-expanded', open ? 'true' : 'false');
    row.querySelector('button.toggle').textContent = open ? '\\u25be' : '\\u25b8';
    row.nextElementSibling.hidden = !open || row.hidden;
  }
  function apply() {
    var shown = 0, q = text.value.trim().toLowerCase();
    rows.forEach(function (row) {
      var ok = ['tier', 'suite', 'outcome'].every(function (key) {
        return !pick[key].value || row.getAttribute('data-' + key) === pick[key].value;
      }) && (!q || row.getAttribute('data-text').indexOf(q) >= 0);
      row.hidden = !ok;
      row.nextElementSibling.hidden = !ok || row.getAttribute('aria-expanded') !== 'true';
      if (ok) shown += 1;
    });
    count.textContent = shown + ' of ' + rows.length;
    body.setAttribute('data-shown', String(shown));
  }
  function saveHash() {
    var parts = [];
    ['tier', 'suite', 'outcome'].forEach(function (key) {
      if (pick[key].value) parts.push(key + '=' + encodeURIComponent(pick[key].value));
    });
    if (text.value) parts.push('q=' + encodeURIComponent(text.value));
    history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname + location.search);
  }
  var expandAll = false;
  location.hash.replace(/^#/, '').split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq < 0) return;
    var key = part.slice(0, eq), value;
    try { value = decodeURIComponent(part.slice(eq + 1)); } catch (e) { return; }  // a malformed %-escape: ignore that part
    if (pick[key]) {
      for (var i = 0; i < pick[key].options.length; i++) {
        if (pick[key].options[i].value === value) pick[key].value = value;
      }
    } else if (key === 'q') { text.value = value; }
    else if (key === 'expand' && value === 'all') { expandAll = true; }
  });
  rows.forEach(function (row) {
    row.addEventListener('click', function (event) {
      if (window.getSelection && String(window.getSelection()) && event.target.tagName !== 'BUTTON') return;
      setOpen(row, row.getAttribute('aria-expanded') !== 'true');
    });
  });
  Object.keys(pick).forEach(function (key) {
    pick[key].addEventListener('change', function () { apply(); saveHash(); });
  });
  text.addEventListener('input', function () { apply(); saveHash(); });
  document.getElementById('expand-all').addEventListener('click', function () {
    rows.forEach(function (row) { if (!row.hidden) setOpen(row, true); });
  });
  document.getElementById('collapse-all').addEventListener('click', function () {
    rows.forEach(function (row) { setOpen(row, false); });
  });
  apply();
  if (expandAll) rows.forEach(function (row) { if (!row.hidden) setOpen(row, true); });
  var plots = document.querySelectorAll('svg.forest'), drawn = 0;
  for (var p = 0; p < plots.length; p++) drawn += plots[p].getBBox().width > 0 ? 1 : 0;
  body.setAttribute('data-plots', String(plots.length));
  body.setAttribute('data-plots-drawn', String(drawn));
  body.setAttribute('data-table-height', String(Math.round(document.getElementById('item-table').getBoundingClientRect().height)));
  body.setAttribute('data-page-width', String(document.documentElement.scrollWidth));
  body.setAttribute('data-sprout-ready', '1');
})();
"""


# --- forest plot -----------------------------------------------------------------------------

# --- sections --------------------------------------------------------------------------------


def _header(report: dict[str, Any], items: list[Row]) -> str:
    system = report.get("system") or {}
    parts = [f"{n} {esc(k)}" for k, n in outcome_counts(items).items()]
    system_text = esc(" ".join(x for x in (system.get("name"), system.get("version")) if x)) or "unknown"
    return (
        "<header><h1>pytest-sprout report</h1>"
        f'<p class="meta">{len(items)} items: {", ".join(parts) or "none"} · system: {system_text} · '
        f'dataset <code>{esc(report.get("dataset_hash"))}</code> · pytest-sprout {esc(report.get("version"))}</p>'
        + _answers_source(report) + _citations(report) + "</header>"
    )


def _citations(report: dict[str, Any]) -> str:
    """The citations mode that ran, and the hint when no sentence cites a passage (core/citations.py)."""
    from ...core.citations import hint_line, mode_line

    settings = report.get("settings")
    line, hint = mode_line(settings), hint_line(settings)
    out = f'<p class="meta" id="citations-mode">{esc(line)}</p>' if line else ""
    return out + (f'<p class="meta warn" id="citations-hint">{esc(hint)}</p>' if hint else "")


def _answers_source(report: dict[str, Any]) -> str:
    """Whether the answers were replayed from a golden set or came from the system in this run."""
    if report.get("replayed_from"):
        golden = report.get("golden") or {}
        digest = f' (sha256 <code>{esc(short_hash(golden.get("sha256")))}</code>)' if golden.get("sha256") else ""
        return (f'<p class="meta" id="answers-source">answers replayed from the golden set '
                f'<code>{esc(report["replayed_from"])}</code>{digest}; the system was not called</p>')
    return '<p class="meta" id="answers-source">answers from the system, asked in this run</p>'


def _gates_section(gates: dict[str, Any] | None) -> str:
    if not gates:
        return ""
    out = []
    fail_on = gates.get("fail_on")
    if isinstance(fail_on, dict):
        out.append(sections.fail_on_section(fail_on))
    results = list(gates.get("min") or [])
    compare = gates.get("compare")
    if compare and compare.get("regression_gate"):
        results.append(compare["regression_gate"])
    if results:
        out.append('<section id="gates"><h2>Gates</h2><ul>')
        for r in results:
            cls, word = {True: ("pass", "pass"), False: ("fail", "FAIL"), None: ("skip", "not checked")}[r.get("passed")]
            out.append(f'<li><span class="{cls}">{word}</span> {esc(r.get("message"))}</li>')
        out.append("</ul></section>")
    if compare:
        out.append(sections.compare_section(compare))
    return "\n".join(out)


def _plots_section(report: dict[str, Any]) -> str:
    metrics = report.get("metrics") or []
    if not metrics:
        return '<section id="metrics"><h2>Metrics</h2><p>No sprout items ran.</p></section>'
    gates: dict[str, dict[str, float]] = {}
    for g in (report.get("gates") or {}).get("min") or []:
        if isinstance(g.get("value"), (int, float)) and "." in str(g.get("gate")):
            tier, metric = str(g["gate"]).split(".", 1)
            gates.setdefault(tier, {})[metric] = float(g["value"])
    tiers: dict[str, list[dict[str, Any]]] = {}
    for m in metrics:
        tiers.setdefault(str(m.get("tier")), []).append(m)
    out = ['<section id="metrics"><h2>Metrics</h2>',
           '<p class="note">Point: the rate (or mean); bar: its 95% interval (Wilson for rates). '
           '<span class="badge b-under">underpowered</span> fewer than 30 observations: read the interval, '
           'not the rate (hollow point). <span class="badge b-sat">saturated (all passed)</span> every observation '
           'passed: the check held on this set, which says nothing about how good the system is. '
           '<span class="badge b-sat">saturated (all failed)</span> every observation failed: the check never '
           'held on this set; read the failures\' reasons.</p>']
    for tier, rows in tiers.items():
        out.append(f'<div class="tier" id="tier-{esc(tier)}"><h3>{esc(tier)}</h3>')
        out.append(forest_plot(tier, rows, gates.get(tier, {})))
        out += [f'<p class="note"><b>{esc(m.get("metric"))}</b>: {esc(m["description"])}</p>'
                for m in rows if isinstance(m.get("description"), str)]  # what a metric counts, where its tier says
        out.append("</div>")
    out.append("</section>")
    return "\n".join(out)


def _metric_summary(metrics: dict[str, list[Any]]) -> str:
    parts = []
    for name, values in metrics.items():
        scored = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
        if not scored:
            parts.append(f"{name} unscored")
        elif all(isinstance(v, bool) for v in scored):
            parts.append(f"{name} {sum(scored)}/{len(scored)}")
        else:
            parts.append(f"{name} {sum(float(v) for v in scored) / len(scored):.3f}")
    return " · ".join(parts)


def _verdict_word(value: Any) -> tuple[str, str]:
    return {True: ("pass", "supported"), False: ("fail", "unsupported")}.get(value, ("unsc", "unscored"))


def _detail(row: Row) -> str:
    out = []
    if row.error:
        out.append(f"<p><b>the system raised:</b></p><pre>{esc(row.error)}</pre>")
    if row.note:
        out.append(f'<p class="note">{esc(row.note)}</p>')
    sentences = row.sentences or []
    if sentences:
        out.append('<table class="sent"><thead><tr><th>#</th><th>sentence</th><th>cites</th><th>verdict</th>'
                   "<th>score</th><th>rule</th><th>reason</th><th>best evidence</th></tr></thead><tbody>")
        for i, s in enumerate(sentences, 1):
            cls, word = _verdict_word(s.get("supported"))
            cites = ", ".join(str(c) for c in s.get("citations") or []) or (
                "none; judged against the retrieved passages" if s.get("judged_against") == "retrieved" else "none")
            missing = s.get("missing_citations")
            if missing:
                cites += f" (not retrieved: {', '.join(str(c) for c in missing)})"
            out.append(
                f'<tr><td>{i}</td><td>{esc(s.get("text"))}</td><td>{esc(cites)}</td><td class="{cls}">{word}</td>'
                f'<td>{_num(s.get("score"), 2)}</td><td>{esc(s.get("rule") or "")}</td><td>{esc(s.get("reason"))}</td>'
                f'<td class="ev">{esc(s.get("evidence") or "")}</td></tr>'
            )
        out.append("</tbody></table>")
    elif not row.error:
        out.append('<p class="note">no sentences judged (a refusal, or the tier judges the answer as a whole)</p>')
    if row.extra:
        out.append(f"<pre>{esc(json.dumps(row.extra, indent=2, sort_keys=True, ensure_ascii=False))}</pre>")
    out.append(f'<p class="note">node id: <code>{esc(row.nodeid)}</code></p>')
    return "".join(out)


def _select(ident: str, label: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return f'<label>{label} <select id="{ident}"><option value="">all</option>{options}</select></label>'


def _items_section(items: list[Row]) -> str:
    ordered = sorted(items, key=lambda r: (OUTCOME_ORDER.get(str(r.outcome), 9), str(r.nodeid)))
    tiers = sorted({str(r.tier) for r in items})
    suites = sorted({str(r.suite) for r in items})
    outcomes = sorted({str(r.outcome) for r in items}, key=lambda o: OUTCOME_ORDER.get(o, 9))
    out = [
        '<section id="items"><h2>Items</h2><div class="filters">',
        _select("f-tier", "tier", tiers), _select("f-suite", "suite", suites), _select("f-outcome", "outcome", outcomes),
        '<label>search <input id="f-text" type="search" placeholder="case id or text"></label>',
        '<button id="expand-all" type="button">expand all</button><button id="collapse-all" type="button">collapse all</button>',
        f'<span>showing <b id="shown">{len(items)} of {len(items)}</b></span></div>',
        '<table id="item-table"><thead><tr><th></th><th>outcome</th><th>tier</th><th>suite</th><th>case</th>'
        "<th>metrics</th><th>note</th></tr></thead><tbody>",
    ]
    for i, row in enumerate(ordered):
        outcome = str(row.outcome)
        search = " ".join(str(getattr(row, k) or "") for k in ("case_id", "suite", "tier", "note", "error"))
        search += " " + " ".join(str(s.get("text") or "") for s in row.sentences or [])
        reasons = item_reasons(row) if outcome != "passed" else []
        search += " " + str(row.question or "") + " " + " ".join(reasons)
        note = row.error or row.note or "; ".join(reasons[:2]) + (" ..." if len(reasons) > 2 else "")
        out.append(
            f'<tr class="item" id="i{i}" aria-expanded="false" data-tier="{esc(row.tier)}" '
            f'data-suite="{esc(row.suite)}" data-outcome="{esc(outcome)}" data-text="{esc(search.lower())}">'
            f'<td><button class="toggle" type="button" aria-controls="d{i}" title="show sentences">&#9656;</button></td>'
            f'<td class="{outcome_class(outcome)}">{esc(outcome)}{sections.known_badge(row)}</td><td>{esc(row.tier)}</td>'
            f'<td>{esc(row.suite)}</td><td>{esc(row.case_id)}</td>'
            f'<td>{esc(_metric_summary(row.metrics or {}))}</td><td>{esc(note)}</td></tr>'
            f'<tr class="detail" id="d{i}" hidden><td colspan="7">{_detail(row)}</td></tr>'
        )
    out.append("</tbody></table></section>")
    return "\n".join(out)


def render_html(report: dict[str, Any]) -> str:
    """The whole page as one string."""
    from . import labelling

    items = list(as_rows(report.get("items") or []))
    banner = ""
    if report.get("complete") is False:
        banner = f'<p class="fail" id="incomplete" role="alert">{esc(INCOMPLETE_BANNER)}</p>'
    body = "\n".join([
        _header(report, items), banner, _gates_section(report.get("gates")), _plots_section(report),
        sections.labels_section(report), sections.suites_section(items), sections.mutation_section(report),
        sections.agreement_section(report), sections.cases_section(items), _items_section(items),
        labelling.labelling_section(report, items),
    ])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>pytest-sprout report</title><style>{STYLE}{sections.STYLE}{labelling.STYLE}</style></head>\n"
        f"<body>\n{body}\n<script>{SCRIPT}{labelling.SCRIPT}</script>\n</body></html>\n"
    )


def write_html(path: str | os.PathLike[str], report: dict[str, Any]) -> None:
    atomic_write_text(path, render_html(report))
