"""Golden sets: build/load as plain Python, and record/replay end to end through pytester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import PASSING_SUITE as SUITE
from helpers import SYSTEM_CONFTEST, make_project
from pytest_sprout.answers.golden import build, entry, load
from pytest_sprout.core.model import Answer, Case, GoldenItem
from pytest_sprout.reports.safe_write import write_json
from pytest_sprout.core.identity import SnapshotError


# The same lookup system, switched off by a file: a replay that called it would fail.
GUARDED_CONFTEST = SYSTEM_CONFTEST.replace(
    "def pytest_sprout_make_system(config):\n",
    "def pytest_sprout_make_system(config):\n"
    "    import os\n"
    "    if os.path.exists('system-off'):\n"
    "        raise RuntimeError('the system is switched off: a replay must not call it')\n",
)
RUN = ("-m", "groundedness", "-p", "no:cacheprovider", "-p", "no:deepeval")


def project(pytester: pytest.Pytester, suite: str = SUITE) -> None:
    make_project(pytester, suite=suite, conftest=GUARDED_CONFTEST)


def cases() -> list[Case]:
    return [Case("a", "s", "Q1?"), Case("b", "s", "Q2?", expect="refuse")]


# --- plain Python -------------------------------------------------------------------------------


def test_build_and_load_round_trip(tmp_path: Path) -> None:
    answer = Answer.from_text("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])
    entries = {
        "a": entry(GoldenItem(cases()[0], answer), {"name": "sys", "version": "2"}),
        "b": entry(GoldenItem(cases()[1], None, "Traceback...\nRuntimeError: down"), {"name": "sys", "version": "2"}),
    }
    write_json(tmp_path / "g.json", build(cases(), entries, "0.1"))
    golden = load(tmp_path / "g.json", "g.json", cases())
    assert golden.system == {"name": "sys", "version": "2"}
    assert golden.item(cases()[0]) == GoldenItem(cases()[0], Answer.from_json(answer.to_json()))
    assert golden.item(cases()[0]).answer.sentences == answer.sentences
    assert golden.item(cases()[1]).error == "Traceback...\nRuntimeError: down"
    missing = golden.item(Case("c", "s", "Q3?"))
    assert missing.answer is None and "'c' is not in the golden set g.json: not recorded: re-record" in missing.error


def test_stale_golden_set_is_refused_naming_the_changes(tmp_path: Path) -> None:
    write_json(tmp_path / "g.json", build(cases(), {}, "0.1"))
    now = [Case("a", "s", "Q1 changed?"), Case("c", "s", "Q3?")]
    with pytest.raises(SnapshotError) as info:
        load(tmp_path / "g.json", "g.json", now)
    text = str(info.value)
    assert "g.json was recorded from dataset" in text and "refusing to replay a stale golden set" in text
    assert "  added (1): c" in text and "  removed (1): b" in text and "  changed (1): a (question)" in text
    assert "re-record it: pytest --sprout-record=g.json" in text


@pytest.mark.parametrize("content, message", [
    ("{", "g.json: not valid JSON (line 1, column 2"),
    ('{"pytest_sprout": "report"}', "g.json: not a pytest-sprout golden set"),
    ('{"pytest_sprout": "golden set", "format": 1, "dataset_hash": "x", "answers": []}',
     "g.json: field 'answers' must be an object of case ids"),
    ('{"pytest_sprout": "golden set", "format": 1, "dataset_hash": "x", "answers": {"a": {"answer": {"sentences": [1]}}}}',
     "g.json: field 'answers.a.answer.sentences[0]' must be an object with a 'text' string"),
    ('{"pytest_sprout": "golden set", "format": 1, "dataset_hash": "x", "answers": {"a": {}}}',
     "g.json: field 'answers.a' needs an 'answer' object or an 'error' string"),
])
def test_broken_golden_set_names_file_and_field(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "g.json").write_text(content)
    with pytest.raises(SnapshotError) as info:
        load(tmp_path / "g.json", "g.json", cases())
    assert str(info.value).startswith(message)


# --- through pytest -----------------------------------------------------------------------------


def test_record_then_replay_with_the_system_off_gives_the_same_report(pytester: pytest.Pytester) -> None:
    project(pytester)
    recorded = pytester.runpytest(*RUN, "--sprout-record=golden/set.json", "--sprout-report=live.json")
    recorded.assert_outcomes(passed=3)
    recorded.stdout.fnmatch_lines(["*= sprout snapshot =*", "golden/set.json: recorded 3 answers",
                                   "sprout.snapshot.json: created*", "  registered golden/set.json (golden set)"])
    golden = json.loads((pytester.path / "golden" / "set.json").read_text())
    assert golden["system"] == {"name": "lookup", "version": "1"} and len(golden["dataset_hash"]) == 64
    assert golden["answers"]["taxes"]["answer"]["refused"] is True
    assert golden["answers"]["snake-light"]["answer"]["sentences"][0]["citations"] == ["1"]

    (pytester.path / "system-off").write_text("")
    replay = pytester.runpytest(*RUN, "--sprout-golden=golden/set.json", "--sprout-report=replay.json")
    replay.assert_outcomes(passed=3)
    live = json.loads((pytester.path / "live.json").read_text())
    assert json.loads((pytester.path / "replay.json").read_text()) == live
    assert live["golden"]["path"] == "golden/set.json" and live["system"] == {"name": "lookup", "version": "1"}
    # Without the golden set the system is called, and it is off: proof the replay did not call it.
    pytester.runpytest(*RUN).assert_outcomes(failed=3)


def test_recorded_system_errors_replay_as_failures(pytester: pytest.Pytester) -> None:
    project(pytester, SUITE + "  - id: breaks\n    question: What breaks?\n")
    pytester.runpytest(*RUN, "--sprout-record=g.json").assert_outcomes(passed=3, failed=1)
    (pytester.path / "system-off").write_text("")
    result = pytester.runpytest(*RUN, "--sprout-golden=g.json")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*RuntimeError: retriever index is missing*"])


def test_stale_golden_set_is_refused_before_anything_runs(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.runpytest(*RUN, "--sprout-record=g.json").assert_outcomes(passed=3)
    (pytester.path / "sprout.snapshot.json").unlink()  # only the golden set's own guard is tested here
    suite = pytester.path / "suites" / "care.yaml"
    suite.write_text(suite.read_text().replace("Is a peace lily", "Is a lily"))
    result = pytester.runpytest(*RUN, "--sprout-golden=g.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: g.json was recorded from dataset * but the suites are now *; refusing to replay a stale golden set:",
        "  changed (1): lily-cats (question)",
        "re-record it: pytest --sprout-record=g.json*",
    ])
    assert "passed" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_case_missing_from_the_golden_set_fails_as_not_recorded(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.runpytest(*RUN, "-k", "not taxes", "--sprout-record=g.json").assert_outcomes(passed=2, deselected=1)
    (pytester.path / "system-off").write_text("")
    result = pytester.runpytest(*RUN, "--sprout-golden=g.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*'taxes' is not in the golden set g.json: not recorded: re-record it with --sprout-record=g.json*"])


@pytest.mark.parametrize("content, message", [
    ("{oops", "ERROR: g.json: not valid JSON (line 1, column 2*"),
    ('{"pytest_sprout": "golden set", "format": 1}', "ERROR: g.json: field 'dataset_hash' must be a string"),
    (None, "ERROR: g.json: no such file"),
])
def test_broken_golden_set_is_a_usage_error(pytester: pytest.Pytester, content: str | None, message: str) -> None:
    project(pytester)
    if content is not None:
        (pytester.path / "g.json").write_text(content)
    result = pytester.runpytest(*RUN, "--sprout-golden=g.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_record_and_replay_together_is_a_usage_error(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest(*RUN, "--sprout-record=a.json", "--sprout-golden=b.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --sprout-record and --sprout-golden cannot be combined*"])


def test_guard_keeps_the_first_answer_and_says_when_workers_disagreed(tmp_path: Path) -> None:
    from pytest_sprout.config.settings import Settings
    from pytest_sprout.snapshot.guard import INTERRUPTED, OK, SnapshotGuard
    from pytest_sprout.suites.loader import SuiteFile, SuiteSet

    suites = SuiteSet({tmp_path / "suites" / "s.yaml": SuiteFile(tmp_path / "suites" / "s.yaml", "s", list(cases()))})
    guard = SnapshotGuard(Settings(tmp_path, record=tmp_path / "g.json"), lambda: suites)
    first = entry(GoldenItem(cases()[0], Answer.from_text("One [1].", ["One."])), {"name": "s", "version": "1"})
    other = entry(GoldenItem(cases()[0], Answer.from_text("Two [1].", ["Two."])), {"name": "s", "version": "1"})
    for answer in (first, first, other):
        row = {"case_id": "a", "golden": answer}
        guard.keep(row)
        assert "golden" not in row  # never part of the report
    guard.write_golden(INTERRUPTED)
    assert not (tmp_path / "g.json").exists() and guard.lines == ["g.json: not written, the run did not finish"]
    guard.write_golden(OK)
    data = json.loads((tmp_path / "g.json").read_text())
    assert data["answers"]["a"]["answer"]["text"] == "One [1]." and data["system"] == {"name": "s", "version": "1"}
    assert guard.lines[1:] == [
        "g.json: recorded 1 answers (1 cases not run here are not recorded)",
        "  1 cases were answered differently by two xdist workers (a); the golden set keeps the first "
        "answer: record with -n 0 for a replay that matches this run's report exactly",
    ]
    assert guard.report_extra() == {"golden": {"path": "g.json", "sha256": guard.golden_ref["sha256"]}}


def test_a_run_without_sprout_items_records_nothing(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest(*RUN, "-k", "no-such-case", "--sprout-record=g.json")
    result.stdout.fnmatch_lines(["g.json: not written, no sprout item ran"])
    assert not (pytester.path / "g.json").exists() and not (pytester.path / "sprout.snapshot.json").exists()
