"""CI gates that respect noise: minimum lower bounds and regressions judged by an interval.

- ``--sprout-min=TIER.METRIC=VALUE`` (repeatable; ini ``sprout_min``): the gate fails when the
  metric's 95% lower bound (Wilson for rates and for means of [0, 1] scores, Student t for other
  means) is below VALUE.
- ``--sprout-compare=OLD.json``: per-metric deltas against an earlier ``--sprout-report``, with
  Newcombe's interval for a difference of two proportions (Welch's t interval for means).
- ``--sprout-fail-on-regression``: fails only when a drop is statistically distinguishable (the
  whole interval of new - old lies below zero).

Comparing reports built from different datasets is refused unless ``--sprout-compare-any-dataset``.
Plain Python over report dicts and ``MetricRow``s; the only pytest use is ``UsageError``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import pytest

from ..core.model import TIERS
from ..core.tier import unknown_tier
from ..config.options import parse_assignments
from ..config.settings import Settings
from ..core.stats import MetricRow, mover_difference, newcombe_interval, t_quantile, wilson_interval
from ..core.util import md_cell as _md, short_hash as _short


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


@dataclass(frozen=True)
class Delta:
    """One metric compared with the baseline: new - old, with its 95% interval."""

    tier: str
    metric: str
    kind: str
    old: str  # "k/n" or "mean (n=..)", for display
    new: str
    delta: float | None
    low: float | None
    high: float | None
    method: str  # "newcombe", "welch", or why there is no interval

    @property
    def verdict(self) -> str:
        if self.low is None or self.high is None:
            return "no interval"
        if self.high < 0:
            return "worse"
        if self.low > 0:
            return "better"
        return "no distinguishable change"

    def to_json(self) -> dict[str, Any]:
        return {
            "tier": self.tier, "metric": self.metric, "kind": self.kind, "old": self.old, "new": self.new,
            "delta": self.delta, "ci_low": self.low, "ci_high": self.high, "method": self.method,
            "verdict": self.verdict,
        }


@dataclass
class Baseline:
    path: str
    report: dict[str, Any]
    # (tier, metric) -> the old metric row and the raw per-item values (for means)
    rows: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    values: dict[tuple[str, str], list[Any]] = field(default_factory=dict)


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

    @property
    def failed(self) -> list[GateResult]:
        results = self.mins + ([self.regression] if self.regression else []) + self.unscored
        return [r for r in results if r.passed is False]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"min": [r.to_json() for r in self.mins]}
        if self.unscored:
            data["unscored"] = [r.to_json() for r in self.unscored]
        if self.baseline is not None:
            data["compare"] = {
                "baseline": self.baseline,
                "baseline_dataset_hash": self.baseline_hash,
                "deltas": [d.to_json() for d in self.deltas],
                "missing": self.missing,
                **({"cases": self.cases.to_json()} if self.cases is not None else {}),
                "regression_gate": self.regression.to_json() if self.regression else None,
            }
        return data

    def lines(self) -> list[str]:
        """Terminal lines: the comparison table, then one line per gate."""
        lines: list[str] = []
        if self.baseline is not None:
            same = self.baseline_hash == self.dataset_hash
            lines.append(
                f"compared with {self.baseline} (dataset {_short(self.baseline_hash)}"
                + (", the same as now" if same else f"; now {_short(self.dataset_hash)}: DIFFERENT dataset")
                + (f"; {self.cases.phrase()})" if self.cases is not None else ")")
            )
            lines.extend(_align([("tier", "metric", "old", "new", "delta", "95% CI", "method", "verdict")] + [
                (d.tier, d.metric, d.old, d.new, _signed(d.delta), _ci(d.low, d.high), d.method, d.verdict)
                for d in self.deltas
            ]))
            for name in self.missing:
                lines.append(f"{name}: in the baseline, not measured in this run")
        for result in self.mins + ([self.regression] if self.regression else []) + self.unscored:
            lines.append(result.message)
        return lines

    def markdown(self) -> list[str]:
        """The same as Markdown, for --sprout-md."""
        out: list[str] = []
        if self.mins or self.regression or self.unscored:
            out += ["### Gates", ""]
            for result in self.mins + ([self.regression] if self.regression else []) + self.unscored:
                mark = {True: "PASS", False: "**FAIL**", None: "not checked"}[result.passed]
                out.append(f"- {mark}: {_md(result.message)}")
            out.append("")
        if self.baseline is not None:
            out += [f"### Compared with `{_md(self.baseline)}`", ""]
            if self.cases is not None:
                out += [_md(self.cases.phrase()), ""]
            out += ["| tier | metric | old | new | delta | 95% CI | method | verdict |", "|---|---|---:|---:|---:|---|---|---|"]
            for d in self.deltas:
                cells = (_md(d.tier), _md(d.metric), *(_md(c) for c in (d.old, d.new)), _signed(d.delta),
                         _ci(d.low, d.high), d.method, d.verdict)  # the names and values come from the baseline
                out.append("| " + " | ".join(cells) + " |")
            for name in self.missing:
                out.append(f"\n{_md(name)}: in the baseline, not measured in this run")
            out.append("")
        return out


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _ci(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _align(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


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
    if not isinstance(report, dict) or report.get("plugin") != "pytest-sprout":
        raise pytest.UsageError(f"{where}: not a pytest-sprout report (write one with --sprout-report)")
    if not isinstance(report.get("metrics"), list):
        raise pytest.UsageError(f"{where}: field 'metrics' must be a list")
    if report.get("dataset_hash") is not None and not isinstance(report.get("dataset_hash"), str):
        raise pytest.UsageError(f"{where}: field 'dataset_hash' must be a string")
    baseline = Baseline(shown, report)
    for i, row in enumerate(report["metrics"]):
        check_metric_row(row, f"{where}: metrics[{i}]")
        baseline.rows[(row["tier"], row["metric"])] = row
    items = report.get("items")
    items = [] if items is None else items
    if not isinstance(items, list):
        raise pytest.UsageError(f"{where}: field 'items' must be a list")
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("metrics", {}), dict):
            raise pytest.UsageError(f"{where}: items[{i}] must be an object whose 'metrics' is an object")
        for metric, values in item.get("metrics", {}).items():
            if not isinstance(values, list) or not all(_is_value(v) for v in values):
                raise pytest.UsageError(f"{where}: items[{i}] field 'metrics.{metric}' must be a list of "
                                        "true/false, finite numbers or null")
            tier = item.get("tier")
            baseline.values.setdefault((tier if isinstance(tier, str) else "", metric), []).extend(values)
    return baseline


MAX_N = 10**9  # more observations than any run holds: a tampered or broken file
MAX_ABS = 1e12  # the largest mean a report may claim


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and abs(value) <= MAX_ABS


def _is_value(value: Any) -> bool:
    return value is None or isinstance(value, bool) or _is_number(value)


def check_metric_row(row: Any, where: str) -> None:
    """One metric row of a baseline report: every field's type and range; a UsageError naming it."""
    if not isinstance(row, dict):
        raise pytest.UsageError(f"{where} must be an object")
    for key in ("tier", "metric"):
        if not isinstance(row.get(key), str):
            raise pytest.UsageError(f"{where} field {key!r} is missing or not a string")
    name = f"{where} ({row['tier']}.{row['metric']})"
    if row.get("kind") not in ("rate", "mean"):
        raise pytest.UsageError(f"{name} field 'kind' must be \"rate\" or \"mean\"")
    n = row.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < MAX_N:
        raise pytest.UsageError(f"{name} field 'n' must be a whole number from 0 to {MAX_N - 1}")
    if row["kind"] == "rate":
        k = row.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= n:
            raise pytest.UsageError(f"{name} field 'k' must be an integer from 0 to n={n}")
    for key in ("rate", "ci_low", "ci_high"):
        value = row.get(key)
        if value is None:
            continue
        if not _is_number(value):
            raise pytest.UsageError(f"{name} field {key!r} must be a finite number or null")
        if row["kind"] == "rate" and not 0.0 <= value <= 1.0:
            raise pytest.UsageError(f"{name} field {key!r} is a rate: it must be from 0 to 1")
    clusters = row.get("clusters")
    if clusters is not None and (not isinstance(clusters, int) or isinstance(clusters, bool) or not 0 <= clusters <= n):
        raise pytest.UsageError(f"{name} field 'clusters' must be a whole number from 0 to n={n} or null")
    unscored = row.get("unscored", 0)
    if not isinstance(unscored, int) or isinstance(unscored, bool) or not 0 <= unscored < MAX_N:
        raise pytest.UsageError(f"{name} field 'unscored' must be a whole number from 0 to {MAX_N - 1}")


