"""Merging the JSON reports of a sharded run into one (``python -m pytest_sprout.merge``).

    python -m pytest_sprout.merge shard-1.json shard-2.json shard-3.json \\
        --sprout-report=sprout.json --sprout-md=summary.md --sprout-min=groundedness.grounded=0.8

Each report comes from one ``--sprout-shard=K/N`` run. The merge first refuses what would not add
up to one run, naming the files: reports of different datasets, judge settings, systems, golden
sets or plugin versions, a shard given twice, a case in two shards, a shard missing
(``--allow-partial`` writes the merged report marked ``"partial": true``). Then it runs pytest
in the project with a plugin (`MergeRun`) that collects nothing and replays every row as the
item's test report: the controller tallies them, checks the gates and writes the reports, the
terminal table and the exit status, and the snapshot guard registers what was written, through
the very code of a run. Every report and gate option of a run works here (and ``--junitxml``).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal, Sequence

import pytest

from ..config.options import OPTIONS
from ..config.settings import MERGE_KEY
from ..controller.controller import CONTROLLER_KEY, Controller
from ..core.identity import SnapshotError, read_json
from ..core.report_check import ReportError, check_header, check_report
from ..core.row import junit_properties
from ..core.util import collector_paused, short_hash

# A run's options that decide what is judged or how: they mean nothing to a merge.
RUN_ONLY = {"sprout_system", "sprout_concurrency", "sprout_timeout", "sprout_retries", "sprout_retry_on",
            "sprout_reuse_answers", "sprout_record", "sprout_golden", "sprout_shard", "sprout_check_snapshot",
            "sprout_threshold", "sprout_mutate"}
# pytest's own options a merge passes on: True when the option takes a value.
PYTEST_OPTIONS = {"--junitxml": True, "--junit-xml": True, "--color": True, "-p": True, "-o": True, "-c": True,
                  "--rootdir": True, "-r": True, "-q": False, "-qq": False, "-v": False, "-vv": False, "--quiet": False,
                  "--verbose": False, "--tb": True}
USAGE = 4  # pytest's usage-error exit status


class MergeError(Exception):
    """Reports that cannot be merged into one run's; the message names the files."""


def passed_options() -> dict[str, bool]:
    """Every option the merge passes on to pytest: True when it takes a value."""
    sprout = {opt.flag: opt.kind != "bool" for opt in OPTIONS
              if opt.dest not in RUN_ONLY and not opt.dest.startswith(("nli_", "llm_"))}
    return {**sprout, **PYTEST_OPTIONS}


def split_args(argv: Sequence[str]) -> tuple[list[str], list[str], bool]:
    """(report files, pytest arguments, --allow-partial) from the command line."""
    known = passed_options()
    files: list[str] = []
    passed: list[str] = []
    allow_partial = False
    args = list(argv)
    while args:
        arg = args.pop(0)
        flag = arg.split("=", 1)[0]
        if arg == "--allow-partial":
            allow_partial = True
        elif not arg.startswith("-") or arg == "-":
            files.append(arg)
        elif flag in known:
            passed.append(arg)
            if known[flag] and "=" not in arg:
                if not args:
                    raise MergeError(f"{flag} needs a value")
                passed.append(args.pop(0))
        elif len(arg) > 2 and arg[:2] in ("-p", "-o", "-c", "-r") and not arg.startswith("--"):
            passed.append(arg)  # -pno:xdist, -rA
        else:
            raise MergeError(f"{arg}: not an option of the merge (it takes a run's report and gate options; "
                             "what is judged was decided by the shards' runs)")
    if not files:
        raise MergeError("give the shards' JSON reports (REPORT...)")
    return files, passed, allow_partial


MAX_SHARDS = 999_999  # --sprout-shard=K/N takes up to six digits


def read_report(path: str) -> dict[str, Any]:
    """A shard's report, checked field by field as --sprout-compare checks a baseline
    (core/report_check.py), each row as a run's, and its shard's index and count."""
    try:
        data = read_json(Path(path), path)
    except SnapshotError as exc:
        raise MergeError(str(exc)) from None
    try:
        check_header(data)
    except ReportError as exc:
        raise MergeError(f"{path}: {exc}") from None
    shard = data.get("shard")
    if not isinstance(shard, dict) or not all(isinstance(shard.get(k), int) for k in ("index", "count")):
        raise MergeError(f"{path}: not the report of a shard (field 'shard' is missing: run each shard with "
                         "--sprout-shard=K/N or SPROUT_SHARD=K/N)")
    index, count = shard["index"], shard["count"]
    if isinstance(index, bool) or isinstance(count, bool) or not 1 <= index <= count <= MAX_SHARDS:
        raise MergeError(f"{path}: field 'shard' says shard {index} of {count}: the index must be from 1 to the "
                         f"count, and the count from 1 to {MAX_SHARDS} (as --sprout-shard=K/N takes them)")
    if shard.get("judging") is not None and not isinstance(shard.get("judging"), dict):
        raise MergeError(f"{path}: field 'shard.judging' must be an object")
    try:
        check_report(data, whole=True)
    except ReportError as exc:
        raise MergeError(f"{path}: {exc}") from None
    if not isinstance(data.get("items"), list):
        raise MergeError(f"{path}: field 'items' must be a list")
    return data


