"""The per-run state of pytest-sprout: suites, the system, the golden set, tiers and the tally.

One `SproutSession` per pytest config, kept in ``config.stash``. Plain Python apart from reading
options: the pytest hooks in plugin.py only call into it.
"""

from __future__ import annotations

import importlib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from . import options
from .cases import SuiteFile, SuiteSet, load_suites
from .judges import TierResult, tier_module
from .model import TIERS, Answer, Case, GoldenItem
from .stats import Tally

SESSION_KEY = pytest.StashKey["SproutSession"]()


def get_session(config: pytest.Config) -> "SproutSession":
    return config.stash[SESSION_KEY]


def is_controller(config: pytest.Config) -> bool:
    """True in a plain run and on the xdist controller; False on xdist workers."""
    return not hasattr(config, "workerinput")


@dataclass
class ItemOutcome:
    row: dict[str, Any]  # JSON-able; travels on the report as a user property
    result: TierResult | None = None
    error: str | None = None  # the system's traceback when it raised
    skip: str | None = None


class SproutSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.tally = Tally()
        self.items: list[dict[str, Any]] = []  # item rows, aggregated on the controller
        self._suites: SuiteSet | None = None
        self._system: Callable[[str], Any] | None = None
        self._golden: dict[str, GoldenItem] = {}
        self._tiers: dict[str, Any] = {}
        self._unavailable: dict[str, str | None] = {}
        self.thresholds = options.parse_assignments(options.get(config, "sprout_threshold"), "--sprout-threshold")

    # --- options ------------------------------------------------------------------------------
    def option(self, dest: str) -> Any:
        return options.get(self.config, dest)

    def threshold(self, tier: str, name: str, default: float) -> float:
        return self.thresholds.get((tier, name), default)

    def path(self, value: str | None) -> Path | None:
        """A path option, relative to the rootdir."""
        return None if value is None else Path(self.config.rootpath, value)

    # --- suites -------------------------------------------------------------------------------
    @property
    def suites_root(self) -> Path:
        return Path(self.config.rootpath, self.option("sprout_suites"))

    def suites(self) -> SuiteSet:
        if self._suites is None:
            self._suites = load_suites(self.suites_root, self.config.rootpath)
        return self._suites

    def suite_file(self, path: Path) -> SuiteFile | None:
        """The parsed suite for a collected path, or None when the path is not a suite file."""
        root = self.suites_root
        if not (path == root or root in path.parents):
            return None
        return self.suites().files.get(path)

    @property
    def cases(self) -> list[Case]:
        return self.suites().cases

    def dataset_hash(self) -> str:
        from .snapshot import dataset_hash

        return dataset_hash(self.cases)

    # --- the system under test ----------------------------------------------------------------
    def system(self) -> Callable[[str], Any]:
        if self._system is None:
            system = self.config.hook.pytest_sprout_make_system(config=self.config)
            if system is None:
                spec = self.option("sprout_system")
                if not spec:
                    raise LookupError(
                        "no system under test: define pytest_sprout_make_system(config) in a "
                        "conftest.py, or set sprout_system = 'package.module:factory' in the ini file"
                    )
                system = load_factory(spec)()
            if not callable(system):
                raise TypeError(f"the system under test must be callable (question -> Answer), got {system!r}")
            self._system = system
        return self._system

    def system_info(self) -> dict[str, Any] | None:
        if self._system is None:
            return None
        return {
            "name": str(getattr(self._system, "name", type(self._system).__name__)),
            "version": str(getattr(self._system, "version", "")),
        }

    def answer(self, case: Case) -> GoldenItem:
        """The system's answer for a case, computed once per process however many tiers run."""
        item = self._golden.get(case.id)
        if item is None:
            try:
                system = self.system()
            except (LookupError, TypeError, pytest.UsageError) as exc:
                return GoldenItem(case, None, f"cannot ask the system about {case.id!r}: {exc}")
            try:
                item = GoldenItem(case, Answer.coerce(system(case.question)))
            except Exception as exc:  # the system's failure belongs to its items, not to the run
                text = "".join(traceback.format_exception(exc))
                item = GoldenItem(case, None, f"the system raised while answering {case.id!r}:\n{text}")
            self._golden[case.id] = item
        return item

    def golden(self) -> dict[str, GoldenItem]:
        """Every valid case with the system's answer, keyed by case id."""
        return {case.id: self.answer(case) for case in self.cases}

    # --- tiers --------------------------------------------------------------------------------
    def tier_unavailable(self, name: str) -> str | None:
        if name not in self._unavailable:
            self._unavailable[name] = tier_module(name).unavailable(self.config)
        return self._unavailable[name]

    def tier(self, name: str) -> Any:
        if name not in self._tiers:
            self._tiers[name] = tier_module(name).make_tier(self)
        return self._tiers[name]

    def run_item(self, case: Case, tier: str) -> ItemOutcome:
        row: dict[str, Any] = {"case_id": case.id, "suite": case.suite, "tier": tier, "metrics": {}, "sentences": []}
        golden = self.answer(case)
        if golden.error is not None:
            row["error"] = golden.error.strip().splitlines()[-1]
            return ItemOutcome(row, error=golden.error)
        assert golden.answer is not None
        if golden.answer.refused and tier != "groundedness":
            row["note"] = "the system refused; nothing to judge (the groundedness tier scores refusals)"
            return ItemOutcome(row, skip=row["note"])
        result = self.tier(tier).evaluate(golden)
        row.update(metrics=result.metrics, sentences=result.sentences)
        if result.note:
            row["note"] = result.note
        if result.extra:
            row["extra"] = result.extra
        if result.passed is None:
            row["unscored"] = True
        return ItemOutcome(row, result=result)

    # --- aggregation (controller only) --------------------------------------------------------
    def record(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name != "sprout":
                continue
            row = dict(value)
            row["nodeid"] = report.nodeid
            row["outcome"] = "unscored" if row.get("unscored") and report.skipped else report.outcome
            self.items.append(row)
            for metric, values in row["metrics"].items():
                self.tally.extend(row["tier"], metric, values)

    def report_data(self) -> dict[str, Any]:
        from . import __version__
        from .report import build_report

        return build_report(
            version=__version__,
            dataset_hash=self.dataset_hash(),
            metrics=self.tally.rows(),
            items=self.items,
            system=self.system_info(),
        )

    def finish(self) -> None:
        path = self.option("sprout_report")
        if path and is_controller(self.config):
            from .report import write_json

            write_json(self.path(path), self.report_data())

    def summary_lines(self) -> list[str]:
        from .report import format_table

        rows = self.tally.rows()
        if not rows:
            return []
        lines = format_table(rows)
        errors = sum(1 for row in self.items if row.get("error"))
        if errors:
            lines.append(f"{errors} items failed because the system raised (not counted in any metric)")
        return lines


def load_factory(spec: str) -> Callable[..., Any]:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(f"sprout_system must look like 'package.module:factory', got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise pytest.UsageError(f"sprout_system: cannot import {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise pytest.UsageError(f"sprout_system: {module_name!r} has no attribute {attr!r}") from None


def explicit_tiers(markexpr: str) -> set[str]:
    """Tiers that a -m expression asks for by name (not negated)."""
    import re

    words = re.findall(r"[A-Za-z_]+", markexpr or "")
    chosen = set()
    for i, word in enumerate(words):
        if word in TIERS and not (i > 0 and words[i - 1] == "not"):
            chosen.add(word)
    return chosen
