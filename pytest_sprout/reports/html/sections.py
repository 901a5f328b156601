"""Sections of the HTML report that bring results together: one view per case (its question,
answer, passages and every tier's outcome with its reasons, failing cases first), a per-suite
table with intervals, the mutation kill rates and the agreement between tiers. Each function
takes the JSON report (or its items) and returns escaped HTML; `page` places them."""

from __future__ import annotations

from typing import Any, Iterable

from ...core.row import Row
from ..markdown import OUTCOME_ORDER, item_reasons, suite_rows
from .parts import esc, forest_plot, num as _num, outcome_class as _outcome_cls

STYLE = """
details.case{border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:4px 10px}
details.case>summary{cursor:pointer;display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
details.case .q{color:#374151}.case-body{padding:6px 0 4px}.case-body p{margin:4px 0}
.tier-out{border-left:3px solid #e5e7eb;padding:2px 10px;margin:6px 0}.tier-out.failed{border-color:#b91c1c}
.tier-out.passed{border-color:#166534}.tier-out ul{margin:2px 0;padding-left:20px}
ol.passages{margin:2px 0;padding-left:24px;font-size:13px;color:#374151}
.scroll,#items,div.tier{overflow-x:auto;max-width:100%}.meta code{word-break:break-all}
@media (max-width:700px){body{margin:10px}th,td{padding:3px 4px;font-size:12px}}
"""


def case_groups(items: list[Row]) -> list[tuple[str, list[Row]]]:
    """Items grouped by case, failing cases first (then unscored, skipped, passed), by case id."""
    groups: dict[str, list[Row]] = {}
    for row in items:
        groups.setdefault(str(row.case_id), []).append(row)

    def rank(entry: tuple[str, list[Row]]) -> tuple[int, str]:
        return (min(OUTCOME_ORDER.get(str(r.outcome), 9) for r in entry[1]), entry[0])

    return sorted(((cid, sorted(rows, key=lambda r: str(r.tier))) for cid, rows in groups.items()), key=rank)


def _answer_html(row: Row) -> str:
    answer = row.answer
    if not isinstance(answer, dict):
        return '<p class="note">no answer (the system raised, or the row predates answers in reports)</p>'
    refused = " <span class=\"badge b-uns\">refused</span>" if answer.get("refused") else ""
    out = [f"<p><b>answer</b>{refused}: {esc(answer.get('text'))}</p>"]
    passages = answer.get("passages") or []
    if passages:
        out.append('<ol class="passages">')
        for p in passages:
            title = f"<b>{esc(p.get('title'))}</b> " if p.get("title") else ""
            out.append(f"<li>{title}<code>{esc(p.get('id'))}</code> {esc(p.get('text'))}</li>")
        out.append("</ol>")
    else:
        out.append('<p class="note">no passages retrieved</p>')
    return "".join(out)


def cases_section(items: list[Row]) -> str:
    """One collapsible view per case: question, expectation, answer and passages, and every tier's
    outcome with the reasons it failed."""
    groups = case_groups(items)
    if not groups:
        return ""
    out = ['<section id="cases"><h2>Cases</h2>',
           f'<p class="note">{len(groups)} cases, failing first; open one for its answer, passages and every '
           "tier's reasons.</p>"]
    for case_id, rows in groups:
        first = rows[0]
        worst = min((str(r.outcome) for r in rows), key=lambda o: OUTCOME_ORDER.get(o, 9))
        badges = " ".join(f'<span class="{_outcome_cls(str(r.outcome))}">{esc(r.tier)}: '
                          f'{esc(r.outcome)}</span>{known_badge(r)}' for r in rows)
        out.append(f'<details class="case" data-case="{esc(case_id)}" data-outcome="{esc(worst)}">'
                   f'<summary><b>{esc(case_id)}</b> <span class="meta">{esc(first.suite)}</span> {badges} '
                   f'<span class="q">{esc(first.question or "")}</span></summary><div class="case-body">')
        expect = "a refusal" if first.expect == "refuse" else "an answer"
        facts = first.expected_facts or []
        facts_text = ", ".join(f"“{esc(f)}”" for f in facts) if facts else "none"
        out.append(f"<p><b>question</b>: {esc(first.question or '')}</p>"
                   f"<p><b>expects</b> {expect}; expected facts: {facts_text}</p>")
        out.append(_answer_html(next((r for r in rows if isinstance(r.answer, dict)), first)))
        for row in rows:
            outcome = str(row.outcome)
            reasons = item_reasons(row) if outcome != "passed" else []
            out.append(f'<div class="tier-out {esc(outcome)}"><b>{esc(row.tier)}</b> '
                       f'<span class="{_outcome_cls(outcome)}">{esc(outcome)}</span>{known_badge(row)}')
            if reasons:
                out.append("<ul>" + "".join(f"<li>{esc(r)}</li>" for r in reasons) + "</ul>")
            out.append("</div>")
        out.append("</div></details>")
    out.append("</section>")
    return "\n".join(out)