# --- the gates -------------------------------------------------------------------------------


class Gates:
    """The gates of one session, parsed and checked before any item runs."""

    def __init__(
        self, mins: list[MinGate], baseline: Baseline | None = None,
        fail_on_regression: bool = False, dataset_hash: str | None = None,
    ) -> None:
        self.mins = mins
        self.baseline = baseline
        self.fail_on_regression = fail_on_regression
        self.dataset_hash = dataset_hash

    @classmethod
    def from_options(
        cls, *, mins: Iterable[str], compare: str | None, compare_path: Path | None,
        fail_on_regression: bool, any_dataset: bool, dataset_hash: str | None,
    ) -> Gates:
        """Parse the options; refuse a baseline built from another dataset unless ``any_dataset``."""
        if fail_on_regression and not compare:
            raise pytest.UsageError("--sprout-fail-on-regression needs --sprout-compare=OLD.json (the report to compare with)")
        baseline = None
        if compare and compare_path is not None:
            baseline = load_baseline(compare_path, compare)
            old = baseline.report.get("dataset_hash")
            if old != dataset_hash and not any_dataset:
                raise pytest.UsageError(
                    f"--sprout-compare {compare}: that report was built from dataset {_short(old)}, but the suites now "
                    f"hash to {_short(dataset_hash)}; a difference between two different sets of cases says nothing "
                    "about the system. Re-run the baseline on these suites, or pass --sprout-compare-any-dataset "
                    "to compare anyway."
                )
        return cls(parse_min(mins), baseline, fail_on_regression, dataset_hash)

    def evaluate(
        self, rows: list[MetricRow], values: Mapping[tuple[str, str], list[Any]], tiers_run: set[str],
    ) -> GateOutcome:
        """Check every gate against this run's metric rows (and raw values, for means)."""
        by_key = {(r.tier, r.metric): r for r in rows}
        outcome = GateOutcome(dataset_hash=self.dataset_hash)
        outcome.mins = [check_min(g, by_key.get((g.tier, g.metric)), g.tier in tiers_run) for g in self.mins]
        if self.baseline is not None:
            outcome.baseline = self.baseline.path
            outcome.baseline_hash = self.baseline.report.get("dataset_hash")
            outcome.deltas = compare_rows(self.baseline, rows, values)
            outcome.missing = [f"{t}.{m}" for (t, m) in self.baseline.rows if (t, m) not in by_key]
            if self.fail_on_regression:
                outcome.regression = regression_result(outcome.deltas)
        return outcome


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


