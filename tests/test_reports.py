"""Reports people read: --sprout-md (Markdown for a CI step summary) and --junitxml properties."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import make_project
from pytest_sprout.reports.markdown import format_markdown
from pytest_sprout.core.row import junit_properties
from pytest_sprout.core.stats import Tally


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # pytester restores sys.modules after each in-process run, so these unrelated plugins would be
    # imported afresh every run (seconds each); tests/test_plugin.py runs with them present.
    return pytester.runpytest("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", *args)


def test_format_markdown_table_flags_and_escaping() -> None:
    tally = Tally()
    tally.extend("groundedness", "grounded", [True] * 28 + [False] * 12)
    tally.extend("groundedness", "refusal", [True] * 5)
    tally.extend("ragas", "a|b", [0.5, 0.7, None])
    text = format_markdown(tally.rows(), ["### Gates", "", "- PASS: x"])
    lines = text.splitlines()
    assert lines[:4] == [
        "## pytest-sprout", "",
        "| tier | metric | k/n | rate | 95% CI | flags |",
        "|---|---|---:|---:|---|---|",
    ]
    assert "| groundedness | grounded | 28/40 | 0.700 | [0.546, 0.819] |  |" in lines
    assert "| groundedness | refusal | 5/5 | 1.000 | [0.566, 1.000] | underpowered, saturated (all passed) |" in lines
    assert "| ragas | a\\|b | n=2 | 0.600 mean | [0.132, 0.937] | underpowered, 1 unscored |" in lines
    assert any(line.startswith("> saturated (all passed):") for line in lines)
    assert any(line.startswith("> underpowered:") for line in lines)
    assert lines[-1] == "- PASS: x" and text.endswith("\n")
    assert "No sprout items ran." in format_markdown([])


def test_junit_properties_are_plain_readable_strings() -> None:
    row = {
        "tier": "groundedness", "case_id": "c1", "suite": "s",
        "metrics": {"grounded": [False], "grounded_sentence": [True, False], "sim": [0.25, 0.75, None], "x": [None]},
        "sentences": [
            {"text": "A.", "citations": ["p1"], "supported": True, "score": 0.912345, "evidence": "A.", "reason": "ok", "rule": None},
            {"text": "B.", "citations": ["[4]"], "supported": False, "score": 0.1, "evidence": None, "reason": "no", "rule": "bad-citation"},
        ],
        "note": "a note",
    }
    props = dict(junit_properties(row))
    assert props["sprout.tier"] == "groundedness"
    assert props["sprout.grounded"] == "0/1"
    assert props["sprout.grounded_sentence"] == "1/2"
    assert props["sprout.sim"] == "0.5 (1 unscored)"
    assert props["sprout.x"] == "unscored"
    assert props["sprout.note"] == "a note"
    assert json.loads(props["sprout.verdicts"]) == [
        {"supported": True, "score": 0.9123, "citations": ["p1"], "rule": None},
        {"supported": False, "score": 0.1, "citations": ["[4]"], "rule": "bad-citation"},
    ]
    assert all(isinstance(v, str) for v in props.values())


def test_markdown_file_carries_the_table_and_the_gates(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "-m", "groundedness", "--sprout-md=out/summary.md", "--sprout-min=groundedness.refusal=0.5")
    result.assert_outcomes(passed=3, failed=1)
    text = (pytester.path / "out" / "summary.md").read_text(encoding="utf-8")
    # grounded_sentence is nested (sentences in answers): the table gains a clusters column
    assert "| groundedness | grounded | 2/3 |  | 0.667 | [0.208, 0.939] | underpowered |" in text
    assert "| groundedness | grounded_sentence | 3/4 | 3 | 0.750 |" in text
    assert "| groundedness | refusal | 4/4 |  | 1.000 | [0.510, 1.000] | underpowered, saturated (all passed) |" in text
    assert "### Gates" in text
    assert "- PASS: gate groundedness.refusal >= 0.5: passed \\(Wilson 95% lower bound 0.510; 4/4 = 1.000\\)" in text
    assert not list((pytester.path / "out").glob(".*tmp"))  # written atomically, nothing left behind


def test_junitxml_carries_scores_and_verdicts_as_properties(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = run(pytester, "-m", "groundedness", "--junitxml=junit.xml", "--sprout-report=report.json")
    result.assert_outcomes(passed=3, failed=1)
    tree = ET.parse(pytester.path / "junit.xml")
    cases = {tc.get("name"): tc for tc in tree.iter("testcase")}
    props = {name: {p.get("name"): p.get("value") for p in tc.iter("property")} for name, tc in cases.items()}
    pothos = props["pothos-water[groundedness]"]
    assert pothos["sprout.tier"] == "groundedness"
    assert pothos["sprout.grounded"] == "0/1"
    assert pothos["sprout.facts"] == "1/1"
    # The score is the judge's calibrated probability for a claim its one sentence covers but whose
    # number rule fails.
    import math

    from pytest_sprout.judges.lexical import LexicalJudge, calibration

    features = {"coverage": 1.0, "weighted_coverage": 1.0, "rule_failed": 1.0, "passage_weighted": 1.0,
                "log_sentences": math.log1p(1), "single_sentence": 1.0,
                "linked_pairs": 1.0}  # the passage is one sentence
    failed_number = round(LexicalJudge().probability([features.get(n, 0.0) for n in calibration.FEATURES]), 4)
    assert json.loads(pothos["sprout.verdicts"]) == [
        {"supported": False, "score": failed_number, "citations": ["1"], "rule": "number"}]
    assert props["taxes[groundedness]"]["sprout.refusal"] == "1/1"
    assert "sprout.verdicts" not in props["taxes[groundedness]"]  # a refusal has no sentences
    # The "sprout" property is the item's row as compact JSON: the report's item, less nodeid/outcome.
    report = {item["nodeid"]: item for item in json.loads((pytester.path / "report.json").read_text())["items"]}
    row = json.loads(pothos["sprout"])
    expected = dict(report["suites/care.yaml::pothos-water[groundedness]"])
    del expected["nodeid"], expected["outcome"]
    assert row == expected
