"""The per-run state of pytest-sprout: suites, the golden set, the tally, and the worker half
(run.py: the system, the answers, the tiers, running an item), which it composes.

One `SproutSession` per pytest config, kept in ``config.stash``. Plain Python apart from reading
options: the pytest hooks in plugin.py only call into it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from . import options
from .cases import SuiteFile, SuiteSet, load_suites
from .judges import TierResult, tier_module
from .model import TIERS, Case, GoldenItem
from .integrity import ERROR, Ledger
from .guard import SnapshotGuard
from .identity import SnapshotError
from .row import Row
from .run import RUN_STASH_KEY, ItemOutcome, Run, answer_row, format_exception, load_factory  # noqa: F401 (importers)
from .settings import explicit_tiers  # noqa: F401 (importers)
from .rowstore import RowStore
from .stats import Tally
from .util import is_xdist_worker

SESSION_KEY = pytest.StashKey["SproutSession"]()


def get_session(config: pytest.Config) -> "SproutSession":
    return config.stash[SESSION_KEY]


def is_controller(config: pytest.Config) -> bool:
    """True in a plain run and on the xdist controller; False on xdist workers."""
    return not is_xdist_worker(config)


class SproutSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.tally = Tally()
        self.items = RowStore()  # item rows, aggregated on the controller
        self._suites: SuiteSet | None = None
        self.thresholds = options.parse_thresholds(options.get(config, "sprout_threshold"))
        self.ledger = Ledger()  # which selected items have a row (controller)
        self.gates: Any = None  # gates.Gates, built by start() on the controller
        self.gate_outcome: Any = None  # gates.GateOutcome, set by finish() on the controller
        self.tiers_run: set[str] = set()  # tiers with at least one item in this run (controller)
        self.worker_system: dict[str, Any] | None = None  # system_info() sent by an xdist worker
        self.guard = SnapshotGuard(self)  # snapshot check, golden-set record/replay
        # The worker half (run.py): the system, the answers, the tiers, running an item.
        self.run = config.stash[RUN_STASH_KEY] = Run(
            config, self.thresholds, suites=self.suites, suite_file=self.suite_file, replay=self.guard.replay,
            other_system=self._other_system,
        )
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

    # --- the worker half (run.py) -----------------------------------------------------------
    def _other_system(self) -> dict[str, Any] | None:
        """The system that answered when this process built none: the one that recorded the
        replayed golden set, else (the xdist controller) the one a worker sent back."""
        replayed = self.guard.replayed_system()
        return replayed if replayed is not None else self.worker_system

    def system(self) -> Callable[[str], Any]:
        return self.run.system()

    def system_info(self) -> dict[str, Any] | None:
        return self.run.system_info()

    def answer(self, case: Case) -> GoldenItem:
        return self.run.answer(case)

    def answer_many(self, cases: list[Case]) -> list[GoldenItem]:
        return self.run.answer_many(cases)

    def answers(self) -> Any:
        return self.run.answers()

    def item_starting(self, item: Any) -> None:
        self.run.item_starting(item)

    def item_finished(self, item: Any) -> None:
        """After an item ran: drop answers no item still to run needs (asking.py)."""
        from .asking import item_finished
        from .upcoming import get_upcoming

        item_finished(self.run, item, get_upcoming(self.config).items)

    def close_answers(self) -> None:
        self.run.close_answers()

    def replayed(self, case: Case) -> GoldenItem:
        return self.run.replayed(case)

    def result_cache(self) -> Any:
        return self.run.result_cache()

    def evaluate(self, name: str, item: GoldenItem) -> TierResult:
        return self.run.evaluate(name, item)

    def golden(self) -> dict[str, GoldenItem]:
        return self.run.golden()

    def tier_unavailable(self, name: str) -> str | None:
        return self.run.tier_unavailable(name)

    def tier(self, name: str) -> Any:
        return self.run.tier(name)

    def run_item(self, case: Case, tier: str) -> ItemOutcome:
        return self.run.run_item(case, tier)

    # --- aggregation (controller only) --------------------------------------------------------
    def record(self, report: pytest.TestReport) -> None:
        if report.when == "setup":
            self.tiers_run.update(t for t in TIERS if report.nodeid.endswith(f"[{t}]") and t in report.keywords)
        if report.when == "call":
            for name, value in report.user_properties:
                if name != "sprout":
                    continue
                raw = value if isinstance(value, str) else None
                data = json.loads(value) if raw is not None else dict(value)
                self.guard.keep(data)  # takes the golden entry off (the golden set keeps it)
                row = Row.from_json(data)
                row.nodeid = report.nodeid
                if row.error:
                    row.outcome = ERROR
                else:
                    row.outcome = "unscored" if row.unscored and report.skipped else report.outcome
                self.add_row(row, raw)
        # A sprout item whose report carries no row (skipped or failed setup, a runtest that raised
        # before its row was made, a crashed xdist worker) still gets one.
        suite = self.suite_of(report.nodeid)
        if suite is not None:
            row = self.ledger.row_from_report(report.nodeid, suite, report.outcome, report.when, report.longrepr)
            if row is not None:
                self.add_row(row)

    def add_row(self, row: Row, raw: str | None = None) -> None:
        """Count a row and keep it (as ``raw``, the JSON it came as, when given: rowstore.py)."""
        self.ledger.add(str(row.nodeid))
        self.items.add(row, raw)
        if row.outcome == ERROR:
            return  # an errored item is never counted in a metric
        kind = self.metric_kind(row.tier)
        for metric, values in row.metrics.items():
            if kind:
                self.tally.declare(row.tier, metric, kind)
            self.tally.extend(row.tier, metric, values)

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
            items=[],
            system=self.system_info(),
            extra=self._judging_extra(),
        )
        data["items"] = self.items  # the store: the writers read it row by row, sorted by node id
        data["complete"] = self.complete
        return data

    def _judging_extra(self) -> dict[str, Any]:
        """The report's gates, and the judge checks (mutation kill rates, tier agreement)."""
        from .checks.agreement import agreement_report
        from .checks.mutation import mutation_report

        extra = {"gates": self.gate_outcome.to_json()} if self.gate_outcome else {}
        # Each check reads every row again: only when a row has what it reports on.
        mutation = mutation_report(self.items) if self.items.mutated else {}
        agreement = agreement_report(self.items) if len(self.items.sentence_tiers) > 1 else {}
        return {**extra, **mutation, **agreement, **self.guard.report_extra()}

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
            self.gate_outcome.unscored = (unscored.check(self.items, self.option("sprout_max_unscored"))
                                          if self.items.unscored else [])
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
        errors = self.items.errors
        if errors:
            noun = "item" if len(errors) == 1 else "items"
            lines.append(f"{len(errors)} {noun} errored (not counted in any metric):")
            for nodeid, error in sorted(errors, key=lambda e: e[0])[:10]:
                lines.append(f"  {nodeid}: {error}")
            if len(errors) > 10:
                lines.append(f"  ... and {len(errors) - 10} more (see --sprout-report)")
        if not self.complete:
            lines.append("the run was interrupted: the reports are marked incomplete (\"complete\": false) "
                         "and are not registered in the snapshot")
        lines += self.write_problems
        from . import startup, views
        from .checks import agreement, mutation as mutate

        if self.items.mutated:
            lines += mutate.summary_lines(self.items, rows)
        if len(self.items.sentence_tiers) > 1:
            lines += agreement.summary_lines(self.items)
        hints = startup.hint(self.config.pluginmanager, self.hypothesis_used)
        return lines + gate_lines + views.files_lines(self.written, self.replay_note()) + hints
