"""Dataset identity: which cases a result describes. The dataset hash, per-case fingerprints and
the diff between two datasets, and reading the JSON of a frozen file (snapshot, golden set,
report) with an error that names it. Plain Python, no pytest import."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .model import Case
from .util import file_sha256  # noqa: F401  (golden, guard and snapshot hash files through identity)

LIST_LIMIT = 20  # case ids shown per list before "... and N more"

Fingerprints = dict[str, dict[str, str]]  # case id -> field -> short hash of the field's value


class SnapshotError(Exception):
    """A snapshot, golden set or report file that cannot be read; the message names the file."""


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dataset_hash(cases: Iterable[Case]) -> str:
    """SHA-256 of the canonical JSON of every case (sorted keys, cases sorted by id)."""
    rows = sorted((case.canonical() for case in cases), key=lambda row: row["id"])
    return hashlib.sha256(canonical_json(rows).encode("utf-8")).hexdigest()


def fingerprints(cases: Iterable[Case]) -> Fingerprints:
    """Per case, a short hash of each field that defines it: enough to say which fields changed."""
    out: Fingerprints = {}
    for case in cases:
        row = case.canonical()
        row.pop("id")
        out[case.id] = {
            name: hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:16]
            for name, value in sorted(row.items())
        }
    return out


CONTENT_ONLY = ("id", "tiers", "tags")  # what a case's content hash leaves out: neither changes a verdict


def case_hash(case: Case) -> str:
    """A short hash of what a case asks and expects (question, expectation, facts, thresholds and
    the rest of its canonical fields, less its id, tiers and tags): two runs judged the same case
    when its node id and this hash agree (--sprout-compare pairs items by both)."""
    row = {name: value for name, value in case.canonical().items() if name not in CONTENT_ONLY}
    return hashlib.sha256(canonical_json(row).encode("utf-8")).hexdigest()[:16]


def suite_counts(cases: Iterable[Case]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.suite] = counts.get(case.suite, 0) + 1
    return dict(sorted(counts.items()))


def read_json(path: Path, label: str) -> Any:
    """Parse a JSON file; a missing, unreadable or broken file raises SnapshotError naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotError(f"{label}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{label}: cannot read it ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{label}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (RecursionError, ValueError, OverflowError) as exc:  # nesting too deep, a number too long
        raise SnapshotError(f"{label}: cannot be read ({type(exc).__name__}: {str(exc)[:120]})") from None


def check_fingerprints(value: Any, label: str, where: str) -> Fingerprints:
    if not isinstance(value, dict):
        raise SnapshotError(f"{label}: field '{where}' must be an object of case ids")
    for case_id, fields in value.items():
        if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
            raise SnapshotError(f"{label}: field '{where}.{case_id}' must map field names to hashes")
    return value


# --- differences between two datasets ---------------------------------------------------------


@dataclass
class DatasetDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)  # case id -> fields that changed

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def lines(self, indent: str = "  ") -> list[str]:
        out = []
        if self.added:
            out.append(f"{indent}added ({len(self.added)}): {id_list(self.added)}")
        if self.removed:
            out.append(f"{indent}removed ({len(self.removed)}): {id_list(self.removed)}")
        if self.changed:
            items = [f"{cid} ({', '.join(fields)})" for cid, fields in self.changed.items()]
            out.append(f"{indent}changed ({len(items)}): {id_list(items)}")
        return out


def id_list(ids: list[str]) -> str:
    shown = ", ".join(ids[:LIST_LIMIT])
    return shown + (f", ... and {len(ids) - LIST_LIMIT} more" if len(ids) > LIST_LIMIT else "")


def diff(old: Mapping[str, Mapping[str, str]], new: Mapping[str, Mapping[str, str]]) -> DatasetDiff:
    """Cases added, removed and changed (with the fields that changed) from ``old`` to ``new``."""
    result = DatasetDiff(
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
    )
    for case_id in sorted(set(old) & set(new)):
        before, after = old[case_id], new[case_id]
        fields = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
        if fields:
            result.changed[case_id] = fields
    return result
