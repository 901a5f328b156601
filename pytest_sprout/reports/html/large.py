"""The HTML report of a large run: a bounded summary page, written as a stream.

Up to ``LARGE`` items the page lists every item (page.py). Above that, a page with every item and
its sentences grows with the run (about 2 KB an item: 198 MB at 100,000) and building it holds
every row parsed at once (twice the run's memory). The summary page instead holds the header, the
gates, the forest plots, the per-suite table, the mutation and agreement sections, and the first
``SHOWN`` items that did not pass (failed, errored, unscored; by node id), each with its case, its
sentences and its reasons (about 2.4 KB each: 2.4 MB for 1,000, whatever the run's size); it
says how many it leaves out, per suite, and that the full list is the JSON report's. It is
written part by part, reading the rows twice as a stream (the counts and the per-suite table,
then the items it shows), so neither the page nor the rows are ever held whole.

The labelling mode of every judged sentence is off here (with each sentence's passages the page
would grow with the run); it says so, and with a label sample (--sprout-label-sample) it lists
that sample's sentences for labelling (a third pass keeps only those rows).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Iterable, Iterator, TextIO

from ...core.row import Row, as_rows
from ..json_report import ordered
from ..markdown import INCOMPLETE_BANNER, OUTCOME_ORDER
from ..safe_write import atomic_write
from . import labelling, page, sections
from .parts import esc

LARGE = 5_000  # items above which the page is the bounded summary
SHOWN = 1_000  # items that did not pass, listed in full on the summary page
NOT_PASSING = ("failed", "error", "unscored")


def is_large(report: dict[str, Any]) -> bool:
    return len(report.get("items") or []) > LARGE


def _counting(rows: Iterable[Row], counts: Counter[str]) -> Iterator[Row]:
    for row in rows:
        counts[str(row.outcome)] += 1
        yield row


def _not_passing(items: Any, limit: int) -> tuple[list[Row], Counter[str], Counter[str]]:
    """The first ``limit`` items that did not pass, in node id order, and per suite how many did
    not pass and how many of those are shown. Rows are read one at a time; only those shown are kept."""
    shown: list[Row] = []
    failing: Counter[str] = Counter()
    listed: Counter[str] = Counter()
    for row in ordered(items):
        if str(row.outcome) in NOT_PASSING:
            failing[str(row.suite)] += 1
            if len(shown) < limit:
                shown.append(row)
                listed[str(row.suite)] += 1
    return shown, failing, listed


def _note(total: int, shown: int, failing: Counter[str], listed: Counter[str]) -> str:
    """What the summary page leaves out, per suite, and where the rest is."""
    not_passing = sum(failing.values())
    out = [f'<section id="summary-page"><p class="note">A summary page: this run has {total} items, more than the '
           f"{LARGE} a page lists in full. Shown below: {shown} of the {not_passing} items that did not pass "
           f'(failed, errored or unscored), by node id; <b id="not-shown">{not_passing - shown}</b> items that did not '
           f"pass are not shown here, nor the {total - not_passing} other items. Every "
           "item, with its sentences and reasons, is in the JSON report (--sprout-report); the Markdown summary "
           "(--sprout-md) lists the first failing cases with their reasons (--sprout-md-failures N).</p>"]
    if not_passing > shown:
        out.append('<table id="not-passing"><thead><tr><th>suite</th><th>did not pass</th><th>shown here</th>'
                   "</tr></thead><tbody>")
        out += [f"<tr><td>{esc(suite)}</td><td>{n}</td><td>{listed[suite]}</td></tr>" for suite, n in sorted(failing.items())]
        out.append("</tbody></table>")
    return "".join(out) + "</section>\n"


def write_summary_page(handle: TextIO, report: dict[str, Any]) -> None:
    items = report.get("items") or []
    counts: Counter[str] = Counter()
    suites = sections.suites_section(_counting(as_rows(items), counts))  # first pass: counts and suites
    shown, failing, listed = _not_passing(items, SHOWN)  # second pass: the items shown
    handle.write('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                 f'<meta http-equiv="Content-Security-Policy" content="{page.CSP}">'
                 '<meta name="viewport" content="width=device-width, initial-scale=1">'
                 f"<title>pytest-sprout report</title><style>{page.STYLE}{sections.STYLE}{labelling.STYLE}</style>"
                 "</head>\n<body>\n")
    parts = [f"{n} {esc(k)}" for k, n in sorted(counts.items(), key=lambda kv: OUTCOME_ORDER.get(kv[0], 9))]
    system = report.get("system") or {}
    sys_text = esc(" ".join(str(x) for x in (system.get("name"), system.get("version")) if x)) or "unknown"
    handle.write(
        "<header><h1>pytest-sprout report</h1>"
        f'<p class="meta">{len(items)} items: {", ".join(parts) or "none"} · system: {sys_text} · '
        f'dataset <code>{esc(report.get("dataset_hash"))}</code> · pytest-sprout {esc(report.get("version"))}</p>'
        + page._answers_source(report) + "</header>\n")
    if report.get("complete") is False:
        handle.write(f'<p class="fail" id="incomplete" role="alert">{esc(INCOMPLETE_BANNER)}</p>\n')
    handle.write(_note(len(items), len(shown), failing, listed))
    for part in (page._gates_section(report.get("gates")), page._plots_section(report),
                 sections.labels_section(report), suites, sections.mutation_section(report),
                 sections.agreement_section(report)):
        handle.write(part + "\n")
    handle.write(sections.cases_section(shown) + "\n")
    handle.write(page._items_section(shown) + "\n")
    sample = labelling.labelling_section(report, as_rows(items), sample_only=True)  # third pass: the sample's rows
    handle.write(labelling.large_page_note(report, bool(sample)) + "\n" + sample + "\n")
    handle.write(f"<script>{page.SCRIPT}{labelling.SCRIPT}</script>\n</body></html>\n")


def write_large_html(path: str | os.PathLike[str], report: dict[str, Any]) -> None:
    atomic_write(path, lambda handle: write_summary_page(handle, report))


def write_any_html(path: str | os.PathLike[str], report: dict[str, Any]) -> None:
    """The page of every item (page.py), or above ``LARGE`` items the summary page."""
    if is_large(report):
        write_large_html(path, report)
    else:
        page.write_html(path, report)
