"""Reports: the terminal table and the JSON file. Pure functions over plain rows."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from ..core.row import Row, as_rows
from ..core.stats import MetricRow
from ..core.table import SATURATED_NOTE, UNDERPOWERED_NOTE, flags, num as _num
from ..core.util import md_cell as _md_cell


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write via a temporary file in the same folder and a rename: never a torn file."""
    atomic_write(path, lambda handle: handle.write(text))


def atomic_write(path: str | os.PathLike[str], write: Callable[[TextIO], Any]) -> None:
    """Call ``write(handle)`` on a temporary file in the same folder, then rename it over
    ``path``: never a torn file, however much ``write`` streams into it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # backslashreplace: text UTF-8 cannot hold (a lone surrogate in a system's error message)
        # is written escaped, never a UnicodeEncodeError after the whole run.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the usual permissions
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    atomic_write_text(path, _dumps(data) + "\n")


def write_report_json(path: str | os.PathLike[str], data: dict[str, Any], items: Iterable[dict[str, Any]]) -> None:
    """The JSON report: byte for byte ``write_json(path, {**data, "items": list(items)})``, but
    written one item at a time, so that neither the whole list nor the whole text is ever held
    (pure-Python ``json.dumps`` with an indent builds the text from millions of small pieces).
    ``items`` comes in the order it is to be written."""
    token = f"sprout-items-{os.urandom(16).hex()}"
    head, sep, tail = (_dumps({**data, "items": token}) + "\n").partition(json.dumps(token))
    if not sep:  # cannot happen: the top-level "items" holds exactly this string
        raise AssertionError("the report's items placeholder is missing")

    def write(handle: TextIO) -> None:
        handle.write(head)
        first = True
        for row in items:
            handle.write("[\n    " if first else ",\n    ")
            handle.write(_dumps(row).replace("\n", "\n    "))  # one level deeper: items sit at level 2
            first = False
        handle.write("[]" if first else "\n  ]")
        handle.write(tail)

    atomic_write(path, write)


INCOMPLETE_BANNER = (
    "INCOMPLETE: the run was interrupted; items that did not finish are error rows, and the "
    "numbers describe only the items that ran."
)


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
        from .html.page import write_html

        jobs += [("HTML report", p, lambda p: write_html(p, shown)) for p in paths["sprout_html"]]
    for kind, path, write in jobs:
        try:
            write(path)
        except OSError as exc:
            problems.append(f"{path}: the report could not be written: {exc.strerror or exc}")
        else:
            n = sum(1 for k in written if k.startswith(kind))
            written[kind if not n else f"{kind} {n + 1}"] = str(path)
    return problems, written


def ordered(items: Iterable[Row | dict[str, Any]]) -> Iterable[Row]:
    """Item rows in the JSON report's order, by node id (a rowstore.RowStore sorts its own)."""
    in_order = getattr(items, "in_order", None)
    return in_order() if in_order is not None else sorted(as_rows(items), key=lambda row: str(row.nodeid))


def build_report(
    *, version: str, dataset_hash: str | None, metrics: list[MetricRow], items: Iterable[Row | dict[str, Any]],
    system: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report. Items are sorted by node id, so the report does not depend on the order
    in which xdist workers finished."""
    report: dict[str, Any] = {
        "plugin": "pytest-sprout",
        "version": version,
        "dataset_hash": dataset_hash,
        "system": system,
        "metrics": [m.to_json() for m in metrics],
        "items": [row.to_json() for row in ordered(items)],
    }
    if extra:
        report.update(extra)
    return report


def format_markdown(rows: Iterable[MetricRow], extra: Iterable[str] = (), title: str = "pytest-sprout",
                    intro: Iterable[str] = ()) -> str:
    """The summary table as GitHub-flavoured Markdown (for a CI step summary), after ``intro``
    lines (counts, system, dataset) and before ``extra`` Markdown lines (gates, comparison,
    failing cases)."""
    rows = list(rows)
    lines = [f"## {title}", "", *intro]
    if rows:
        lines += ["| tier | metric | k/n | rate | 95% CI | flags |", "|---|---|---:|---:|---|---|"]
        for r in rows:
            count = f"{r.k}/{r.n}" if r.kind == "rate" else f"n={r.n}"
            value = _num(r.rate) + ("" if r.kind == "rate" else " mean")
            ci = "-" if r.ci_low is None else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
            cells = (_md_cell(r.tier), _md_cell(r.metric), count, value, ci, flags(r))  # names may come from a baseline
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        if any(r.saturated for r in rows):
            lines += [f"> {SATURATED_NOTE}", ""]
        if any(r.underpowered for r in rows):
            lines += [f"> {UNDERPOWERED_NOTE}", ""]
    else:
        lines += ["No sprout items ran.", ""]
    lines += list(extra)
    return "\n".join(lines).rstrip() + "\n"
