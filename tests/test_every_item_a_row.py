"""Issue 11, point 3: every selected item ends as a row in the report, whatever happened to it,
and an errored item is never counted in a metric."""

from __future__ import annotations

import json
import textwrap

import pytest

from helpers import SUITE, SYSTEM_CONFTEST, make_project

FACTORY_RAISES = '''
import json, os

def pytest_sprout_make_system(config):
    with open("factory-calls.txt", "a") as f:
        f.write(f"{os.getpid()}\\n")
    raise RuntimeError("model weights missing")
'''


def report(pytester: pytest.Pytester, name: str = "out.json") -> dict:
    return json.loads((pytester.path / name).read_text())


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_factory_that_raises_is_called_once_per_process_and_errors_every_item(pytester: pytest.Pytester, workers: list[str]) -> None:
    make_project(pytester, conftest=FACTORY_RAISES, tiers="[groundedness, ragas]")
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=out.json", *workers)
    result.assert_outcomes(failed=4)
    calls = (pytester.path / "factory-calls.txt").read_text().split()
    assert len(calls) == len(set(calls))  # once per process, not once per item
    assert len(calls) <= (2 if workers else 1)
    data = report(pytester)
    assert len(data["items"]) == 4 and {row["outcome"] for row in data["items"]} == {"error"}
    assert all("RuntimeError: model weights missing" in row["error"] for row in data["items"])
    assert data["metrics"] == []  # nothing counted
    result.stdout.fnmatch_lines(["*= sprout =*", "no sprout metrics in this run", "4 items errored (not counted in any metric):"])


def test_judge_that_raises_errors_its_item_and_the_rest_run(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST + textwrap.dedent('''
        def pytest_configure(config):
            # Stands for a buggy judge: the groundedness tier raises on one case.
            from pytest_sprout.judges import groundedness
            real = groundedness.GroundednessTier.evaluate
            def evaluate(self, item):
                if item.case.id == "lily-cats":
                    raise ZeroDivisionError("judge bug")
                return real(self, item)
            groundedness.GroundednessTier.evaluate = evaluate
    ''')
    make_project(pytester, conftest=conftest)
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=out.json")
    result.assert_outcomes(passed=2, failed=2)
    rows = {row["case_id"]: row for row in report(pytester)["items"]}
    assert len(rows) == 4
    assert rows["lily-cats"]["outcome"] == "error" and "ZeroDivisionError: judge bug" in rows["lily-cats"]["error"]
    result.stdout.fnmatch_lines(["*the groundedness judge raised on 'lily-cats'*", "1 item errored (not counted in any metric):"])
    refusal = next(m for m in report(pytester)["metrics"] if m["metric"] == "refusal")
    assert refusal["n"] == 3


def test_system_exit_in_the_system_errors_only_that_item(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST.replace('raise RuntimeError("retriever index is missing")', 'import sys; sys.exit("bye")')
    make_project(pytester, suite=SUITE + "  - id: breaks\n    question: What breaks?\n", conftest=conftest)
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=out.json")
    result.assert_outcomes(passed=3, failed=2)
    rows = {row["case_id"]: row for row in report(pytester)["items"]}
    assert len(rows) == 5 and rows["breaks"]["outcome"] == "error" and "SystemExit: bye" in rows["breaks"]["error"]


def test_skipped_items_of_an_unavailable_tier_are_rows_too(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, llm]")  # no --llm-base-url: the llm items skip
    result = pytester.runpytest("-p", "no:deepeval", "--sprout-report=out.json")
    result.assert_outcomes(passed=3, failed=1, skipped=4)
    rows = report(pytester)["items"]
    assert len(rows) == 8
    llm = [row for row in rows if row["tier"] == "llm"]
    assert len(llm) == 4 and all(row["outcome"] == "skipped" and "--llm-base-url" in row["note"] for row in llm)


def test_invalid_answer_names_the_case(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM_CONFTEST.replace('raise RuntimeError("retriever index is missing")',
                                       'return ("It breaks [1].", "one passage as a string")')
    make_project(pytester, suite=SUITE + "  - id: breaks\n    question: What breaks?\n", conftest=conftest)
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=out.json")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(["*the system's answer to 'breaks' is invalid: 'passages' must be a list of passages, got a single string*"])


def test_a_collect_only_run_calls_no_item_errored(pytester: pytest.Pytester) -> None:
    """pytest --co lists the items and runs none: none of them is "errored" or lost (issue 23,
    defect 31), with or without xdist.
    Regression: repro 31 (31-collect-only-calls-items-errored)."""
    make_project(pytester)
    for extra in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--co", "-q", *extra)
        assert result.ret == 0
        result.stdout.fnmatch_lines(["suites/care.yaml::snake-light[[]groundedness[]]"])
        out = result.stdout.str()
        assert "errored" not in out and "no result came back" not in out
