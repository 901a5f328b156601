"""The per-run state of pytest-sprout: suites, the system, the golden set, tiers and the tally.

One `SproutSession` per pytest config, kept in ``config.stash``. Plain Python apart from reading
options: the pytest hooks in plugin.py only call into it.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from . import options
from .cases import SuiteFile, SuiteSet, load_suites
from .judges import TierResult, tier_module
from .model import TIERS, Answer, Case, GoldenItem
from .snapshot import SnapshotError, SnapshotGuard
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
        self.thresholds = options.parse_thresholds(options.get(config, "sprout_threshold"))
        self.gates: Any = None  # gates.Gates, built by start() on the controller
        self.gate_outcome: Any = None  # gates.GateOutcome, set by finish() on the controller
        self.tiers_run: set[str] = set()  # tiers with at least one item in this run (controller)
        self.worker_system: dict[str, Any] | None = None  # system_info() sent by an xdist worker
        self.guard = SnapshotGuard(self)  # snapshot check, golden-set record/replay
        self._cache: Any = None  # cache.ResultCache, built on first use
        self._answers: Any = None  # answers.AnswerSource, built on first use
        self.written: dict[str, str] = {}  # report kind -> path, as given; for the terminal (controller)
        self.hypothesis_used: bool | None = None  # whether collected test modules imported Hypothesis

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
            # In order: --sprout-system on the command line, the conftest hook, the ini sprout_system.
            spec = self.config.getoption("sprout_system")
            system = None if spec else self.config.hook.pytest_sprout_make_system(config=self.config)
            spec = spec or (self.option("sprout_system") if system is None else None)
            if spec:
                system = load_factory(spec, self.config.rootpath)()
            if system is None:
                raise LookupError(
                    "no system under test: define pytest_sprout_make_system(config) in a "
                    "conftest.py, or set sprout_system = package.module:factory in the ini file"
                )
            if not (callable(system) or hasattr(system, "__aenter__") or hasattr(system, "__enter__")):
                raise TypeError(f"the system under test must be callable (question -> Answer), got {system!r}")
            self._system = system
        return self._system

    def system_info(self) -> dict[str, Any] | None:
        if self._system is None:
            replayed = self.guard.replayed_system()  # a replay: the system that recorded the answers
            return replayed if replayed is not None else self.worker_system  # xdist: only workers built it
        info = {
            "name": str(getattr(self._system, "name", type(self._system).__name__)),
            "version": str(getattr(self._system, "version", "")),
        }
        from .asking import system_fingerprint

        fingerprint = system_fingerprint(self._system)
        if fingerprint:
            info["fingerprint"] = fingerprint
        return info

    def answer(self, case: Case) -> GoldenItem:
        """The system's answer for a case, computed once per process however many tiers run
        (answers.py asks ahead, --sprout-concurrency at a time); with --sprout-golden the recorded
        one, and the system is not called."""
        if self.option("sprout_golden"):
            item = self._golden.get(case.id)
            if item is None:
                item = self._golden[case.id] = self.replayed(case)
            return item
        return self.answers().get(case)

    def answer_many(self, cases: list[Case]) -> list[GoldenItem]:
        """Answers for many cases, asked all at once (--sprout-concurrency at a time)."""
        if self.option("sprout_golden"):
            return [self.answer(case) for case in cases]
        return self.answers().get_many(cases)

    def answers(self) -> Any:
        """The answers.AnswerSource of this process (built on first use by asking.py)."""
        if self._answers is None:
            from .asking import make_source

            self._answers = make_source(self)
        return self._answers

    def item_starting(self, item: Any) -> None:
        """Before an item runs: ask ahead about the cases coming up (asking.py)."""
        from .asking import item_starting

        item_starting(self, item)

    def close_answers(self) -> None:
        """At the end of the run: close the system, write and prune the cache (asking.py)."""
        from .asking import close

        close(self)
    def replayed(self, case: Case) -> GoldenItem:
        """The answer recorded in the --sprout-golden set (checked at session start)."""
        try:
            return self.guard.replay().item(case)
        except SnapshotError as exc:  # an xdist worker found the file changed since the controller read it
            return GoldenItem(case, None, str(exc))

    def result_cache(self) -> Any:
        """The cache.ResultCache of answers and tier results in pytest's cache dir."""
        if self._cache is None:
            from . import __version__
            from .cache import ResultCache, cache_root

            from .asking import run_id

            self._cache = ResultCache(cache_root(self.config), __version__, run_id(self.config))
        return self._cache

    def evaluate(self, name: str, item: GoldenItem) -> TierResult:
        """A tier's result for an answered case; reused from the cache when nothing it depends on changed."""
        tier, cache = self.tier(name), self.result_cache()
        key = None
        if not (name == "alce" and self.option("nli_no_cache")):
            key = cache.result_key(tier, item, self.thresholds)
        result = cache.get_result(key, item.case)
        if result is None:
            result = tier.evaluate(item)
            cache.put_result(key, result, item.case, name)
        return result

    def golden(self) -> dict[str, GoldenItem]:
        """Every valid case with the system's answer, keyed by case id."""
        return {item.case.id: item for item in self.answer_many(self.cases)}

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
        row: dict[str, Any] = {"case_id": case.id, "suite": case.suite, "tier": tier, "metrics": {}, "sentences": [],
                               "question": case.question, "expect": case.expect,
                               "expected_facts": list(case.expected_facts)}
        golden = self.answer(case)
        if golden.answer is not None:
            row["answer"] = answer_row(golden.answer)
        if self.option("sprout_record"):  # the answer travels to the controller, which writes the golden set
            from .golden import entry

            row["golden"] = entry(golden, self.system_info())
        if golden.error is not None:
            row["error"] = golden.error.strip().splitlines()[-1]
            return ItemOutcome(row, error=golden.error)
        assert golden.answer is not None
        if golden.answer.refused and tier != "groundedness":
            row["note"] = "the system refused; nothing to judge (the groundedness tier scores refusals)"
            return ItemOutcome(row, skip=row["note"])
        result = self.evaluate(tier, golden)
        row.update(metrics=result.metrics, sentences=result.sentences)
        if result.reasons:
            row["reasons"] = result.reasons
        if self.option("sprout_mutate"):  # mutants go in their own key, never in the metrics
            from .mutate import mutate_item

            row.update(mutate_item(self.tier(tier), golden.answer, result.sentences))
        if result.note:
            row["note"] = result.note
        if result.extra:
            row["extra"] = result.extra
        if result.passed is None:
            row["unscored"] = True
        return ItemOutcome(row, result=result)

    # --- aggregation (controller only) --------------------------------------------------------
    def record(self, report: pytest.TestReport) -> None:
        if report.when == "setup":
            self.tiers_run.update(t for t in TIERS if report.nodeid.endswith(f"[{t}]") and t in report.keywords)
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name != "sprout":
                continue
            row = json.loads(value) if isinstance(value, str) else dict(value)
            row["nodeid"] = report.nodeid
            row["outcome"] = "unscored" if row.get("unscored") and report.skipped else report.outcome
            self.guard.keep(row)
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
            extra=self._judging_extra(),
        )

    def _judging_extra(self) -> dict[str, Any]:
        """The report's gates, and the judge checks (mutation kill rates, tier agreement)."""
        from .agreement import agreement_report
        from .mutate import mutation_report

        extra = {"gates": self.gate_outcome.to_json()} if self.gate_outcome else {}
        return {**extra, **mutation_report(self.items), **agreement_report(self.items), **self.guard.report_extra()}

    def replay_note(self) -> dict[str, Any]:
        """For the views (terminal, Markdown, HTML), never the JSON: a report rebuilt from a golden
        set must stay byte for byte the report of the run that recorded it (snapshot.md)."""
        return {"replayed_from": self.option("sprout_golden")} if self.option("sprout_golden") else {}

    def start(self) -> None:
        """Controller only, before anything runs: parse the gates and check the baseline."""
        from .gates import from_session

        self.gates = from_session(self)
        spec = self.config.getoption("sprout_system")
        if not spec and not self.config.hook.pytest_sprout_make_system.get_hookimpls():
            spec = self.option("sprout_system")  # the ini value, used when no conftest defines the hook
        if spec and not self.option("sprout_golden"):
            load_factory(spec, self.config.rootpath)  # an import error stops the run (exit 4), not every item
        try:
            self.guard.start()
        except SnapshotError as exc:
            raise pytest.UsageError(str(exc)) from None

    def worker_finished(self, workeroutput: dict[str, Any]) -> None:
        """Controller: what an xdist worker sent back at the end (its system's name and version)."""
        if self.worker_system is None:
            self.worker_system = workeroutput.get("sprout_system")

    def finish(self) -> None:
        if not is_controller(self.config):
            self.config.workeroutput["sprout_system"] = self.system_info()  # type: ignore[attr-defined]
            return
        rows = self.tally.rows()
        if self.gates is not None:
            values = {(r.tier, r.metric): self.tally.values(r.tier, r.metric) for r in rows}
            self.gate_outcome = self.gates.evaluate(rows, values, self.tiers_run)
        paths = {dest: self.option(dest) for dest in ("sprout_report", "sprout_md", "sprout_html")}
        if not any(paths.values()):
            return
        from . import views
        from .report import format_markdown, write_json, atomic_write_text

        data = self.report_data()
        if paths["sprout_report"]:
            write_json(self.path(paths["sprout_report"]), data)
            self.written["JSON report"] = paths["sprout_report"]
        data = {**data, **self.replay_note()}
        if paths["sprout_md"]:
            extra = self.gate_outcome.markdown() if self.gate_outcome else []
            extra += views.markdown_failures(data, self.option("sprout_md_failures"))
            text = format_markdown(rows, extra, intro=views.markdown_header(data))
            atomic_write_text(self.path(paths["sprout_md"]), text)
            self.written["Markdown summary"] = paths["sprout_md"]
        if paths["sprout_html"]:
            from .html import write_html

            write_html(self.path(paths["sprout_html"]), data)
            self.written["HTML report"] = paths["sprout_html"]

    def summary_lines(self) -> list[str]:
        from .report import format_table

        rows = self.tally.rows()
        gate_lines = self.gate_outcome.lines() if self.gate_outcome else []
        if not rows and not gate_lines:
            return []
        lines = format_table(rows) if rows else ["no sprout metrics in this run"]
        errors = sum(1 for row in self.items if row.get("error"))
        if errors:
            noun = "item" if errors == 1 else "items"
            lines.append(f"{errors} {noun} failed because the system raised (not counted in any metric)")
        from . import agreement, mutate, startup, views

        lines += mutate.summary_lines(self.items, rows) + agreement.summary_lines(self.items)
        hints = startup.hint(self.config.pluginmanager, self.hypothesis_used)
        return lines + gate_lines + views.files_lines(self.written, self.replay_note()) + hints


