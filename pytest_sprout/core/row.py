"""The item row: what one item (a case on a tier) says about itself, the one contract between the
process that runs the item and the controller that tallies it and writes the reports (layer 0).

A worker sends a row as compact JSON on the item's test report; the controller adds the item's
``nodeid`` and ``outcome``; the JSON report lists the rows. ``Row.from_json(Row.to_json())`` is the
identity, and ``to_json`` writes exactly the keys a row had: a key that was never set (``answer``
of an item whose system raised, ``error`` of one that passed) stays out of the JSON, so that the
report is the same whichever side built the row. Sentences, metrics, answers and mutants stay
plain JSON values: the tiers and the report define their shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Iterator

# The keys a row may lack; None stands for "absent" (a key sent as null is remembered as such).
_OPTIONAL = ("nodeid", "outcome", "known", "case_hash", "question", "expect", "expected_facts", "answer", "golden", "error", "note",
             "reasons", "extra", "unscored", "mutants", "mutants_skipped")


@dataclass
class Row:
    case_id: str
    suite: str
    tier: str
    metrics: dict[str, list[Any]] = field(default_factory=dict)  # metric -> values (bool, float or None)
    sentences: list[dict[str, Any]] = field(default_factory=list)  # the tier's sentence rows
    # Set by the controller
    nodeid: str | None = None
    outcome: str | None = None  # passed, failed, skipped, unscored, error
    known: bool | None = None  # --sprout-fail-on=new: failed in the baseline too (shown as xfailed); only ever True
    # Set by the item; None when the row does not carry it
    case_hash: str | None = None  # identity.case_hash: what the case asks and expects (--sprout-compare pairs by it)
    question: str | None = None
    expect: str | None = None
    expected_facts: list[str] | None = None
    answer: dict[str, Any] | None = None  # the answer's text, whether it refused, its passages
    golden: dict[str, Any] | None = None  # --sprout-record: the golden entry, taken off on the controller
    error: str | None = None  # the one line that says why the item errored
    note: str | None = None
    reasons: list[dict[str, Any]] | None = None  # why the item failed, one entry per reason
    extra: dict[str, Any] | None = None  # what a tier adds (llm: its per-metric reasons)
    unscored: bool | None = None  # the judge could not decide
    mutants: list[dict[str, Any]] | None = None  # --sprout-mutate
    mutants_skipped: str | None = None
    other: dict[str, Any] = field(default_factory=dict)  # keys this version does not know, as they came
    nulls: frozenset[str] = field(default=frozenset(), repr=False)  # optional keys sent as null

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case_id": self.case_id, "suite": self.suite, "tier": self.tier,
                               "metrics": self.metrics, "sentences": self.sentences}
        for key in _OPTIONAL:
            value = getattr(self, key)
            if value is not None or key in self.nulls:
                out[key] = value
        out.update(self.other)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Row:
        known = {key: value for key, value in data.items() if key in _KNOWN}
        other = {key: value for key, value in data.items() if key not in _KNOWN}
        nulls = frozenset(key for key in _OPTIONAL if key in data and data[key] is None)
        return cls(**{"case_id": "", "suite": "", "tier": "", **known}, other=other, nulls=nulls)


_KNOWN = frozenset(f.name for f in fields(Row)) - {"other", "nulls"}


# What the checks read: the controller's rows (Row objects) or a report's items read back (dicts).
RowItems = Iterable[Row | dict[str, Any]]


def as_rows(items: RowItems) -> Iterator[Row]:
    """Rows from a report's items: Row objects as they are, JSON dicts (a report read back) parsed."""
    for item in items:
        yield item if isinstance(item, Row) else Row.from_json(item)



def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def junit_properties(row: dict[str, Any]) -> list[tuple[str, str]]:
    """Readable JUnit properties for one item row (all values plain strings):
    ``sprout.tier``, one ``sprout.<metric>`` per metric (``k/n`` for pass/fail outcomes, the
    mean for scores, ``unscored`` when nothing was scored), and ``sprout.verdicts``: compact JSON,
    one entry per sentence with its verdict, score, citations and rule."""
    props = [("sprout.tier", str(row["tier"]))]
    for metric, values in sorted(row.get("metrics", {}).items()):
        scored = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
        if not scored:
            text = "unscored"
        elif all(isinstance(v, bool) for v in scored):
            text = f"{sum(scored)}/{len(scored)}"
        else:
            text = f"{sum(float(v) for v in scored) / len(scored):.4g}"
        if scored and len(scored) < len(values):
            text += f" ({len(values) - len(scored)} unscored)"
        props.append((f"sprout.{metric}", text))
    if row.get("sentences"):
        verdicts = [
            {"supported": s.get("supported"), "score": _round(s.get("score")), "citations": s.get("citations", []), "rule": s.get("rule")}
            for s in row["sentences"]
        ]
        props.append(("sprout.verdicts", json.dumps(verdicts, separators=(",", ":"), ensure_ascii=False)))
    for key in ("note", "error"):
        if row.get(key):
            props.append((f"sprout.{key}", str(row[key])))
    return props


__all__ = ["Row", "as_rows", "junit_properties"]
