"""CI gates that respect noise: minimum lower bounds and regressions judged by an interval.

- ``--sprout-min=TIER.METRIC=VALUE`` (repeatable; ini ``sprout_min``): the gate fails when the
  metric's 95% lower bound (Wilson for rates and for means of [0, 1] scores, Student t for other
  means) is below VALUE.
- ``--sprout-compare=OLD.json``: per-metric deltas against an earlier ``--sprout-report``, paired
  over the cases both runs judged (compare.py: Newcombe's method 10 for paired proportions, a
  paired t for means; unpaired intervals only for metrics without pairs), and the items whose
  outcome changed.
- ``--sprout-fail-on-regression``: fails only when a drop is statistically distinguishable (the
  whole interval of new - old lies below zero).
- ``--sprout-fail-on=any|new|gates``: which item failures fail the run (core/fail_on.py); ``new``
  needs the baseline.

Comparing reports built from different datasets is refused unless ``--sprout-compare-any-dataset``
or ``--sprout-fail-on=new`` (which pairs items by case content, so a case added or edited since the
baseline is simply new). Plain Python over report dicts and ``MetricRow``s; the only pytest use is
``UsageError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import pytest

from ..core.model import TIERS
from ..core.tier import unknown_tier
from ..config.options import parse_assignments
from ..config.settings import Settings
from ..core import report_check
from ..core.fail_on import FAILING, VERDICT_FAILED, FailOn, FailOnSummary
from ..core.report_check import MAX_ABS, MAX_N, ReportError, check_report  # noqa: F401 (importers)
from ..core.stats import MetricRow, wilson_interval
from ..core.util import md_cell as _md, short_hash as _short
from . import compare as comparing
from ..core.judges import judges_difference
from .compare import Delta, ci_text as _ci, compare_rows, signed as _signed, welch_interval  # noqa: F401 (importers)


@dataclass(frozen=True)
class MinGate:
    tier: str
    metric: str
    value: float

    @property
    def name(self) -> str:
        return f"{self.tier}.{self.metric}"


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome: ``passed`` is True, False, or None when it could not be checked because
    no item of its tier was selected in this run."""

    name: str
    passed: bool | None
    message: str
    value: float | None = None  # the bound a --sprout-min gate asks for

    def to_json(self) -> dict[str, Any]:
        return {"gate": self.name, "passed": self.passed, "message": self.message, "value": self.value}


@dataclass
class Baseline:
    path: str
    report: dict[str, Any]
    # (tier, metric) -> the old metric row and the raw per-item values (for means)
    rows: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    values: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    items: dict[str, comparing.ItemView] = field(default_factory=dict)  # node id -> the old item (pairing, flips)


