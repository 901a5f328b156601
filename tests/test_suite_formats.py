"""Suites in JSON Lines and CSV: the YAML schema, per-line errors, the same case hash whatever the
format; and a case's own thresholds, validated as --sprout-threshold is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import make_project
from pytest_sprout.suites.loader import load_suite, load_suites
from pytest_sprout.core.identity import dataset_hash

YAML = """\
suite: care
defaults: {tiers: [groundedness]}
cases:
  - id: snake-light
    question: How much light does a snake plant need?
    expected_facts: ["low light", "indirect"]
    tags: [light]
  - id: taxes
    question: How do I file my taxes?
    expect: refuse
  - id: lily-cats
    question: Is a peace lily toxic to cats?
    expected_facts: ["toxic to cats"]
    thresholds: {groundedness.coverage: 0.5}
"""

JSONL = """\
{"suite": "care", "defaults": {"tiers": ["groundedness"]}}
{"id": "snake-light", "question": "How much light does a snake plant need?", "expected_facts": ["low light", "indirect"], "tags": ["light"]}

{"id": "taxes", "question": "How do I file my taxes?", "expect": "refuse"}
{"id": "lily-cats", "question": "Is a peace lily toxic to cats?", "expected_facts": ["toxic to cats"], "thresholds": {"groundedness.coverage": 0.5}}
"""

CSV = """\
id,question,expect,expected_facts,tiers,tags,thresholds
snake-light,How much light does a snake plant need?,,low light | indirect,groundedness,light,
taxes,How do I file my taxes?,refuse,,["groundedness"],,
lily-cats,"Is a peace lily toxic to cats?",,"[""toxic to cats""]",groundedness,,"{""groundedness.coverage"": 0.5}"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_one_suite_in_three_formats_has_one_hash(tmp_path: Path) -> None:
    loaded = [load_suite(write(tmp_path / fmt, f"care.{fmt}", text)) for fmt, text in
              (("yaml", YAML), ("jsonl", JSONL), ("csv", CSV))]
    for suite in loaded:
        assert suite.errors == [], suite.errors
        assert [c.id for c in suite.cases] == ["snake-light", "taxes", "lily-cats"]
    hashes = {dataset_hash(s.cases) for s in loaded}
    assert len(hashes) == 1
    assert loaded[2].cases[2].threshold("groundedness", "coverage", 0.6) == 0.5
    assert [c.source for c in loaded[1].cases] == [f"{tmp_path / 'jsonl' / 'care.jsonl'}:{n}" for n in (2, 4, 5)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text("abc -,\"|;é", min_size=1, max_size=12).filter(lambda s: s.strip()),
                          st.lists(st.text("xyz ,\"é", min_size=1, max_size=8).filter(lambda s: s.strip() and "|" not in s),
                                   max_size=3)),
                min_size=1, max_size=5))
def test_any_question_and_facts_hash_alike_in_jsonl_and_csv(tmp_path_factory: pytest.TempPathFactory,
                                                            rows: list[tuple[str, list[str]]]) -> None:
    import csv
    import io

    folder = tmp_path_factory.mktemp("fmt")
    jsonl = "\n".join(json.dumps({"id": f"c{i}", "question": q, "expected_facts": f}) for i, (q, f) in enumerate(rows))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "question", "expected_facts"])
    for i, (q, f) in enumerate(rows):
        writer.writerow([f"c{i}", q, json.dumps(f) if f else ""])
    a = load_suite(write(folder / "a", "s.jsonl", jsonl))
    b = load_suite(write(folder / "b", "s.csv", out.getvalue()))
    assert a.errors == b.errors == []
    assert dataset_hash(a.cases) == dataset_hash(b.cases)


