"""--sprout-fail-on=new and edited cases: an edit of what is judged (the expected facts, the
question) makes a known failure new; an edit of the tags alone does not (tags choose and group
items, they change no verdict), as the guide says. Real runs through pytester."""

from __future__ import annotations

import pytest

from helpers import make_project

QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")

SUITE = """
cases:
  - id: snake-light
    question: How much light does a snake plant need?
    expected_facts: ["{fact}"]
    tags: [{tags}]
  - id: lily-cats
    question: Is a peace lily toxic to cats?
    expected_facts: ["toxic to cats"]
"""


def baseline(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE.format(fact="full sun", tags="light"))
    pytester.runpytest(*QUIET, "-m", "groundedness", "--sprout-report=base.json").assert_outcomes(passed=1, failed=1)


def rerun(pytester: pytest.Pytester, fact: str, tags: str) -> pytest.RunResult:
    make_project(pytester, suite=SUITE.format(fact=fact, tags=tags))
    return pytester.runpytest(*QUIET, "-m", "groundedness", "--sprout-fail-on=new", "--sprout-compare=base.json")


def test_a_tag_only_edit_keeps_a_known_failure_known(pytester: pytest.Pytester) -> None:
    baseline(pytester)
    result = rerun(pytester, "full sun", "light, sun, renamed")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["new failures: none"])


def test_an_edit_of_what_is_judged_makes_the_failure_new(pytester: pytest.Pytester) -> None:
    baseline(pytester)
    result = rerun(pytester, "bright sun", "light")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["new failures (1): suites/care.yaml::snake-light[[]groundedness]*"])