@dataclass
class GateOutcome:
    """Everything the gates concluded at the end of a session."""

    mins: list[GateResult] = field(default_factory=list)
    baseline: str | None = None  # the compared file, as given
    baseline_hash: str | None = None
    dataset_hash: str | None = None
    deltas: list[Delta] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # metrics in the baseline, absent now
    regression: GateResult | None = None
    unscored: list[GateResult] = field(default_factory=list)  # tiers mostly unscored (--sprout-max-unscored)
    cases: Any = None  # selection.Overlap: how many cases the comparison covers (None: not known)
    systems: tuple[str, str] = ("unknown", "unknown")  # the baseline's system and this run's, "name version"
    paired_cases: int = 0  # cases with an item judged in both runs on the same content
    flips: list[dict[str, Any]] = field(default_factory=list)  # paired items whose outcome changed
    fail_on: FailOnSummary | None = None  # what --sprout-fail-on new or gates did (None: any)
    baseline_complete: bool = True  # False: the baseline says "complete": false (it stopped early)
    judged_otherwise: list[str] = field(default_factory=list)  # the judging settings the baseline differs in
    judging: GateResult | None = None  # failed: the baseline's judges differ and --sprout-compare-any-judging was not given

    @property
    def failed(self) -> list[GateResult]:
        results = self.mins + ([self.regression] if self.regression else []) + self.unscored
        return [r for r in results + ([self.judging] if self.judging else []) if r.passed is False]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"min": [r.to_json() for r in self.mins]}
        if self.unscored:
            data["unscored"] = [r.to_json() for r in self.unscored]
        if self.fail_on is not None:
            data["fail_on"] = self.fail_on.to_json()
        if self.baseline is not None:
            data["compare"] = {
                "baseline": self.baseline,
                "baseline_dataset_hash": self.baseline_hash,
                "baseline_complete": self.baseline_complete,
                "judged_otherwise": self.judged_otherwise,
                "judging_gate": self.judging.to_json() if self.judging else None,
                "systems": {"old": self.systems[0], "new": self.systems[1]},
                "paired_cases": self.paired_cases,
                "deltas": [d.to_json() for d in self.deltas],
                "missing": self.missing,
                **({"cases": self.cases.to_json()} if self.cases is not None else {}),
                "flips": self.flips,
                "regression_gate": self.regression.to_json() if self.regression else None,
            }
        return data

    def lines(self) -> list[str]:
        """Terminal lines: the comparison table, then one line per gate."""
        lines: list[str] = comparing.lines(self) if self.baseline is not None else []
        for result in self.mins + ([self.regression] if self.regression else []) + self.unscored:
            lines.append(result.message)
        if self.judging is not None:
            lines.append(self.judging.message)
        if self.fail_on is not None:
            from ..core.identity import id_list

            lines += self.fail_on.lines(id_list)
        return lines

    def markdown(self) -> list[str]:
        """The same as Markdown, for --sprout-md."""
        out: list[str] = []
        if self.mins or self.regression or self.unscored or self.judging:
            out += ["### Gates", ""]
            for result in self.mins + ([self.regression] if self.regression else []) + self.unscored + (
                    [self.judging] if self.judging else []):
                mark = {True: "PASS", False: "**FAIL**", None: "not checked"}[result.passed]
                out.append(f"- {mark}: {_md(result.message)}")
            out.append("")
        if self.fail_on is not None:
            from ..core.identity import id_list

            out += [f"- {_md(line)}" for line in self.fail_on.lines(id_list)] + [""]
        if self.baseline is not None:
            out += comparing.markdown(self)
        return out


# --- parsing the options ---------------------------------------------------------------------


def parse_min(values: Iterable[str]) -> list[MinGate]:
    """``TIER.METRIC=VALUE`` strings (command line and ini) as gates; a bad one is a UsageError."""
    gates = []
    for (tier, metric), value in parse_assignments(list(values), "--sprout-min / sprout_min").items():
        if tier not in TIERS:
            raise pytest.UsageError(f"--sprout-min: {unknown_tier(tier, f' in {tier}.{metric}')}")
        if not 0.0 <= value <= 1.0:
            raise pytest.UsageError(f"--sprout-min: {tier}.{metric}={value:g}: the bound is a rate, between 0 and 1")
        gates.append(MinGate(tier, metric, value))
    return gates


def load_baseline(path: Path, shown: str) -> Baseline:
    """Read an earlier --sprout-report JSON; every problem is a UsageError naming file and field."""
    where = f"--sprout-compare {shown}"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise pytest.UsageError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"{where}: cannot read it: {exc}") from None
    except json.JSONDecodeError as exc:
        raise pytest.UsageError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (RecursionError, ValueError, OverflowError) as exc:  # nesting too deep, a number too long
        raise pytest.UsageError(f"{where}: cannot be read as a report ({type(exc).__name__}: {str(exc)[:120]})") from None
    try:
        check_report(report)
    except ReportError as exc:
        raise pytest.UsageError(f"{where}: {exc}") from None
    baseline = Baseline(shown, report)
    for row in report["metrics"]:
        baseline.rows[(row["tier"], row["metric"])] = row
    items = report.get("items") or []
    for item in items:
        tier = item.get("tier")
        for metric, values in item.get("metrics", {}).items():
            baseline.values.setdefault((tier if isinstance(tier, str) else "", metric), []).extend(values)
    baseline.items = comparing.item_views(items)
    return baseline


