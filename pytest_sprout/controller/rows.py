"""The controller's item rows, kept compact (layer 8, controller).

An item row arrives on its test report as compact JSON (collect.py puts it in the report's user
properties, xdist ships it as is). Parsed, a row takes about three times the memory of that text,
and pytest's terminal reporter keeps every report (and so the text) until the end anyway; so the
store keeps the text it was given, with the node id and outcome the controller added, and parses a
row again only when a report is written. What the summary needs about all rows (the outcome
counts, the errors, whether any row was unscored, mutated or judged sentence by sentence) is
counted as rows arrive, so that a run that needs none of the extra sections never reads its rows
twice.

Iterating a store gives the rows (dicts, as the item made them, plus ``nodeid`` and ``outcome``)
in arrival order; ``in_order()`` gives them sorted by node id, the JSON report's order.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterator

from .ledger import ERROR
from ..core.citations import citing_kind
from ..core.row import Row


class RowStore:
    def __init__(self) -> None:
        # (node id, outcome, the row's compact JSON as the item sent it, or the row itself)
        self._rows: list[tuple[str, str, str | Row]] = []
        self.outcomes: Counter[str] = Counter()
        self.errors: list[tuple[str, str]] = []  # (node id, error) of every errored row
        self.unscored = False  # a row was unscored (--sprout-max-unscored reads the rows)
        self.mutated = False  # a row carries mutants, or says why it has none (--sprout-mutate)
        self.sentence_tiers: set[str] = set()  # tiers with a row judged sentence by sentence
        # Judged sentence rows (every tier) that cite a passage, cite none, or cite none and were
        # judged against the retrieved passages (--sprout-citations=retrieved): core/citations.py
        self.citing: Counter[str] = Counter()

    def add(self, row: Row, raw: str | None = None) -> None:
        """Keep ``row`` (which has its ``nodeid`` and ``outcome``). ``raw``, when given, is the
        compact JSON the row was parsed from: it is kept instead of the row, which must then be
        ``Row.from_json(json.loads(raw))`` with ``nodeid`` and ``outcome``, less its ``golden``."""
        nodeid, outcome = str(row.nodeid), str(row.outcome)
        self._rows.append((nodeid, outcome, raw if raw is not None else row))
        self.outcomes[outcome] += 1
        if outcome == ERROR:
            self.errors.append((nodeid, str(row.error)))
        if row.unscored:
            self.unscored = True
        if row.mutants or row.mutants_skipped:
            self.mutated = True
        if row.sentences and all("supported" in s for s in row.sentences):
            self.sentence_tiers.add(str(row.tier))
        for sentence in row.sentences or ():
            if "supported" in sentence:
                self.citing[citing_kind(sentence)] += 1

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Row]:
        return (self._row(entry) for entry in self._rows)

    def in_order(self) -> Iterator[Row]:
        """The rows sorted by node id (stable: rows of one node id stay in arrival order)."""
        return (self._row(entry) for entry in sorted(self._rows, key=lambda entry: entry[0]))

    def of_outcome(self, outcome: str) -> Iterator[Row]:
        """The rows with this outcome, in arrival order (only those are parsed)."""
        return (self._row(entry) for entry in self._rows if entry[1] == outcome)

    @staticmethod
    def _row(entry: tuple[str, str, str | Row]) -> Row:
        nodeid, outcome, payload = entry
        if not isinstance(payload, str):
            return payload
        row = Row.from_json(json.loads(payload))
        row.golden = None  # taken off when it arrived (the golden set keeps it)
        row.nodeid, row.outcome = nodeid, outcome
        return row
