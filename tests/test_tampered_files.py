"""Issue 11, point 12: baselines, snapshots and golden sets edited by hand (or broken) are read
field by field: wrong types, numbers out of range, absurd nesting and overlong numbers are usage
errors naming the file and the field, never an INTERNALERROR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import PASSING_SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.controller.gates import load_baseline
from pytest_sprout.answers.golden import load as load_golden
from pytest_sprout.core.identity import SnapshotError, read_json
from pytest_sprout.snapshot.file import Snapshot

ROW = {"tier": "groundedness", "metric": "grounded", "kind": "rate", "n": 10, "k": 5, "rate": 0.5,
       "ci_low": 0.2, "ci_high": 0.8, "underpowered": True, "saturated": False, "unscored": 0}
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "1" + "0" * 5000  # more digits than Python turns into an int


def baseline(tmp_path: Path, text: str) -> str:
    path = tmp_path / "old.json"
    path.write_text(text)
    with pytest.raises(pytest.UsageError) as info:
        load_baseline(path, "old.json")
    return str(info.value)


def report_text(**changes: object) -> str:
    return json.dumps({"plugin": "pytest-sprout", "dataset_hash": "x", "metrics": [{**ROW, **changes}], "items": []})


@pytest.mark.parametrize("changes, field", [
    ({"n": 10**12}, "field 'n' must be a whole number from 0 to 999999999"),
    ({"n": -1}, "field 'n' must be a whole number"),
    ({"n": True}, "field 'n' must be a whole number"),
    ({"k": 11}, "field 'k' must be an integer from 0 to n=10"),
    ({"rate": 1.5}, "field 'rate' is a rate: it must be from 0 to 1"),
    ({"ci_low": "0.1"}, "field 'ci_low' must be a finite number or null"),
    ({"kind": "ratio"}, "field 'kind' must be \"rate\" or \"mean\""),
    ({"kind": "mean", "rate": 1e300}, "field 'rate' must be a finite number or null"),
    ({"unscored": -2}, "field 'unscored' must be a whole number"),
])
def test_baseline_fields_are_checked(tmp_path: Path, changes: dict, field: str) -> None:
    message = baseline(tmp_path, report_text(**changes))
    assert message.startswith("--sprout-compare old.json: metrics[0] (groundedness.grounded) ")
    assert field in message


@pytest.mark.parametrize("text, field", [
    (report_text().replace('"rate": 0.5', '"rate": 1e999'), "field 'rate' must be a finite number or null"),
    (report_text().replace('"n": 10', f'"n": {HUGE}'), "cannot be read as a report (ValueError"),
    ('{"plugin": "pytest-sprout", "metrics": ' + DEEP + "}", "cannot be read as a report (RecursionError"),
    (json.dumps({"plugin": "pytest-sprout", "metrics": [], "items": [{"metrics": {"grounded": "yes"}}]}),
     "items[0] field 'metrics.grounded' must be a list"),
    (json.dumps({"plugin": "pytest-sprout", "metrics": [], "items": [{"metrics": {"grounded": [float("inf")]}}]}).replace("Infinity", "1e999"),
     "items[0] field 'metrics.grounded' must be a list of true/false, finite numbers or null"),
    (json.dumps({"plugin": "pytest-sprout", "metrics": [], "items": {}}), "field 'items' must be a list"),
])
def test_baseline_overflow_nesting_and_values(tmp_path: Path, text: str, field: str) -> None:
    message = baseline(tmp_path, text)
    assert message.startswith("--sprout-compare old.json: ") and field in message


def test_tampered_baseline_in_a_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    (pytester.path / "old.json").write_text('{"plugin": "pytest-sprout", "metrics": ' + DEEP + "}")
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-compare=old.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-compare old.json: cannot be read as a report (RecursionError*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


SNAP = {"pytest_sprout": "snapshot", "format": 1, "dataset_hash": "x", "suites": {"care": 3}, "cases": {}, "artifacts": {}}


@pytest.mark.parametrize("text, field", [
    (json.dumps({**SNAP, "suites": {"care": 10**12}}), "field 'suites' must map suite names to case counts"),
    (json.dumps({**SNAP, "suites": {"care": -1}}), "field 'suites' must map suite names to case counts"),
    (json.dumps(SNAP).replace('"care": 3', f'"care": {HUGE}'), "cannot be read (ValueError"),
    ('{"pytest_sprout": "snapshot", "cases": ' + DEEP + "}", "cannot be read (RecursionError"),
])
def test_tampered_snapshot_names_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "snap.json"
    path.write_text(text)
    with pytest.raises(SnapshotError) as info:
        Snapshot.load(path, "snap.json")
    assert str(info.value).startswith("snap.json: ") and field in str(info.value)


def test_tampered_snapshot_in_a_run_stops_it_with_a_message(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    (pytester.path / "sprout.snapshot.json").write_text('{"pytest_sprout": "snapshot", "cases": ' + DEEP + "}")
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["sprout.snapshot.json: cannot be read (RecursionError*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


GOLDEN = {"pytest_sprout": "golden set", "format": 1, "dataset_hash": "x", "system": None}


@pytest.mark.parametrize("answers, system, field", [
    ({"a": {"answer": {"sentences": [{"text": "x", "citations": "12"}], "passages": []}}}, None,
     "field 'answers.a.answer.sentences[0]' must be an object with a 'text' string and a 'citations' list"),
    ({"a": {"answer": {"sentences": [], "passages": [{"id": "p", "text": "x"}, {"id": "p", "text": "y"}]}}}, None,
     "field 'answers.a.answer' cannot be read as an answer (ValueError: two passages have the id 'p'"),
    ({"a": {"answer": {"sentences": [], "passages": [{"id": 7, "text": "x"}]}}}, None,
     "field 'answers.a.answer.passages[0]' must be an object with 'id' and 'text' strings"),
    ({}, {"name": ["x"]}, "field 'system' must be an object of strings"),
])
def test_tampered_golden_set_names_file_and_field(tmp_path: Path, answers: dict, system: object, field: str) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({**GOLDEN, "answers": answers, "system": system}))
    with pytest.raises(SnapshotError) as info:
        load_golden(path, "g.json", [])
    assert str(info.value).startswith("g.json: ") and field in str(info.value)


def test_read_json_survives_nesting_and_overlong_numbers(tmp_path: Path) -> None:
    for text in (DEEP, HUGE):
        path = tmp_path / "x.json"
        path.write_text(text)
        with pytest.raises(SnapshotError, match=r"^x.json: cannot be read"):
            read_json(path, "x.json")
