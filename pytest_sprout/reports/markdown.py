"""Report views built from the JSON report: why items failed, per-suite numbers, the Markdown
summary for a CI job, and the terminal's closing lines. Pure functions over the report dict (the
``--sprout-report`` JSON); no pytest import."""

from __future__ import annotations

from typing import Any, Iterable

from ..core.citations import hint_line, mode_line
from ..core.row import Row, as_rows
from ..core.stats import MetricRow, Tally
from ..core.table import CLUSTERS_NOTE, UNDERPOWERED_NOTE, corrected_cells, flags, num as _num, saturated_notes
from ..core.util import md_cell as _md, short_hash

OUTCOME_ORDER = {"failed": 0, "unscored": 1, "skipped": 2, "passed": 3}

INCOMPLETE_BANNER = (
    "INCOMPLETE: the run was interrupted or stopped early (-x, --maxfail); items that did not finish are error rows, and the "
    "numbers describe only the items that ran."
)


def outcome_counts(items: Iterable[Row | dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = dict(getattr(items, "outcomes", None) or {})  # a RowStore counted them
    if not counts:
        for row in as_rows(items):
            counts[str(row.outcome)] = counts.get(str(row.outcome), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: OUTCOME_ORDER.get(kv[0], 9)))


def item_reasons(row: Row) -> list[str]:
    """One line per reason an item failed: its reasons, else its error or note."""
    lines = [str(r.get("why")) for r in row.reasons or [] if r.get("why")]
    if not lines and row.error:
        lines.append(f"the system raised: {row.error}")
    if not lines and row.note:
        lines.append(str(row.note))
    return lines


def failing_items(report: dict[str, Any]) -> list[Row]:
    items = report.get("items") or []
    of_outcome = getattr(items, "of_outcome", None)  # a RowStore parses only the failed rows
    failed = of_outcome("failed") if of_outcome is not None else (r for r in as_rows(items) if r.outcome == "failed")
    return sorted(failed, key=lambda r: str(r.nodeid))


def suite_rows(items: Iterable[Row | dict[str, Any]]) -> list[dict[str, Any]]:
    """Per suite, every tier's metrics with n, rate (or mean) and the 95% interval, computed as the
    run's summary computes them (stats.Tally) over that suite's items."""
    tallies: dict[str, Tally] = {}
    for row in as_rows(items):
        tally = tallies.setdefault(str(row.suite), Tally())
        for metric, values in (row.metrics or {}).items():
            tally.extend(str(row.tier), metric, values, row.nodeid)
    out = []
    for suite in sorted(tallies):
        for m in tallies[suite].rows():
            out.append({"suite": suite, **m.to_json()})
    return out


def system_line(report: dict[str, Any]) -> str:
    system = report.get("system") or {}
    name = " ".join(str(x) for x in (system.get("name"), system.get("version")) if x) or "unknown"
    replay = report.get("replayed_from")
    return f"system {name}" + (f" (answers replayed from {replay}, the system was not called)" if replay else "")


def markdown_header(report: dict[str, Any]) -> list[str]:
    """Counts, system and dataset: the lines above the metric table."""
    counts = outcome_counts(report.get("items") or [])
    parts = ", ".join(f"{n} {k}" for k, n in counts.items()) or "no items"
    dataset = report.get("dataset_hash") or "none"
    settings = report.get("settings") or {}
    mode = f" · citations `{_md(str(settings['citations']))}`" if "citations" in settings else ""
    lines = [f"**{parts}** · {_md(system_line(report))} · dataset `{short_hash(dataset)}`{mode}", ""]
    other = settings.get("citations_by_case") or {}
    if other:
        lines[-1:-1] = ["", _md(str(mode_line(settings)))]
    hint = hint_line(settings)
    if hint:
        lines += [f"> {_md(hint)}", ""]
    return lines


def markdown_failures(report: dict[str, Any], limit: int) -> list[str]:
    """The first ``limit`` failing items, each with its question and the reasons it failed. Under
    ``--sprout-fail-on=new`` the new failures (those that fail the run) come first, marked new,
    then the known ones: the failure that turned CI red is never cut off behind known ones."""
    failed = failing_items(report)
    if not failed or limit <= 0:
        return []
    new_mode = fail_on_mode(report) == "new"
    new_count = sum(not row.known for row in failed)
    if new_mode:
        failed = [row for row in failed if not row.known] + [row for row in failed if row.known]
    shown = failed[:limit]
    title = f"### Failing cases ({len(failed)}" if len(shown) == len(failed) else \
        f"### Failing cases (first {len(shown)} of {len(failed)}"
    if new_mode:
        title += f"; {new_count} new, listed first" if new_count else "; none new"
    lines = [title + ")", ""]
    known = known_note(report)
    for row in shown:
        mark = f" ({_md(known)})" if row.known else " (**new failure**)" if new_mode else ""  # after a space, never a link
        lines.append(f"- **{_md(row.case_id)}** [{_md(row.tier)}]{mark} {_md(row.question or '')}")
        for reason in item_reasons(row)[:6]:
            lines.append(f"  - {_md(reason)}")
    if len(shown) < len(failed):
        lines.append(f"- ... and {len(failed) - len(shown)} more (see the JSON or HTML report)")
    return lines + [""]


def fail_on_mode(report: dict[str, Any]) -> str:
    """The run's ``--sprout-fail-on`` mode as its report's gates record it ("any" when none)."""
    fail_on = (report.get("gates") or {}).get("fail_on")
    return str(fail_on.get("mode") or "any") if isinstance(fail_on, dict) else "any"


def known_note(report: dict[str, Any]) -> str:
    """How a known failure's row is marked (--sprout-fail-on=new): "known failure: failed in BASE.json"."""
    fail_on = (report.get("gates") or {}).get("fail_on") or {}
    baseline = fail_on.get("baseline") if isinstance(fail_on, dict) else None
    return f"known failure: failed in {baseline}" if baseline else "known failure"


def files_lines(written: dict[str, str], report: dict[str, Any]) -> list[str]:
    """The terminal's last lines: whether answers were replayed, and the files this run wrote."""
    lines = []
    if report.get("replayed_from"):
        lines.append(f"answers replayed from {report['replayed_from']} (the system was not called)")
    for label, path in written.items():
        lines.append(f"wrote {label}: {path}")
    return lines


def format_markdown(rows: Iterable[MetricRow], extra: Iterable[str] = (), title: str = "pytest-sprout",
                    intro: Iterable[str] = ()) -> str:
    """The summary table as GitHub-flavoured Markdown (for a CI step summary), after ``intro``
    lines (counts, system, dataset) and before ``extra`` Markdown lines (gates, comparison,
    failing cases)."""
    rows = list(rows)
    lines = [f"## {title}", "", *intro]
    if rows:
        nested = any(r.clusters is not None for r in rows)
        if nested:
            lines += ["| tier | metric | k/n | clusters | rate | 95% CI | flags |", "|---|---|---:|---:|---:|---|---|"]
        else:
            lines += ["| tier | metric | k/n | rate | 95% CI | flags |", "|---|---|---:|---:|---|---|"]
        for r in rows:
            count = f"{r.k}/{r.n}" if r.kind == "rate" else f"n={r.n}"
            value = _num(r.rate) + ("" if r.kind == "rate" else " mean")
            ci = "-" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
            cells: tuple[str, ...] = (_md(r.tier), _md(r.metric), count, value, ci, flags(r))  # names may come from a baseline
            if nested:
                cells = (*cells[:3], "" if r.clusters is None else str(r.clusters), *cells[3:])
            lines.append("| " + " | ".join(cells) + " |")
            if r.corrected is not None:
                lines.append("| " + " | ".join(_md(c.strip()) for c in corrected_cells(r, nested)) + " |")
        lines.append("")
        for note in saturated_notes(rows):
            lines += [f"> {note}", ""]
        if any(r.underpowered for r in rows):
            lines += [f"> {UNDERPOWERED_NOTE}", ""]
        if nested:
            lines += [f"> {CLUSTERS_NOTE}", ""]
    else:
        lines += ["No sprout items ran.", ""]
    lines += list(extra)
    return "\n".join(lines).rstrip() + "\n"