def answer_row(answer: Answer) -> dict[str, Any]:
    """What the system said, for an item row: the text with its markers, whether it refused, and
    the passages it retrieved (the sentences are in the row, with their verdicts)."""
    return {"text": answer.render(), "refused": answer.refused, "passages": [p.to_json() for p in answer.passages]}


def load_factory(spec: str, rootdir: Path | None = None) -> Callable[..., Any]:
    """The factory named by 'package.module:factory'. Surrounding quotes are dropped (an ini file
    keeps them), and the module is looked up from the rootdir first, as pytest's `pythonpath = .`
    would; a module that cannot be imported is a usage error."""
    spec = spec.strip()
    if len(spec) >= 2 and spec[0] == spec[-1] and spec[0] in "'\"":
        spec = spec[1:-1].strip()
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(f"sprout_system must look like package.module:factory, got {spec!r}")
    if rootdir is not None and str(rootdir) not in sys.path:
        sys.path.insert(0, str(rootdir))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError, or the module itself raising while it loads
        raise pytest.UsageError(
            f"sprout_system = {spec}: cannot import {module_name!r} (looked in the rootdir {rootdir} and "
            f"on sys.path): {type(exc).__name__}: {exc}"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise pytest.UsageError(f"sprout_system = {spec}: {module_name!r} has no attribute {attr!r}") from None


def explicit_tiers(markexpr: str) -> set[str]:
    """Tiers that a -m expression asks for by name (not negated)."""
    import re

    words = re.findall(r"[A-Za-z_]+", markexpr or "")
    chosen = set()
    for i, word in enumerate(words):
        if word in TIERS and not (i > 0 and words[i - 1] == "not"):
            chosen.add(word)
    return chosen
