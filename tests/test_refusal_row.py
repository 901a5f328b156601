"""The summary's `refusal` row on data with no refusal case: "refusal 3/3 1.000 saturated" read as
"everything was refused". Where no case expects a refusal, a line under the table says what the
row counts (answers not refused where an answer was expected), in the terminal, the Markdown, the
JSON metric's `description` and the HTML; where one does, nothing is added."""

from __future__ import annotations

import json

import pytest

from helpers import PASSING_SUITE, facts_project, make_project

QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")
NOTE = "refusal {}: answers that were not refused where an answer was expected; no case here expects a refusal (expect: refuse)"


def test_the_refusal_row_says_what_it_counts_when_no_case_expects_a_refusal(pytester: pytest.Pytester) -> None:
    facts_project(pytester, 3)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest(*QUIET, "--sprout-md=s.md", "--sprout-report=r.json", "--sprout-html=r.html")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["groundedness  refusal  *3/3*", NOTE.format("3/3")])
    assert f"> {NOTE.format('3/3')}" in (pytester.path / "s.md").read_text(encoding="utf-8")
    metrics = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["metrics"]
    [refusal] = [m for m in metrics if m["metric"] == "refusal"]
    assert refusal["description"] == NOTE.split(": ", 1)[1]
    assert "<b>refusal</b>: answers that were not refused" in (pytester.path / "r.html").read_text(encoding="utf-8")


def test_no_note_when_a_case_expects_a_refusal(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE)
    result = pytester.runpytest(*QUIET, "-m", "groundedness", "--sprout-md=s.md", "--sprout-report=r.json")
    result.assert_outcomes(passed=3)
    metrics = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["metrics"]
    assert not any("description" in m for m in metrics)
    result.stdout.fnmatch_lines(["groundedness  refusal  *3/3*"])
    assert "no case here expects a refusal" not in result.stdout.str()
    assert "no case here expects a refusal" not in (pytester.path / "s.md").read_text(encoding="utf-8")
