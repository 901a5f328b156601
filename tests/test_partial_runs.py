"""A run that selected part of the dataset (-k, -m, --lf, a node id) says so: its report is marked
``"partial": true`` with the selected and total item counts, it is never registered in the
snapshot over the whole report, and a comparison says how many cases it compared, over the items
both reports judged (defect 21 of round 3)."""

from __future__ import annotations

import json

import pytest

from helpers import make_project

SIX = "suite: a\ndefaults: {tiers: [groundedness]}\ncases:\n" + "".join(
    f"  - {{id: c{i}, question: q{i}}}\n" for i in range(6))

# The system answers every case grounded; with REGRESS set it breaks every case but c0.
CONFTEST = '''
import os
def pytest_sprout_make_system(config):
    def system(q):
        if os.environ.get("REGRESS") and q != "q0":
            return {"text": "Snake plants need full sun [1].", "passages": ["Snake plants tolerate low light."]}
        return {"text": "Snake plants tolerate low light [1].", "passages": ["Snake plants tolerate low light."]}
    system.name, system.version = "t", "1"
    return system
'''

RUN = ("-p", "no:deepeval", "-p", "no:cacheprovider")


def project(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SIX, conftest=CONFTEST, name="a", tiers="")


def read(pytester: pytest.Pytester, name: str) -> dict:
    return json.loads((pytester.path / name).read_text())


def test_a_k_run_writes_a_report_marked_partial_with_its_counts(pytester: pytest.Pytester) -> None:
    """Regression: repro 21 (21-partial-run-report-passes-as-whole)."""
    project(pytester)
    whole = pytester.runpytest(*RUN, "--sprout-report=whole.json")
    whole.assert_outcomes(passed=6)
    assert {k: read(pytester, "whole.json")[k] for k in ("partial", "selected", "total")} == \
        {"partial": False, "selected": 6, "total": 6}
    part = pytester.runpytest(*RUN, "-k", "c0 or c1", "--sprout-report=part.json")
    part.assert_outcomes(passed=2, deselected=4)
    report = read(pytester, "part.json")
    assert (report["partial"], report["selected"], report["total"], len(report["items"])) == (True, 2, 6, 2)
    part.stdout.fnmatch_lines(["this run selected 2 of the dataset's 6 items: the reports are marked partial*"])


def test_a_partial_report_is_never_registered_over_the_whole_one(pytester: pytest.Pytester) -> None:
    """Regression: repro 21 (21-partial-run-report-passes-as-whole)."""
    project(pytester)
    pytester.runpytest(*RUN, "--sprout-update-snapshot", "--sprout-report=r.json").assert_outcomes(passed=6)
    before = (pytester.path / "r.json").read_text()
    part = pytester.runpytest(*RUN, "-k", "c0", "--sprout-report=r.json")
    part.stdout.fnmatch_lines(["r.json: kept as it was (registered in the snapshot, and this run judged only part of the dataset)"])
    assert (pytester.path / "r.json").read_text() == before
    check = pytester.runpytest(*RUN, "--sprout-check-snapshot")
    assert check.ret == 0
    check.stdout.fnmatch_lines(["sprout.snapshot.json: current (*1 artifact current)"])
    # With --sprout-update-snapshot a partial report is written to a new path but not registered.
    update = pytester.runpytest(*RUN, "-k", "c0", "--sprout-update-snapshot", "--sprout-report=other.json")
    update.stdout.fnmatch_lines(["other.json: not registered: this run judged 1 of the dataset's 6 items (a partial report)"])
    assert "other.json" not in read(pytester, "sprout.snapshot.json")["artifacts"]


def test_a_comparison_says_how_many_cases_it_compared(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 21 (21-partial-run-report-passes-as-whole)."""
    project(pytester)
    pytester.runpytest(*RUN, "--sprout-report=base.json").assert_outcomes(passed=6)
    monkeypatch.setenv("REGRESS", "1")
    part = pytester.runpytest(*RUN, "-k", "c0", "--sprout-compare=base.json", "--sprout-fail-on-regression",
                              "--sprout-report=new.json")
    # The old numbers are recomputed over the one case this run judged: 1/1 against 1/1, not 6/6.
    part.stdout.fnmatch_lines([
        "compared with base.json (dataset *, the same as now; 1 case in both runs (the baseline judged 6, this run 1); "
        "the baseline's numbers are recomputed over the items this run judged)",
        "groundedness  grounded *1/1  1/1 *",
        "regression gate: passed * ?on the 1 of the baseline's 6 cases this run judged; a change in the others cannot show?",
    ])
    assert read(pytester, "new.json")["gates"]["compare"]["cases"] == {"compared": 1, "baseline": 6, "run": 1}
    whole = pytester.runpytest(*RUN, "--sprout-compare=base.json", "--sprout-fail-on-regression")
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    whole.stdout.fnmatch_lines(["compared with base.json (dataset *, the same as now; 6 cases compared)",
                                "regression gate: FAILED*"])


@pytest.mark.parametrize("stop", ["-x", "--maxfail=1"])
def test_a_run_stopped_early_is_incomplete_and_never_registered(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, stop: str) -> None:
    """-x / --maxfail stops after c1 fails: c2..c5 never ran. Once the report said
    ``"complete": true`` and was re-registered, so the check called it current.
    Regression: repro 21 (21-partial-run-report-passes-as-whole)."""
    project(pytester)
    pytester.runpytest(*RUN, "--sprout-update-snapshot", "--sprout-report=r.json").assert_outcomes(passed=6)
    before = (pytester.path / "r.json").read_bytes()
    monkeypatch.setenv("REGRESS", "1")
    stopped = pytester.runpytest(*RUN, "-p", "no:randomly", stop, "--sprout-report=r.json")
    stopped.assert_outcomes(passed=1, failed=1)
    stopped.stdout.fnmatch_lines([
        "the run stopped before 4 of its items ran (-x, --maxfail, or a lost xdist worker): the reports are marked "
        "incomplete (\"complete\": false) and are not registered in the snapshot",
        "r.json: kept as it was (registered in the snapshot, and this run stopped before 4 of its items ran)",
    ])
    assert (pytester.path / "r.json").read_bytes() == before
    check = pytester.runpytest(*RUN, "--sprout-check-snapshot")
    assert check.ret == 0
    # Written to a new path with --sprout-update-snapshot: marked incomplete, not registered.
    update = pytester.runpytest(*RUN, "-p", "no:randomly", stop, "--sprout-update-snapshot", "--sprout-report=other.json")
    update.stdout.fnmatch_lines(["other.json: not registered: not every selected item ran (an incomplete report)"])
    report = read(pytester, "other.json")
    assert report["complete"] is False and len(report["items"]) == 6
    never = [row["case_id"] for row in report["items"] if row["outcome"] == "error"]
    assert never == ["c2", "c3", "c4", "c5"]
    assert all("the run stopped early" in row["error"] for row in report["items"] if row["outcome"] == "error")
    assert "other.json" not in read(pytester, "sprout.snapshot.json")["artifacts"]