def test_a_bad_line_is_reported_with_its_number_and_the_rest_load(tmp_path: Path) -> None:
    jsonl = write(tmp_path, "s.jsonl", '{"id": "ok", "question": "Q?"}\n{"id": "broken", "question": \n'
                                       '{"id": "typo", "question": "Q?", "expected_fact": ["x"]}\n{"id": "ok2", "question": "Q2?"}\n')
    suite = load_suite(jsonl, "suites/s.jsonl")
    assert [c.id for c in suite.cases] == ["ok", "ok2"]
    messages = [str(e) for e in suite.errors]
    assert messages[0].startswith("suites/s.jsonl:2: case #2: malformed JSON")
    assert messages[1] == "suites/s.jsonl:3: case 'typo': field 'expected_fact': unknown key in a case; allowed: " \
                          "id, question, expect, expected_facts, tiers, tags, thresholds, citations"

    table = write(tmp_path, "t.csv", 'id,question,tiers\nok,Q?,groundedness\nshort,Q?\n"multi",'
                                     '"two\nlines",nope\nlast,Q?,"[bad"\n')
    suite = load_suite(table, "suites/t.csv")
    assert [c.id for c in suite.cases] == ["ok"]
    messages = [str(e) for e in suite.errors]
    assert messages[0] == "suites/t.csv:3: case #2: 2 cells, but the header has 3 columns"
    assert messages[1].startswith("suites/t.csv:4: case 'multi': field 'tiers': unknown tier 'nope'")
    assert messages[2].startswith("suites/t.csv:6: case 'last': field 'tiers': not a JSON array")


@pytest.mark.parametrize("bad, message", [
    ('c2,"q2 has a stray quote,groundedness', "case 'c2': malformed CSV: a quote opened on this line is never closed"),
    ('c2,"' + "x" * 200_000 + '",groundedness', "case 'c2': malformed CSV: column 2 ('question') holds a cell of 200,000 characters"),
])
def test_a_bad_csv_row_never_drops_the_rows_after_it(tmp_path: Path, bad: str, message: str) -> None:
    """A stray quote (the csv module reads every later line into that cell) or a cell over the csv
    field limit fails that row only: the rows after it load, and the error names file and line.
    Regression: repro 06 (06-csv-bad-row-drops-rest-of-file)."""
    text = "id,question,tiers\nc1,q1,groundedness\n" + bad + "\nc3,q3,groundedness\nc4,\"two\nlines\",groundedness\n" \
           "c5,q5,groundedness\n"
    suite = load_suite(write(tmp_path, "t.csv", text), "suites/t.csv")
    assert [c.id for c in suite.cases] == ["c1", "c3", "c4", "c5"]
    assert [c.question for c in suite.cases][2] == "two\nlines"  # a quoted newline is still one cell
    (error,) = suite.errors
    assert str(error).startswith(f"suites/t.csv:3: {message}")


def test_a_bad_csv_header_is_one_error_for_the_file(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, "t.csv", "id,question,answer\nx,Q?,A\n"), "t.csv")
    assert [str(e) for e in suite.errors] == [
        "t.csv: line 1: unknown column 'answer'; allowed: id, question, expect, expected_facts, tiers, tags, thresholds, citations"]
    empty = load_suite(write(tmp_path, "e.jsonl", "\n\n"), "e.jsonl")
    assert "the file is empty" in str(empty.errors[0])


def test_ids_are_unique_across_formats(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "cases:\n  - id: same\n    question: Q?\n")
    write(tmp_path, "b.jsonl", '{"id": "same", "question": "Q?"}\n')
    errors = [str(e) for e in load_suites(tmp_path, tmp_path).errors]
    assert errors == ["b.jsonl:1: case 'same': field 'id': duplicate id 'same': already defined at a.yaml:2"]


@pytest.mark.parametrize("value, message", [
    ({"groundedness.coverage": 1.5}, "groundedness.coverage=1.5 is out of range; it must be from 0 to 1"),
    ({"groundedness.coverag": 0.5}, "unknown setting groundedness.coverag; valid names: groundedness.coverage, groundedness.facts"),
    ({"coverage": 0.5}, "expected TIER.NAME, e.g. groundedness.coverage"),
    ({"alce.entailment": 0.5}, "alce.entailment changes the judge itself and can only be set for the whole run"),
    ({"ragas.context_recall": "high"}, "ragas.context_recall must be a number, got 'high'"),
    ("0.5", "must be a mapping of TIER.NAME: value, got a string"),
])
def test_case_thresholds_are_validated(tmp_path: Path, value: object, message: str) -> None:
    path = write(tmp_path, "s.jsonl", json.dumps({"id": "c", "question": "Q?", "thresholds": value}) + "\n")
    (error,) = load_suite(path, "s.jsonl").errors
    assert message in str(error) and "case 'c'" in str(error) and "field 'thresholds" in str(error)


