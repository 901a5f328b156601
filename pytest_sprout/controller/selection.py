"""Which part of the dataset a run judged (layer 8, controller).

A run that selected a subset (``-k``, ``-m``, ``--lf``, a node id, one shard of ``--sprout-shard``)
judges only some of the dataset's items. Its report says so (``"partial": true`` with the selected
and total item counts), it is never registered in the snapshot over a whole report, and a
comparison with a baseline is made over the items both reports judged, saying how many cases that
is. Plain Python over rows and report dicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..core.model import Case
from ..core.stats import Tally

ERROR = "error"


def dataset_items(cases: Iterable[Case]) -> int:
    """How many sprout items the dataset holds: one per valid case and tier."""
    return sum(len(case.tiers) for case in cases)


@dataclass(frozen=True)
class Selection:
    """The items a run selected out of the dataset's."""

    selected: int
    total: int

    @property
    def partial(self) -> bool:
        return self.selected < self.total

    def to_json(self) -> dict[str, Any]:
        return {"partial": self.partial, "selected": self.selected, "total": self.total}

    def line(self) -> str:
        return (f"this run selected {self.selected} of the dataset's {self.total} items: the reports are marked "
                "partial (\"partial\": true) and are not registered in the snapshot")


def _report_nodeids(items: Any) -> set[str] | None:
    if not isinstance(items, list) or not items:
        return None
    ids = {item.get("nodeid") for item in items if isinstance(item, dict)}
    return None if None in ids or not ids else {str(i) for i in ids}


def case_of(nodeid: str) -> str:
    """The suite file and case of a node id (``path::case[tier]`` without the tier)."""
    return nodeid.rsplit("[", 1)[0]


@dataclass(frozen=True)
class Overlap:
    """How many cases a comparison covers: those both runs judged, of each run's."""

    compared: int
    baseline: int
    run: int

    @property
    def whole(self) -> bool:
        return self.compared == self.baseline == self.run

    def to_json(self) -> dict[str, int]:
        return {"compared": self.compared, "baseline": self.baseline, "run": self.run}

    def phrase(self) -> str:
        noun = "case" if self.compared == 1 else "cases"
        if self.whole:
            return f"{self.compared} {noun} compared"
        return (f"{self.compared} {noun} in both runs (the baseline judged {self.baseline}, this run {self.run}); "
                "the baseline's numbers are recomputed over the items this run judged")


def restrict_baseline(baseline: Any, run_nodeids: set[str]) -> Overlap | None:
    """Make a gates.Baseline describe only the items this run judged too, so that old and new
    count the same items; returns how many cases the comparison covers (None when the baseline
    lists no items with node ids: an old or hand-made report, compared as it is). The baseline's
    metric rows are recomputed from its items, as a run tallies them."""
    old_ids = _report_nodeids(baseline.report.get("items"))
    if old_ids is None:
        return None
    shared = old_ids & run_nodeids
    overlap = Overlap(len({case_of(i) for i in shared}), len({case_of(i) for i in old_ids}),
                      len({case_of(i) for i in run_nodeids}))
    if old_ids == run_nodeids:
        return overlap
    kinds = {key: row.get("kind") for key, row in baseline.rows.items()}
    tally = Tally()
    for item in baseline.report["items"]:
        if item.get("nodeid") not in shared or item.get("outcome") == ERROR:
            continue
        for metric, values in (item.get("metrics") or {}).items():
            key = (item.get("tier"), metric)
            if kinds.get(key) == "mean":
                tally.declare(key[0], metric, "mean")
            tally.extend(key[0], metric, values)
    baseline.rows = {(r.tier, r.metric): r.to_json() for r in tally.rows()}
    baseline.values = {(r.tier, r.metric): tally.values(r.tier, r.metric) for r in tally.rows()}
    return overlap