def _same(reports: dict[str, dict[str, Any]], what: str, value: Any, show: Any = str) -> None:
    """Refuse reports that disagree on ``value(report)``, naming two files that differ."""
    first_path, first = next(iter(reports.items()))
    for path, report in reports.items():
        if value(report) != value(first):
            raise MergeError(f"{first_path} and {path} have different {what} ({show(value(first))} and "
                             f"{show(value(report))}): they are not shards of one run")


def _judging_difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ", ".join(f"{k}: {a.get(k)!r} vs {b.get(k)!r}" for k in keys[:5])


def check_reports(reports: dict[str, dict[str, Any]]) -> None:
    """Refuse reports that are not the shards of one run (everything the suites are not needed for)."""
    _same(reports, "plugin versions", lambda r: r.get("version"))
    _same(reports, "dataset hashes", lambda r: r.get("dataset_hash"), short_hash)
    _same(reports, "shard counts", lambda r: r["shard"]["count"], lambda n: f"N={n}")
    _same(reports, "report schemas", lambda r: r.get("schema", 0))
    from ..core.judges import judges_difference

    first_path, first = next(iter(reports.items()))
    for path, report in reports.items():
        differs = judges_difference(first.get("judges") or {}, report.get("judges") or {})
        if differs:
            raise MergeError(f"{first_path} and {path} were judged by different judges ({'; '.join(differs[:3])}): "
                             "they are not shards of one run")
    first_path, first = next(iter(reports.items()))
    for path, report in reports.items():
        a, b = first["shard"].get("judging"), report["shard"].get("judging")
        if a != b:
            detail = _judging_difference(a, b) if isinstance(a, dict) and isinstance(b, dict) else "unreadable"
            raise MergeError(f"{first_path} and {path} were judged with different settings ({detail}): "
                             "they are not shards of one run")
    # A shard given no case (more shards than selected cases) asked no system and replayed nothing:
    # its null system and golden set say nothing about the others'.
    judged = {path: report for path, report in reports.items() if report["items"]}
    if judged:
        _same(judged, "systems", lambda r: r.get("system"), json.dumps)
        _same(judged, "golden sets", lambda r: r.get("golden"), json.dumps)
    by_index: dict[int, str] = {}
    for path, report in reports.items():
        index, count = report["shard"]["index"], report["shard"]["count"]
        if index in by_index:
            raise MergeError(f"shard {index}/{count} is given twice: {by_index[index]} and {path}")
        by_index[index] = path
    owner: dict[str, str] = {}
    for path, report in reports.items():
        for item in report["items"]:
            case = item["nodeid"].rsplit("[", 1)[0]
            if owner.setdefault(case, path) != path:
                raise MergeError(f"{case} is in both {owner[case]} and {path}: a case in two shards "
                                 "(were they split with the same N and the same -k/-m?)")


def missing_shards(reports: dict[str, dict[str, Any]], case_ids: Sequence[str]) -> str | None:
    """Why the reports do not cover every shard, or None when they do: the missing shards (the
    first ten named) and the number of the dataset's cases no report holds."""
    count = next(iter(reports.values()))["shard"]["count"]
    present = {r["shard"]["index"] for r in reports.values()}
    if len(present) >= count:
        return None
    absent = [k for k in range(1, min(count, len(present) + 10) + 1) if k not in present][:10]
    more = count - len(present) - len(absent)
    covered = {str(item.get("case_id")) for r in reports.values() for item in r["items"]}
    lost = len(set(case_ids) - covered)
    names = ", ".join(f"{k}/{count}" for k in absent) + (f" and {more} more" if more else "")
    return (f"shard{'s' * (count - len(present) > 1)} {names} missing (no report given): the merged report would lack "
            f"{lost} of the dataset's {len(case_ids)} cases")


