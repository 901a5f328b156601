"""Under --sprout-fail-on=new the Markdown job summary lists the new failures first, with their
reasons, then the known ones: the failure that turned CI red is never cut off behind ten known
failures that sort before it. Real runs of the stand-in system of helpers.FACTS_CONFTEST."""

from __future__ import annotations

import pytest

from helpers import facts_project

QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")


def test_the_markdown_lists_new_failures_first_with_their_reasons(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    facts_project(pytester, 14)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    known = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12]  # fact-9 sorts after all of them ("fact-10" < "fact-9")
    monkeypatch.setenv("SPROUT_TEST_BROKEN", ",".join(map(str, known)))
    pytester.runpytest(*QUIET, "--sprout-report=base.json").assert_outcomes(passed=2, failed=12)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", ",".join(map(str, known + [9])))
    result = pytester.runpytest(*QUIET, "--sprout-fail-on=new", "--sprout-compare=base.json", "--sprout-md=s.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    md = (pytester.path / "s.md").read_text(encoding="utf-8")
    failing = md.split("### Failing cases", 1)[1]
    assert failing.startswith(" (first 10 of 13; 1 new, listed first)")
    entries = [line for line in failing.splitlines() if line.startswith("- **")]
    assert entries[0].startswith("- **fact-9** [groundedness] (**new failure**) What colour is fact 9?")
    assert all("(known failure: failed in base.json)" in line for line in entries[1:10])
    # its reason is right under it
    first = failing.split("- **fact-9**", 1)[1].split("\n- **", 1)[0]
    assert "  - sentence 1 unsupported" in first


def test_without_fail_on_new_the_order_and_marks_are_unchanged(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    facts_project(pytester, 3)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "2,0")
    pytester.runpytest(*QUIET, "--sprout-md=s.md").assert_outcomes(passed=1, failed=2)
    md = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert "### Failing cases (2)" in md and "new failure" not in md
    entries = [line for line in md.splitlines() if line.startswith("- **")]
    assert [e.split("**")[1] for e in entries] == ["fact-0", "fact-2"]