def compare_rows(baseline: Baseline, rows: list[MetricRow], values: Mapping[tuple[str, str], list[Any]]) -> list[Delta]:
    deltas = []
    for row in rows:
        old = baseline.rows.get((row.tier, row.metric))
        if old is None:
            deltas.append(Delta(row.tier, row.metric, row.kind, "-", _show(row.to_json()), None, None, None, "new metric"))
            continue
        if old["kind"] != row.kind:
            deltas.append(Delta(row.tier, row.metric, row.kind, _show(old), _show(row.to_json()), None, None, None, "kind changed"))
            continue
        if row.kind == "rate":
            if row.n == 0 or old["n"] == 0:
                deltas.append(Delta(row.tier, row.metric, "rate", _show(old), _show(row.to_json()), None, None, None, "no observations"))
                continue
            if row.clusters is None and old.get("clusters") is None:
                d, low, high = newcombe_interval(row.k or 0, row.n, old["k"], old["n"])
                method = "newcombe"
            else:  # nested observations: each side's clustered interval (core/clusters.py)
                d, low, high = mover_difference(_interval(row.to_json()), _interval(old))
                method = "newcombe (clustered intervals)"
            deltas.append(Delta(row.tier, row.metric, "rate", _show(old), _show(row.to_json()), d, low, high, method))
        else:
            new_values = _scored(values.get((row.tier, row.metric), []))
            old_values = _scored(baseline.values.get((row.tier, row.metric), []))
            delta = None if row.rate is None or old.get("rate") is None else row.rate - old["rate"]
            interval = welch_interval(new_values, old_values)
            if interval is None:
                deltas.append(Delta(row.tier, row.metric, "mean", _show(old), _show(row.to_json()), delta, None, None,
                                    "no interval (needs 2+ values in both runs)"))
            else:
                deltas.append(Delta(row.tier, row.metric, "mean", _show(old), _show(row.to_json()), *interval, "welch"))
    return deltas


