"""Chaos: a small suite run under every way a run can go wrong (factory raising, system raising,
sys.exit, a worker segfault under -n 2, Ctrl-C mid-run, an unwritable report path). Each time the
JSON report (or the old one that was kept) is checked against the selected items: the same count,
nothing silently dropped, and no errored item counted as a pass."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from helpers import make_project

SUITE = """
suite: chaos
defaults: {tiers: [groundedness]}
cases:
  - id: ok-1
    question: q1
  - id: ok-2
    question: q2
  - id: boom
    question: boom
  - id: ok-3
    question: q3
  - id: ok-4
    question: q4
"""

# The system under test; CHAOS (an environment variable) picks what goes wrong on the "boom" case.
CONFTEST = '''
import os, signal, sys

def pytest_sprout_make_system(config):
    mode = os.environ.get("CHAOS", "")
    if mode == "factory":
        raise RuntimeError("the index could not be loaded")

    def system(question):
        if question == "boom":
            if mode == "raise":
                raise ValueError("the retriever returned nothing")
            if mode == "exit":
                sys.exit(3)
            if mode == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            if mode == "os_exit":
                os._exit(7)
            if mode == "ctrl-c":
                raise KeyboardInterrupt
            if mode == "refused-string":  # a JSON service that sends booleans as strings
                return {"text": "Plants need water 0 [1].", "passages": ["Plants need water 0."], "refused": "false"}
            if mode == "bytes":  # a retriever that does not decode: judged as the text, not as b'...'
                return {"text": b"Plants need water 0 [1].", "passages": [{"id": b"d0", "text": b"Plants need water 0."}]}
        n = question[1:] if question != "boom" else "0"
        return (f"Plants need water {n} [1].", [f"Plants need water {n}."])
    system.name = "chaos"
    return system
'''

NODEIDS = [f"suites/chaos.yaml::{case}[groundedness]" for case in ("ok-1", "ok-2", "boom", "ok-3", "ok-4")]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    make_project(pytester, suite=SUITE, conftest=CONFTEST, name="chaos", tiers="")
    return pytester


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, *args: str) -> pytest.RunResult:
    monkeypatch.setenv("CHAOS", mode)
    return pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:randomly", "-p", "no:cacheprovider",
                                         "--sprout-report=out.json", *args)


def check_report(path: Path, errored: set[str]) -> dict[str, Any]:
    """Every selected item is a row; exactly ``errored`` are errors; no error counts in a metric."""
    report = json.loads(path.read_text())
    ids = [row["nodeid"] for row in report["items"]]
    assert sorted(ids) == sorted(NODEIDS), ids  # same count, nothing dropped, nothing twice
    assert {row["nodeid"] for row in report["items"] if row["outcome"] == "error"} == errored
    for row in report["items"]:
        if row["outcome"] == "error":
            assert row["error"] and row["metrics"] == {}
    grounded = next((m for m in report["metrics"] if m["metric"] == "grounded"), None)
    assert (grounded["n"] if grounded else 0) == len(NODEIDS) - len(errored)
    return report


BOOM = "suites/chaos.yaml::boom[groundedness]"
BOOM_PATTERN = "suites/chaos.yaml::boom[[]groundedness[]]"  # fnmatch: brackets are a character class


@pytest.mark.parametrize("mode, reason", [
    ("raise", "ValueError: the retriever returned nothing"),
    ("exit", "SystemExit: 3"),
    ("refused-string", "the system's answer to 'boom' is invalid: 'refused' must be true or false, got 'false'"),
])
def test_system_failure_errors_only_its_item(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, reason: str) -> None:
    """Regression: repro 24 (24-answer-coercion-refused-string-bytes)."""
    result = run(project, monkeypatch, mode)
    result.assert_outcomes(passed=4, failed=1)
    report = check_report(project.path / "out.json", {BOOM})
    assert reason in next(r for r in report["items"] if r["nodeid"] == BOOM)["error"]
    result.stdout.fnmatch_lines(["1 item errored (not counted in any metric):", f"  {BOOM_PATTERN}: *{reason}*"])


def test_bytes_from_the_system_are_judged_as_text(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 24 (24-answer-coercion-refused-string-bytes)."""
    result = run(project, monkeypatch, "bytes")
    result.assert_outcomes(passed=5)
    report = check_report(project.path / "out.json", set())
    boom = next(r for r in report["items"] if r["nodeid"] == BOOM)
    assert boom["answer"]["passages"] == [{"id": "d0", "text": "Plants need water 0."}]


