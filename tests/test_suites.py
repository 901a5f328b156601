"""Bad suite files: a clear collection error naming file, case and field; other files still
collect; never an INTERNALERROR or a traceback from the plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SYSTEM_CONFTEST
from pytest_sprout.suites.loader import load_suite, load_suites

GOOD = "cases:\n  - id: snake-light\n    question: How much light does a snake plant need?\n    tiers: [groundedness]\n"


def project(pytester: pytest.Pytester, bad: bytes | str, name: str = "bad.yaml") -> pytest.RunResult:
    pytester.makeconftest(SYSTEM_CONFTEST)
    suites = pytester.path / "suites"
    suites.mkdir()
    (suites / "good.yaml").write_text(GOOD)
    data = bad.encode() if isinstance(bad, str) else bad
    (suites / name).write_bytes(data)
    return pytester.runpytest("--co", "-q")


BAD_FILES = [
    # (content, expected error line pattern)
    ("cases:\n  - id: a\n    question: [unclosed\n", "*suites/bad.yaml: malformed YAML: line 4*"),
    ("cases:\n  - question: What?\n", "*suites/bad.yaml:2: case #1: field 'id': missing*"),
    ("cases:\n  - id: a\n", "*suites/bad.yaml:2: case 'a': field 'question': missing*"),
    ("cases:\n  - id: has space\n    question: Q?\n", "*case 'has space': field 'id': *may only use letters*"),
    ("cases:\n  - id: a\n    question: Q?\n    colour: red\n", "*case 'a': field 'colour': unknown key in a case*"),
    ("cases:\n  - id: a\n    question: Q?\n    tiers: [vibes]\n", "*case 'a': field 'tiers': unknown tier 'vibes'*"),
    ("cases:\n  - id: a\n    question: Q?\n    expected_facts: low light\n", "*field 'expected_facts': must be a list of strings*"),
    ("cases:\n  - id: a\n    question: 42\n", "*case 'a': field 'question': must be a non-empty string, got a number*"),
    ("cases:\n  - id: 17\n    question: Q?\n", "*case #1: field 'id': must be a string, got a number*"),
    ("cases:\n  - id: a\n    question: Q?\n    expect: maybe\n", "*field 'expect': must be one of answer, refuse*"),
    ("", "*suites/bad.yaml: the file is empty*"),
    ("# only a comment\n", "*suites/bad.yaml: the file is empty*"),
    ("- just\n- a list\n", "*the top level must be a mapping*"),
    ("cases: []\n", "*field 'cases': must be a non-empty list*"),
    ("suite: s\ncase:\n  - id: a\n", "*field 'case': unknown key in the suite*"),
    ("defaults: {tiers: [nope]}\ncases:\n  - id: a\n    question: Q?\n", "*field 'defaults.tiers': unknown tier 'nope'*"),
    (b"cases:\n  - id: a\n    question: caf\xe9?\n", "*suites/bad.yaml: line 3: not UTF-8 (byte 0xe9*"),
]


@pytest.mark.parametrize("content,pattern", BAD_FILES, ids=[p.strip("*")[:40] for _, p in BAD_FILES])
def test_bad_suite_is_a_clear_collection_error(pytester: pytest.Pytester, content: str | bytes, pattern: str) -> None:
    result = project(pytester, content)
    result.stdout.fnmatch_lines([pattern])
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    result.stdout.fnmatch_lines(["suites/good.yaml::snake-light[[]groundedness[]]"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_duplicate_id_names_both_places(pytester: pytest.Pytester) -> None:
    result = project(pytester, GOOD.replace("snake-light", "snake-light"), name="other.yaml")
    result.stdout.fnmatch_lines([
        "*suites/other.yaml:2: case 'snake-light': field 'id': duplicate id 'snake-light': already defined at suites/good.yaml:2*"
    ])


def test_one_bad_case_does_not_lose_the_file(pytester: pytest.Pytester) -> None:
    content = GOOD + "  - id: broken\n    question: Q?\n    expect: sometimes\n  - id: pothos-water\n    question: How often should I water a pothos?\n    tiers: [groundedness]\n"
    pytester.makeconftest(SYSTEM_CONFTEST)
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "care.yaml").write_text(content)
    result = pytester.runpytest("--continue-on-collection-errors", "-m", "groundedness")
    result.stdout.fnmatch_lines(["*ERROR collecting suites/care.yaml*", "*case 'broken': field 'expect'*", "ERROR suites/care.yaml::broken*"])
    result.assert_outcomes(passed=1, failed=1, errors=1)


def test_several_errors_in_one_file_are_all_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("cases:\n  - id: a\n  - question: b\n  - id: c\n    question: c?\n")
    suite = load_suite(path, "s.yaml")
    assert [c.id for c in suite.cases] == ["c"]
    assert [(e.case, e.field, e.line) for e in suite.errors] == [("'a'", "question", 2), ("#2", "id", 3)]


def test_defaults_apply_and_case_values_win(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "suite: care\ndefaults: {tiers: [groundedness, alce], tags: [demo]}\ncases:\n"
        "  - id: a\n    question: A?\n    tags: [x]\n"
        "  - id: b\n    question: B?\n    tiers: [ragas]\n    expect: refuse\n"
    )
    a, b = load_suite(path).cases
    assert (a.suite, a.tiers, a.tags, a.expect) == ("care", ("groundedness", "alce"), ("demo", "x"), "answer")
    assert (b.tiers, b.expect) == (("ragas",), "refuse")


def test_other_files_and_suffixes(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text(GOOD)
    (tmp_path / "notes.txt").write_text("not a suite")
    suites = load_suites(tmp_path)
    assert [c.id for c in suites.cases] == ["snake-light"] and not suites.errors


KEY_LINES = [  # issue 24: an error about a key is located at that key's line, not at its case's first line
    ("cases:\n  - id: a\n    question: Q?\n    tags: [x]\n    tiers: [vibes]\n", "s.yaml:5: case 'a': field 'tiers': unknown tier 'vibes'"),
    ("cases:\n  - id: a\n    question: Q?\n\n    colour: red\n", "s.yaml:5: case 'a': field 'colour': unknown key in a case"),
    ("cases:\n  - id: a\n    question: Q?\n    expected_facts:\n      - low light\n      - 3\n",
     "s.yaml:4: case 'a': field 'expected_facts': item 2 must be a non-empty string"),
    ("cases:\n  - id: a\n    question: Q?\n    thresholds:\n      groundedness.coverage: 0.5\n      groundedness.cover: 0.5\n",
     "s.yaml:6: case 'a': field 'thresholds.groundedness.cover': unknown setting groundedness.cover"),
    ("cases:\n  - id: a\n    tags: [x]\n", "s.yaml:2: case 'a': field 'question': missing"),  # no key: the case's line
    ("suite: s\ndefaults:\n  expect: answer\n  tiers: [nope]\ncases:\n  - id: a\n    question: Q?\n",
     "s.yaml:4: field 'defaults.tiers': unknown tier 'nope'"),
    ("suite: s\n\ncase:\n  - id: a\n", "s.yaml:3: field 'case': unknown key in the suite"),
    ("cases:\n  - {id: a, question: Q, tiers: [vibes]}\n", "s.yaml:2: case 'a': field 'tiers': unknown tier 'vibes'"),
]


@pytest.mark.parametrize("text, message", KEY_LINES, ids=[m.split(": ", 1)[1][:40] for _, m in KEY_LINES])
def test_a_key_error_names_the_keys_own_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    errors = [str(e) for e in load_suite(path, "s.yaml").errors]
    assert len(errors) == 1 and errors[0].startswith(message), errors


@pytest.mark.parametrize("tiers, hint", [
    ("[nli]", "unknown tier 'nli' (the NLI tier is called 'alce': the [nli] extra and the --nli-* options are its); "
              "known tiers: groundedness, alce, ragas, llm"),
    ("[groundedness, Ragas]", "unknown tier 'Ragas' (did you mean 'ragas'?); known tiers: groundedness, alce, ragas, llm"),
])
def test_an_unknown_tier_names_the_tier_meant(tmp_path: Path, tiers: str, hint: str) -> None:
    """Issue 24: `tiers: [nli]` said only "unknown tier 'nli'": the extra is [nli], the option
    --nli-model, the tier alce."""
    path = tmp_path / "s.yaml"
    path.write_text(f"cases:\n  - id: a\n    question: Q?\n    tiers: {tiers}\n", encoding="utf-8")
    assert [str(e) for e in load_suite(path, "s.yaml").errors] == [f"s.yaml:4: case 'a': field 'tiers': {hint}"]


def test_the_suites_option_help_names_every_format(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    text = " ".join(result.stdout.str().split())
    assert "--sprout-suites=PATH folder (or one file) of suites: .yaml/.yml, .jsonl or .csv" in text
