"""Every JSON report names its judges (``schema``, ``judging``, ``judges``), and --sprout-compare
and --sprout-fail-on=new refuse a baseline judged with other settings, naming the setting, unless
--sprout-compare-any-judging: a change of the judge is never "worse" or "fixed" for the system
(regression: repro 42). Real runs of a stand-in system through pytester."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers import PASSING_SUITE, make_project
from pytest_sprout.core.judges import judges_difference, judging_difference
from pytest_sprout.core.report_check import SCHEMA

RUN = ("-p", "no:cacheprovider", "-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin")
# Answers without [k] markers: "required" judges them unsupported, "retrieved" against the passages.
UNCITED = '''
def pytest_sprout_make_system(config):
    def system(question):
        return "Snake plants tolerate low light.", ["Snake plants tolerate low light."]
    system.name, system.version = "t", "1"
    return system
'''
SUITE = "suite: s\ncases:\n" + "".join(f"  - {{id: c{i}, question: q{i}}}\n" for i in range(4))


def report(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


def test_a_report_names_its_schema_its_judging_and_its_judges(pytester: pytest.Pytester) -> None:
    make_project(pytester, PASSING_SUITE)
    assert pytester.runpytest(*RUN, "--sprout-report=r.json").ret == 0
    data = report(pytester, "r.json")
    assert data["schema"] == SCHEMA
    assert data["judging"]["sprout_citations"] == "required" and data["judging"]["thresholds"] == {}
    judge = data["judges"]["groundedness"]
    from pytest_sprout.judges.lexical.judge import RULES_VERSION

    assert judge["name"] == "groundedness" and judge["version"] == str(RULES_VERSION)
    assert judge["settings"]["judge"]["rules_version"] == RULES_VERSION
    assert judge["calibration"] == judge["settings"]["judge"]["calibration"] and judge["fingerprint"] is None


def test_a_baseline_judged_in_another_citations_mode_is_refused(pytester: pytest.Pytester) -> None:
    """Regression: repro 42 (42-compare-ignores-judging-settings)."""
    make_project(pytester, SUITE, conftest=UNCITED)
    pytester.runpytest(*RUN, "--sprout-report=required.json")
    pytester.runpytest(*RUN, "--sprout-citations=retrieved", "--sprout-report=retrieved.json")
    result = pytester.runpytest(*RUN, "--sprout-compare=retrieved.json", "--sprout-fail-on-regression")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(['ERROR: --sprout-compare retrieved.json: the baseline was judged otherwise '
                                 '(sprout_citations: "retrieved" then, "required" now)*--sprout-compare-any-judging*'])
    result = pytester.runpytest(*RUN, "--sprout-citations=retrieved", "--sprout-fail-on=new",
                                "--sprout-compare=required.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(['ERROR: --sprout-fail-on=new against required.json: the baseline was judged '
                                 'otherwise (sprout_citations: "required" then, "retrieved" now)*'])
    assert "fixed (" not in result.stdout.str()
    # Asked for: compared, and the header says so.
    result = pytester.runpytest(*RUN, "--sprout-citations=retrieved", "--sprout-compare=required.json",
                                "--sprout-compare-any-judging", "--sprout-report=now.json", "--sprout-md=now.md",
                                "--sprout-html=now.html")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(['judged with DIFFERENT settings*sprout_citations: "required" then, "retrieved" now*'])
    assert report(pytester, "now.json")["gates"]["compare"]["judged_otherwise"]
    for view in ("now.md", "now.html"):  # every view says it, not the terminal alone
        assert "judged with DIFFERENT settings" in (pytester.path / view).read_text(encoding="utf-8")


def test_a_baseline_whose_judge_changed_fails_the_judging_gate(pytester: pytest.Pytester) -> None:
    """Regression: repro 42 (42-compare-ignores-judging-settings)."""
    make_project(pytester, PASSING_SUITE)
    pytester.runpytest(*RUN, "--sprout-report=base.json")
    base = report(pytester, "base.json")
    base["judges"]["groundedness"]["version"] = "1"  # as a report of an older lexical judge says
    (pytester.path / "old.json").write_text(json.dumps(base), encoding="utf-8")
    result = pytester.runpytest(*RUN, "--sprout-compare=old.json", "--sprout-report=now.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(['judging gate: FAILED: --sprout-compare old.json: the baseline was judged otherwise '
                                 '(groundedness judge version: "1" then, *'])
    assert report(pytester, "now.json")["gates"]["compare"]["judging_gate"]["passed"] is False
    assert pytester.runpytest(*RUN, "--sprout-compare=old.json", "--sprout-compare-any-judging").ret == 0


def test_judging_differences_are_read_on_the_baselines_tiers_only() -> None:
    options = {"groundedness": ("sprout_citations",), "llm": ("llm_model", "sprout_citations")}
    old = {"sprout_citations": "required", "llm_model": "a", "sprout_mutate": False,
           "thresholds": {"groundedness.coverage": 0.6, "llm.faithfulness": 0.5}}
    new = {**old, "llm_model": "b", "thresholds": {"groundedness.coverage": 0.6, "llm.faithfulness": 0.9}}
    assert judging_difference(old, new, options, ["groundedness"]) == []  # an llm option means nothing here
    assert judging_difference(old, new, options, ["groundedness", "llm"]) == [
        'llm_model: "a" then, "b" now', "threshold llm.faithfulness: 0.5 then, 0.9 now"]
    judge = {"name": "alce", "version": "0.2.0", "calibration": None, "fingerprint": "f1",
             "settings": {"model": "m", "fingerprint": "f1"}}
    assert judges_difference({"alce": judge}, {"alce": {**judge, "fingerprint": None,
                                                        "settings": {"model": "m", "fingerprint": None}}}) == []
    assert judges_difference({"alce": judge}, {"alce": {**judge, "fingerprint": "f2"}}) == [
        'alce judge fingerprint: "f1" then, "f2" now']
    assert judges_difference({"alce": judge}, {"ragas": judge}) == []  # no tier in both


def test_a_url_s_credentials_never_reach_the_judges_record() -> None:
    from pytest_sprout.core.judges import judge_record, scrubbed

    class Tier:
        def settings(self) -> dict[str, Any]:
            return {"base_url": "https://ann:s3cret@llm.example/v1", "model": "m", "thresholds": {"x": 0.5}}

    record = judge_record("llm", Tier())
    assert record["settings"]["base_url"] == "https://***@llm.example/v1" and "s3cret" not in json.dumps(record)
    assert scrubbed({"a": ["http://u@h", "plain@text", 3]}) == {"a": ["http://***@h", "plain@text", 3]}
