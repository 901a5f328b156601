"""Writing every report a run asks for (JSON, Markdown, HTML), each whole or not at all; one that
cannot be written does not stop the others. The top of reports/: it composes the writers below."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..core.stats import MetricRow
from .json_report import ordered, write_report_json
from .markdown import INCOMPLETE_BANNER, format_markdown
from .html.large import write_any_html
from .safe_write import atomic_write_text, remove_stale


def write_reports(
    paths: dict[str, list[Path]], data: dict[str, Any], rows: list[MetricRow], extra: list[str],
    intro: Iterable[str] = (), shown: dict[str, Any] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """Write every requested report: the JSON ``data``; the Markdown summary (``intro``, the metric
    table, ``extra``) and the HTML page from ``shown`` (the data plus what only the views say). A
    report that cannot be written does not stop the others. Returns the lines that say which failed
    and why, and {kind: path} of those written."""
    shown = data if shown is None else shown
    problems: list[str] = []
    written: dict[str, str] = {}
    header = {key: value for key, value in data.items() if key != "items"}
    items = data.get("items") or []
    jobs: list[tuple[str, Path, Any]] = [
        ("JSON report", p, lambda p: write_report_json(p, header, (row.to_json() for row in ordered(items))))
        for p in paths.get("sprout_report", [])
    ]
    if paths.get("sprout_md"):
        text = format_markdown(rows, extra, intro=intro)
        if data.get("complete") is False:
            title, _, rest = text.partition("\n")
            text = f"{title}\n\n> **{INCOMPLETE_BANNER}**\n{rest}"
        jobs += [("Markdown summary", p, lambda p, text=text: atomic_write_text(p, text)) for p in paths["sprout_md"]]
    if paths.get("sprout_html"):
        jobs += [("HTML report", p, lambda p: write_any_html(p, shown)) for p in paths["sprout_html"]]
    for kind, path, write in jobs:
        try:
            write(path)
        except OSError as exc:
            problems.append(f"{path}: the report could not be written: {exc.strerror or exc}{remove_stale(path)}")
        else:
            n = sum(1 for k in written if k.startswith(kind))
            written[kind if not n else f"{kind} {n + 1}"] = str(path)
    return problems, written