def test_the_option_is_validated_by_the_same_rule(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    bad = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-threshold=groundedness.coverage=1.5")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--sprout-threshold: groundedness.coverage=1.5 is out of range; it must be from 0 to 1*"])


def test_a_case_threshold_decides_that_case_only(pytester: pytest.Pytester) -> None:
    """snake-light's fact 'low-light' scores 88.9 against the answer's 'low light' (its lemmas too):
    found at the run's fuzzy threshold (85), missing at the case's own threshold of 1.0. lily-cats
    keeps the run's. ('low lights' would be found at 1.0: its lemmas are the answer's.)"""
    suite = """
    suite: care
    cases:
      - id: snake-light
        question: How much light does a snake plant need?
        expected_facts: ["low-light"]
        thresholds: {groundedness.facts: 1.0}
      - id: lily-cats
        question: Is a peace lily toxic to cats?
        expected_facts: ["toxic to cat"]
    """
    make_project(pytester, suite=suite)
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*snake-light*missing expected facts: 'low-light'*",
                                 "*best near miss 'low light' scores*/100 (needs 100)*"])
    rows = {r["case_id"]: r for r in json.loads((pytester.path / "r.json").read_text())["items"]}
    (reason,) = rows["snake-light"]["reasons"]
    assert reason["metric"] == "facts" and reason["fact"] == "low-light" and reason["threshold"] == 100.0
    assert rows["lily-cats"]["outcome"] == "passed"


def test_jsonl_and_csv_suites_are_collected(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    (pytester.path / "suites" / "care.yaml").unlink()
    (pytester.path / "suites" / "a.jsonl").write_text(
        '{"defaults": {"tiers": ["groundedness"]}}\n'
        '{"id": "snake-light", "question": "How much light does a snake plant need?", "expected_facts": ["low light"]}\n'
        '{"id": "broken"\n', encoding="utf-8")
    (pytester.path / "suites" / "b.csv").write_text(
        "id,question,expect,tiers\ntaxes,How do I file my taxes?,refuse,groundedness\n", encoding="utf-8")
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--continue-on-collection-errors")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*suites/a.jsonl:3: case #2: malformed JSON*"])


@pytest.mark.parametrize("bad", ['c2,"q2 has a stray quote,groundedness', 'c2,"' + "x" * 200_000 + '",groundedness'],
                         ids=["stray-quote", "over-field-limit"])
def test_the_rows_after_a_bad_csv_row_are_collected_run_and_reported(pytester: pytest.Pytester, bad: str) -> None:
    """Through pytest: with --continue-on-collection-errors the rows after the bad one run and are
    report rows; only the bad row is a collection error (once c3..c5 were in no report at all).
    Regression: repro 06 (06-csv-bad-row-drops-rest-of-file)."""
    make_project(pytester)
    (pytester.path / "suites" / "care.yaml").unlink()
    (pytester.path / "suites" / "s.csv").write_text(
        "id,question,tiers\n" + "".join(f"c{i},Is a peace lily toxic to cats?,groundedness\n" if i != 2 else bad + "\n"
                                        for i in range(1, 6)), encoding="utf-8")
    result = pytester.runpytest("-p", "no:deepeval", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                                "--sprout-report=r.json")
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(["*suites/s.csv:3: case 'c2': malformed CSV*"])
    rows = json.loads((pytester.path / "r.json").read_text())["items"]
    assert sorted(row["case_id"] for row in rows) == ["c1", "c3", "c4", "c5"]
