"""--sprout-compare pairs the items both runs judged (same node id, same case content): paired
intervals (Newcombe's method 10; clustered by case for sentence rates; a paired t for means)
are narrower than the unpaired ones on correlated runs, and every item whose outcome changed is
listed. Real runs of a stand-in system through pytester, and the pure pieces by hand."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pytest_sprout.controller import gates
from pytest_sprout.core.paired import (
    CLUSTERED_MEAN_METHOD, CLUSTERED_RATE_METHOD, MEAN_METHOD, RATE_METHOD, paired_mean, paired_rate,
)
from pytest_sprout.core.stats import MetricRow, newcombe_paired_interval, paired_t_interval

# Case N answers two sentences from a passage that supports both; the cases listed in
# SPROUT_TEST_BROKEN negate the first ("is not green"), which the lexical judge rejects: the item
# fails, one of its two sentences is unsupported. SPROUT_TEST_VERSION names the system's version.
CONFTEST = '''
import os

def pytest_sprout_make_system(config):
    broken = {int(x) for x in os.environ.get("SPROUT_TEST_BROKEN", "").split(",") if x}
    def system(question):
        n = int(question.split()[-1].rstrip("?"))
        first = f"Fact {n} is not green [1]." if n in broken else f"Fact {n} is green [1]."
        return first + f" Fact {n} is small [1].", [f"Fact {n} is green and small."]
    system.name = "facts"
    system.version = os.environ.get("SPROUT_TEST_VERSION", "1")
    return system
'''
QUIET = ("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")
NODE = "suites/facts.yaml::fact-{}[groundedness]"


def make_project(pytester: pytest.Pytester, count: int) -> None:
    cases = "\n".join(f"  - id: fact-{i}\n    question: What colour is fact {i}?" for i in range(count))
    pytester.makeconftest(CONFTEST)
    (pytester.path / "suites").mkdir(exist_ok=True)
    (pytester.path / "suites" / "facts.yaml").write_text(
        f"defaults: {{tiers: [groundedness]}}\ncases:\n{cases}\n", encoding="utf-8")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, broken: range | list[int], version: str,
        *args: str) -> pytest.RunResult:
    monkeypatch.setenv("SPROUT_TEST_BROKEN", ",".join(str(i) for i in broken))
    monkeypatch.setenv("SPROUT_TEST_VERSION", version)
    return pytester.runpytest(*QUIET, *args)


def unpaired(old_report: Path, new_report: Path) -> dict[str, gates.Delta]:
    """The same comparison without the items: what the metric rows alone (unpaired) give."""
    baseline = gates.load_baseline(old_report, old_report.name)
    baseline.items = {}
    new = json.loads(new_report.read_text(encoding="utf-8"))
    names = {f.name for f in dataclasses.fields(MetricRow)}  # the JSON adds derived keys (saturated_at)
    rows = [MetricRow(**{k: v for k, v in m.items() if k in names}) for m in new["metrics"]]
    return {d.metric: d for d in gates.compare_rows(baseline, rows, {})}


def test_paired_compare_of_correlated_runs_is_narrower_and_lists_the_flips(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_project(pytester, 40)
    # The old system fails cases 0-9; the new one still fails 0-7, fixes 8 and 9, breaks 12 and 13.
    old = run(pytester, monkeypatch, range(10), "1", "--sprout-report=old.json")
    old.assert_outcomes(passed=30, failed=10)
    result = run(pytester, monkeypatch, [*range(8), 12, 13], "2", "--sprout-compare=old.json",
                 "--sprout-report=new.json", "--sprout-md=new.md", "--sprout-html=new.html")
    result.assert_outcomes(passed=30, failed=10)
    result.stdout.fnmatch_lines([
        "compared with old.json (dataset *, the same as now; 40 cases compared)",
        "systems: facts 1 in old.json, facts 2 now; paired over 40 cases (same case id and content in both runs)",
        "*groundedness*grounded *30/40*30/40*+0.000*newcombe paired (method 10) *no distinguishable change",
        "*groundedness*grounded_sentence *70/80*70/80*+0.000*newcombe paired (method 10, clustered by case)*",
        "4 items changed outcome (old -> new):",
        "  suites/facts.yaml::fact-12[[]groundedness]: passed -> failed",
        "  suites/facts.yaml::fact-13[[]groundedness]: passed -> failed",
        "  suites/facts.yaml::fact-8[[]groundedness]: failed -> passed",
        "  suites/facts.yaml::fact-9[[]groundedness]: failed -> passed",
    ])
    report = json.loads((pytester.path / "new.json").read_text(encoding="utf-8"))
    compare = report["gates"]["compare"]
    assert compare["systems"] == {"old": "facts 1", "new": "facts 2"}
    assert compare["paired_cases"] == 40
    assert compare["flips"] == [
        {"nodeid": NODE.format(12), "old": "passed", "new": "failed"},
        {"nodeid": NODE.format(13), "old": "passed", "new": "failed"},
        {"nodeid": NODE.format(8), "old": "failed", "new": "passed"},
        {"nodeid": NODE.format(9), "old": "failed", "new": "passed"},
    ]
    deltas = {d["metric"]: d for d in compare["deltas"]}
    loose = unpaired(pytester.path / "old.json", pytester.path / "new.json")
    # The per-item pass rate: method 10 over the 2x2 table (28 both pass, 2 each way, 8 both fail).
    grounded = deltas["grounded"]
    assert grounded["method"] == RATE_METHOD and grounded["pairs"] == 40
    assert (grounded["delta"], grounded["ci_low"], grounded["ci_high"]) == pytest.approx(newcombe_paired_interval(28, 2, 2, 8))
    assert loose["grounded"].method == "newcombe"
    assert grounded["ci_high"] - grounded["ci_low"] < 0.7 * (loose["grounded"].high - loose["grounded"].low)
    # The sentence rate pairs by case too, and is narrower than the unpaired clustered interval.
    sentence = deltas["grounded_sentence"]
    assert sentence["method"] == CLUSTERED_RATE_METHOD
    assert loose["grounded_sentence"].method == "newcombe (clustered intervals)"
    assert sentence["ci_high"] - sentence["ci_low"] < 0.7 * (loose["grounded_sentence"].high - loose["grounded_sentence"].low)
    # The Markdown and the HTML list the flips and name both systems.
    md = (pytester.path / "new.md").read_text(encoding="utf-8")
    assert "systems: facts 1 then, facts 2 now; paired over 40 cases" in md
    assert "#### Changed outcome (4)" in md and "| `suites/facts.yaml::fact-12\\[groundedness\\]` | passed | failed |" in md
    html = (pytester.path / "new.html").read_text(encoding="utf-8")
    assert "Changed outcome (4)" in html and "facts 1 then, facts 2 now" in html
    assert "<code>suites/facts.yaml::fact-13[groundedness]</code>" in html


def test_many_flips_show_the_first_twenty_and_the_regression_gate_uses_the_paired_interval(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_project(pytester, 60)
    assert run(pytester, monkeypatch, [], "1", "--sprout-report=old.json").ret == 0
    result = run(pytester, monkeypatch, range(25), "2", "--sprout-compare=old.json", "--sprout-fail-on-regression",
                 "--sprout-report=new.json")
    result.assert_outcomes(passed=35, failed=25)
    result.stdout.fnmatch_lines([
        "*grounded *60/60*35/60*-0.417*newcombe paired (method 10) *worse",
        "25 items changed outcome (old -> new):",
        "  ... and 5 more (see --sprout-report: gates.compare.flips)",
        "regression gate: FAILED: the whole 95% interval of the change lies below zero for groundedness.grounded*",
    ])
    shown = [line for line in result.stdout.lines if line.startswith("  suites/facts.yaml::") and "-> failed" in line]
    assert len(shown) == 20
    assert len(json.loads((pytester.path / "new.json").read_text())["gates"]["compare"]["flips"]) == 25


# --- the pure pieces ---------------------------------------------------------------------------


def test_one_outcome_per_item_is_method_10_of_the_2x2_table() -> None:
    # (old, new) per item: 3 pass in both, 1 fixed, 2 broken, 4 fail in both.
    pairs = [([True], [True])] * 3 + [([False], [True])] + [([True], [False])] * 2 + [([False], [False])] * 4
    result = paired_rate(pairs)
    assert result is not None and result.method == RATE_METHOD
    # the new run is method 10's first classification: b = passes only now, c = passed only before
    assert (result.delta, result.low, result.high) == pytest.approx(newcombe_paired_interval(3, 1, 2, 4))
    assert (result.old, result.new, result.pairs) == ("5/10", "4/10", 10)
    assert paired_rate([([], [True])]) is None  # nothing scored on one side: no pair


def test_nested_rates_pair_by_case_and_agreeing_runs_give_a_narrow_interval() -> None:
    # 30 answers of 3 sentences; the two runs agree on every sentence but two.
    pairs = [([True, True, True], [True, True, True])] * 20 + [([True, False, False], [True, False, False])] * 8
    pairs += [([True, True, True], [True, True, False]), ([False, False, False], [True, False, False])]
    result = paired_rate(pairs)
    assert result is not None and result.method == CLUSTERED_RATE_METHOD
    assert result.delta == pytest.approx(0.0)
    assert result.low is not None and result.high is not None and result.low <= 0.0 <= result.high
    independent = paired_rate([(old, new) for (old, _), (_, new) in zip(pairs, pairs[1:] + pairs[:1])])
    assert independent is not None  # the same sentences, paired with another case's: no correlation left
    assert result.high - result.low < (independent.high or 0) - (independent.low or 0)


def test_paired_means_are_a_paired_t_and_nest_by_case() -> None:
    pairs = [([0.5], [0.6]), ([0.7], [0.75]), ([0.2], [0.35]), ([0.9], [0.9])]
    result = paired_mean(pairs)
    assert result is not None and result.method == MEAN_METHOD
    assert (result.delta, result.low, result.high) == pytest.approx(paired_t_interval([0.1, 0.05, 0.15, 0.0]))
    # Several scores per case, all cases the same size: the pooled-mean difference, clustered by case
    # (with equal sizes, the paired t over the per-case mean differences).
    nested = paired_mean([([0.5, 0.7], [0.6, 0.8]), ([0.2, 0.4], [0.2, 0.5]), ([0.9, 0.9], [1.0, 0.9])])
    assert nested is not None and nested.method == CLUSTERED_MEAN_METHOD
    assert (nested.delta, nested.low, nested.high) == pytest.approx(paired_t_interval([0.1, 0.05, 0.05]))
    single = paired_mean([([0.5], [0.6])])
    assert single is not None and single.low is None and "needs 2+ paired cases" in single.method


def test_items_pair_by_node_id_and_case_content() -> None:
    from pytest_sprout.controller.compare import item_views, paired_ids

    old = item_views([{"nodeid": "a", "case_hash": "1"}, {"nodeid": "b", "case_hash": "2"}, {"nodeid": "c"},
                      {"nodeid": "gone", "case_hash": "4"}])
    new = item_views([{"nodeid": "a", "case_hash": "1"}, {"nodeid": "b", "case_hash": "changed"},
                      {"nodeid": "c", "case_hash": "3"}, {"nodeid": "added", "case_hash": "5"}])
    assert paired_ids(old, new, same_dataset=True) == ["a", "c"]  # c: the baseline has no hash, the datasets match
    assert paired_ids(old, new, same_dataset=False) == ["a"]
