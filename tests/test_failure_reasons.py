"""Every item row says what was asked, what the system answered and why each failed metric failed,
in the JSON report, the Markdown summary and the terminal."""

from __future__ import annotations

import json

import pytest

from helpers import make_project

SUITE = """
suite: care
cases:
  - id: pothos-water
    question: How often should I water a pothos?
    expected_facts: ["every"]
  - id: snake-sun
    question: How much light does a snake plant need?
    expected_facts: ["full sun", "low light"]
  - id: taxes-answer
    question: How do I file my taxes?
    expected_facts: ["tax office"]
  - id: lily-cats
    question: Is a peace lily toxic to cats?
    expected_facts: ["toxic to cats"]
"""


@pytest.fixture
def reasons_run(pytester: pytest.Pytester) -> tuple[pytest.RunResult, dict[str, dict]]:
    make_project(pytester, suite=SUITE)
    result = pytester.runpytest("-p", "no:deepeval", "-p", "no:langsmith_plugin", "-m", "groundedness",
                                "--sprout-report=out/r.json", "--sprout-md=out/r.md", "--sprout-md-failures=2")
    rows = {r["case_id"]: r for r in json.loads((pytester.path / "out" / "r.json").read_text())["items"]}
    return result, rows


def test_json_rows_carry_question_answer_and_reasons(reasons_run: tuple[pytest.RunResult, dict[str, dict]]) -> None:
    result, rows = reasons_run
    result.assert_outcomes(passed=1, failed=3)
    pothos = rows["pothos-water"]
    assert pothos["question"] == "How often should I water a pothos?"
    assert pothos["answer"]["text"] == "Water a pothos every 3 weeks [1]."
    assert pothos["answer"]["passages"][0]["text"].startswith("Water a pothos when the top 5 cm")
    (unsupported,) = pothos["reasons"]
    assert unsupported["metric"] == "grounded" and unsupported["sentence"] == 1 and unsupported["rule"]
    assert unsupported["evidence"] and unsupported["why"].startswith("sentence 1 unsupported")

    (fact,) = rows["snake-sun"]["reasons"]  # "low light" is found; "full sun" is not
    assert fact["fact"] == "full sun" and fact["near_miss"] and 0 < fact["fuzzy_score"] < 85
    assert "best near miss" in fact["why"] and "(needs 85)" in fact["why"]

    taxes = {r["metric"]: r for r in rows["taxes-answer"]["reasons"]}
    assert taxes["refusal"]["why"] == "the system refused, but the case expects an answer"
    assert taxes["refusal"]["expected"] == "answer" and taxes["refusal"]["refused"] is True
    assert taxes["facts"]["fact"] == "tax office"
    assert rows["taxes-answer"]["answer"]["refused"] is True

    assert "reasons" not in rows["lily-cats"] and rows["lily-cats"]["answer"]["text"]


def test_markdown_lists_the_first_failures_with_reasons(pytester: pytest.Pytester,
                                                       reasons_run: tuple[pytest.RunResult, dict[str, dict]]) -> None:
    md = (pytester.path / "out" / "r.md").read_text()
    assert "**3 failed, 1 passed** · system lookup 1 · dataset `" in md
    assert "| groundedness | facts |" in md
    assert "### Failing cases (first 2 of 3)" in md
    assert "- **pothos-water** [groundedness] How often should I water a pothos?" in md
    assert "  - sentence 1 unsupported" in md
    assert "- ... and 1 more (see the JSON or HTML report)" in md
    assert "taxes-answer" not in md.split("### Failing cases")[1].split("- ...")[0]  # sorted by node id, N = 2


def test_terminal_shows_reasons_and_names_the_files(reasons_run: tuple[pytest.RunResult, dict[str, dict]]) -> None:
    result, _ = reasons_run
    result.stdout.fnmatch_lines([
        "*snake-sun*missing expected facts: 'full sun'*",
        "*question: How much light does a snake plant need?",
        "*- missing expected fact 'full sun': best near miss * scores */100 (needs 85)",
    ])
    result.stdout.fnmatch_lines(["wrote JSON report: out/r.json", "wrote Markdown summary: out/r.md"])