def _flags(m: dict[str, Any]) -> str:
    out = []
    if m.get("underpowered"):
        out.append('<span class="badge b-under">underpowered</span>')
    if m.get("saturated"):
        side = f" ({esc(m['saturated_at'])})" if m.get("saturated_at") else ""
        out.append(f'<span class="badge b-sat">saturated{side}</span>')
    if m.get("unscored"):
        out.append(f'<span class="badge b-uns">{esc(m["unscored"])} unscored</span>')
    return "".join(out)


def _metric_cells(m: dict[str, Any]) -> str:
    count = f"{m.get('k')}/{m.get('n')}" if m.get("kind") == "rate" else f"n={m.get('n')}"
    if m.get("clusters") is not None:
        count += f" in {m['clusters']} clusters"
    value = _num(m.get("rate")) + ("" if m.get("kind") == "rate" else " mean")
    ci = "-" if m.get("ci_low") is None else f"[{_num(m.get('ci_low'))}, {_num(m.get('ci_high'))}]"
    return f"<td>{esc(count)}</td><td>{esc(value)}</td><td>{esc(ci)}</td><td>{_flags(m)}</td>"


def suites_section(items: Iterable[Row]) -> str:
    """Per suite and tier, every metric with its count, rate (or mean) and 95% interval."""
    rows = suite_rows(items)
    if not rows:
        return ""
    out = ['<section id="suites"><h2>Per suite</h2><div class="scroll"><table class="suites"><thead><tr>'
           "<th>suite</th><th>tier</th><th>metric</th><th>k/n</th><th>rate</th><th>95% CI</th><th>flags</th>"
           "</tr></thead><tbody>"]
    for m in rows:
        out.append(f'<tr data-suite="{esc(m["suite"])}"><td>{esc(m["suite"])}</td><td>{esc(m["tier"])}</td>'
                   f'<td>{esc(m["metric"])}</td>{_metric_cells(m)}</tr>')
    out.append("</tbody></table></div></section>")
    return "\n".join(out)


def mutation_section(report: dict[str, Any]) -> str:
    """The kill rates of --sprout-mutate, per tier, as forest plots (killed out of scored mutants)."""
    mutation = report.get("mutation") or {}
    rates = mutation.get("kill_rates") or []
    if not rates and not mutation.get("not_mutated"):
        return ""
    out = ['<section id="mutation"><h2>Mutation kill rates</h2>',
           '<p class="note">Each row: mutants of one operator made from supported sentences, and the share the '
           "judge called unsupported (killed), with its Wilson 95% interval. Never counted in the metrics above.</p>"]
    tiers: dict[str, list[dict[str, Any]]] = {}
    for r in rates:
        tiers.setdefault(str(r.get("tier")), []).append({**r, "metric": r.get("operator", r.get("metric"))})
    for tier, rows in tiers.items():
        out.append(f'<div class="tier scroll"><h3>{esc(tier)}</h3>{forest_plot(tier, rows, {})}</div>')
    for tier, reason in sorted((mutation.get("not_mutated") or {}).items()):
        out.append(f'<p class="note">{esc(tier)}: {esc(reason)}</p>')
    survivors = mutation.get("survivors") or []
    if survivors:
        n = len(survivors)
        out.append(f'<p class="note">{n} surviving mutant{"" if n == 1 else "s"}, each with its evidence, '
                   f'{"is" if n == 1 else "are"} in the JSON report.</p>')
    out.append("</section>")
    return "\n".join(out)


