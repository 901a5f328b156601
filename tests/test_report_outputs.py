"""Issue 11, point 5: report paths are checked before any item runs (usage error, exit 4), and a
report is written whatever odd text the run produced (lone surrogates are escaped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.core.util import clean_text
from pytest_sprout.reports.safe_write import clean_stale_tmp, output_problem
from pytest_sprout.reports.safe_write import write_json

RUN = ("-p", "no:deepeval", "-m", "groundedness")


def no_item_ran(result: pytest.RunResult) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text and "INTERNALERROR" not in text and "passed" not in text


@pytest.mark.parametrize("flag", ["--sprout-report", "--sprout-md", "--sprout-html", "--sprout-record"])
def test_report_path_that_is_a_directory_is_a_usage_error_before_the_run(pytester: pytest.Pytester, flag: str) -> None:
    make_project(pytester)
    (pytester.path / "out").mkdir()
    result = pytester.runpytest(*RUN, f"{flag}=out")
    no_item_ran(result)
    result.stderr.fnmatch_lines([f"*{flag}=*out: cannot write the report there: is a directory; give a file name"])


def test_report_under_a_file_is_a_usage_error_before_the_run(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    (pytester.path / "notes.txt").write_text("x")
    result = pytester.runpytest(*RUN, "--sprout-report=notes.txt/sub/out.json")
    no_item_ran(result)
    result.stderr.fnmatch_lines(["*--sprout-report=*notes.txt/sub/out.json: cannot write the report there: *notes.txt is not a folder"])


def test_a_missing_folder_is_created(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest(*RUN, "--sprout-report=build/reports/out.json")
    result.assert_outcomes(passed=3, failed=1)
    assert json.loads((pytester.path / "build" / "reports" / "out.json").read_text())["items"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_a_usage_error_before_the_run(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    locked = pytester.path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        result = pytester.runpytest(*RUN, "--sprout-report=locked/out.json")
        no_item_ran(result)
        result.stderr.fnmatch_lines(["*--sprout-report=*locked/out.json: cannot write the report there: *not writable*"])
    finally:
        locked.chmod(0o755)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux procfs")
def test_folder_nobody_may_write_is_a_usage_error_even_for_root(pytester: pytest.Pytester) -> None:
    """The same check where even root cannot write (procfs), so it runs under CI's root too."""
    make_project(pytester)
    result = pytester.runpytest(*RUN, "--sprout-report=/proc/self/out.json")
    no_item_ran(result)
    result.stderr.fnmatch_lines(["*--sprout-report=*/proc/self/out.json: cannot write the report there: *not writable*"])


def test_output_problem_names_each_reason(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert output_problem(tmp_path) == "is a directory; give a file name"
    assert output_problem(tmp_path / "file" / "x.json") == f"{tmp_path / 'file'} is not a folder"
    assert output_problem(tmp_path / "new" / "deeper" / "x.json") is None
    assert output_problem(tmp_path / "x.json") is None
    assert not list(tmp_path.glob(".sprout-probe*"))  # the probe cleans up after itself


def test_stale_tmp_files_of_a_killed_writer_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "r[1].json"
    stale = [tmp_path / ".r[1].json.abc123.tmp", tmp_path / ".r[1].json.zz.tmp"]
    other = tmp_path / ".other.json.abc.tmp"
    for path in [*stale, other]:
        path.write_text("half")
    assert sorted(clean_stale_tmp(target)) == sorted(stale)
    assert other.exists() and not any(p.exists() for p in stale)


def test_lone_surrogates_are_escaped_never_a_unicode_error(tmp_path: Path) -> None:
    write_json(tmp_path / "r.json", {"error": "bad byte \udcff here"})
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == {"error": "bad byte \udcff here"}
    assert clean_text("ok \udcff") == "ok \\udcff" and clean_text("plain é") == "plain é"


def test_system_error_with_a_lone_surrogate_reaches_every_report(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST.replace('raise RuntimeError("retriever index is missing")',
                                       'raise RuntimeError(b"index \\xff broken".decode("utf-8", "surrogateescape"))')
    make_project(pytester, suite=SUITE + "  - id: breaks\n    question: What breaks?\n", conftest=conftest)
    for workers in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess(*RUN, "--sprout-report=out.json", "--sprout-md=out.md",
                                               "--sprout-html=out.html", "--junitxml=junit.xml", *workers)
        result.assert_outcomes(passed=3, failed=2)
        rows = {row["case_id"]: row for row in json.loads((pytester.path / "out.json").read_text())["items"]}
        assert len(rows) == 5 and "index \\udcff broken" in rows["breaks"]["error"]
        assert (pytester.path / "out.html").read_text(encoding="utf-8") and (pytester.path / "out.md").is_file()
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
