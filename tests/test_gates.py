"""Gates that respect noise: --sprout-min on the Wilson lower bound, --sprout-compare with
Newcombe's interval (paired over shared cases: tests/test_compare_paired.py),
--sprout-fail-on-regression, and the dataset-hash refusal."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_sprout.controller import gates
from pytest_sprout.core.stats import MetricRow, Tally, newcombe_interval

from helpers import facts_project

# --- Newcombe's interval: every worked example of Newcombe (1998), table II, method 10 -------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((56, 70, 48, 80), (0.0524, 0.3339)),  # (a)
        ((9, 10, 3, 10), (0.1705, 0.8090)),  # (b)
        ((6, 7, 2, 7), (0.0582, 0.8062)),  # (c)
        ((5, 56, 0, 29), (-0.0381, 0.1926)),  # (d)
        ((0, 10, 0, 20), (-0.1611, 0.2775)),  # (e)
        ((0, 10, 0, 10), (-0.2775, 0.2775)),  # (f)
        ((10, 10, 0, 20), (0.6791, 1.0)),  # (g)
        ((10, 10, 0, 10), (0.6075, 1.0)),  # (h)
    ],
)
def test_newcombe_matches_the_published_examples(counts: tuple[int, int, int, int], expected: tuple[float, float]) -> None:
    k1, n1, k2, n2 = counts
    d, low, high = newcombe_interval(k1, n1, k2, n2)
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert (low, high) == pytest.approx(expected, abs=1e-4)


# --- units over synthetic metric rows --------------------------------------------------------


def rate_row(tier: str, metric: str, k: int, n: int) -> MetricRow:
    tally = Tally()
    tally.extend(tier, metric, [True] * k + [False] * (n - k))
    return tally.row(tier, metric)


def test_parse_min_reads_assignments_and_rejects_bad_ones() -> None:
    assert gates.parse_min(["groundedness.grounded=0.8", "alce.citation_recall = 0.5"]) == [
        gates.MinGate("groundedness", "grounded", 0.8), gates.MinGate("alce", "citation_recall", 0.5),
    ]
    with pytest.raises(pytest.UsageError, match="unknown tier 'grounded'"):
        gates.parse_min(["grounded.x=0.5"])
    with pytest.raises(pytest.UsageError, match=r"unknown tier 'nli' in nli.citation_recall \(the NLI tier is called 'alce'"):
        gates.parse_min(["nli.citation_recall=0.5"])
    with pytest.raises(pytest.UsageError, match="between 0 and 1"):
        gates.parse_min(["groundedness.grounded=80"])
    with pytest.raises(pytest.UsageError, match="expected TIER.NAME=VALUE"):
        gates.parse_min(["groundedness=0.8"])


def test_min_gate_uses_the_wilson_lower_bound_not_the_rate() -> None:
    gate = gates.MinGate("groundedness", "grounded", 0.8)
    # 85/100 = 0.85 is above 0.8, but its Wilson lower bound (0.767) is not: the gate fails.
    result = gates.check_min(gate, rate_row("groundedness", "grounded", 85, 100), True)
    assert result.passed is False
    assert "lower bound is 0.767 (85/100 = 0.850" in result.message
    assert "add cases" not in result.message  # a perfect 100/100 would clear 0.8
    assert gates.check_min(gate, rate_row("groundedness", "grounded", 95, 100), True).passed is True


def test_min_gate_says_when_no_score_could_reach_the_bound() -> None:
    result = gates.check_min(gates.MinGate("groundedness", "grounded", 0.9), rate_row("groundedness", "grounded", 10, 10), True)
    assert result.passed is False
    assert "with this few observations the bound cannot reach it, add cases" in result.message


def test_min_gate_without_observations_fails_unless_its_tier_did_not_run() -> None:
    gate = gates.MinGate("alce", "citation_recall", 0.5)
    ran = gates.check_min(gate, None, True)
    assert ran.passed is False and "no scored observations" in ran.message
    absent = gates.check_min(gate, None, False)
    assert absent.passed is None and "not checked" in absent.message


def baseline_from(rows: list[MetricRow], dataset: str = "abc", items: list[dict] | None = None) -> gates.Baseline:
    report = {"plugin": "pytest-sprout", "dataset_hash": dataset, "metrics": [r.to_json() for r in rows], "items": items or []}
    baseline = gates.Baseline("old.json", report)
    baseline.rows = {(r.tier, r.metric): r.to_json() for r in rows}
    for item in report["items"]:
        for metric, values in item["metrics"].items():
            baseline.values.setdefault((item["tier"], metric), []).extend(values)
    return baseline


def test_compare_flags_only_a_distinguishable_drop() -> None:
    old = baseline_from([rate_row("groundedness", "grounded", 56, 70), rate_row("groundedness", "refusal", 40, 40)])
    new = [rate_row("groundedness", "grounded", 48, 80), rate_row("groundedness", "refusal", 39, 40)]
    deltas = gates.compare_rows(old, new, {})
    grounded, refusal = deltas
    # new - old is minus Newcombe's example (a): -0.2000, interval [-0.3339, -0.0524].
    assert (grounded.delta, grounded.low, grounded.high) == pytest.approx((-0.2, -0.3339, -0.0524), abs=1e-4)
    assert grounded.verdict == "worse" and grounded.method == "newcombe"
    assert refusal.verdict == "no distinguishable change"
    gate = gates.regression_result(deltas)
    assert gate.passed is False
    assert "groundedness.grounded 56/70 -> 48/80, delta -0.200 [-0.334, -0.052]" in gate.message
    assert "refusal" not in gate.message


def test_compare_means_with_welch_and_reports_new_and_missing_metrics() -> None:
    old_items = [{"tier": "ragas", "metrics": {"similarity": [0.9, 0.8, 0.85, 0.95]}}]
    tally = Tally()
    tally.extend("ragas", "similarity", [0.2, 0.3, 0.25, 0.35])
    tally.extend("groundedness", "facts", [True, True])
    old_tally = Tally()
    old_tally.extend("ragas", "similarity", [0.9, 0.8, 0.85, 0.95])
    old_tally.extend("groundedness", "refusal", [True])
    old = baseline_from(old_tally.rows(), items=old_items)
    outcome = gates.Gates([], old, fail_on_regression=True, dataset_hash="abc").evaluate(
        tally.rows(), {("ragas", "similarity"): tally.values("ragas", "similarity")}, {"ragas", "groundedness"},
    )
    by_metric = {d.metric: d for d in outcome.deltas}
    sim = by_metric["similarity"]
    assert sim.method == "welch" and sim.delta == pytest.approx(-0.6)
    assert sim.high < 0 and sim.verdict == "worse"
    assert by_metric["facts"].method == "new metric" and by_metric["facts"].verdict == "no interval"
    assert outcome.missing == ["groundedness.refusal"]
    assert outcome.regression is not None and outcome.regression.passed is False
    assert any("groundedness.refusal: in the baseline, not measured" in line for line in outcome.lines())


def test_welch_interval_matches_a_hand_computation() -> None:
    # a = 1..5 (mean 3, var 2.5), b = 2,4,6 (mean 4, var 4): se^2 = 0.5 + 4/3, df = 3.36 -> 3.
    d, low, high = gates.welch_interval([1, 2, 3, 4, 5], [2, 4, 6])
    half = 3.182446 * (0.5 + 4 / 3) ** 0.5
    assert (d, low, high) == pytest.approx((-1.0, -1.0 - half, -1.0 + half), abs=1e-3)
    assert gates.welch_interval([1.0], [2.0, 3.0]) is None


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not valid JSON (line 1, column 2"),
        ('{"plugin": "other"}', "not a pytest-sprout report"),
        ('{"plugin": "pytest-sprout", "metrics": {}}', "field 'metrics' must be a list"),
        ('{"plugin": "pytest-sprout", "metrics": [{"tier": "groundedness", "metric": "grounded", "kind": "rate"}]}',
         "metrics[0] (groundedness.grounded) field 'n' must be a whole number from 0 to 999999999"),
        ('{"plugin": "pytest-sprout", "metrics": [{"tier": "g", "metric": "m", "kind": "rate", "n": 3, "k": "2"}]}',
         "metrics[0] (g.m) field 'k' must be an integer from 0 to n=3"),
        ('{"plugin": "pytest-sprout", "metrics": [{"tier": "g", "metric": "m", "kind": "rate", "n": 3, "k": 4}]}',
         "metrics[0] (g.m) field 'k' must be an integer from 0 to n=3"),
    ],
)
def test_a_bad_baseline_is_a_usage_error_naming_file_and_field(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "old.json"
    if content is not None:
        write(path, content)
    with pytest.raises(pytest.UsageError, match="--sprout-compare old.json: ") as info:
        gates.load_baseline(path, "old.json")
    assert message in str(info.value)


def test_a_baseline_from_another_dataset_is_refused_unless_asked(tmp_path: Path) -> None:
    path = write(tmp_path / "old.json", json.dumps({"plugin": "pytest-sprout", "dataset_hash": "1" * 64, "metrics": []}))
    kwargs = dict(mins=[], compare="old.json", compare_path=path, fail_on_regression=True, dataset_hash="2" * 64)
    with pytest.raises(pytest.UsageError, match="built from dataset 111111111111, but the suites now hash to 222222222222"):
        gates.Gates.from_options(any_dataset=False, **kwargs)
    assert gates.Gates.from_options(any_dataset=True, **kwargs).baseline is not None
    with pytest.raises(pytest.UsageError, match="needs --sprout-compare"):
        gates.Gates.from_options(mins=[], compare=None, compare_path=None, fail_on_regression=True,
                                 any_dataset=False, dataset_hash=None)


def test_exit_status_turns_only_a_passing_run_into_a_failure() -> None:
    failed = gates.GateOutcome(mins=[gates.GateResult("g.m", False, "x")])
    passed = gates.GateOutcome(mins=[gates.GateResult("g.m", True, "x"), gates.GateResult("a.b", None, "y")])
    assert gates.exit_status(pytest.ExitCode.OK, failed) == pytest.ExitCode.TESTS_FAILED
    assert gates.exit_status(pytest.ExitCode.OK, passed) == pytest.ExitCode.OK
    assert gates.exit_status(pytest.ExitCode.INTERRUPTED, failed) == pytest.ExitCode.INTERRUPTED
    assert gates.exit_status(pytest.ExitCode.OK, None) == pytest.ExitCode.OK


# --- end to end through pytester -------------------------------------------------------------

def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # pytester restores sys.modules after each in-process run, so these plugins (deepeval's, and
    # hypothesis's terminal summary) would be imported afresh every run, seconds each; they have
    # nothing to do with gates. tests/test_plugin.py runs the plugin with them present.
    # No cacheprovider: the stand-in system changes its answers between runs (SPROUT_TEST_BROKEN)
    # without changing its version, so sprout's answer cache must not carry them over.
    return pytester.runpytest("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin",
                              "-p", "no:cacheprovider", *args)


def gen_project(pytester: pytest.Pytester, count: int = 40, ini: str = "") -> None:
    facts_project(pytester, count, "groundedness, alce")
    if ini:
        pytester.makeini(textwrap.dedent(ini))


def test_min_gate_fails_a_green_run_with_a_message_per_metric(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gen_project(pytester)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "")
    result = run(pytester,
        "-m", "groundedness", "--sprout-min=groundedness.grounded=0.95", "--sprout-min=groundedness.refusal=0.5",
    )
    result.assert_outcomes(passed=40)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*= sprout =*",
        "gate groundedness.grounded >= 0.95: FAILED: the Wilson 95% lower bound is 0.912 (40/40 = 1.000*add cases",
        "gate groundedness.refusal >= 0.5: passed (Wilson 95% lower bound 0.912; 40/40 = 1.000)",
    ])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert run(pytester, "-m", "groundedness", "--sprout-min=groundedness.grounded=0.9").ret == pytest.ExitCode.OK


def test_min_gate_from_the_ini_and_a_tier_left_out_by_m(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gen_project(pytester, ini="""
        [pytest]
        sprout_min =
            groundedness.grounded=0.8
            alce.citation_recall=0.5
    """)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "1,2,3,4,5,6,7,8,9,10")
    result = run(pytester, "-m", "groundedness")
    result.assert_outcomes(passed=30, failed=10)
    result.stdout.fnmatch_lines([
        "gate groundedness.grounded >= 0.8: FAILED: the Wilson 95% lower bound is 0.598 (30/40 = 0.750*",
        "gate alce.citation_recall >= 0.5: not checked (no alce items ran in this session)",
    ])
    # Without -m the alce items run and skip (no --nli-model): the alce gate cannot hold, so it fails.
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "")
    result = run(pytester, )
    result.assert_outcomes(passed=40, skipped=40)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate alce.citation_recall >= 0.5: FAILED: no scored observations (the alce items were skipped*"])


def test_bad_min_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    gen_project(pytester, count=2)
    result = run(pytester, "--sprout-min=groundedness.grounded=high")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-min / sprout_min: 'groundedness.grounded=high': 'high' is not a number*"])
    assert "Traceback" not in result.stderr.str()


def test_compare_and_fail_on_regression_end_to_end(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gen_project(pytester)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "")
    assert run(pytester, "-m", "groundedness", "--sprout-report=old.json").ret == 0

    # Two of forty answers break: a drop, but not one the interval can tell from noise.
    monkeypatch.setenv("SPROUT_TEST_BROKEN", "3,7")
    result = run(pytester, "-m", "groundedness", "--sprout-compare=old.json", "--sprout-fail-on-regression",
                                "--sprout-report=new.json")
    result.assert_outcomes(passed=38, failed=2)
    result.stdout.fnmatch_lines([
        "compared with old.json (dataset *, the same as now; * cases compared)",
        "tier*metric*old*new*delta*95% CI*method*verdict",
        # paired, but 40/40 leaves no correlation to estimate: method 10 equals the unpaired interval here
        "groundedness*grounded *40/40*38/40*-0.050*[[]-0.165, +0.045[]]*newcombe paired (method 10)*no distinguishable change",
        "regression gate: passed (no drop is statistically distinguishable)",
    ])
    assert json.loads((pytester.path / "new.json").read_text())["gates"]["compare"]["regression_gate"]["passed"] is True

    # Twenty of forty break: that drop is distinguishable, and the gate fails the session.
    monkeypatch.setenv("SPROUT_TEST_BROKEN", ",".join(str(i) for i in range(20)))
    result = run(pytester, "-m", "groundedness", "--sprout-compare=old.json", "--sprout-fail-on-regression")
    result.assert_outcomes(passed=20, failed=20)
    result.stdout.fnmatch_lines([
        "groundedness*grounded *40/40*20/40*-0.500*newcombe paired (method 10)*worse",
        "regression gate: FAILED: the whole 95% interval of the change lies below zero for groundedness.grounded 40/40 -> 20/40*",
    ])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_compare_refuses_another_dataset_unless_told(pytester: pytest.Pytester) -> None:
    gen_project(pytester, count=4)
    assert run(pytester, "-m", "groundedness", "--sprout-report=old.json").ret == 0
    gen_project(pytester, count=5)  # one case added: a different dataset
    result = run(pytester, "-m", "groundedness", "--sprout-compare=old.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "*--sprout-compare old.json: that report was built from dataset *, but the suites now hash to *"
        "pass --sprout-compare-any-dataset to compare anyway.*",
    ])
    assert "Traceback" not in result.stderr.str()
    result = run(pytester, "-m", "groundedness", "--sprout-compare=old.json", "--sprout-compare-any-dataset")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "compared with old.json (dataset *; now *: DIFFERENT dataset; 4 cases in both runs (the baseline judged 4, this run 5)*",
        "*paired over 4 cases (same case id and content in both runs)",
        "*grounded *4/4*4/4*newcombe paired (method 10)*",  # the delta is over the four cases both runs judged
    ])