def agreement_section(report: dict[str, Any]) -> str:
    """Agreement between tiers that judged the same sentences: share agreeing and Cohen's kappa."""
    pairs = report.get("agreement") or []
    if not pairs:
        return ""
    out = ['<section id="agreement"><h2>Agreement between tiers</h2><div class="scroll"><table><thead><tr>'
           "<th>tiers</th><th>agree/n</th><th>rate</th><th>95% CI</th><th>Cohen's kappa</th><th>95% CI</th>"
           "</tr></thead><tbody>"]
    for p in pairs:
        kappa = p.get("kappa") or {}
        k_ci = "-" if kappa.get("ci_low") is None else f"[{_num(kappa.get('ci_low'), 2)}, {_num(kappa.get('ci_high'), 2)}]"
        ci = "-" if p.get("ci_low") is None else f"[{_num(p.get('ci_low'))}, {_num(p.get('ci_high'))}]"
        rate = p["agree"] / p["n"] if p.get("n") else None
        out.append(f"<tr><td>{esc(' vs '.join(p.get('tiers') or []))}</td><td>{esc(p.get('agree'))}/{esc(p.get('n'))}</td>"
                   f"<td>{_num(rate)}</td><td>{esc(ci)}</td><td>{_num(kappa.get('kappa'), 2)}</td><td>{esc(k_ci)}</td></tr>")
    out.append("</tbody></table></div></section>")
    return "\n".join(out)


def _ci(d: dict[str, Any]) -> str:
    return "-" if d.get("ci_low") is None else f"[{_num(d.get('ci_low'))}, {_num(d.get('ci_high'))}]"


def _rate_cell(r: dict[str, Any]) -> str:
    return "-" if not r.get("n") else f"{_num(r.get('value'))} ({r.get('k')}/{r.get('n')}) {_ci(r)}"


def labels_section(report: dict[str, Any]) -> str:
    """--sprout-labels: per labelled metric, the judge's rate beside the rate people would give
    (corrected by the labels) and the judge's sensitivity and specificity against them."""
    labelled = [m for m in report.get("metrics") or [] if m.get("judge_vs_labels")]
    if not labelled:
        return ""
    out = ['<section id="labels"><h2>Your labels</h2>',
           '<p class="note">The judge\'s rate, and the rate people would give every item, estimated from the '
           'labels and the judge together (prediction-powered; the interval holds whatever the judge\'s errors).</p>',
           "<table><thead><tr><th>tier</th><th>metric</th><th>judge</th><th>corrected</th><th>labels</th>"
           "<th>sensitivity</th><th>specificity</th></tr></thead><tbody>"]
    warnings = []
    for m in labelled:
        c, j = m.get("corrected") or {}, m["judge_vs_labels"]
        flag = ' <span class="badge b-under">underpowered</span>' if c.get("underpowered") else ""
        corrected = f"{_num(c.get('rate'))} {_ci(c)}" if c else "-"
        out.append(f"<tr><td>{esc(m.get('tier'))}</td><td>{esc(m.get('metric'))}</td>"
                   f"<td>{esc(_num(m.get('rate')) + ' ' + _ci(m))}</td><td>{esc(corrected)}{flag}</td>"
                   f"<td>{esc(c.get('n_labels', '-'))}</td><td>{esc(_rate_cell(j.get('sensitivity') or {}))}</td>"
                   f"<td>{esc(_rate_cell(j.get('specificity') or {}))}</td></tr>")
        if j.get("misses_most_unsupported"):
            warnings.append(f"{m.get('tier')} {m.get('metric')}: the judge misses most unsupported sentences "
                            "people found on this data")
    out.append("</tbody></table>")
    out += [f'<p class="fail">{esc(w)}</p>' for w in warnings]
    out.append("</section>")
    return "\n".join(out)


# --- --sprout-fail-on and --sprout-compare ----------------------------------------------------

FLIPS_SHOWN = 200  # flips listed in the page; the JSON report has every one


def known_badge(row: Row) -> str:
    """The mark of a known failure (--sprout-fail-on=new): failed in the baseline too."""
    if not row.known:
        return ""
    return (' <span class="badge b-uns" title="failed in the --sprout-compare baseline too: '
            'shown as xfailed, still a failure in every metric">known failure</span>')


