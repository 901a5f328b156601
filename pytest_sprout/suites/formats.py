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
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUFFIXES = (".jsonl", ".csv")
CASE_KEYS = ("id", "question", "expect", "expected_facts", "tiers", "tags", "thresholds", "citations")
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


class _Lines:
    """The physical lines of a CSV text, handed to ``csv.reader`` one at a time. ``pos`` (lines
    handed out so far) can be set back: after a bad record, reading resumes on the line after the
    one it started on, so one bad row never takes the rows after it along."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.pos = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self.pos >= len(self.lines):
            raise StopIteration
        self.pos += 1
        return self.lines[self.pos - 1]


def _over_limit(line: str, columns: list[str]) -> str:
    """Which column of a one-line record holds a cell over the csv module's field limit."""
    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(max(limit, len(line) + 1))
        cells = next(csv.reader([line]), [])
    except csv.Error:
        cells = []
    finally:
        csv.field_size_limit(limit)
    for index, cell in enumerate(cells):
        if len(cell) > limit:
            name = repr(columns[index]) if index < len(columns) else "past the last column"
            return f"column {index + 1} ({name}) holds a cell of {len(cell):,} characters, over the limit of {limit:,}"
    return f"a cell is over the limit of {limit:,} characters"


def _line_id(line: str, columns: list[str]) -> str | None:
    """The id cell of a record's first line read alone, when it can be read (for the error)."""
    before = line.split('"', 1)[0]  # the cells before any quote are whole
    cells = before.split(",")
    index = columns.index("id")
    return cells[index].strip() or None if index < len(cells) - 1 else None


def _records(lines: _Lines, columns: list[str]) -> Any:
    """(line number, cells) per record, or (line number, BadLine) for one that cannot be read. A
    record that cannot be read is its first line only; reading goes on with the next line."""
    reader = csv.reader(lines)
    while True:
        first = lines.pos  # lines before this record
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            text = lines.lines[first] if first < len(lines.lines) else ""
            why = _over_limit(text, columns) if "field larger" in str(exc) else str(exc)
            yield first + 1, BadLine(f"malformed CSV: {why}", case=_line_id(text, columns))
            lines.pos = first + 1
            reader = csv.reader(lines)
            continue
        if lines.pos - first > 1 and len(row) != len(columns):  # a quote left open swallowed lines
            yield first + 1, BadLine(
                f"malformed CSV: a quote opened on this line is never closed where the record should end "
                f"(it would swallow lines {first + 2}-{lines.pos}); the lines after it are read as their own rows",
                case=_line_id(lines.lines[first], columns),
            )
            lines.pos = first + 1
            reader = csv.reader(lines)
            continue
        yield first + 1, row


def read_csv(text: str, stem: str) -> tuple[dict[str, Any], list[int]]:
    lines = _Lines(text)
    reader = csv.reader(lines)
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
    case_lines: list[int] = []
    for line, row in _records(lines, columns):
        if isinstance(row, BadLine):
            document["cases"].append(row)
            case_lines.append(line)
            continue
        if not any(cell.strip() for cell in row):
            continue
        case_lines.append(line)
        document["cases"].append(_csv_case(row, columns))
    return document, case_lines


def _csv_case(row: list[str], columns: list[str]) -> dict[str, Any] | BadLine:
    """One CSV record as a case mapping, or a BadLine naming the column that cannot be read."""
    if len(row) != len(columns):
        return BadLine(f"{len(row)} cells, but the header has {len(columns)} columns")
    case: dict[str, Any] = {}
    for column, cell in zip(columns, row):
        if not cell.strip():
            continue
        if column in LIST_KEYS:
            try:
                case[column] = _list_cell(cell, column)
            except ValueError as exc:
                return BadLine(str(exc), column, row[columns.index("id")].strip() or None)
        elif column == "thresholds":
            try:
                case[column] = _cell_json(cell, "a JSON object")
            except ValueError as exc:
                return BadLine(str(exc), column, row[columns.index("id")].strip() or None)
        else:
            case[column] = cell.strip()
    return case
