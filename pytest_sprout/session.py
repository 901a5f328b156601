"""The per-run state of pytest-sprout: suites, the system, the golden set, tiers and the tally.

One `SproutSession` per pytest config, kept in ``config.stash``. Plain Python apart from reading
options: the pytest hooks in plugin.py only call into it.
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from . import options
from .cases import SuiteFile, SuiteSet, load_suites
from .judges import TierResult, tier_module
from .model import TIERS, Answer, Case, GoldenItem
from .integrity import ERROR, Ledger
from .guard import SnapshotGuard
from .identity import SnapshotError
from .stats import Tally
from .util import is_xdist_worker

SESSION_KEY = pytest.StashKey["SproutSession"]()


def get_session(config: pytest.Config) -> "SproutSession":
    return config.stash[SESSION_KEY]


def is_controller(config: pytest.Config) -> bool:
    """True in a plain run and on the xdist controller; False on xdist workers."""
    return not is_xdist_worker(config)


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
        self._system_error: BaseException | None = None  # the factory failed: not called again
        self._golden: dict[str, GoldenItem] = {}
        self._tiers: dict[str, Any] = {}
        self._unavailable: dict[str, str | None] = {}
        self.thresholds = options.parse_thresholds(options.get(config, "sprout_threshold"))
        self.ledger = Ledger()  # which selected items have a row (controller)
        self.gates: Any = None  # gates.Gates, built by start() on the controller
        self.gate_outcome: Any = None  # gates.GateOutcome, set by finish() on the controller
        self.tiers_run: set[str] = set()  # tiers with at least one item in this run (controller)
        self.worker_system: dict[str, Any] | None = None  # system_info() sent by an xdist worker
        self.guard = SnapshotGuard(self)  # snapshot check, golden-set record/replay
        self._cache: Any = None  # cache.ResultCache, built on first use
        self._answers: Any = None  # answers.AnswerSource, built on first use
        self.written: dict[str, str] = {}  # report kind -> path, as given; for the terminal (controller)
        self.hypothesis_used: bool | None = None  # whether collected test modules imported Hypothesis
        self.complete = True  # False after an interrupted run: its reports say so
        self.write_problems: list[str] = []  # problems writing the reports, for the summary

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
        from .identity import dataset_hash

        return dataset_hash(self.cases)

    # --- the system under test ----------------------------------------------------------------
    def system(self) -> Callable[[str], Any]:
        """The system under test, built once per process. A factory that fails is not called
        again: its error (kept in ``_system_error``) is every item's."""
        if self._system_error is not None:
            raise self._system_error
        try:
            return self._make_system()
        except (LookupError, TypeError, pytest.UsageError) as exc:
            self._system_error = exc
            raise
        except (Exception, SystemExit) as exc:  # the user's factory raised: its items error, the run goes on
            self._system_error = exc
            raise

    def _make_system(self) -> Callable[[str], Any]:
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
            from .version import __version__
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
        from .collect import SproutFailure

        try:
            result = self.evaluate(tier, golden)
        except SproutFailure:  # a tier's own brief failure (a model that cannot load): its message stands
            raise
        except (Exception, SystemExit) as exc:  # a judge that raised errors this item, not the run
            error = f"the {tier} judge raised on {case.id!r}:\n{format_exception(exc)}"
            row["error"] = error.strip().splitlines()[-1]
            return ItemOutcome(row, error=error)
        row.update(metrics=result.metrics, sentences=result.sentences)
        if result.reasons:
            row["reasons"] = result.reasons
        if self.option("sprout_mutate"):  # mutants go in their own key, never in the metrics
            from .checks.mutation import mutate_item

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
        if report.when == "call":
            for name, value in report.user_properties:
                if name != "sprout":
                    continue
                row = json.loads(value) if isinstance(value, str) else dict(value)
                row["nodeid"] = report.nodeid
                if row.get("error"):
                    row["outcome"] = ERROR
                else:
                    row["outcome"] = "unscored" if row.get("unscored") and report.skipped else report.outcome
                self.guard.keep(row)
                self.add_row(row)
        # A sprout item whose report carries no row (skipped or failed setup, a runtest that raised
        # before its row was made, a crashed xdist worker) still gets one.
        suite = self.suite_of(report.nodeid)
        if suite is not None:
            row = self.ledger.row_from_report(report.nodeid, suite, report.outcome, report.when, report.longrepr)
            if row is not None:
                self.add_row(row)

    def add_row(self, row: dict[str, Any]) -> None:
        self.ledger.add(row["nodeid"])
        self.items.append(row)
        if row.get("outcome") == ERROR:
            return  # an errored item is never counted in a metric
        kind = self.metric_kind(row["tier"])
        for metric, values in row["metrics"].items():
            if kind:
                self.tally.declare(row["tier"], metric, kind)
            self.tally.extend(row["tier"], metric, values)

    def metric_kind(self, tier: str) -> str | None:
        """"mean" for a tier whose every metric is a continuous score (so that a metric with no
        scored value is still shown as a mean, not as a rate 0/0)."""
        if tier not in TIERS:
            return None
        return getattr(tier_module(tier), "METRIC_KIND", None)

    def suite_of(self, nodeid: str) -> str | None:
        """The suite name of a sprout item's node id, or None for any other test."""
        from .integrity import parse_nodeid

        parsed = parse_nodeid(nodeid)
        if parsed is None or parsed[2] not in TIERS:
            return None
        suite_file = self.suites().files.get(Path(self.config.rootpath, parsed[0]))
        return suite_file.name if suite_file is not None else None

    def select(self, nodeids: list[str]) -> None:
        """Controller: the node ids selected for this run (its own collection, or an xdist
        worker's); every sprout item among them ends as a row."""
        self.ledger.select((nid, suite) for nid in nodeids if (suite := self.suite_of(nid)) is not None)

    def report_data(self) -> dict[str, Any]:
        from .version import __version__
        from .report import build_report

        data = build_report(
            version=__version__,
            dataset_hash=self.dataset_hash(),
            metrics=self.tally.rows(),
            items=self.items,
            system=self.system_info(),
            extra=self._judging_extra(),
        )
        data["complete"] = self.complete
        return data

    def _judging_extra(self) -> dict[str, Any]:
        """The report's gates, and the judge checks (mutation kill rates, tier agreement)."""
        from .checks.agreement import agreement_report
        from .checks.mutation import mutation_report

        extra = {"gates": self.gate_outcome.to_json()} if self.gate_outcome else {}
        return {**extra, **mutation_report(self.items), **agreement_report(self.items), **self.guard.report_extra()}

    def replay_note(self) -> dict[str, Any]:
        """For the views (terminal, Markdown, HTML), never the JSON: a report rebuilt from a golden
        set must stay byte for byte the report of the run that recorded it (snapshot.md)."""
        return {"replayed_from": self.option("sprout_golden")} if self.option("sprout_golden") else {}

    def start(self) -> None:
        """Controller only, before anything runs: parse the gates and check the baseline."""
        from .gates import from_session

        self.check_options()
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

    def report_paths(self) -> dict[str, list[Path]]:
        """Every report this run writes, by option."""
        return {
            "sprout_report": [Path(self.config.rootpath, p) for p in options.get_all(self.config, "sprout_report")],
            "sprout_md": [p for p in [self.path(self.option("sprout_md"))] if p],
            "sprout_html": [p for p in [self.path(self.option("sprout_html"))] if p],
        }

    def check_options(self) -> None:
        """Controller, before anything runs: options that would fail only at the end, or fail
        every item, are usage errors now."""
        from .integrity import clean_stale_tmp, output_problem

        url = self.option("llm_base_url")
        if url:
            options.check_url(str(url))
        options.check_fraction(self.option("sprout_max_unscored"), "--sprout-max-unscored")
        if options.explicit(self.config, "sprout_suites"):
            root = self.suites_root
            if not root.exists():
                raise pytest.UsageError(f"--sprout-suites / sprout_suites: {self.option('sprout_suites')!r} does not exist")
            from .cases import suite_paths

            if not suite_paths(root):
                raise pytest.UsageError(f"--sprout-suites / sprout_suites: {self.option('sprout_suites')!r} holds no suite file (*.yaml, *.yml)")
        if self.option("sprout_update_snapshot") and not self.cases:
            raise pytest.UsageError("--sprout-update-snapshot: the suites hold no valid case; refusing to pin an empty dataset")
        flags = {"sprout_report": "--sprout-report", "sprout_md": "--sprout-md", "sprout_html": "--sprout-html"}
        record = self.option("sprout_record")
        checked = [(flag, p) for dest, flag in flags.items() for p in self.report_paths()[dest]]
        checked += [("--sprout-record", self.path(record))] if record else []
        for flag, path in checked:
            problem = output_problem(path)
            if problem:
                raise pytest.UsageError(f"{flag}={path}: cannot write the report there: {problem}")
        for path in [p for _, p in checked] + [self.guard.path]:  # what a killed writer may have left
            clean_stale_tmp(path)

    def worker_finished(self, workeroutput: dict[str, Any]) -> None:
        """Controller: what an xdist worker sent back at the end (its system's name and version)."""
        if self.worker_system is None:
            self.worker_system = workeroutput.get("sprout_system")

    def finish(self, exitstatus: int = 0) -> None:
        if not is_controller(self.config):
            self.config.workeroutput["sprout_system"] = self.system_info()  # type: ignore[attr-defined]
            return
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        self.complete = not interrupted
        for row in self.ledger.unreported(interrupted):  # selected items that never reported
            self.add_row(row)
        rows = self.tally.rows()
        if self.gates is not None:
            from . import unscored

            values = {(r.tier, r.metric): self.tally.values(r.tier, r.metric) for r in rows}
            self.gate_outcome = self.gates.evaluate(rows, values, self.tiers_run)
            self.gate_outcome.unscored = unscored.check(self.items, self.option("sprout_max_unscored"))
        paths = self.report_paths()
        if not self.complete:  # a frozen report is not replaced by a partial one: the chain stays whole
            frozen = self.guard.registered()
            for dest, found in paths.items():
                for path in [p for p in found if self.guard.rel(p) in frozen]:
                    found.remove(path)
                    self.write_problems.append(f"{self.guard.rel(path)}: kept as it was (registered in the snapshot, "
                                        "and this run was interrupted)")
        if not any(paths.values()):
            return
        from . import views
        from .report import write_reports

        data = self.report_data()
        shown = {**data, **self.replay_note()}  # the views say where the answers came from; the JSON does not
        extra = self.gate_outcome.markdown() if self.gate_outcome else []
        extra += views.markdown_failures(shown, self.option("sprout_md_failures"))
        problems, written = write_reports(paths, data, rows, extra, intro=views.markdown_header(shown), shown=shown)
        self.write_problems += problems
        for kind, path in written.items():  # as the user gave it: relative to the rootdir where it is inside
            rel = Path(path)
            self.written[kind] = str(rel.relative_to(self.config.rootpath)) if rel.is_relative_to(self.config.rootpath) else path

    def summary_lines(self) -> list[str]:
        from .table import format_table

        rows = self.tally.rows()
        gate_lines = self.gate_outcome.lines() if self.gate_outcome else []
        if not rows and not gate_lines and not self.items:
            return []
        lines = format_table(rows) if rows else ["no sprout metrics in this run"]
        errors = [row for row in self.items if row.get("outcome") == ERROR]
        if errors:
            noun = "item" if len(errors) == 1 else "items"
            lines.append(f"{len(errors)} {noun} errored (not counted in any metric):")
            for row in sorted(errors, key=lambda r: r["nodeid"])[:10]:
                lines.append(f"  {row['nodeid']}: {row.get('error')}")
            if len(errors) > 10:
                lines.append(f"  ... and {len(errors) - 10} more (see --sprout-report)")
        if not self.complete:
            lines.append("the run was interrupted: the reports are marked incomplete (\"complete\": false) "
                         "and are not registered in the snapshot")
        lines += self.write_problems
        from . import startup, views
        from .checks import agreement, mutation as mutate

        lines += mutate.summary_lines(self.items, rows) + agreement.summary_lines(self.items)
        hints = startup.hint(self.config.pluginmanager, self.hypothesis_used)
        return lines + gate_lines + views.files_lines(self.written, self.replay_note()) + hints


def answer_row(answer: Answer) -> dict[str, Any]:
    """What the system said, for an item row: the text with its markers, whether it refused, and
    the passages it retrieved (the sentences are in the row, with their verdicts)."""
    return {"text": answer.render(), "refused": answer.refused, "passages": [p.to_json() for p in answer.passages]}


def format_exception(exc: BaseException) -> str:
    """A traceback as text that any report can hold (lone surrogates escaped)."""
    from .util import clean_text

    return clean_text("".join(traceback.format_exception(exc)))


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
