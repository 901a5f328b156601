"""The JSON report (``--sprout-report``): built from the rows and metric rows, streamed to disk one
item at a time. Pure functions over plain rows; no pytest import."""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, TextIO

from ..core.report_check import SCHEMA
from ..core.row import Row, as_rows
from ..core.stats import MetricRow
from .safe_write import atomic_write, dumps as _dumps


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
        "schema": SCHEMA,
        "version": version,
        "dataset_hash": dataset_hash,
        "system": system,
        "metrics": [m.to_json() for m in metrics],
        "items": [row.to_json() for row in ordered(items)],
    }
    if extra:
        report.update(extra)
    return report