class MergeRun:
    """The pytest plugin of a merge: collects nothing, replays the shards' rows as test reports."""

    def __init__(self, reports: dict[str, dict[str, Any]], allow_partial: bool) -> None:
        self.reports = reports
        self.files = {path: os.path.abspath(path) for path in reports}  # inputs: no output may be one (startcheck.py)
        self.allow_partial = allow_partial
        self.items = [item for report in reports.values() for item in report["items"]]
        self.controller: Controller | None = None  # the run's, once pytest is configured

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        """Before pytest is configured: this run is a merge (config/settings.py's ``merging``: it
        asks no system and reaches the suites; controller/startcheck.py reads ``files``)."""
        config.stash[MERGE_KEY] = self

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        from ..core.version import __version__

        config.option.dist = "no"  # xdist from the ini's addopts: nothing to distribute
        controller = self.controller = config.stash.get(CONTROLLER_KEY, None)
        if controller is None:
            return
        first_path, first = next(iter(self.reports.items()))
        if first.get("version") != __version__:
            raise pytest.UsageError(f"merge: {first_path} was written by pytest-sprout {first.get('version')}, this is "
                                    f"{__version__}: merge with the version the shards ran")
        here = controller.dataset_hash()
        if first.get("dataset_hash") != here:
            raise pytest.UsageError(
                f"merge: the reports were built from dataset {short_hash(first.get('dataset_hash'))}, but the suites here "
                f"hash to {short_hash(here)}: run the merge on the checkout the shards ran")
        self.items = _run_order(controller, self.reports)  # every row a case of these suites, in their order
        problem = missing_shards(self.reports, [c.id for c in controller.suites().cases])
        if problem and not self.allow_partial:
            raise pytest.UsageError(f"merge: {problem}; pass --allow-partial to write it marked \"partial\": true")
        if problem:
            controller.write_problems.append(f"merge: {problem} (--allow-partial: the report is marked partial)")
        mode = (first.get("settings") or {}).get("citations")
        if isinstance(mode, str) and mode != controller.settings.citations:  # the mode the shards ran (the
            from dataclasses import replace  # judging check above makes every shard's the same)

            controller.settings = replace(controller.settings, citations=mode)
        judged = next((r for r in self.reports.values() if r["items"]), first)  # an empty shard asked no system
        controller.worker_system = judged.get("system")
        controller.guard.golden_ref = judged.get("golden")
        shards_judging = first["shard"].get("judging")  # the same in every shard (check_reports)
        if isinstance(shards_judging, dict):
            controller.judging = lambda: shards_judging
        for report in self.reports.values():  # each shard's tiers, as they judged (check_reports: they agree)
            controller.worker_judges.update(report.get("judges") or {})
        controller.own_judges = dict
        controller.complete = all(r.get("complete", True) is not False for r in self.reports.values())

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        controller = self.controller
        if controller is not None:
            controller.select([item["nodeid"] for item in self.items])
            # What a run learns from its items' setup reports, which the merge does not replay.
            controller.tiers_run.update(str(item.get("tier")) for item in self.items)
        session.testscollected = len(self.items)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        hook = session.config.hook
        policy = self.controller.fail_on if self.controller is not None else None  # --sprout-fail-on, as a run's
        junit = bool(getattr(session.config.option, "xmlpath", None))
        logstart, logreport = hook.pytest_runtest_logstart, hook.pytest_runtest_logreport
        logfinish = hook.pytest_runtest_logfinish
        for item in self.items:
            nodeid = item["nodeid"]
            path, _, name = nodeid.partition("::")
            location = (path, None, name or path)
            logstart(nodeid=nodeid, location=location)
            for report in _reports(item, location, junit=junit, policy=policy):
                logreport(report=report)
            logfinish(nodeid=nodeid, location=location)
        gc.freeze()  # the rows and their test reports live to the end (main pauses the collector)
        return True


