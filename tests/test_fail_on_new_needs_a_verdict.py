"""--sprout-fail-on=new excuses only a failure the baseline judged: an ``error`` row (an item a
``-x`` run never ran, an outage's row) is no verdict, so it is never a known failure and never
"fixed", and the comparison says when the baseline is incomplete (regression: repro 32). Real runs
of a stand-in system through pytester."""

from __future__ import annotations

import json

import pytest

from pytest_sprout.core.fail_on import FailOn

QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")
# A stand-in RAG system: case N answers from a passage that says it; the cases in SPROUT_TEST_BROKEN
# contradict it (the lexical judge rejects them); with SPROUT_TEST_DOWN set every call raises (an outage).
CONFTEST = '''
import os

def pytest_sprout_make_system(config):
    broken = {int(x) for x in os.environ.get("SPROUT_TEST_BROKEN", "").split(",") if x}
    def system(question):
        if os.environ.get("SPROUT_TEST_DOWN"):
            raise ConnectionError("the RAG service is down (503)")
        n = int(question.split()[-1].rstrip("?"))
        claim = f"Fact {n} is not green [1]." if n in broken else f"Fact {n} is green [1]."
        return claim, [f"Fact {n} is green and small."]
    system.name, system.version = "facts", "1"
    return system
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    cases = "\n".join(f"  - id: fact-{i}\n    question: What colour is fact {i}?" for i in range(8))
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "facts.yaml").write_text(f"defaults: {{tiers: [groundedness]}}\ncases:\n{cases}\n")
    return pytester


def test_a_stopped_runs_never_run_items_excuse_no_new_failure(project: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 32 (32-fail-on-new-unrun-baseline-rows-are-known)."""
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "0")
    project.runpytest(*QUIET, "-x", "--sprout-report=base.json")  # fact-0 fails first, -x stops the run
    base = json.loads((project.path / "base.json").read_text())
    assert base["complete"] is False and sum(i["outcome"] == "error" for i in base["items"]) == 7
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "0,2,4")
    result = project.runpytest(*QUIET, "--sprout-fail-on=new", "--sprout-compare=base.json", "--sprout-report=now.json",
                               "--sprout-html=now.html", "--sprout-md=now.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=5, failed=2, xfailed=1)  # fact-0 known; fact-2 and fact-4 are new
    result.stdout.fnmatch_lines([
        "the baseline base.json is INCOMPLETE (\"complete\": false)*",
        "--sprout-fail-on=new: 1 known failure*",
        "new failures (2): *fact-2*fact-4*",
        "base.json is incomplete*its 7 errored or never-run items had no verdict: they excuse no failure now and none "
        "is \"fixed\"",
    ])
    assert "fixed (" not in result.stdout.str()
    fail_on = json.loads((project.path / "now.json").read_text())["gates"]["fail_on"]
    assert (len(fail_on["known"]), len(fail_on["new_failures"]), fail_on["fixed"]) == (1, 2, [])
    assert (fail_on["baseline_errors"], fail_on["baseline_complete"]) == (7, False)
    for view in ("now.md", "now.html"):
        assert "the baseline base.json is INCOMPLETE" in (project.path / view).read_text(encoding="utf-8")


def test_an_outages_baseline_excuses_nothing(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 32 (32-fail-on-new-unrun-baseline-rows-are-known)."""
    monkeypatch.setenv("SPROUT_TEST_DOWN", "1")
    project.runpytest(*QUIET, "--sprout-report=down.json")
    assert {i["outcome"] for i in json.loads((project.path / "down.json").read_text())["items"]} == {"error"}
    monkeypatch.delenv("SPROUT_TEST_DOWN")
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "1,3")
    result = project.runpytest(*QUIET, "--sprout-fail-on=new", "--sprout-compare=down.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=6, failed=2)
    result.stdout.fnmatch_lines(["--sprout-fail-on=new: 0 known failures*", "new failures (2): *"])


def test_only_a_failed_verdict_is_known() -> None:
    """Regression: repro 32 (32-fail-on-new-unrun-baseline-rows-are-known)."""
    rows = [{"nodeid": "a", "outcome": "failed", "case_hash": "h"}, {"nodeid": "b", "outcome": "error", "case_hash": "h"},
            {"nodeid": "c", "outcome": "error"}]
    policy = FailOn.from_baseline("new", "base.json", rows, same_dataset=True)
    assert dict(policy.failing) == {"a": "h"}
    assert policy.mark("a", "h") is not None and policy.mark("b", "h") is None and policy.mark("c", None) is None
