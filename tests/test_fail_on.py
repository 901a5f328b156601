"""--sprout-fail-on=any|new|gates: known failures from a baseline report are xfailed (and stay
failed rows marked known in every report), a new failure fails the run and is named, a fixed one
is reported; in gates mode only the gates fail the run. Real runs of a stand-in system through
pytester; nothing patched."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_sprout.core.fail_on import GATES_PROPERTY, KNOWN_PROPERTY, FailOn, FailOnSummary, parse_mode
from pytest_sprout.core.errors import SettingsError

from helpers import facts_project

# Unrelated plugins each run would import afresh (tests/test_plugin.py runs with them); no
# cacheprovider: the system changes its answers between runs without changing its version.
QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")
NODE = "suites/facts.yaml::fact-{}[groundedness]"


def glob(nodeid: str) -> str:
    """A node id inside an fnmatch pattern: its "[tier]" is not a character class."""
    return nodeid.replace("[", "[[]")


def make_project(pytester: pytest.Pytester, count: int = 12, ini: str = "") -> None:
    facts_project(pytester, count)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n" + ini)


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, broken: str, *args: str) -> pytest.RunResult:
    monkeypatch.setenv("SPROUT_TEST_BROKEN", broken)
    return pytester.runpytest(*QUIET, *args)


def items_of(pytester: pytest.Pytester, name: str) -> dict[str, dict]:
    report = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    return {item["nodeid"]: item for item in report["items"]}


def test_new_mode_lets_the_baselines_failures_pass_and_names_a_new_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_project(pytester)
    baseline = run(pytester, monkeypatch, "1,2", "--sprout-report=base.json")
    baseline.assert_outcomes(passed=10, failed=2)
    assert baseline.ret == pytest.ExitCode.TESTS_FAILED  # any: today's behaviour

    # The same two failures again: known, xfailed with the baseline's name, the run passes.
    result = run(pytester, monkeypatch, "1,2", "--sprout-fail-on=new", "--sprout-compare=base.json", "-rx",
                 "--sprout-report=now.json", "--sprout-md=now.md", "--sprout-html=now.html", "--junitxml=now.xml")
    result.assert_outcomes(passed=10, xfailed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "--sprout-fail-on=new: 2 known failures (failed in base.json too; shown as xfailed, still failures in every metric)",
        "new failures: none",
        f"XFAIL {NODE.format(1)} - failed in base.json",
        f"XFAIL {NODE.format(2)} - failed in base.json",
    ])
    items = items_of(pytester, "now.json")
    for i in (1, 2):
        assert items[NODE.format(i)]["outcome"] == "failed" and items[NODE.format(i)]["known"] is True
    assert "known" not in items[NODE.format(3)]
    report = json.loads((pytester.path / "now.json").read_text(encoding="utf-8"))
    # The metrics are those of any mode: the two known failures still count as failures.
    grounded = next(m for m in report["metrics"] if m["metric"] == "grounded")
    assert (grounded["k"], grounded["n"]) == (10, 12)
    assert report["gates"]["fail_on"] == {"mode": "new", "baseline": "base.json", "known": [NODE.format(1), NODE.format(2)],
                                          "new_failures": [], "fixed": [], "baseline_errors": 0,
                                          "baseline_complete": True}
    md = (pytester.path / "now.md").read_text(encoding="utf-8")
    assert "**fact-1** [groundedness] (known failure: failed in base.json)" in md
    assert "known failure" in (pytester.path / "now.html").read_text(encoding="utf-8")
    # JUnit: pytest's own xfail element, and the property that says why.
    cases = {tc.get("name"): tc for tc in ET.parse(pytester.path / "now.xml").iter("testcase")}
    known = cases["fact-1[groundedness]"]
    assert known.find("skipped").get("type") == "pytest.xfail"
    assert known.find("skipped").get("message") == "failed in base.json"
    assert (KNOWN_PROPERTY, "failed in base.json") in [(p.get("name"), p.get("value")) for p in known.iter("property")]

    # A new failure (fact-5) fails the run and is named; the known ones stay xfailed.
    result = run(pytester, monkeypatch, "1,2,5", "--sprout-fail-on=new", "--sprout-compare=base.json")
    result.assert_outcomes(passed=9, failed=1, xfailed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"new failures (1): {NODE.format(5)}", f"FAILED {glob(NODE.format(5))}*"])

    # fact-2 is fixed: the run passes and says so; fact-1 is still a known failure.
    result = run(pytester, monkeypatch, "1", "--sprout-fail-on=new", "--sprout-compare=base.json", "--sprout-report=fixed.json")
    result.assert_outcomes(passed=11, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"*{glob(NODE.format(2))}: failed -> passed", f"fixed (1): {NODE.format(2)}"])
    assert json.loads((pytester.path / "fixed.json").read_text())["gates"]["fail_on"]["fixed"] == [NODE.format(2)]


def test_ratchet_a_passing_runs_report_becomes_the_baseline(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, count=4)
    assert run(pytester, monkeypatch, "1,2", "--sprout-report=base.json").ret == pytest.ExitCode.TESTS_FAILED
    # fact-2 is fixed: the run passes, and its report becomes the baseline (never written over the
    # file it compares with: that is refused).
    result = run(pytester, monkeypatch, "1", "--sprout-fail-on=new", "--sprout-compare=base.json", "--sprout-report=next.json")
    assert result.ret == pytest.ExitCode.OK
    (pytester.path / "next.json").replace(pytester.path / "base.json")
    assert [n for n, item in items_of(pytester, "base.json").items() if item["outcome"] == "failed"] == [NODE.format(1)]
    # From now on fact-2 failing again is a new failure, not a known one.
    result = run(pytester, monkeypatch, "1,2", "--sprout-fail-on=new", "--sprout-compare=base.json")
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    result.stdout.fnmatch_lines([f"new failures (1): {NODE.format(2)}"])


def test_a_known_case_whose_content_changed_is_new(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, count=4)
    assert run(pytester, monkeypatch, "1,2", "--sprout-report=base.json").ret == pytest.ExitCode.TESTS_FAILED
    suite = pytester.path / "suites" / "facts.yaml"
    # fact-2's question changes (same id, same answer from the stand-in system): a new case, not a known one.
    suite.write_text(suite.read_text().replace("What colour is fact 2?", "Which colour is fact 2?"))
    result = run(pytester, monkeypatch, "1,2", "--sprout-fail-on=new", "--sprout-compare=base.json")
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    result.stdout.fnmatch_lines([f"new failures (1): {NODE.format(2)}"])
    # Without --sprout-fail-on=new the edited dataset is still refused, as before.
    refused = run(pytester, monkeypatch, "1,2", "--sprout-compare=base.json")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR


def test_gates_mode_fails_only_on_the_gates(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, count=40)
    result = run(pytester, monkeypatch, "1,2,3", "--sprout-fail-on=gates", "--sprout-min=groundedness.grounded=0.7",
                 "--sprout-report=gates.json")
    result.assert_outcomes(passed=37, xfailed=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "gate groundedness.grounded >= 0.7: passed*",
        "--sprout-fail-on=gates: 3 item failures do not fail the run (shown as xfailed); only the gates and the unscored limit can",
    ])
    items = items_of(pytester, "gates.json")
    assert items[NODE.format(1)]["outcome"] == "failed" and "known" not in items[NODE.format(1)]
    # The same run with a bound its 37/40 cannot show: the gate fails the run.
    result = run(pytester, monkeypatch, "1,2,3", "--sprout-fail-on=gates", "--sprout-min=groundedness.grounded=0.9")
    result.assert_outcomes(passed=37, xfailed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate groundedness.grounded >= 0.9: FAILED: the Wilson 95% lower bound is *"])


def test_gates_mode_from_the_ini(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, count=3, ini="sprout_fail_on = gates\n")
    result = run(pytester, monkeypatch, "1")
    result.assert_outcomes(passed=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_new_without_a_baseline_and_a_bad_mode_are_usage_errors(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, count=2)
    result = run(pytester, monkeypatch, "", "--sprout-fail-on=new")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-fail-on=new needs --sprout-compare=BASE.json*"])
    result = run(pytester, monkeypatch, "", "--sprout-fail-on=some")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-fail-on / sprout_fail_on must be one of any, new, gates, got 'some'*"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_new_mode_under_xdist(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install pytest-sprout[dev])")
    make_project(pytester, count=8)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "1,2")
    assert pytester.runpytest_subprocess(*QUIET, "-p", "no:xdist", "--sprout-report=base.json").ret == 1
    # The reports are made on the workers: they judge known failures with the controller's baseline.
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "1,2,5")
    result = pytester.runpytest_subprocess(*QUIET, "-n", "2", "--sprout-fail-on=new", "--sprout-compare=base.json",
                                           "--sprout-report=now.json")
    result.assert_outcomes(passed=5, failed=1, xfailed=2)
    result.stdout.fnmatch_lines([f"new failures (1): {NODE.format(5)}"])
    items = items_of(pytester, "now.json")
    assert [n for n, item in sorted(items.items()) if item.get("known")] == [NODE.format(1), NODE.format(2)]
    assert items[NODE.format(5)]["outcome"] == "failed" and "known" not in items[NODE.format(5)]


def test_the_merge_of_shards_takes_fail_on(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    make_project(pytester, count=8)
    assert run(pytester, monkeypatch, "1,2", "--sprout-report=base.json").ret == pytest.ExitCode.TESTS_FAILED
    for k in (1, 2):
        run(pytester, monkeypatch, "1,2,5", f"--sprout-shard={k}/2", f"--sprout-report=s{k}.json")

    def merge(*args: str) -> pytest.RunResult:
        return pytester.run(sys.executable, "-m", "pytest_sprout.merge", "s1.json", "s2.json", *args, "-p", "no:deepeval")

    merged = merge("--sprout-fail-on=new", "--sprout-compare=base.json", "--sprout-report=merged.json")
    assert merged.ret == pytest.ExitCode.TESTS_FAILED
    merged.stdout.fnmatch_lines([f"new failures (1): {NODE.format(5)}"])
    items = items_of(pytester, "merged.json")
    assert sorted(n for n, item in items.items() if item.get("known")) == [NODE.format(1), NODE.format(2)]
    assert merge("--sprout-fail-on=gates").ret == pytest.ExitCode.OK
    assert merge().ret == pytest.ExitCode.TESTS_FAILED  # any: every failure fails the merge, as before


# --- the policy, pure ------------------------------------------------------------------------


def test_policy_matches_by_node_id_and_case_content() -> None:
    items = [
        {"nodeid": "a", "outcome": "failed", "case_hash": "h1"},
        {"nodeid": "b", "outcome": "error", "case_hash": "h2"},
        {"nodeid": "c", "outcome": "passed", "case_hash": "h3"},
        {"nodeid": "d", "outcome": "failed"},  # an older report: no hash
    ]
    same = FailOn.from_baseline("new", "base.json", items, same_dataset=True)
    assert same.mark("a", "h1") == (KNOWN_PROPERTY, "failed in base.json")
    assert same.mark("a", "changed") is None  # the case's content changed: new
    # an error row is no verdict (repro 32: a -x run's never-run rows, an outage's): it excuses nothing
    assert same.mark("b", "h2") is None and same.mark("c", "h3") is None and same.mark("z", None) is None
    assert same.mark("d", "any") is not None  # no hash, same dataset: by node id
    other = FailOn.from_baseline("new", "base.json", items, same_dataset=False)
    assert other.mark("d", "any") is None  # no hash, another dataset: cannot tell
    assert FailOn.from_json(same.to_json()) == same  # what an xdist worker gets
    assert FailOn("gates").mark("x", None) == (GATES_PROPERTY, FailOn("gates").mark("x", None)[1])  # type: ignore[index]
    assert FailOn("any").mark("a", "h1") is None


def test_mode_values_and_summary_lines() -> None:
    assert parse_mode(None) == "any" and parse_mode(" New ") == "new"
    with pytest.raises(SettingsError, match="one of any, new, gates"):
        parse_mode("all")
    summary = FailOnSummary("new", "b.json", known=["k"], new=[], fixed=["f"])
    assert summary.lines(", ".join) == [
        "--sprout-fail-on=new: 1 known failure (failed in b.json too; shown as xfailed, still failures in every metric)",
        "new failures: none", "fixed (1): f"]
