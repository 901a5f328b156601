"""Issue 11, points 7, 8 and 11: bad input gets a clear error naming file, case and field, and only
that file (or case) fails: control characters, absurd nesting, keys written twice, passages with
one id twice or given as a string."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import PASSING_SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.suites.loader import load_suite
from pytest_sprout.core.model import Answer, Passage, Sentence

RUN = ("-p", "no:deepeval", "-m", "groundedness")
ESC_SUITE = 'cases:\n  - id: colour\n    question: "Is it \x1b[31mred\x1b[0m?"\n'
DEEP_SUITE = "cases:\n  - id: deep\n    question: " + "[" * 1000 + "]" * 1000 + "\n"


def suite(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return [str(e) for e in load_suite(path, "s.yaml").errors]


def test_control_character_is_an_error_naming_the_line(tmp_path: Path) -> None:
    assert suite(tmp_path, ESC_SUITE) == [
        "s.yaml: line 3: control character #x001b is not allowed in YAML; remove it (a pasted terminal colour code?)"
    ]


@pytest.mark.parametrize("text", [DEEP_SUITE, "cases:\n  - id: deep\n    question: " + "{a: " * 1000 + "1" + "}" * 1000 + "\n"])
def test_absurd_nesting_is_an_error_not_a_recursion_error(tmp_path: Path, text: str) -> None:
    assert suite(tmp_path, text) == ["s.yaml: the YAML is nested too deeply to read; a suite needs a few levels at most"]


@pytest.mark.parametrize("bad", [ESC_SUITE, DEEP_SUITE])
def test_one_bad_file_fails_alone_and_the_snapshot_check_exits_1(pytester: pytest.Pytester, bad: str) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    (pytester.path / "suites" / "broken.yaml").write_text(bad, encoding="utf-8")
    result = pytester.runpytest(*RUN, "--continue-on-collection-errors")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting suites/broken.yaml*", "*suites/broken.yaml: *"])
    text = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in text and "RecursionError" not in text
    (pytester.path / "suites" / "broken.yaml").unlink()
    assert pytester.runpytest(*RUN, "--sprout-update-snapshot").ret == 0
    (pytester.path / "suites" / "broken.yaml").write_text(bad, encoding="utf-8")
    check = pytester.runpytest("-p", "no:deepeval", "--sprout-check-snapshot")
    assert check.ret == pytest.ExitCode.TESTS_FAILED
    check.stdout.fnmatch_lines(["*the suites have errors; their cases are not part of the dataset (1):", "  suites/broken.yaml: *"])
    assert "INTERNALERROR" not in check.stdout.str() + check.stderr.str()
    plain = pytester.runpytest(*RUN)  # with the snapshot: pytest's usual collection error (exit 2), never 3
    assert plain.ret == pytest.ExitCode.INTERRUPTED
    plain.stdout.fnmatch_lines(["*ERROR collecting suites/broken.yaml*", "*1 error during collection*"])
    assert "INTERNALERROR" not in plain.stdout.str() + plain.stderr.str()


def test_key_written_twice_in_a_case_names_the_key_and_both_lines(tmp_path: Path) -> None:
    errors = suite(tmp_path, "cases:\n  - id: a\n    question: first\n    tags: [x]\n    question: second\n"
                             "  - id: b\n    question: fine\n")
    assert errors == ["s.yaml:5: case 'a': field 'question': key 'question' is written twice (lines 3 and 5); "
                      "YAML would silently keep only the last"]
    path = tmp_path / "s.yaml"
    assert [c.id for c in load_suite(path, "s.yaml").cases] == ["b"]  # the other case still loads


def test_key_written_twice_at_the_top_level_or_deeper(tmp_path: Path) -> None:
    assert suite(tmp_path, "suite: a\ncases:\n  - id: x\n    question: q\nsuite: b\n") == [
        "s.yaml:5: field 'suite': key 'suite' is written twice (lines 1 and 5); YAML would silently keep only the last"]
    assert suite(tmp_path, "defaults: {tiers: [groundedness], tiers: [alce]}\ncases:\n  - id: x\n    question: q\n") == [
        "s.yaml:1: field 'tiers': key 'tiers' is written twice (lines 1 and 1); YAML would silently keep only the last"]


def test_passages_with_one_id_twice_are_an_error_naming_the_id() -> None:
    with pytest.raises(ValueError, match="two passages have the id 'p1'"):
        Answer.coerce({"text": "A [1]. B [2].", "passages": [{"id": "p1", "text": "a"}, {"id": "p1", "text": "b"}]})
    with pytest.raises(ValueError, match="two passages have the id 'p1'"):
        Answer((Sentence("x", ("p1",)),), (Passage("p1", "a"), Passage("p1", "b")))


@pytest.mark.parametrize("value", [("A [1].", "one passage"), {"text": "A [1].", "passages": "one passage"},
                                   {"sentences": [{"text": "A", "citations": ["1"]}], "passages": "one passage"}])
def test_passages_given_as_a_string_are_an_error(value: object) -> None:
    with pytest.raises(TypeError, match="'passages' must be a list of passages, got a single string"):
        Answer.coerce(value)


def test_bad_passages_error_the_case_in_a_run(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST.replace(
        'raise RuntimeError("retriever index is missing")',
        'return {"text": "It breaks [2].", "passages": [{"id": "p", "text": "x"}, {"id": "p", "text": "y"}]}')
    make_project(pytester, suite=PASSING_SUITE + "  - id: breaks\n    question: What breaks?\n", conftest=conftest)
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*the system's answer to 'breaks' is invalid: two passages have the id 'p'*"])


def test_key_written_twice_as_a_number_and_as_a_string(tmp_path: Path) -> None:
    """1 and "1" are two keys to Python's dict but one written twice to a reader of the file."""
    errors = suite(tmp_path, "cases:\n  - id: a\n    question: q\n    thresholds:\n      1: 0.5\n      '1': 0.6\n")
    assert errors == ["s.yaml:6: case 'a': field '1': key '1' is written twice (lines 5 and 6); "
                      "YAML would silently keep only the last"]


def test_reading_a_suite_leaves_the_garbage_collector_as_it_was(tmp_path: Path) -> None:
    import gc

    path = tmp_path / "s.yaml"
    path.write_text("cases:\n  - id: a\n    question: q\n")
    enabled = gc.isenabled()
    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            assert [c.id for c in load_suite(path, "s.yaml").cases] == ["a"]
            assert gc.isenabled() is state
    finally:
        (gc.enable if enabled else gc.disable)()