def check_metric_row(row: Any, where: str) -> None:
    """One metric row of a baseline report (core/report_check.py); a UsageError naming it."""
    try:
        report_check.check_metric_row(row, where)
    except ReportError as exc:
        raise pytest.UsageError(str(exc)) from None


# --- the gates -------------------------------------------------------------------------------


class Gates:
    """The gates of one session, parsed and checked before any item runs."""

    def __init__(
        self, mins: list[MinGate], baseline: Baseline | None = None,
        fail_on_regression: bool = False, dataset_hash: str | None = None, fail_on: FailOn | None = None,
        any_judging: bool = False, judged_otherwise: Iterable[str] = (),
    ) -> None:
        self.any_judging = any_judging  # --sprout-compare-any-judging
        self.judged_otherwise = list(judged_otherwise)  # the judging settings the baseline differs in (allowed)
        self.mins = mins
        self.baseline = baseline
        self.fail_on_regression = fail_on_regression
        self.dataset_hash = dataset_hash
        self.fail_on = fail_on or FailOn()

    @classmethod
    def from_options(
        cls, *, mins: Iterable[str], compare: str | None, compare_path: Path | None,
        fail_on_regression: bool, any_dataset: bool, dataset_hash: str | None, fail_on: str = "any",
        judging: Mapping[str, Any] | None = None, any_judging: bool = False,
    ) -> Gates:
        """Parse the options; refuse a baseline built from another dataset unless ``any_dataset``
        (or ``fail_on`` is "new": its items are matched case by case), and one judged with other
        settings than ``judging`` (this run's) unless ``any_judging``."""
        if fail_on_regression and not compare:
            raise pytest.UsageError("--sprout-fail-on-regression needs --sprout-compare=OLD.json (the report to compare with)")
        if fail_on == "new" and not compare:
            raise pytest.UsageError("--sprout-fail-on=new needs --sprout-compare=BASE.json: the earlier --sprout-report "
                                    "whose failing items are the known failures")
        baseline = None
        policy = FailOn(fail_on)
        if compare and compare_path is not None:
            baseline = load_baseline(compare_path, compare)
            old = baseline.report.get("dataset_hash")
            if old != dataset_hash and not any_dataset and fail_on != "new":
                raise pytest.UsageError(
                    f"--sprout-compare {compare}: that report was built from dataset {_short(old)}, but the suites now "
                    f"hash to {_short(dataset_hash)}; a difference between two different sets of cases says nothing "
                    "about the system. Re-run the baseline on these suites, or pass --sprout-compare-any-dataset "
                    "to compare anyway."
                )
            differs = judged_otherwise(baseline.report, judging) if judging is not None else []
            if differs and not any_judging:
                raise pytest.UsageError(judging_refusal(compare, differs, fail_on))
            policy = FailOn.from_baseline(fail_on, compare, baseline.report.get("items") or [], old == dataset_hash)
            return cls(parse_min(mins), baseline, fail_on_regression, dataset_hash, policy, any_judging, differs)
        return cls(parse_min(mins), baseline, fail_on_regression, dataset_hash, policy, any_judging)

    def evaluate(
        self, rows: list[MetricRow], values: Mapping[tuple[str, str], list[Any]], tiers_run: set[str],
        items: Iterable[Any] = (), system: Any = None, known: Iterable[str] = (), let_pass: int = 0,
        judges: Mapping[str, Any] | None = None,
    ) -> GateOutcome:
        """Check every gate against this run's metric rows (and raw values, for means); with a
        baseline, compare them, paired over this run's ``items`` judged in both runs. ``known``
        and ``let_pass``: the items --sprout-fail-on made xfailed (known failures; all of them)."""
        by_key = {(r.tier, r.metric): r for r in rows}
        outcome = GateOutcome(dataset_hash=self.dataset_hash)
        outcome.mins = [check_min(g, by_key.get((g.tier, g.metric)), g.tier in tiers_run) for g in self.mins]
        if self.baseline is not None:
            outcome.baseline = self.baseline.path
            outcome.baseline_hash = self.baseline.report.get("dataset_hash")
            now = comparing.item_views(items)
            ids = comparing.paired_ids(self.baseline.items, now, outcome.baseline_hash == self.dataset_hash)
            paired = comparing.paired_deltas(rows, self.baseline.items, now, ids)
            outcome.deltas = compare_rows(self.baseline, rows, values, paired)
            outcome.missing = [f"{t}.{m}" for (t, m) in self.baseline.rows if (t, m) not in by_key]
            outcome.flips = comparing.flips(self.baseline.items, now, ids)
            outcome.paired_cases = comparing.cases_of(ids)
            outcome.systems = (comparing.system_name(self.baseline.report.get("system")), comparing.system_name(system))
            outcome.baseline_complete = self.baseline.report.get("complete") is not False
            differs = self.judged_otherwise + judges_difference(self.baseline.report.get("judges") or {}, judges or {})
            outcome.judged_otherwise = differs
            if differs and not self.any_judging:  # the judge itself changed (its rules, calibration, model)
                outcome.judging = GateResult("judging", False, judging_refusal(self.baseline.path, differs,
                                                                                self.fail_on.mode, late=True))
            if self.fail_on_regression:
                outcome.regression = regression_result(outcome.deltas)
            if self.fail_on.mode == "new":
                outcome.fail_on = new_mode_summary(self.fail_on, self.baseline.items, now, ids, set(known))
                outcome.fail_on.baseline_errors = sum(v.outcome == "error" for v in self.baseline.items.values())
                outcome.fail_on.baseline_incomplete = self.baseline.report.get("complete") is False
        if self.fail_on.mode == "gates":
            outcome.fail_on = FailOnSummary("gates", let_pass=let_pass)
        return outcome


