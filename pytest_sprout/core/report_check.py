"""Reading a JSON report back: the one field-by-field check every reader of the format shares
(``--sprout-compare`` and ``--sprout-fail-on=new`` read a baseline, ``python -m
pytest_sprout.merge`` reads shard reports). A report is a file anyone may edit; each problem is a
``ReportError`` naming the field, which the reader prefixes with the file and turns into its own
usage error. Plain Python, no pytest.

``SCHEMA`` is the report format's version, written as the report's ``"schema"``: an integer,
bumped on any change that an older reader would misread (a field removed, renamed, or given another
meaning). Fields added without changing the others do not bump it. A report without ``"schema"``
was written before it existed (pytest-sprout 0.1) and reads as schema 0; a report with a schema
newer than this version's is refused.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

SCHEMA = 1  # docs/reports.md, "The JSON report's schema"
MAX_N = 10**9  # more observations than any run holds: a tampered or broken file
MAX_ABS = 1e12  # the largest mean a report may claim
OUTCOMES = ("passed", "failed", "error", "skipped", "unscored")  # an item row's outcome (controller/controller.py)
# An item's optional text fields (a string or null) and its optional list fields.
_TEXTS = ("nodeid", "outcome", "case_hash", "tier", "case_id", "suite", "error", "note", "question", "expect")
_LISTS = ("sentences", "reasons", "expected_facts", "mutants")


class ReportError(Exception):
    """A report field that is missing, of the wrong type or out of range; the message names it."""


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and abs(value) <= MAX_ABS


def is_value(value: Any) -> bool:
    """A metric's value in an item row: true/false, a finite number or null (unscored)."""
    return value is None or isinstance(value, bool) or is_number(value)


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def schema_of(report: Mapping[str, Any]) -> int:
    """The report's schema (0: written before the field existed); a ReportError when it is not a
    whole number or is newer than this version reads."""
    schema = report.get("schema", 0)
    if not _whole(schema, 0, MAX_N):
        raise ReportError("field 'schema' must be a whole number")
    if schema > SCHEMA:
        raise ReportError(f"report schema {schema} is newer than this pytest-sprout reads ({SCHEMA}): read it with "
                          "the version that wrote it, or upgrade")
    return int(schema)


def check_header(report: Any) -> None:
    """The top of a report: the plugin's name, the schema, the metrics and items lists, the dataset hash."""
    if not isinstance(report, dict) or report.get("plugin") != "pytest-sprout":
        raise ReportError("not a pytest-sprout report (write one with --sprout-report)")
    schema_of(report)
    if not isinstance(report.get("metrics"), list):
        raise ReportError("field 'metrics' must be a list")
    if report.get("dataset_hash") is not None and not isinstance(report.get("dataset_hash"), str):
        raise ReportError("field 'dataset_hash' must be a string")
    if report.get("items") is not None and not isinstance(report.get("items"), list):
        raise ReportError("field 'items' must be a list")
    for key in ("judges", "judging", "system", "golden", "settings"):
        if report.get(key) is not None and not isinstance(report.get(key), dict):
            raise ReportError(f"field {key!r} must be an object or null")


def check_metric_row(row: Any, where: str) -> None:
    """One metric row (``metrics[i]``): every field's type and range. ``where`` names the row."""
    if not isinstance(row, dict):
        raise ReportError(f"{where} must be an object")
    for key in ("tier", "metric"):
        if not isinstance(row.get(key), str):
            raise ReportError(f"{where} field {key!r} is missing or not a string")
    name = f"{where} ({row['tier']}.{row['metric']})"
    if row.get("kind") not in ("rate", "mean"):
        raise ReportError(f"{name} field 'kind' must be \"rate\" or \"mean\"")
    n = row.get("n")
    if not isinstance(n, int) or not _whole(n, 0, MAX_N - 1):
        raise ReportError(f"{name} field 'n' must be a whole number from 0 to {MAX_N - 1}")
    if row["kind"] == "rate" and not _whole(row.get("k"), 0, n):
        raise ReportError(f"{name} field 'k' must be an integer from 0 to n={n}")
    for key in ("rate", "ci_low", "ci_high"):
        value = row.get(key)
        if value is None:
            continue
        if not is_number(value):
            raise ReportError(f"{name} field {key!r} must be a finite number or null")
        if row["kind"] == "rate" and not 0.0 <= value <= 1.0:
            raise ReportError(f"{name} field {key!r} is a rate: it must be from 0 to 1")
    clusters = row.get("clusters")
    if clusters is not None and not _whole(clusters, 0, n):
        raise ReportError(f"{name} field 'clusters' must be a whole number from 0 to n={n} or null")
    if not _whole(row.get("unscored", 0), 0, MAX_N - 1):
        raise ReportError(f"{name} field 'unscored' must be a whole number from 0 to {MAX_N - 1}")


def check_item(item: Any, where: str, whole: bool = False) -> None:
    """One item row (``items[i]``): an object whose ``metrics`` map names to lists of values, whose
    text fields are strings and list fields lists. ``whole``: a row a merge replays as a run's,
    which must also carry its node id, case id, suite and tier, and an outcome a run writes."""
    if not isinstance(item, dict) or not isinstance(item.get("metrics", {}), dict):
        raise ReportError(f"{where} must be an object whose 'metrics' is an object")
    for metric, values in item.get("metrics", {}).items():
        if not isinstance(values, list) or not all(is_value(v) for v in values):
            raise ReportError(f"{where} field 'metrics.{metric}' must be a list of true/false, finite numbers or null")
    for key in _TEXTS:
        if item.get(key) is not None and not isinstance(item.get(key), str):
            raise ReportError(f"{where} field {key!r} must be a string")
    for key in _LISTS:
        if item.get(key) is not None and not isinstance(item.get(key), list):
            raise ReportError(f"{where} field {key!r} must be a list or null")
    for key in ("answer", "extra", "golden"):
        if item.get(key) is not None and not isinstance(item.get(key), dict):
            raise ReportError(f"{where} field {key!r} must be an object or null")
    if item.get("known") not in (None, True, False):
        raise ReportError(f"{where} field 'known' must be true, false or null")
    if not whole:
        return
    for key in ("nodeid", "case_id", "suite", "tier"):
        if not isinstance(item.get(key), str):
            raise ReportError(f"{where} field {key!r} is missing or not a string")
    if item.get("outcome") not in OUTCOMES:
        raise ReportError(f"{where} field 'outcome' must be one of {', '.join(OUTCOMES)}")
    if item.get("metrics") is None:
        raise ReportError(f"{where} field 'metrics' is missing")
    for i, reason in enumerate(item.get("reasons") or []):
        if not isinstance(reason, dict):
            raise ReportError(f"{where} field 'reasons[{i}]' must be an object")
    for i, sentence in enumerate(item.get("sentences") or []):
        if not isinstance(sentence, dict):
            raise ReportError(f"{where} field 'sentences[{i}]' must be an object")


def check_report(report: Any, whole: bool = False) -> None:
    """Every field a reader reads: the header, each metric row, each item (``whole``: as a merge
    needs it, see ``check_item``)."""
    check_header(report)
    for i, row in enumerate(report["metrics"]):
        check_metric_row(row, f"metrics[{i}]")
    for i, item in enumerate(report.get("items") or []):
        check_item(item, f"items[{i}]", whole)