def fail_on_section(fail_on: dict[str, Any]) -> str:
    """What --sprout-fail-on new or gates did: the known, new and fixed items, or how many item
    failures did not fail the run."""
    out = ['<section id="fail-on"><h2>What fails the run</h2>']
    if fail_on.get("mode") == "gates":
        out.append(f'<p class="note">--sprout-fail-on=gates: {esc(fail_on.get("item_failures"))} item failures did not '
                   "fail the run (xfailed); only the gates and the unscored limit can.</p>")
    else:
        out.append(f'<p class="note">--sprout-fail-on=new against <code>{esc(fail_on.get("baseline"))}</code>: known '
                   "failures (failed there too) are xfailed and still count as failures in every metric; a new "
                   "failure fails the run.</p>")
        for key, title in (("new_failures", "new failures"), ("known", "known failures"), ("fixed", "fixed")):
            ids = fail_on.get(key) or []
            items = "".join(f"<li><code>{esc(i)}</code></li>" for i in ids[:FLIPS_SHOWN])
            more = f'<li class="note">... and {len(ids) - FLIPS_SHOWN} more</li>' if len(ids) > FLIPS_SHOWN else ""
            out.append(f"<h3>{title} ({len(ids)})</h3>" + (f"<ul>{items}{more}</ul>" if ids else "<p>none</p>"))
    out.append("</section>")
    return "\n".join(out)


def compare_section(compare: dict[str, Any]) -> str:
    """The comparison with a baseline: both systems, how many cases were paired, every metric's
    delta with its interval and method, and the items whose outcome changed."""
    systems = compare.get("systems") or {}
    paired = compare.get("paired_cases")
    pairing = (f"paired over {esc(paired)} cases (same case id and content in both runs)" if paired
               else "no case in both runs with the same content: unpaired intervals")
    out = [f'<section id="compare"><h2>Compared with {esc(compare.get("baseline"))}</h2>',
           f'<p class="meta">baseline dataset <code>{esc(compare.get("baseline_dataset_hash"))}</code> · systems: '
           f'{esc(systems.get("old", "unknown"))} then, {esc(systems.get("new", "unknown"))} now · {pairing}</p>',
           ]
    if compare.get("baseline_complete") is False:  # the terminal's and the Markdown's words (controller/compare.py)
        out.append(f'<p class="note fail">the baseline {esc(compare.get("baseline"))} is INCOMPLETE ("complete": false): '
                   "its run stopped early or was interrupted, and the items it never ran have no verdict to compare "
                   "with</p>")
    if compare.get("judged_otherwise"):
        out.append('<p class="note fail">judged with DIFFERENT settings, so the changes are the judge\'s as much as '
                   f'the system\'s: {esc("; ".join(map(str, compare["judged_otherwise"])))}</p>')
    out.append("<table><thead><tr><th>tier</th><th>metric</th><th>old</th><th>new</th><th>delta</th>"
               "<th>95% CI</th><th>method</th><th>verdict</th></tr></thead><tbody>")
    for d in compare.get("deltas") or []:
        ci = "-" if d.get("ci_low") is None else f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"
        delta = "-" if d.get("delta") is None else f"{d['delta']:+.3f}"
        cls = {"worse": "fail", "better": "pass"}.get(d.get("verdict"), "")
        cells = [d.get("tier"), d.get("metric"), d.get("old"), d.get("new"), delta, ci, d.get("method")]
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells)
                   + f'<td class="{cls}">{esc(d.get("verdict"))}</td></tr>')
    out.append("</tbody></table>")
    for name in compare.get("missing") or []:
        out.append(f'<p class="note">{esc(name)}: in the baseline, not measured in this run</p>')
    flips = compare.get("flips") or []
    out.append(f'<h3 id="flips">Changed outcome ({len(flips)})</h3>')
    if flips:
        out.append('<div class="scroll"><table><thead><tr><th>item</th><th>old</th><th>new</th></tr></thead><tbody>')
        out += [f"<tr><td><code>{esc(f.get('nodeid'))}</code></td><td class=\"{_outcome_cls(str(f.get('old')))}\">"
                f"{esc(f.get('old'))}</td><td class=\"{_outcome_cls(str(f.get('new')))}\">{esc(f.get('new'))}</td></tr>"
                for f in flips[:FLIPS_SHOWN]]
        out.append("</tbody></table></div>")
        if len(flips) > FLIPS_SHOWN:
            out.append(f'<p class="note">... and {len(flips) - FLIPS_SHOWN} more in the JSON report (gates.compare.flips)</p>')
    else:
        out.append('<p class="note">no item changed outcome</p>')
    out.append("</section>")
    return "\n".join(out)
