"""The controller half of a run (layer 8): the tally, the ledger of selected items, the gates, the
reports and the terminal's closing lines.

One `Controller` per run, on the process that aggregates (a plain run, or the xdist controller;
never on an xdist worker), kept in ``config.stash`` as pytest's junitxml keeps its LogXML. Item
rows arrive on the test reports (plugin.py's Aggregator hands them in), from this process or from
xdist workers; nothing else here runs an item. It is given what it needs of the run: the settings
(config/settings.py), the suites (loaded when first asked), the snapshot guard, the system's
description and whether the run can select a sprout item at all; the session composes it
(session.py) and never hands itself in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Protocol, cast

import pytest

from ..config.settings import Settings
from ..snapshot.guard import SnapshotGuard
from ..suites.loader import SuiteSet
from .ledger import ERROR, Ledger, parse_nodeid
from ..judges import tier_module
from ..core.model import TIERS
from ..core.fail_on import GATES_PROPERTY, KNOWN_PROPERTY, FailOn
from ..core.judges import scrubbed
from ..core.row import Row
from .calibration import RunCalibration
from .parallel import ParallelUse
from .rows import RowStore
from ..core.stats import Tally

# What the groundedness tier's refusal row counts where no case of the run expects a refusal.
REFUSAL_ONLY_ANSWERS = ("answers that were not refused where an answer was expected; no case here expects a "
                        "refusal (expect: refuse)")


class RunFacts(Protocol):
    """What the controller asks of the run it tallies (session.py gives itself): the suites (loaded
    once), the system's name and version (this process's, or what a worker sent), what a
    --sprout-shard run's report says of its shard (None for a whole run), the settings that decide
    a verdict and the tiers this process built (core/judges.py's ``judging`` and ``judges``)."""

    def suites(self) -> SuiteSet: ...
    def system_info(self) -> dict[str, Any] | None: ...
    def shard_record(self) -> dict[str, Any] | None: ...
    def judge_settings(self) -> dict[str, Any]: ...
    def judges_record(self) -> dict[str, Any]: ...


CONTROLLER_KEY = pytest.StashKey["Controller"]()  # the run's controller (None on an xdist worker: not set)


class Controller:
    """Tallies the item rows of a run, checks the gates and writes the reports (see the module)."""

    def __init__(self, settings: Settings, run: RunFacts, guard: SnapshotGuard, engaged: bool = True) -> None:
        self.settings = settings
        self.suites = run.suites
        self.guard = guard
        self.system_info = run.system_info  # the system's name and version (this process's, or what a worker sent)
        self.engaged = engaged  # False: the run reaches no suite, nothing here is a sprout item
        self.worker_system: dict[str, Any] | None = None  # the system an xdist worker sent back
        self.tally = Tally()
        self.items = RowStore()  # every item's row
        self.ledger = Ledger()  # which selected items have a row
        self.gates: Any = None  # gates.Gates, built by start()
        self.gate_outcome: Any = None  # gates.GateOutcome, set by finish()
        self.tiers_run: set[str] = set()  # tiers with at least one item in this run
        self.written: dict[str, str] = {}  # report kind -> path, as given; for the terminal
        self.complete = True  # False after an interrupted run: its reports say so
        self.stopped_early = 0  # selected items a run stopped early (-x, --maxfail) never ran
        self.write_problems: list[str] = []  # problems writing the reports, for the summary
        self.write_failed = False  # a requested report could not be written: the run fails
        self.written_paths: set[Path] = set()  # the report files this run wrote (the guard registers only these)
        self.labels: Any = None  # checks.labels.LabelSet of --sprout-labels, read by start()
        self.label_match: Any = None  # how those labels matched this run's verdicts
        self.calibration = RunCalibration()  # the calibration this run's judges use; --sprout-calibrate
        self.label_fixes: dict[Any, Any] = {}
        self.label_sample: list[dict[str, Any]] = []  # --sprout-label-sample: the sentences drawn (for the HTML page)
        self.shard_record = run.shard_record  # what a --sprout-shard run's report says of its shard
        self.judging = run.judge_settings  # the settings that decide a verdict (core/judges.py; a merge's are its shards')
        self.own_judges = run.judges_record  # the tiers this process built, as core/judges.py records them
        self.worker_judges: dict[str, Any] = {}  # what xdist workers (or a merge's shards) said of theirs
        self._suite_names: dict[str, str | None] = {}  # suite file (as in a node id) -> suite name
        self.known: set[str] = set()  # --sprout-fail-on=new: items that failed in the baseline too (xfailed)
        self.let_pass = 0  # item failures --sprout-fail-on turned into xfailed
        self._dataset_hash: tuple[Any, str] | None = None  # (the SuiteSet, its hash): dataset_hash()
        self.parallel = ParallelUse()  # xdist: whether the workers ran in parallel at all (parallel.py)
        self._metric_kinds: dict[str, str | None] = {}  # tier -> metric_kind(tier), looked up once
        self.refusals_expected = 0  # counted items of cases with expect: refuse (refusal_note)

    def record(self, report: pytest.TestReport) -> None:
        if not self.engaged:  # the run reaches no suite: nothing here is a sprout item
            return
        self.parallel.add(report)  # a rerun's attempt kept its worker busy too
        if str(report.outcome) == "rerun":  # pytest-rerunfailures: an attempt that will be run again; its last one counts
            return
        if report.when == "setup":
            self.tiers_run.update(t for t in TIERS if report.nodeid.endswith(f"[{t}]") and t in report.keywords)
        if report.when == "call":
            for name, value in report.user_properties:
                if name != "sprout":
                    continue
                raw = value if isinstance(value, str) else None
                # user_properties holds objects: the row comes as its JSON text or as a mapping
                data = json.loads(raw) if raw is not None else dict(cast("Mapping[str, Any]", value))
                self.guard.keep(data)  # takes the golden entry off (the golden set keeps it)
                row = Row.from_json(data)
                row.nodeid = report.nodeid
                if self.ledger.has_row(report.nodeid):  # xdist --dist each ran it on another worker too
                    continue  # one row per case and tier: n counts cases, not runs
                marks = {name for name, _ in report.user_properties if name in (KNOWN_PROPERTY, GATES_PROPERTY)}
                if row.error:
                    row.outcome = ERROR
                elif marks:  # --sprout-fail-on made the failure xfailed: the row stays a failure
                    row.outcome = "failed"
                else:
                    row.outcome = "unscored" if row.unscored and report.skipped else report.outcome
                row.known = True if KNOWN_PROPERTY in marks else None  # this run's policy decides (a merge's too)
                if row.known:
                    self.known.add(report.nodeid)
                self.let_pass += bool(marks)
                self.add_row(row, raw if not marks else None)
        # A sprout item whose report carries no row (skipped or failed setup, a runtest that raised
        # before its row was made, a crashed xdist worker) still gets one.
        if report.outcome == "passed" or self.ledger.has_row(report.nodeid):
            return  # it needs none (ledger.row_from_report): no node id to parse
        suite = self.suite_of(report.nodeid)
        if suite is not None:
            late = self.ledger.row_from_report(report.nodeid, suite, report.outcome, report.when, report.longrepr)
            if late is not None:
                self.add_row(late)

    def add_row(self, row: Row, raw: str | None = None) -> None:
        """Count a row and keep it (as ``raw``, the JSON it came as, when given: rowstore.py)."""
        self.ledger.add(str(row.nodeid))
        self.items.add(row, raw)
        if row.outcome == ERROR:
            return  # an errored item is never counted in a metric
        if row.expect == "refuse":
            self.refusals_expected += 1
        kind = self.metric_kind(row.tier)
        for metric, values in row.metrics.items():
            if kind:
                self.tally.declare(row.tier, metric, kind)
            self.tally.extend(row.tier, metric, values, row.nodeid)  # one answer: one cluster

    def metric_kind(self, tier: str) -> str | None:
        """"mean" for a tier whose every metric is a continuous score (so that a metric with no
        scored value is still shown as a mean, not as a rate 0/0)."""
        if tier not in self._metric_kinds:
            self._metric_kinds[tier] = getattr(tier_module(tier), "METRIC_KIND", None) if tier in TIERS else None
        return self._metric_kinds[tier]

    def suite_of(self, nodeid: str) -> str | None:
        """The suite name of a sprout item's node id, or None for any other test."""
        parsed = parse_nodeid(nodeid)
        if parsed is None or parsed[2] not in TIERS:
            return None
        if parsed[0] not in self._suite_names:  # one lookup per suite file, not per item
            suite_file = self.suites().files.get(Path(self.settings.rootpath, parsed[0]))
            self._suite_names[parsed[0]] = suite_file.name if suite_file is not None else None
        return self._suite_names[parsed[0]]

    def select(self, nodeids: list[str]) -> None:
        """Controller: the node ids selected for this run (its own collection, or an xdist
        worker's); every sprout item among them ends as a row (a collect-only run selects
        nothing: plugin.py)."""
        if not self.engaged:
            return
        self.ledger.select((nid, suite) for nid in nodeids if (suite := self.suite_of(nid)) is not None)

    @property
    def fail_on(self) -> FailOn:
        """The run's --sprout-fail-on policy (core/fail_on.py), known once start() has run."""
        return self.gates.fail_on if self.gates is not None else FailOn(self.settings.fail_on)

    def report_data(self) -> dict[str, Any]:
        from ..core.version import __version__
        from ..reports.json_report import build_report

        data = build_report(
            version=__version__,
            dataset_hash=self.dataset_hash(),
            metrics=self.metric_rows(),
            items=[],
            system=self.system_info(),
            extra=self._judging_extra(),
        )
        data["items"] = self.items  # the store: the writers read it row by row, sorted by node id
        data["settings"] = self.settings_record()
        data["judging"] = scrubbed(self.judging())
        data["judges"] = self.judges()
        data["complete"] = self.complete
        data.update(self.selection().to_json())
        shard = self.shard_record()
        if shard is not None:
            data["shard"] = shard
        return data

    def settings_record(self) -> dict[str, Any]:
        """The report's ``settings``: the citations mode that ran (core/citations.py)."""
        from ..core.citations import settings_record

        return settings_record(self.settings.citations, self.suites().cases, self.items.citing)

    def selection(self) -> Any:
        """How many of the dataset's items this run selected (selection.Selection)."""
        from .selection import Selection, dataset_items

        return Selection(len(self.ledger.selected), dataset_items(self.suites().cases))

    @property
    def partial(self) -> bool:
        return self.selection().partial

    def _judging_extra(self) -> dict[str, Any]:
        """The report's gates, and the judge checks (mutation kill rates, tier agreement)."""
        from ..checks.agreement import agreement_report
        from ..checks.mutation import mutation_report

        extra = {"gates": self.gate_outcome.to_json()} if self.gate_outcome else {}
        # Each check reads every row again: only when a row has what it reports on.
        mutation = mutation_report(self.items) if self.items.mutated else {}
        agreement = agreement_report(self.items) if len(self.items.sentence_tiers) > 1 else {}
        return {**extra, **mutation, **agreement, **self.guard.report_extra()}

    def replay_note(self) -> dict[str, Any]:
        """For the views (terminal, Markdown, HTML), never the JSON: a report rebuilt from a golden
        set must stay byte for byte the report of the run that recorded it (snapshot.md)."""
        return {"replayed_from": self.settings.golden_option} if self.settings.golden_option else {}

    def start(self) -> None:
        """Before anything runs: check the options and parse the gates (the session then checks
        the system factory and the snapshot)."""
        from .gates import from_settings

        from .startcheck import check_run_options

        check_run_options(self.settings, self.suites, self.guard.path, self.report_paths())
        self.gates = from_settings(self.settings, self.dataset_hash, self.judging)
        self.labels = self.load_labels()
        self.calibration.start(self.settings, self.guard.rel)

    def load_labels(self) -> Any:
        """--sprout-labels, read before anything runs: a malformed line is a usage error."""
        from ..checks.labels import LabelError, load_labels

        path = self.settings.labels
        if path is None:
            return None
        try:
            return load_labels(path, self.guard.rel(path))
        except LabelError as exc:
            raise pytest.UsageError(str(exc)) from None

    def metric_rows(self) -> list[Any]:
        """The tally's rows, with the labels' correction on each labelled metric."""
        rows = self.described(self.tally.rows())
        if self.labels is None:
            return rows
        from dataclasses import replace

        from ..checks.labels import corrections, match

        self.label_match = match(self.labels, self.items)
        self.label_fixes = corrections(self.label_match, rows)
        out = []
        for row in rows:
            fix = self.label_fixes.get((row.tier, row.metric))
            out.append(row if fix is None else replace(row, **fix.to_json()))
        return out

    def described(self, rows: list[Any]) -> list[Any]:
        """The rows with what their metric measures, where its tier module says (``DESCRIPTIONS``)."""
        from dataclasses import replace

        out = []
        for row in rows:
            words = getattr(tier_module(row.tier), "DESCRIPTIONS", {}).get(row.metric) if row.tier in TIERS else None
            if row.tier == "groundedness" and row.metric == "refusal" and not self.refusals_expected:
                words = REFUSAL_ONLY_ANSWERS
            out.append(replace(row, description=words) if words else row)
        return out

    def refusal_note(self, rows: list[Any]) -> list[str]:
        """What the ``refusal`` row counts, where no counted case expects a refusal: "refusal
        241/241 1.000" would otherwise read as "everything was refused"."""
        if self.refusals_expected:
            return []
        return [f"refusal {r.k}/{r.n}: {REFUSAL_ONLY_ANSWERS}" for r in rows
                if r.metric == "refusal" and r.tier == "groundedness"]

    def tier_notes(self, rows: list[Any]) -> list[str]:
        """One line per tier in the table whose module has a ``SUMMARY_NOTE`` (what its metrics measure)."""
        tiers = dict.fromkeys(r.tier for r in rows if r.tier in TIERS)
        return [note for t in tiers if (note := getattr(tier_module(t), "SUMMARY_NOTE", None))]

    def write_label_sample(self) -> None:
        """--sprout-label-sample=N: the sentences to label, beside the reports; never over a file
        people may have filled in. Without the option, a sample file already at the rootdir is the
        one being labelled: the HTML page lists its sentences first."""
        from ..checks.labels import SAMPLE_NAME, label_sample
        from ..reports.safe_write import atomic_write_text

        size = self.settings.label_sample
        path = Path(self.settings.rootpath, SAMPLE_NAME)
        if not size:
            if self.settings.reports.html and path.is_file():
                self.label_sample = _sample_entries(path)
            return
        if not self.complete:
            return
        if path.exists():
            self.label_sample = _sample_entries(path)  # the page marks the sample being labelled
            self.write_problems.append(f"{SAMPLE_NAME}: not written, the file exists (it may hold labels): "
                                       "move it away, or label from it with --sprout-labels")
            return
        sample = label_sample(self.items, size, self.dataset_hash())
        self.label_sample = sample
        try:
            atomic_write_text(path, "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in sample))
        except OSError as exc:
            self.write_problems.append(f"{SAMPLE_NAME}: the label sample could not be written: {exc.strerror or exc}")
            return
        short = "" if len(sample) == size else f" (the run judged only {len(sample)} sentences)"
        self.written[f"label sample ({len(sample)} sentences to label{short})"] = SAMPLE_NAME

    def label_lines(self) -> list[str]:
        if self.labels is None or self.label_match is None:
            return []
        from ..checks.labels import summary_lines

        return summary_lines(self.labels, self.label_match, self.label_fixes)

    def dataset_hash(self) -> str:
        """The hash of the suites' cases, computed once per SuiteSet (a merge and the report ask)."""
        from ..core.identity import dataset_hash

        suites = self.suites()
        if self._dataset_hash is None or self._dataset_hash[0] is not suites:
            self._dataset_hash = (suites, dataset_hash(suites.cases))
        return self._dataset_hash[1]

    def report_paths(self) -> dict[str, list[Path]]:
        return self.settings.reports.by_option()

    def worker_finished(self, workeroutput: dict[str, Any]) -> None:
        """Controller: what an xdist worker sent back at the end (its system's name and version)."""
        if self.worker_system is None:  # the session's system_info() reports it
            self.worker_system = workeroutput.get("sprout_system")
        judges = workeroutput.get("sprout_judges")
        if isinstance(judges, dict):
            self.worker_judges.update(judges)

    def judges(self) -> dict[str, Any]:
        """The report's ``judges``: each tier that judged, in this process or on a worker."""
        return dict(sorted({**self.worker_judges, **self.own_judges()}.items()))

    def finish(self, exitstatus: int = 0) -> None:
        """After the run: rows for the items that never reported, the gates, then the reports. A
        run that ran nothing (pytest --co, or a usage error) writes nothing: the reports of the
        last run that did stay."""
        if self.settings.collect_only or exitstatus == pytest.ExitCode.USAGE_ERROR:
            return
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        never_ran = self.ledger.unreported(interrupted)  # selected items that never reported
        if not interrupted:  # -x / --maxfail stopped the run (or xdist lost a worker): incomplete too
            self.stopped_early = len(never_ran)
        self.complete = self.complete and not interrupted and not never_ran  # a merge of an incomplete shard is incomplete
        for row in never_ran:
            self.add_row(row)
        rows = self.metric_rows()
        if self.gates is not None:
            from . import unscored

            values = {(r.tier, r.metric): self.tally.values(r.tier, r.metric) for r in rows}
            overlap = None
            if self.gates.baseline is not None:  # compare the items both runs judged (a -k run, a shard)
                from .selection import restrict_baseline

                overlap = restrict_baseline(self.gates.baseline, set(self.ledger.rowed))
            self.gate_outcome = self.gates.evaluate(
                rows, values, self.tiers_run, items=self.items if self.gates.baseline is not None else (),
                system=self.system_info(), known=self.known, let_pass=self.let_pass, judges=self.judges())
            self.gate_outcome.cases = overlap
            regression = self.gate_outcome.regression
            if overlap is not None and not overlap.whole and regression is not None:
                from dataclasses import replace

                self.gate_outcome.regression = replace(regression, message=(
                    f"{regression.message} [on the {overlap.compared} of the baseline's {overlap.baseline} cases "
                    "this run judged; a change in the others cannot show]"))
            self.gate_outcome.unscored = (unscored.check(self.items, self.settings.max_unscored)
                                          if self.items.unscored else [])
        self.write_label_sample()
        self.calibration.fit(self)
        paths = self.report_paths()
        if self.partial:  # the guard registers no partial report
            self.guard.partial_selection = self.selection()
        if not self.complete or self.partial:  # a frozen report is not replaced by a partial one: the chain stays whole
            why = ("this run judged only part of the dataset" if self.complete else
                   f"this run stopped before {self.stopped_early} of its items ran" if self.stopped_early else
                   "this run was interrupted")
            self.guard.incomplete = not self.complete
            frozen = self.guard.registered()
            for found in paths.values():
                for path in [p for p in found if self.guard.rel(p) in frozen]:
                    found.remove(path)
                    self.write_problems.append(f"{self.guard.rel(path)}: kept as it was (registered in the snapshot, "
                                               f"and {why})")
        if not any(paths.values()):
            return
        from ..reports import markdown as views
        from ..reports.write import write_reports

        data = self.report_data()
        shown = {**data, **self.replay_note()}  # the views say where the answers came from; the JSON does not
        if self.label_sample:  # the HTML page lists the drawn sentences first
            shown["label_sample"] = self.label_sample
        extra = [f"> {note}\n" for note in self.refusal_note(rows)]
        extra += self.gate_outcome.markdown() if self.gate_outcome else []
        from ..core.util import md_cell

        if self.labels is not None:
            extra += [f"- {md_cell(line.strip())}" for line in self.label_lines()] + [""]
        judged = self.calibration.lines(self)  # the calibration in use, or what the judge is worth
        extra += [f"- {md_cell(line.strip())}" for line in judged] + [""] if judged else []
        extra += views.markdown_failures(shown, self.settings.md_failures)
        problems, written = write_reports(paths, data, rows, extra, intro=views.markdown_header(shown), shown=shown)
        self.write_problems += problems
        self.write_failed = bool(problems)
        self.written_paths = self.guard.written_paths = {Path(path) for path in written.values()}
        for kind, where in written.items():  # as the user gave it: relative to the rootdir where it is inside
            rel = Path(where)
            root = self.settings.rootpath
            self.written[kind] = str(rel.relative_to(root)) if rel.is_relative_to(root) else where

    def summary_lines(self) -> list[str]:
        from ..core.table import format_table

        rows = self.metric_rows()
        gate_lines = self.gate_outcome.lines() if self.gate_outcome else []
        if not rows and not gate_lines and not self.items:
            return []
        lines = format_table(rows) if rows else ["no sprout metrics in this run"]
        from ..core.citations import hint_line, mode_line

        record = self.settings_record()
        lines += self.refusal_note(rows) + self.tier_notes(rows)
        lines += [line for line in (mode_line(record), hint_line(record)) if line]
        errors = self.items.errors
        if errors:
            noun = "item" if len(errors) == 1 else "items"
            lines.append(f"{len(errors)} {noun} errored (not counted in any metric):")
            for nodeid, error in sorted(errors, key=lambda e: e[0])[:10]:
                lines.append(f"  {nodeid}: {error}")
            if len(errors) > 10:
                lines.append(f"  ... and {len(errors) - 10} more (see --sprout-report)")
        if not self.complete and self.stopped_early:
            lines.append(f"the run stopped before {self.stopped_early} of its items ran (-x, --maxfail, or a lost "
                         "xdist worker): the reports are marked incomplete (\"complete\": false) "
                         "and are not registered in the snapshot")
        elif not self.complete:
            lines.append("the run was interrupted: the reports are marked incomplete (\"complete\": false) "
                         "and are not registered in the snapshot")
        elif self.partial and any(self.report_paths().values()):
            lines.append(self.selection().line())
        lines += self.label_lines() + self.calibration.lines(self)
        lines += self.parallel.lines()
        lines += self.write_problems
        from ..reports import markdown as views
        from ..checks import agreement, mutation as mutate

        if self.items.mutated:
            lines += mutate.summary_lines(self.items, rows)
        if len(self.items.sentence_tiers) > 1:
            lines += agreement.summary_lines(self.items)
        return lines + gate_lines + views.files_lines(self.written, self.replay_note())


def _sample_entries(path: Path) -> list[dict[str, Any]]:
    """The (case id, sentence) entries of a label sample file already there; none when it is not
    a labels file (the summary says the file was kept; --sprout-labels names what is wrong with it)."""
    from ..checks.labels import LabelError, load_labels

    try:
        found = load_labels(path, path.name)
    except LabelError:
        return []
    return [{"case_id": label.case_id, "sentence": label.sentence} for label in found.labels if label.sentence]