def _run_order(controller: Any, reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows in the order one run over every shard would have judged them (the suites'
    collection order), so that every list a report prints comes out in the same order. A row
    that is not an item of these suites (a case id, or a tier, the suites do not have) or comes
    twice is a usage error naming the file: it was edited, or comes from other suites."""
    from ..suites.loader import SuiteError

    order: dict[str, int] = {}
    root = Path(controller.settings.rootpath)
    for path, suite_file in sorted(controller.suites().files.items()):
        try:
            prefix = path.relative_to(root).as_posix()
        except ValueError:
            continue
        for entry in suite_file.entries:
            if not isinstance(entry, SuiteError):
                for tier in entry.tiers:
                    order.setdefault(f"{prefix}::{entry.id}[{tier}]", len(order))
    rows: dict[str, dict[str, Any]] = {}
    for file, report in reports.items():
        for i, item in enumerate(report["items"]):
            nodeid = item["nodeid"]
            if nodeid not in order:
                raise pytest.UsageError(f"merge: {file}: items[{i}] field 'nodeid' is {nodeid!r}, not an item of the "
                                        "suites here (a case id or tier they do not have): the report was edited, "
                                        "or comes from other suites")
            if nodeid in rows:
                raise pytest.UsageError(f"merge: {file}: items[{i}] {nodeid} is given twice")
            rows[nodeid] = item
    return sorted(rows.values(), key=lambda item: order[item["nodeid"]])


def _reports(item: dict[str, Any], location: tuple[str, None, str], junit: bool, policy: Any = None) -> list[Any]:
    """The call report of one row, as its run sent it, and for --junitxml (which closes a test
    case on its teardown) the teardown report. No setup report, and no teardown report otherwise:
    pytest's terminal keeps every passing setup and teardown report and, for each failure, scans
    them all (quadratic: most of the time of a 10,000-row merge with 1,000 failures). A failure
    the merge's --sprout-fail-on lets pass (``policy``, core/fail_on.py) is xfailed, as in a run."""
    from _pytest.reports import TestReport

    row = {k: v for k, v in item.items() if k not in ("nodeid", "outcome")}
    outcome = item.get("outcome")
    tier = str(item.get("tier"))
    keywords: dict[str, Literal[1]] = {tier: 1, str(item.get("suite")): 1}
    # The row itself for the controller (it takes a mapping as a run's JSON text); only --junitxml,
    # which writes every property as text, needs the JSON and the readable properties of a run.
    props: list[tuple[str, Any]] = (
        [("sprout", json.dumps(row, separators=(",", ":"), sort_keys=True)), *junit_properties(row)] if junit
        else [("sprout", row)])
    call: Literal["passed", "failed", "skipped"]
    longrepr: tuple[str, int, str] | str | None
    if outcome == "passed":
        call, longrepr = "passed", None
    elif outcome in ("skipped", "unscored"):
        call, longrepr = "skipped", (location[0], 0, f"Skipped: {row.get('note') or 'skipped'}")
    else:
        call, longrepr = "failed", row.get("error") or _reason(row) or f"{outcome} (see the shard's report)"
    nodeid = str(item["nodeid"])
    mark = policy.mark(nodeid, row.get("case_hash")) if policy is not None and call == "failed" else None
    if mark is not None:
        call = "skipped"
        props.append(mark)
    report = TestReport(nodeid, location, keywords, call, longrepr, "call", user_properties=props)
    if mark is not None:
        report.wasxfail = mark[1]
    reports = [report]
    if junit:
        reports.append(TestReport(nodeid, location, keywords, "passed", None, "teardown"))
    return reports


def _reason(row: dict[str, Any]) -> str:
    reasons = row.get("reasons") or []
    if not isinstance(reasons, list):
        return ""
    texts = [str(r.get("why") or "") for r in reasons if isinstance(r, dict)]
    return "; ".join(t for t in texts if t)


def main(argv: Sequence[str] | None = None) -> int:
    """Check the reports, then run the merge as a pytest session in the current project.

    It runs with the cyclic garbage collector paused: a merge builds millions of objects that
    live to its end (the shard reports' rows, a test report per row, the suites' YAML nodes), and
    every automatic collection walked them all again (0.9 s of the 3.6 s a 10,000-row merge spent
    in this process). What is built is frozen twice (``gc.freeze``: once the reports are read, once
    the rows are replayed), so that pytest's closing ``gc.collect`` walks only what came after. The
    collector is enabled again at the end, and what was frozen stays frozen: ``gc.unfreeze()`` would
    hand it back to the collector, which the interpreter's exit would then walk (seconds)."""
    with collector_paused():
        return _merge(sys.argv[1:] if argv is None else argv)


def _merge(argv: Sequence[str]) -> int:
    try:
        files, passed, allow_partial = split_args(argv)
        reports = {path: read_report(path) for path in dict.fromkeys(files)}
        check_reports(reports)
    except MergeError as exc:
        print(f"merge: error: {exc}", file=sys.stderr)
        return USAGE
    gc.freeze()  # the reports read: they live to the end
    args = ["-p", "no:cacheprovider", "--noconftest", *passed]
    return int(pytest.main(args, plugins=[MergeRun(reports, allow_partial)]))
