"""Cohen's kappa against hand-worked tables, the agreement between tiers over item rows, and a run
where the groundedness and alce tiers judge the same sentences."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import make_project
from pytest_sprout.checks.agreement import agreement_report, compare, summary_lines
from pytest_sprout.core.stats import cohen_kappa, wilson_interval


def test_kappa_of_the_textbook_two_by_two_table() -> None:
    """The worked example of the Wikipedia article "Cohen's kappa": 50 proposals, both readers say
    yes to 20 and no to 15, A yes/B no 5, A no/B yes 10. p_o = 35/50 = 0.7; A says yes to 25/50,
    B to 30/50, so p_e = 0.5*0.6 + 0.5*0.4 = 0.5 and kappa = (0.7-0.5)/(1-0.5) = 0.4.

    Its standard error, by hand with Fleiss, Cohen and Everitt (1969), with rows = A, columns = B:
    marginals p1. = p2. = 0.5, p.1 = 0.6, p.2 = 0.4;
    diagonal   0.4*(1 - 1.1*0.6)^2 + 0.3*(1 - 0.9*0.6)^2 = 0.04624 + 0.06348 = 0.10972;
    off-diag.  0.6^2 * (0.1*(0.6+0.5)^2 + 0.2*(0.4+0.5)^2) = 0.36 * 0.283 = 0.10188;
    correction (0.4 - 0.5*0.6)^2 = 0.01;
    variance   (0.10972 + 0.10188 - 0.01) / (50 * 0.5^2) = 0.2016 / 12.5 = 0.016128, SE 0.12700,
    so the large-sample interval is 0.4 +- 1.959964 * 0.126996 = [0.15109, 0.64891].
    The observed agreement 35/50 has the Wilson interval [0.56250, 0.80896] (Newcombe's formula),
    which through kappa = (p_o - 0.5) / 0.5 bounds kappa by [0.12499, 0.61793]; the interval is the
    hull of the two: [0.12499, 0.64891].
    """
    k = cohen_kappa([[20, 5], [10, 15]])
    assert (k.n, k.observed, k.expected) == (50, pytest.approx(0.7), pytest.approx(0.5))
    assert k.kappa == pytest.approx(0.4)
    assert k.se == pytest.approx(math.sqrt(0.016128), abs=1e-9)
    assert (k.ci_low, k.ci_high) == (pytest.approx(0.12499, abs=1e-5), pytest.approx(0.4 + 1.959964 * 0.126996, abs=1e-5))


@pytest.mark.parametrize(("table", "low", "high"), [
    ([[2, 0], [0, 2]], 0.0202, 1.0),  # 4/4 agree: Wilson [0.5101, 1], p_e 0.5 -> (0.5101 - 0.5) / 0.5
    ([[10, 0], [0, 10]], 0.6777, 1.0),  # 20/20 agree: Wilson [0.8389, 1] -> 0.6777
    ([[0, 2], [2, 0]], -1.0, -0.0202),  # 0/4 agree: Wilson [0, 0.4899] -> (0.4899 - 0.5) / 0.5
    ([[0, 10], [10, 0]], -1.0, -0.6777),
])
def test_kappa_interval_is_not_zero_width_when_every_sentence_agrees(table: list[list[int]], low: float, high: float) -> None:
    """Defect 27: the large-sample standard error is 0 at kappa = +-1, and 4 agreeing sentences
    printed "Cohen's kappa 1.00 [1.00, 1.00]" beside an agreement rate of [51%, 100%]. The interval
    now says what 4 (or 20) sentences can claim, as the agreement's Wilson interval does.
    Regression: repro 27 (27-kappa-zero-width-interval)."""
    k = cohen_kappa(table)
    assert abs(k.kappa) == pytest.approx(1.0)
    assert (k.ci_low, k.ci_high) == (pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))
    assert k.ci_high - k.ci_low > 0.3


def test_kappa_interval_covers_near_perfect_agreement_at_small_n() -> None:
    """Seeded: two raters agreeing on 95% of 20 balanced items (true kappa 0.9) hit 20/20 in about
    a third of the draws; the old interval was [1.00, 1.00] there and missed the truth each time.
    Regression: repro 27 (27-kappa-zero-width-interval)."""
    rng = random.Random(27)
    covered = scored = 0
    for _ in range(1000):
        table = [[0, 0], [0, 0]]
        for _ in range(20):
            a = rng.random() < 0.5
            b = a if rng.random() < 0.95 else not a
            table[int(a)][int(b)] += 1
        k = cohen_kappa(table)
        if k.ci_low is not None:
            scored += 1
            covered += k.ci_low <= 0.9 <= k.ci_high
    assert covered / scored >= 0.95


def test_kappa_of_a_three_by_three_table() -> None:
    """By hand: n = 40, p_o = (10+8+11)/40 = 0.725; row marginals 15, 10, 15 and column marginals
    13, 12, 15 give p_e = (15*13 + 10*12 + 15*15)/1600 = 540/1600 = 0.3375, so
    kappa = (0.725 - 0.3375)/(1 - 0.3375) = 0.3875/0.6625 = 0.584906."""
    k = cohen_kappa([[10, 2, 3], [1, 8, 1], [2, 2, 11]])
    assert k.expected == pytest.approx(0.3375) and k.kappa == pytest.approx(0.584906, abs=1e-6)
    assert k.ci_low < k.kappa < k.ci_high


def test_kappa_edge_cases() -> None:
    perfect = cohen_kappa([[12, 0], [0, 8]])
    assert perfect.kappa == pytest.approx(1.0) and perfect.se == pytest.approx(0.0, abs=1e-9)
    chance = cohen_kappa([[25, 25], [25, 25]])
    assert chance.kappa == pytest.approx(0.0)
    opposite = cohen_kappa([[0, 10], [10, 0]])
    assert opposite.kappa == pytest.approx(-1.0) and opposite.ci_low == -1.0
    constant = cohen_kappa([[30, 0], [0, 0]])  # both said "supported" every time: undefined
    assert constant.observed == 1.0 and constant.kappa is None and constant.ci_low is None
    one_constant = cohen_kappa([[3, 0], [1, 0]])  # only B said "supported" every time: 0, no interval
    assert one_constant.kappa == pytest.approx(0.0) and one_constant.se is None and one_constant.ci_high is None
    assert cohen_kappa([[0, 0], [0, 0]]).kappa is None
    with pytest.raises(ValueError):
        cohen_kappa([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError):
        cohen_kappa([[1, -2], [3, 4]])


@given(st.lists(st.integers(0, 40), min_size=4, max_size=4).filter(lambda c: sum(c) > 0))
def test_kappa_stays_in_range_and_its_interval_holds_it(cells: list[int]) -> None:
    k = cohen_kappa([cells[:2], cells[2:]])
    if k.kappa is not None:
        assert -1.0 - 1e-9 <= k.kappa <= 1.0 + 1e-9
    if k.ci_low is not None:
        assert -1.0 <= k.ci_low <= k.kappa + 1e-9 and k.kappa - 1e-9 <= k.ci_high <= 1.0


def rows(tier: str, case: str, verdicts: list[bool | None], texts: list[str] | None = None) -> dict[str, Any]:
    texts = texts or [f"sentence {i}" for i in range(len(verdicts))]
    return {
        "case_id": case, "tier": tier, "nodeid": f"s.yaml::{case}[{tier}]", "metrics": {},
        "sentences": [
            {"text": t, "citations": ["1"], "supported": v, "score": 0.9 if v else 0.1, "evidence": f"{tier} evidence", "reason": f"{tier} says"}
            for t, v in zip(texts, verdicts)
        ],
    }


def test_compare_counts_agreement_kappa_and_lists_each_disagreement() -> None:
    items = [
        rows("groundedness", "a", [True, True, False]),
        rows("alce", "a", [True, False, False]),
        rows("groundedness", "b", [True, None]),
        rows("alce", "b", [True, True]),
        rows("groundedness", "c", [True]),  # judged by one tier only: not compared
        {"case_id": "d", "tier": "ragas", "metrics": {}, "sentences": []},
    ]
    (pair,) = compare(items)
    assert pair.tiers == ("groundedness", "alce")
    assert (pair.n, pair.agree, pair.unscored) == (4, 3, 1)
    assert pair.table == {"both_supported": 2, "groundedness_only": 1, "alce_only": 0, "neither": 1}
    assert (pair.ci_low, pair.ci_high) == wilson_interval(3, 4)
    assert pair.kappa.kappa == pytest.approx(cohen_kappa([[2, 1], [0, 1]]).kappa)
    (d,) = pair.disagreements
    assert d == {
        "case_id": "a", "sentence_index": 1, "sentence": "sentence 1", "citations": ["1"],
        "verdicts": {"groundedness": True, "alce": False}, "scores": {"groundedness": 0.9, "alce": 0.1},
        "evidence": {"groundedness": "groundedness evidence", "alce": "alce evidence"},
        "reasons": {"groundedness": "groundedness says", "alce": "alce says"},
    }
    report = agreement_report(items)["agreement"][0]
    assert report["tiers"] == ["groundedness", "alce"] and report["rate"] == 0.75
    assert report["kappa"]["kappa"] == pytest.approx(pair.kappa.kappa)
    (title, line) = summary_lines(items)
    assert title == "agreement between tiers on the same sentences (95% CI):"
    assert line.startswith("  groundedness vs alce: 3/4 sentences agree, 75.0% [30.1%, 95.4%]; Cohen's kappa 0.50 [")
    assert line.endswith("; 1 disagreements (1 only groundedness supports, 0 only alce), listed in --sprout-report; 1 unscored by one of them")


def test_the_agreement_line_of_tiers_that_agree_on_every_sentence_shows_a_real_kappa_interval() -> None:
    """The line a run prints: 4 sentences on which both tiers agree (2 supported, 2 not) once read
    "100.0% [51.0%, 100.0%]; Cohen's kappa 1.00 [1.00, 1.00]"; total disagreement [-1.00, -1.00].
    Regression: repro 27 (27-kappa-zero-width-interval)."""
    agree = [rows("groundedness", "a", [True, True, False, False]), rows("alce", "a", [True, True, False, False])]
    assert summary_lines(agree)[1] == ("  groundedness vs alce: 4/4 sentences agree, 100.0% [51.0%, 100.0%]; "
                                       "Cohen's kappa 1.00 [0.02, 1.00]")
    differ = [rows("groundedness", "a", [True, True, False, False]), rows("alce", "a", [False, False, True, True])]
    assert summary_lines(differ)[1].startswith("  groundedness vs alce: 0/4 sentences agree, 0.0% [0.0%, 49.0%]; "
                                               "Cohen's kappa -1.00 [-1.00, -0.02]; 4 disagreements")


def test_compare_matches_sentences_by_text_when_the_tiers_split_differently() -> None:
    items = [
        rows("groundedness", "a", [True, False], ["One.", "Two."]),
        rows("llm", "a", [False, True, True], ["Zero.", "Two.", "One."]),
    ]
    (pair,) = compare(items)
    assert (pair.n, pair.agree) == (2, 1)
    assert [d["sentence"] for d in pair.disagreements] == ["Two."]


def test_one_tier_gives_no_agreement_and_an_undefined_kappa_is_said_in_words() -> None:
    assert compare([rows("groundedness", "a", [True])]) == [] and agreement_report([]) == {}
    assert summary_lines([rows("groundedness", "a", [True])]) == []
    items = [rows("groundedness", "a", [True, True]), rows("alce", "a", [True, True])]
    assert "kappa undefined (both tiers gave every sentence the same verdict)" in summary_lines(items)[1]


# --- a real run: the lexical judge against an NLI model that says yes to everything ---------------


def test_groundedness_and_alce_agreement_and_mutants_in_one_run(
    pytester: pytest.Pytester, yes_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    make_project(pytester, tiers="[groundedness, alce]")
    # In a subprocess: after an in-process run pytester drops the modules the run imported, and
    # torch's cannot be imported a second time in one process.
    result = pytester.runpytest_subprocess(
        "-m", "groundedness or alce", f"--nli-model={yes_model}", "--nli-device=cpu", "--sprout-mutate",
        "--sprout-report=out.json", "-p", "no:randomly", "-p", "no:deepeval", "-p", "no:langsmith_plugin",
    )
    result.stdout.fnmatch_lines([
        "mutation testing*",
        # A judge that says yes to everything is saturated, and mutation testing shows why.
        # The dropped citations (structural, 100%) stay out of the headline.
        "alce: citation_recall saturated (all passed) mean 1.000 (n=3), but its weakest text operator kills 0% of 4 negations [[]0%, 49%[]]*",
        "agreement between tiers on the same sentences (95% CI):",
        "  groundedness vs alce: 3/4 sentences agree, 75.0% [[]30.1%, 95.4%[]]; Cohen's kappa 0.00 (no interval: one tier "
        "gave every sentence the same verdict); 1 disagreements "
        "(0 only groundedness supports, 1 only alce), listed in --sprout-report",
    ])
    report = json.loads((pytester.path / "out.json").read_text(encoding="utf-8"))
    (pair,) = report["agreement"]
    (d,) = pair["disagreements"]
    assert d["sentence"] == "Water a pothos every 3 weeks." and d["verdicts"] == {"groundedness": False, "alce": True}
    assert d["evidence"]["groundedness"] and d["reasons"]["groundedness"].startswith("number 'every 3 weeks'")
    alce_rates = {r["operator"]: r["k"] for r in report["mutation"]["kill_rates"] if r["tier"] == "alce"}
    assert alce_rates["negation"] == 0 and alce_rates["citation_drop"] > 0