def new_mode_summary(policy: FailOn, old: Mapping[str, Any], now: Mapping[str, Any], paired: Iterable[str],
                     known: set[str]) -> FailOnSummary:
    """--sprout-fail-on=new: the known failures, the new ones (failing now, not known: they fail
    the run) and the fixed ones (failed in the baseline, a verdict, not an error; pass now, on the
    same case content)."""
    new = sorted(nodeid for nodeid, item in now.items() if item.outcome in FAILING and nodeid not in known)
    fixed = [nodeid for nodeid in paired if old[nodeid].outcome == VERDICT_FAILED and now[nodeid].outcome == "passed"]
    return FailOnSummary("new", policy.baseline, known=sorted(known), new=new, fixed=fixed)


def check_min(gate: MinGate, row: MetricRow | None, tier_ran: bool) -> GateResult:
    """The gate passes when the 95% lower bound is at or above the value. A metric with no scored
    observation fails (the gate was asked for and cannot be shown to hold), unless no item of its
    tier was selected in this run (``-m``/``-k`` left the tier out): then it is not checked."""
    head = f"gate {gate.name} >= {gate.value:g}"
    if row is None or row.n == 0 or row.ci_low is None:
        if not tier_ran and row is None:
            return GateResult(gate.name, None, value=gate.value, message=f"{head}: not checked (no {gate.tier} items ran in this session)")
        if row is None:
            why = f"no scored observations (the {gate.tier} items were skipped, unscored, or have no {gate.metric!r} metric)"
        else:
            why = "no scored observations" if row.n == 0 else "no interval (a single observation)"
        unscored = f", {row.unscored} unscored" if row is not None and row.unscored else ""
        return GateResult(gate.name, False, f"{head}: FAILED: {why}{unscored}; the gate cannot be shown to hold", gate.value)
    bound = "Wilson" if row.kind == "rate" else "t"
    observed = f"{row.k}/{row.n} = {row.rate:.3f}" if row.kind == "rate" else f"mean {row.rate:.3f}, n={row.n}"
    if row.ci_low >= gate.value:
        return GateResult(gate.name, True, f"{head}: passed ({bound} 95% lower bound {row.ci_low:.3f}; {observed})", gate.value)
    return GateResult(
        gate.name, False,
        f"{head}: FAILED: the {bound} 95% lower bound is {row.ci_low:.3f} ({observed}, interval "
        f"[{row.ci_low:.3f}, {row.ci_high:.3f}])"
        + ("; with this few observations the bound cannot reach it, add cases" if _unreachable(row, gate.value) else ""),
        gate.value,
    )


