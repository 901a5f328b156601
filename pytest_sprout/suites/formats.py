"""Suites in JSON Lines and CSV: the same schema as a YAML suite, read into the same plain data.

A reader returns ``(document, lines)``: the document is what a YAML suite would parse to (a
mapping with ``suite``, ``defaults`` and ``cases``), ``lines`` gives each case's line number. A line
that cannot be read becomes a `BadLine` in the cases list, so that one broken line is reported
with its line number and the other cases still load. Problems with the whole file raise
`FormatError`. No pytest import.

JSON Lines (``.jsonl``): one JSON object per line, a case with the YAML keys (``id``,
``question``, ``expect``, ``expected_facts``, ``tiers``, ``tags``, ``thresholds``). The first
object may instead be a header with ``suite``, ``description`` and ``defaults``. Blank lines are
skipped.

CSV (``.csv``, UTF-8, a header row): one column per case key. A list cell (``expected_facts``,
``tiers``, ``tags``) holds a JSON array (``["low light", "indirect"]``) or items separated by
``|`` (``low light | indirect``); a ``thresholds`` cell holds a JSON object. An empty cell is a
key left out. The suite is named after the file.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUFFIXES = (".jsonl", ".csv")
CASE_KEYS = ("id", "question", "expect", "expected_facts", "tiers", "tags", "thresholds")
HEADER_KEYS = ("suite", "description", "defaults")
LIST_KEYS = ("expected_facts", "tiers", "tags")


class FormatError(Exception):
    """The file as a whole cannot be read; the message says why (and where, when it can)."""


@dataclass(frozen=True)
class BadLine:
    """A line that could not be read as a case."""

    message: str
    field: str | None = None
    case: str | None = None  # the case id, when the line gives one


def read(path: Path, text: str) -> tuple[dict[str, Any], list[int]]:
    """Parse the decoded text of a .jsonl or .csv suite."""
    if path.suffix == ".jsonl":
        return read_jsonl(text, path.stem)
    if path.suffix == ".csv":
        return read_csv(text, path.stem)
    raise FormatError(f"not a JSON Lines or CSV suite: {path.name}")


def read_jsonl(text: str, stem: str) -> tuple[dict[str, Any], list[int]]:
    document: dict[str, Any] = {"suite": stem, "cases": []}
    lines: list[int] = []
    first = True
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            document["cases"].append(BadLine(f"malformed JSON: column {exc.colno}: {exc.msg}"))
            lines.append(number)
            first = False
            continue
        except (ValueError, RecursionError) as exc:  # a number over Python's digit limit, or nesting too deep
            document["cases"].append(BadLine(f"cannot be read: {json_limit(exc)}"))
            lines.append(number)
            first = False
            continue
        if first and isinstance(value, dict) and "id" not in value and set(value) & set(HEADER_KEYS) \
                and set(value) <= set(HEADER_KEYS):
            document.update(value)
            first = False
            continue
        first = False
        document["cases"].append(value)
        lines.append(number)
    return document, lines


def json_limit(exc: BaseException) -> str:
    """Why ``json.loads`` gave up on text that is well-formed JSON: a number longer than Python
    reads (4,300 digits by default), or nesting deeper than its recursion limit."""
    if isinstance(exc, RecursionError):
        return "the JSON is nested too deeply to read; a case needs a few levels at most"
    return f"a number in it is too long to read ({str(exc).split(':')[0]})"


def _cell_json(value: str, what: str) -> Any:
    """A CSV cell read as JSON; ValueError says why it cannot be."""
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not {what} (column {exc.colno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(json_limit(exc)) from None


def _list_cell(value: str, column: str) -> Any:
    value = value.strip()
    if value.startswith("["):
        return _cell_json(value, "a JSON array")
    return [part.strip() for part in value.split("|")]


def read_csv(text: str, stem: str) -> tuple[dict[str, Any], list[int]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise FormatError("the file is empty; a CSV suite needs a header row (id, question, ...)") from None
    except csv.Error as exc:
        raise FormatError(f"line 1: malformed CSV: {exc}") from None
    columns = [c.strip() for c in header]
    unknown = [c for c in columns if c not in CASE_KEYS]
    if unknown:
        raise FormatError(f"line 1: unknown column {unknown[0]!r}; allowed: {', '.join(CASE_KEYS)}")
    for needed in ("id", "question"):
        if needed not in columns:
            raise FormatError(f"line 1: the header has no {needed!r} column")
    if len(set(columns)) != len(columns):
        raise FormatError(f"line 1: a column is named twice: {', '.join(columns)}")
    document: dict[str, Any] = {"suite": stem, "cases": []}
    lines: list[int] = []
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            document["cases"].append(BadLine(f"malformed CSV: {exc}"))
            lines.append(start)
            break
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        lines.append(line)
        if len(row) != len(columns):
            document["cases"].append(BadLine(f"{len(row)} cells, but the header has {len(columns)} columns"))
            continue
        case: dict[str, Any] = {}
        bad: BadLine | None = None
        for column, cell in zip(columns, row):
            if not cell.strip():
                continue
            if column in LIST_KEYS:
                try:
                    case[column] = _list_cell(cell, column)
                except ValueError as exc:
                    bad = BadLine(str(exc), column, row[columns.index("id")].strip() or None)
                    break
            elif column == "thresholds":
                try:
                    case[column] = _cell_json(cell, "a JSON object")
                except ValueError as exc:
                    bad = BadLine(str(exc), column, row[columns.index("id")].strip() or None)
                    break
            else:
                case[column] = cell.strip()
        document["cases"].append(bad if bad is not None else case)
    return document, lines