def regression_result(deltas: list[Delta]) -> GateResult:
    worse = [d for d in deltas if d.verdict == "worse"]
    if not worse:
        return GateResult("regression", True, "regression gate: passed (no drop is statistically distinguishable)")
    parts = [f"{d.tier}.{d.metric} {d.old} -> {d.new}, delta {_signed(d.delta)} {_ci(d.low, d.high)}" for d in worse]
    return GateResult(
        "regression", False,
        "regression gate: FAILED: the whole 95% interval of the change lies below zero for " + "; ".join(parts),
    )


def _scored(values: Iterable[Any]) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v):
            out.append(float(v))
    return out


def welch_interval(a: list[float], b: list[float], confidence: float = 0.95) -> tuple[float, float, float] | None:
    """mean(a) - mean(b) with Welch's t interval (Satterthwaite degrees of freedom, rounded down)."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, mb = math.fsum(a) / len(a), math.fsum(b) / len(b)
    va = math.fsum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = math.fsum((x - mb) ** 2 for x in b) / (len(b) - 1)
    sa, sb = va / len(a), vb / len(b)
    d = ma - mb
    if sa + sb == 0:
        return d, d, d
    df = (sa + sb) ** 2 / ((sa**2 / (len(a) - 1) if sa else 0.0) + (sb**2 / (len(b) - 1) if sb else 0.0))
    half = t_quantile(1 - (1 - confidence) / 2, max(1, int(df))) * math.sqrt(sa + sb)
    return d, d - half, d + half


def _interval(row: Mapping[str, Any]) -> tuple[float, float, float]:
    """(rate, low, high) of a rate row: its own interval (clustered where nested), else Wilson's."""
    k, n = row["k"], row["n"]
    if row.get("ci_low") is None or row.get("ci_high") is None:
        return (k / n, *wilson_interval(k, n))
    return (k / n, min(row["ci_low"], k / n), max(row["ci_high"], k / n))


def _show(row: Mapping[str, Any]) -> str:
    if row.get("kind") == "rate":
        return f"{row.get('k')}/{row.get('n')}"
    rate = row.get("rate")
    return f"{rate:.3f} (n={row.get('n')})" if isinstance(rate, (int, float)) else f"- (n={row.get('n')})"


# --- from the run's settings (controller only) ------------------------------------------------


def from_settings(settings: Settings, dataset_hash: Callable[[], str]) -> Gates:
    """The gates the run's options ask for; raises UsageError before any item runs.
    ``dataset_hash`` is called only when there is a baseline to compare with."""
    return Gates.from_options(
        mins=list(settings.mins),
        compare=settings.compare_option,
        compare_path=settings.compare,
        fail_on_regression=settings.fail_on_regression,
        any_dataset=settings.compare_any_dataset,
        dataset_hash=dataset_hash() if settings.compare_option else None,
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