def _unreachable(row: MetricRow, value: float) -> bool:
    """Whether even a perfect score on this many observations stays below the gate."""
    return row.kind == "rate" and wilson_interval(row.n, row.n)[0] < value


def regression_result(deltas: list[Delta]) -> GateResult:
    worse = [d for d in deltas if d.verdict == "worse"]
    if not worse:
        return GateResult("regression", True, "regression gate: passed (no drop is statistically distinguishable)")
    parts = [f"{d.tier}.{d.metric} {d.old} -> {d.new}, delta {_signed(d.delta)} {_ci(d.low, d.high)}" for d in worse]
    return GateResult(
        "regression", False,
        "regression gate: FAILED: the whole 95% interval of the change lies below zero for " + "; ".join(parts),
    )


def judged_otherwise(report: Mapping[str, Any], judging: Mapping[str, Any]) -> list[str]:
    """The judging settings (core/judges.py) a baseline report differs from this run's in, on the
    tiers the baseline judged. A report older than ``judging`` says only its citations mode."""
    from ..core.judges import judging_difference
    from ..judges import tier_module

    old = report.get("judging")
    if not isinstance(old, Mapping):
        mode = (report.get("settings") or {}).get("citations") if isinstance(report.get("settings"), Mapping) else None
        now = judging.get("sprout_citations")
        return [f"sprout_citations: \"{mode}\" then, \"{now}\" now"] if isinstance(mode, str) and mode != now else []
    tiers = {m.get("tier") for m in report.get("metrics") or []} | {i.get("tier") for i in report.get("items") or []}
    tiers = {t for t in tiers if t in TIERS}
    options = {t: getattr(tier_module(t), "OPTIONS", ()) for t in tiers}
    return judging_difference(old, judging, options, tiers)


def judging_refusal(baseline: str, differs: list[str], fail_on: str, late: bool = False) -> str:
    """The words of the refusal: which settings differ, and the way to compare anyway."""
    what = "--sprout-fail-on=new against " if fail_on == "new" else "--sprout-compare "
    head = ("judging gate: FAILED: " if late else "") + f"{what}{baseline}: the baseline was judged otherwise "
    return (head + f"({'; '.join(differs[:4])}{'; ...' if len(differs) > 4 else ''}): a change of the judge is not "
            "a change of the system, so nothing would be better, worse, known or fixed for a reason of the system's. "
            "Re-run the baseline with this run's judging, or pass --sprout-compare-any-judging to compare anyway.")


# --- from the run's settings (controller only) ------------------------------------------------


def from_settings(settings: Settings, dataset_hash: Callable[[], str],
                  judging: Callable[[], Mapping[str, Any]] | None = None) -> Gates:
    """The gates the run's options ask for; raises UsageError before any item runs.
    ``dataset_hash`` is called only when there is a baseline to compare with."""
    return Gates.from_options(
        mins=list(settings.mins),
        compare=settings.compare_option,
        compare_path=settings.compare,
        fail_on_regression=settings.fail_on_regression,
        any_dataset=settings.compare_any_dataset,
        dataset_hash=dataset_hash() if settings.compare_option else None,
        fail_on=settings.fail_on,
        judging=judging() if judging is not None and settings.compare_option else None,
        any_judging=settings.compare_any_judging,
    )


def exit_status(current: int, outcome: GateOutcome | None, write_failed: bool = False) -> int:
    """The session's exit status once the gates have spoken: a failed gate, or a requested report
    that could not be written, turns a passing run into TESTS_FAILED; an interrupted run, a usage
    error or an empty collection keep their code."""
    if outcome is not None and outcome.failed and current == pytest.ExitCode.OK:
        return pytest.ExitCode.TESTS_FAILED
    if write_failed and current in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        return pytest.ExitCode.TESTS_FAILED
    return current