def test_factory_failure_errors_every_item(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(project, monkeypatch, "factory")
    result.assert_outcomes(failed=5)
    report = check_report(project.path / "out.json", set(NODEIDS))
    assert all("the index could not be loaded" in row["error"] for row in report["items"])
    result.stdout.fnmatch_lines(["5 items errored (not counted in any metric):"])


@pytest.mark.parametrize("mode", ["segfault", "os_exit"])
def test_worker_crash_under_xdist_is_an_error_row(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    result = run(project, monkeypatch, mode, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = check_report(project.path / "out.json", {BOOM})
    assert "crashed" in next(r for r in report["items"] if r["nodeid"] == BOOM)["error"]
    result.stdout.fnmatch_lines(["1 item errored (not counted in any metric):", f"  {BOOM_PATTERN}: *crashed*"])
    grounded = next(m for m in report["metrics"] if m["metric"] == "grounded")
    assert (grounded["k"], grounded["n"]) == (4, 4)  # never "5/5": the crashed item is not a pass


def test_ctrl_c_mid_run_marks_the_report_incomplete(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(project, monkeypatch, "ctrl-c", "--sprout-md=out.md", "--sprout-html=out.html")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = json.loads((project.path / "out.json").read_text())
    assert report["complete"] is False
    ran = {"suites/chaos.yaml::ok-1[groundedness]", "suites/chaos.yaml::ok-2[groundedness]"}
    assert sorted(row["nodeid"] for row in report["items"]) == sorted(NODEIDS)
    not_run = {row["nodeid"] for row in report["items"] if row["outcome"] == "error"}
    assert not_run == set(NODEIDS) - ran
    assert all("interrupted" in row["error"] for row in report["items"] if row["outcome"] == "error")
    assert "INCOMPLETE" in (project.path / "out.md").read_text()
    assert 'id="incomplete"' in (project.path / "out.html").read_text()


def test_ctrl_c_never_replaces_a_report_registered_in_the_snapshot(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    first = run(project, monkeypatch, "", "--sprout-update-snapshot")
    assert first.ret == 0
    before = (project.path / "out.json").read_bytes()
    snapshot = (project.path / "sprout.snapshot.json").read_bytes()
    interrupted = run(project, monkeypatch, "ctrl-c")
    assert interrupted.ret == pytest.ExitCode.INTERRUPTED
    interrupted.stdout.fnmatch_lines(["out.json: kept as it was (registered in the snapshot, and this run was interrupted)"])
    assert (project.path / "out.json").read_bytes() == before  # the kept old one
    assert (project.path / "sprout.snapshot.json").read_bytes() == snapshot
    check_report(project.path / "out.json", set())
    assert run(project, monkeypatch, "", "--sprout-check-snapshot").ret == 0


def test_unwritable_report_path_stops_before_any_item_and_keeps_the_old_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(project, monkeypatch, "raise").ret == pytest.ExitCode.TESTS_FAILED
    before = (project.path / "out.json").read_bytes()
    (project.path / "a-folder").mkdir()
    result = run(project, monkeypatch, "raise", "--sprout-html=a-folder")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-html=*a-folder: cannot write the report there: is a directory*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "PASSED" not in result.stdout.str() and "passed" not in result.stdout.str()  # nothing ran
    assert (project.path / "out.json").read_bytes() == before
    check_report(project.path / "out.json", {BOOM})


def test_writer_killed_mid_write_leaves_no_tmp_after_the_next_run(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # A writer killed with SIGKILL between writing its temporary file and renaming it.
    killer = textwrap.dedent("""
        import os, signal, sys
        from pytest_sprout.reports import safe_write as report
        os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        report.write_json(sys.argv[1], {"half": "written"})
    """)
    target = project.path / "out.json"
    proc = subprocess.run([sys.executable, "-c", killer, str(target)], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == -signal.SIGKILL
    assert list(project.path.glob(".out.json.*.tmp")) and not target.exists()
    result = run(project, monkeypatch, "")
    assert result.ret == 0
    assert not list(project.path.glob("*.tmp")) and not list(project.path.glob(".*.tmp"))
    check_report(target, set())


def test_collection_error_elsewhere_says_no_item_ran(pytester: pytest.Pytester) -> None:
    """A broken suite file stops pytest before any item runs: the other files' items are error rows
    that say so, not rows that claim they were interrupted mid-run."""
    make_project(pytester, suite=SUITE, conftest=CONFTEST, name="chaos", tiers="")
    (pytester.path / "suites" / "broken.yaml").write_text("cases:\n  - id: x\n    question: [unclosed\n")
    result = pytester.runpytest("-p", "no:deepeval", "--sprout-report=out.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    rows = json.loads((pytester.path / "out.json").read_text())["items"]
    assert sorted(row["nodeid"] for row in rows) == sorted(NODEIDS)
    assert all(row["outcome"] == "error" and "before any item ran" in row["error"] for row in rows)


# --- outputs and inputs, checked at start; what a run that ran nothing writes ------------------

@pytest.mark.parametrize("args, message", [
    (["--sprout-report=suites/chaos.yaml"], "--sprout-report=suites/chaos.yaml is also a suite file (--sprout-suites)*"),
    (["--sprout-record=sprout.snapshot.json"], "--sprout-record=sprout.snapshot.json is also the snapshot (--sprout-snapshot)*"),
    (["--sprout-golden=g.json", "--sprout-md=g.json"], "--sprout-md=g.json is also the golden set it replays (--sprout-golden)*"),
    (["--sprout-compare=out.json"], "--sprout-report=out.json is also the report it compares with (--sprout-compare)*"),
    (["--sprout-html=out.json"], "--sprout-html=out.json is also --sprout-report=out.json: two outputs on one path*"),
    (["--sprout-md=suites/new.yaml"], "--sprout-md=suites/new.yaml lies in the suites folder*"),
])
def test_an_output_on_an_input_path_is_refused_before_anything_runs(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str,
) -> None:
    """Regression: repro 19 (19-report-path-overwrites-inputs)."""
    assert run(project, monkeypatch, "", "--sprout-update-snapshot", "--sprout-record=g.json").ret == 0
    before = files(project)
    result = run(project, monkeypatch, "", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "passed" not in result.stdout.str()
    assert files(project) == before  # nothing overwritten, nothing new


@pytest.mark.parametrize("args", [["--sprout-timeout=2s"], ["--co"], ["-o", "sprout_retries=-1"]])
def test_a_run_that_ran_nothing_writes_and_registers_nothing(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str],
) -> None:
    """A usage error found late (once at the first item) or pytest --co: the registered report
    stays as the last real run wrote it; no all-error report replaces it and is re-registered.
    Regression: repro 02 (02-late-usage-error-clobbers-report).
    Regression: repro 31 (31-collect-only-calls-items-errored)."""
    assert run(project, monkeypatch, "raise", "--sprout-update-snapshot").ret == pytest.ExitCode.TESTS_FAILED
    before = {name: (project.path / name).read_bytes() for name in ("out.json", "sprout.snapshot.json")}
    result = run(project, monkeypatch, "raise", "--sprout-update-snapshot", *args)
    assert result.ret == (pytest.ExitCode.OK if "--co" in args else pytest.ExitCode.USAGE_ERROR)
    assert {name: (project.path / name).read_bytes() for name in before} == before
    check_report(project.path / "out.json", {BOOM})
    assert run(project, monkeypatch, "", "--sprout-check-snapshot").ret == 0


def files(project: pytest.Pytester) -> dict[Path, bytes]:
    """Every file of the project but pytester's own captures (stdout, stderr)."""
    return {p: p.read_bytes() for p in project.path.rglob("*")
            if p.is_file() and ".pytest_cache" not in p.parts and p.name not in ("stdout", "stderr")}


LONG = "r" * 245  # its temporary file, .NAME.xxxxxxxx.tmp, is over 255 bytes: a write that fails at the end


def test_a_golden_set_that_cannot_be_written_fails_the_run_and_loses_no_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: repro 03 (03-record-write-failure-loses-all-reports)."""
    result = run(project, monkeypatch, "", f"--sprout-record={LONG}.json", "--sprout-html=out.html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"--sprout-record={LONG}.json: the golden set could not be written: File name too long"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    check_report(project.path / "out.json", set())
    assert (project.path / "out.html").is_file()
    assert not (project.path / "sprout.snapshot.json").exists()  # nothing to register


def test_a_snapshot_that_cannot_be_written_fails_the_run_and_loses_no_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--sprout-update-snapshot whose snapshot write fails at the end (disk full; here a name whose
    temporary file is too long) once ended in a raw traceback from the snapshot writer.
    Regression: repro 03 (03-record-write-failure-loses-all-reports)."""
    result = run(project, monkeypatch, "", "--sprout-update-snapshot", f"--sprout-snapshot={LONG}.json",
                 "--sprout-html=out.html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"{LONG}.json: the snapshot could not be written: File name too long; it is as it was"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    check_report(project.path / "out.json", set())
    assert (project.path / "out.html").is_file()
    assert not (project.path / f"{LONG}.json").exists()


def test_a_report_that_cannot_be_written_fails_the_run_and_no_old_file_stays(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: repro 04 (04-report-write-failure-exits-0)."""
    old = project.path / f"{LONG}.md"
    old.write_text("## pytest-sprout\n\nyesterday's summary\n")
    result = run(project, monkeypatch, "", f"--sprout-md={LONG}.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every item passed, but a requested output is missing
    result.stdout.fnmatch_lines([f"*{LONG}.md: the report could not be written: File name too long; "
                                 "the old file there was removed (it was not this run's)"])
    assert not old.exists()
    check_report(project.path / "out.json", set())  # the other report is written


def test_an_artifact_outside_the_rootdir_is_written_not_registered(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A CI temp folder: the golden set is recorded there, the snapshot never registers a path a
    later run would refuse (every later run, the replay included, stopped before collecting).
    Regression: repro 29 (29-record-outside-rootdir-breaks-snapshot)."""
    outside = tmp_path_factory.mktemp("ci-temp")
    result = run(project, monkeypatch, "", f"--sprout-record={outside}/golden.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"{outside}/golden.json: written, but not registered in the snapshot: it is outside the rootdir*"])
    assert (outside / "golden.json").is_file() and not (project.path / "sprout.snapshot.json").exists()
    assert run(project, monkeypatch, "", f"--sprout-golden={outside}/golden.json").ret == 0
    assert run(project, monkeypatch, "", "--sprout-update-snapshot", f"--sprout-report={outside}/r.json").ret == 0
    assert run(project, monkeypatch, "").ret == 0 and run(project, monkeypatch, "", "--sprout-check-snapshot").ret == 0


@pytest.mark.parametrize("spelling", ["./suites/../suites", "../{here}/suites", "{root}/suites"])
def test_suites_spelled_another_way_are_the_same_items(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, spelling: str) -> None:
    """Regression: repro 23 (23-sprout-suites-dotdot-or-outside-collects-nothing)."""
    suites = spelling.format(here=project.path.name, root=project.path)
    result = run(project, monkeypatch, "", f"--sprout-suites={suites}")
    result.assert_outcomes(passed=5)
    check_report(project.path / "out.json", set())


def test_suites_outside_the_rootdir_are_a_usage_error(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Regression: repro 23 (23-sprout-suites-dotdot-or-outside-collects-nothing)."""
    shared = tmp_path_factory.mktemp("shared-evals")
    (shared / "chaos.yaml").write_text((project.path / "suites" / "chaos.yaml").read_text())
    result = run(project, monkeypatch, "", f"--sprout-suites={shared}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --sprout-suites / sprout_suites: '{shared}' is outside the rootdir*"])


@pytest.mark.parametrize("args", [["-p", "rerunfailures", "--reruns=2"], ["-n", "2", "--dist", "each"]])
def test_reruns_and_dist_each_give_one_row_per_case_and_tier(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str],
) -> None:
    """pytest-rerunfailures (installed with the llm/ragas extras) reports every attempt, and xdist
    --dist each runs every item on every worker: the report keeps one row per item (its final
    attempt; with --dist each the first to arrive), and n counts cases, not attempts.
    Regression: repro 26 (26-reruns-multiply-metrics)."""
    pytest.importorskip("pytest_rerunfailures" if "--reruns=2" in args else "xdist")
    result = run(project, monkeypatch, "raise", *args)
    report = check_report(project.path / "out.json", {BOOM})  # 5 rows, grounded n = 4
    assert len(report["items"]) == len(NODEIDS)
    result.stdout.fnmatch_lines(["1 item errored (not counted in any metric):"])
