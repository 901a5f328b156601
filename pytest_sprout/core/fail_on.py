"""What fails a run (``--sprout-fail-on=any|new|gates``, ini ``sprout_fail_on``): the policy an
item's report is judged by, decided once on the controller and shipped to xdist workers as JSON
(layer 0, core: plain Python, no pytest import).

- ``any`` (the default): every failing item fails the run, as always.
- ``new``: an item that failed in the ``--sprout-compare`` baseline and fails again is a known
  failure. Its report is turned into pytest's xfailed ("failed in BASE.json"), so pytest's exit
  status, its terminal and its JUnit XML treat it as expected; its row stays a failed row marked
  ``"known": true``, and every metric counts it as the failure it is. Any other failure fails the run.
- ``gates``: every item failure is turned into xfailed ("gates only"); only the gates
  (``--sprout-min``, ``--sprout-fail-on-regression``, ``--sprout-max-unscored``) fail the run.

Only a baseline row whose outcome is ``failed`` makes a known failure: a verdict the system
earned. An ``error`` row is no verdict: the rows a run stopped by ``-x``/``--maxfail`` or
interrupted writes for the items it never ran, an outage's rows, a system that raised. It excuses
nothing, and an item that errored in the baseline and passes now is not "fixed" (regression: repro
32). A failure now of an item the baseline has no verdict for is new.

An item is known only when the baseline judged the same case: the same node id and, where both
rows carry one, the same case content hash (``identity.case_hash``); a case whose question,
expectation, facts or thresholds changed is new. A baseline row without a hash (a report older than
the hash) matches by node id only when both runs hash to the same dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .errors import SettingsError

MODES = ("any", "new", "gates")
FAILING = ("failed", "error")  # the outcomes of a failing item row
VERDICT_FAILED = "failed"  # the one baseline outcome that makes a known failure (an error is no verdict)
KNOWN_PROPERTY = "sprout.known"  # a report property: the item failed in the baseline too
GATES_PROPERTY = "sprout.gates_only"  # a report property: an item failure --sprout-fail-on=gates lets pass
GATES_REASON = "gates only (--sprout-fail-on=gates): item failures do not fail the run"


def parse_mode(value: Any) -> str:
    """The mode of ``--sprout-fail-on`` / ``sprout_fail_on``; anything else is a SettingsError."""
    mode = str(value if value is not None else "any").strip().lower()
    if mode not in MODES:
        raise SettingsError(f"--sprout-fail-on / sprout_fail_on must be one of {', '.join(MODES)}, got {value!r}")
    return mode


@dataclass(frozen=True)
class FailOn:
    """The run's policy; ``failing`` maps the baseline's failing node ids to their case content
    hash (None: the row carries none, and the datasets match)."""

    mode: str = "any"
    baseline: str | None = None  # the --sprout-compare file, as given
    failing: Mapping[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_baseline(cls, mode: str, baseline: str | None, items: Iterable[Mapping[str, Any]],
                      same_dataset: bool) -> FailOn:
        """The policy of ``mode`` with the failing items of a baseline report's ``items``."""
        failing: dict[str, str | None] = {}
        if mode == "new":
            for item in items:
                nodeid, digest = item.get("nodeid"), item.get("case_hash")
                if not isinstance(nodeid, str) or item.get("outcome") != VERDICT_FAILED:
                    continue
                if isinstance(digest, str) or same_dataset:  # no hash and another dataset: cannot tell
                    failing[nodeid] = digest if isinstance(digest, str) else None
        return cls(mode, baseline, failing)

    def mark(self, nodeid: str, case_hash: str | None) -> tuple[str, str] | None:
        """(report property, xfail reason) for a failing item that must not fail the run, else None."""
        if self.mode == "gates":
            return GATES_PROPERTY, GATES_REASON
        if self.mode == "new" and nodeid in self.failing:
            old = self.failing[nodeid]
            if old is None or old == case_hash:
                return KNOWN_PROPERTY, f"failed in {self.baseline}"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "baseline": self.baseline, "failing": dict(self.failing)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> FailOn:
        if not data:
            return cls()
        return cls(str(data.get("mode", "any")), data.get("baseline"), dict(data.get("failing") or {}))


@dataclass
class FailOnSummary:
    """What ``--sprout-fail-on`` did in a run, for the summary and the JSON report's gates."""

    mode: str
    baseline: str | None = None
    known: list[str] = field(default_factory=list)  # failed in the baseline and now: xfailed
    new: list[str] = field(default_factory=list)  # fail now, did not in the baseline: the run fails
    fixed: list[str] = field(default_factory=list)  # failed in the baseline, pass now
    let_pass: int = 0  # gates mode: item failures that did not fail the run
    baseline_errors: int = 0  # the baseline's error rows (no verdict: never known, never fixed)
    baseline_incomplete: bool = False  # the baseline says "complete": false (a run stopped early)

    def to_json(self) -> dict[str, Any]:
        if self.mode == "gates":
            return {"mode": "gates", "item_failures": self.let_pass}
        return {"mode": self.mode, "baseline": self.baseline, "known": self.known, "new_failures": self.new,
                "fixed": self.fixed, "baseline_errors": self.baseline_errors,
                "baseline_complete": not self.baseline_incomplete}

    def lines(self, id_list: Any) -> list[str]:
        """Terminal lines; ``id_list`` shows a list of node ids (the first 20, then how many more)."""
        if self.mode == "gates":
            noun = "item failure does" if self.let_pass == 1 else "item failures do"
            return [f"--sprout-fail-on=gates: {self.let_pass} {noun} not fail the run (shown as xfailed); "
                    "only the gates and the unscored limit can"]
        noun = "known failure" if len(self.known) == 1 else "known failures"
        lines = [f"--sprout-fail-on=new: {len(self.known)} {noun} (failed in {self.baseline} too; shown as xfailed, "
                 "still failures in every metric)"]
        if self.new:
            lines.append(f"new failures ({len(self.new)}): {id_list(self.new)}")
        else:
            lines.append("new failures: none")
        if self.fixed:
            lines.append(f"fixed ({len(self.fixed)}): {id_list(self.fixed)}")
        if self.baseline_errors or self.baseline_incomplete:
            noun = "item" if self.baseline_errors == 1 else "items"
            why = (f"{self.baseline} is incomplete (\"complete\": false: the run stopped early or was interrupted); "
                   if self.baseline_incomplete else "")
            lines.append(f"{why}its {self.baseline_errors} errored or never-run {noun} had no verdict: they excuse "
                         "no failure now and none is \"fixed\"")
        return lines
