"""Run integrity: every selected item ends as a row. Plain Python (no pytest import): the
controller calls in.

- ``Ledger`` (controller only) knows which sprout items were selected and which have a row. A
  report that carries no row (the item's setup skipped or failed, its runtest raised before the
  row was made, its xdist worker crashed) becomes a row from the report; at the end an item that
  never reported at all (a crashed worker's unscheduled items, an interrupted run) becomes an
  ``error`` row that says why.

Checking report paths before the run and writing them whole lives in reports/safe_write.py.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..core.row import Row
from ..core.util import clean_text

ERROR = "error"
_NODEID = re.compile(r"^(?P<path>.+?)::(?P<case>[A-Za-z0-9_.-]+)\[(?P<tier>[A-Za-z_]+)\]$")


def parse_nodeid(nodeid: str) -> tuple[str, str, str] | None:
    """(file path, case id, tier) of a sprout item's node id, or None for any other node id."""
    match = _NODEID.match(nodeid)
    return (match["path"], match["case"], match["tier"]) if match else None


def first_line(text: Any, limit: int = 300) -> str:
    """The most telling line of a failure text: the last non-empty line of a traceback (the
    exception), else the first line."""
    lines = [ln.strip() for ln in clean_text(str(text or "")).splitlines() if ln.strip()]
    if not lines:
        return ""
    line = next((ln for ln in reversed(lines) if re.match(r"^(E\s+)?[A-Za-z_.]*(Error|Exception|Exit|Interrupt)\b", ln)), lines[0])
    line = re.sub(r"^E\s+", "", line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


class Ledger:
    """Which sprout items were selected, and which already have a row (controller only)."""

    def __init__(self) -> None:
        self.selected: dict[str, str] = {}  # node id -> suite name
        self.rowed: set[str] = set()

    def select(self, nodeids: Iterable[tuple[str, str]]) -> None:
        """Register selected sprout items as (node id, suite). With xdist every worker reports the
        same collection; registering twice is harmless."""
        for nodeid, suite in nodeids:
            self.selected.setdefault(nodeid, suite)

    def has_row(self, nodeid: str) -> bool:
        return nodeid in self.rowed

    def add(self, nodeid: str) -> None:
        self.rowed.add(nodeid)

    def row_from_report(self, nodeid: str, suite: str, outcome: str, when: str, longrepr: Any) -> Row | None:
        """A row for an item whose report carries none, or None when this report needs none (a
        passing phase, or the item has a row already)."""
        parsed = parse_nodeid(nodeid)
        if parsed is None or nodeid in self.rowed or outcome == "passed":
            return None
        _, case_id, tier = parsed
        row = Row(case_id, suite, tier, nodeid=nodeid)
        if outcome == "skipped":
            if when == "teardown":
                return None
            row.outcome = "skipped"
            row.note = skip_reason(longrepr)
        else:
            row.outcome = ERROR
            phase = {"setup": "its setup failed", "teardown": "its teardown failed", "call": "it raised"}.get(when, "it did not finish")
            error = first_line(longrepr) or phase
            if "crashed" not in error:
                error = f"{phase}: {error}" if error != phase else phase
            row.error = error
        self.rowed.add(nodeid)
        return row

    def unreported(self, interrupted: bool) -> list[Row]:
        """Rows for selected items that never reported anything."""
        if interrupted and not self.rowed:  # nothing ran: collection errors (or Ctrl-C) stopped the run first
            why = "not run: the run was interrupted before any item ran (see the collection errors above, if any)"
        elif interrupted:
            why = "not run: the run was interrupted before this item finished"
        else:
            why = "no result came back for this item (its xdist worker crashed or the run stopped early)"
        rows = []
        for nodeid, suite in sorted(self.selected.items()):
            if nodeid in self.rowed:
                continue
            parsed = parse_nodeid(nodeid)
            if parsed is None:
                continue
            _, case_id, tier = parsed
            rows.append(Row(case_id, suite, tier, nodeid=nodeid, outcome=ERROR, error=why))
            self.rowed.add(nodeid)
        return rows


def skip_reason(longrepr: Any) -> str:
    """The reason of a skip report's ``(path, line, reason)`` longrepr."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return clean_text(str(longrepr[2])).removeprefix("Skipped: ")
    return first_line(longrepr)
