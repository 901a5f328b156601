"""The `ragas` tier: Ragas' own non-LLM metrics, recomputed here with Ragas directly; thresholds,
unscored items, a missing extra and the telemetry environment."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import warnings
from typing import Any

import pytest

from helpers import make_project
from pytest_sprout.judges import _deps
from pytest_sprout.judges.ragas_tier import RagasTier, fact_windows, reference_contexts, words
from pytest_sprout.core.model import Answer, Case, GoldenItem

pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run

PASSAGES = [
    "Pothos grow in most light but not in direct afternoon sun.",
    "Water a pothos when the top 5 cm of soil is dry, about every 1 to 2 weeks.",
    "Snake plants tolerate low light and grow faster in bright indirect light.",
]


# The test process must never send telemetry: opt out for all of it (the tier would do so anyway).
_deps.quiet_env()


@pytest.fixture(scope="module")
def tier() -> RagasTier:
    return RagasTier()


def item(text: str, facts: tuple[str, ...] = ("every 1 to 2 weeks",), passages: list[str] = PASSAGES) -> GoldenItem:
    case = Case(id="pothos", suite="care", question="How often should I water a pothos?", expected_facts=facts)
    return GoldenItem(case, Answer.from_text(text, passages))


def ragas_direct(retrieved: list[str], refs: list[str]) -> tuple[float, float]:
    """Context precision and recall computed by calling Ragas here, without the tier."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ragas.metrics import NonLLMContextPrecisionWithReference, NonLLMContextRecall
    from ragas.dataset_schema import SingleTurnSample

    sample = SingleTurnSample(retrieved_contexts=retrieved, reference_contexts=refs)

    async def both() -> tuple[float, float]:
        return (
            await NonLLMContextPrecisionWithReference().single_turn_ascore(sample),
            await NonLLMContextRecall().single_turn_ascore(sample),
        )

    return asyncio.run(both())


def similarity_direct(fact: str, text: str) -> float:
    from ragas.metrics.collections import NonLLMStringSimilarity

    metric = NonLLMStringSimilarity()

    async def best() -> float:
        target = " ".join(words(fact))
        return max([(await metric.ascore(reference=target, response=w)).value for w in fact_windows(fact, text)])

    return asyncio.run(best())


@pytest.mark.parametrize(
    "text, facts",
    [
        ("Water a pothos about every 1 to 2 weeks [2].", ("every 1 to 2 weeks",)),
        ("Keep pothos out of afternoon sun [1]. Water it every 3 weeks [2].", ("every 1 to 2 weeks", "afternoon sun")),
        ("Water it when the soil is dry [2][3]. It likes bright light [7].", ("top 5 cm of soil",)),
    ],
    ids=["cited-second", "two-citations", "bad-citation"],
)
def test_scores_are_ragas_own_numbers(tier: RagasTier, text: str, facts: tuple[str, ...]) -> None:
    golden = item(text, facts)
    result = tier.evaluate(golden)
    precision, recall = ragas_direct(PASSAGES, reference_contexts(golden.answer))
    scores = result.extra["scores"]
    assert scores["context_precision"] == pytest.approx(precision, abs=1e-9)
    assert scores["context_recall"] == pytest.approx(recall, abs=1e-9)
    expected_similarity = sum(similarity_direct(f, " ".join(s.text for s in golden.answer.sentences)) for f in facts) / len(facts)
    assert scores["string_similarity"] == pytest.approx(expected_similarity, abs=1e-9)
    assert result.metrics == {name: [value] for name, value in scores.items()}


def test_known_values(tier: RagasTier) -> None:
    # Cited passage ranked 2nd of 3: average precision 1/2. The [7] marker names no retrieved
    # passage: one of two reference contexts was not retrieved, recall 1/2.
    result = tier.evaluate(item("Water it every 1 to 2 weeks [2]. Pothos like bright light [7].", ("every 1 to 2 weeks",)))
    assert result.extra["scores"] == {"context_precision": 0.5, "context_recall": 0.5, "string_similarity": 1.0}
    assert result.passed is False
    assert "context_recall 0.50 < 1.00" in result.message
    assert "[7] (not retrieved)" in result.message
    # One letter off over 22 characters: 1 - 1/22.
    near = tier.evaluate(item("Water it whenever bright indirect light hits [2].", ("bright indirect lights",)))
    assert near.extra["scores"]["string_similarity"] == pytest.approx(1 - 1 / 22)


def test_uncited_answer_is_unscored_not_failed(tier: RagasTier) -> None:
    result = tier.evaluate(item("Water a pothos every 1 to 2 weeks.", ()))
    assert result.passed is None
    assert result.metrics == {"context_precision": [None], "context_recall": [None]}
    assert result.note == "context_precision (the answer cites no passage), context_recall (the answer cites no passage)"
    # With a fact to score, the item passes or fails on that and says what was unscored.
    partly = tier.evaluate(item("Water a pothos every 1 to 2 weeks.", ("every 1 to 2 weeks",)))
    assert partly.passed is True and partly.metrics["string_similarity"] == [1.0]
    assert partly.note.startswith("unscored: context_precision (the answer cites no passage)")


def test_thresholds_change_the_verdict() -> None:
    golden = item("Water it every 1 to 2 weeks [2].")
    assert RagasTier().evaluate(golden).passed is True
    strict = RagasTier({"context_precision": 0.9})
    result = strict.evaluate(golden)
    assert result.passed is False and "context_precision 0.50 < 0.90" in result.message
    assert strict.settings()["thresholds"]["context_precision"] == 0.9


def test_fact_windows_cover_one_word_more_and_less() -> None:
    assert fact_windows("low light", "Tolerates low light.") == [
        "tolerates", "low", "light", "tolerates low", "low light", "tolerates low light",
    ]
    assert fact_windows("x", "") == []


def test_run_through_pytest(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[ragas]")
    pytester.makeini("[pytest]\nsprout_thresholds =\n    ragas.string_similarity=0.9\n")
    result = pytester.runpytest("-m", "ragas", "-p", "no:randomly", "-p", "no:deepeval", "--sprout-report=out.json", "-rs")
    # pothos-water's fact "every" is present and its one cited passage ranks first: all pass; the
    # refusal has nothing for this tier to judge.
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines([
        "*= sprout =*",
        "ragas*context_precision*n=3*1.000 mean*",
        "ragas*string_similarity*n=3*1.000 mean*",
    ])
    report = json.loads((pytester.path / "out.json").read_text())
    rows = {row["case_id"]: row for row in report["items"] if row["tier"] == "ragas"}
    assert rows["snake-light"]["metrics"] == {"context_precision": [1.0], "context_recall": [1.0], "string_similarity": [1.0]}
    # A fact the answer does not contain fails snake-light on string similarity (a threshold above 1
    # to force failures is now a usage error, as it is for every threshold).
    suite = pytester.path / "suites" / "care.yaml"
    suite.write_text(suite.read_text().replace('["low light"]', '["full sun"]'))
    failing = pytester.runpytest_subprocess("-m", "ragas", "-p", "no:randomly", "-p", "no:deepeval")
    failing.assert_outcomes(passed=2, failed=1, skipped=1)
    failing.stdout.fnmatch_lines(["*snake-light*string_similarity 0.* < 0.90*", "*cited: [[]1[]] 1 of 1 retrieved*",
                                  "*fact 'full sun': closest*"])
    assert "Traceback" not in failing.stdout.str()


def test_missing_extra_is_one_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_ragas(name: str, *args: Any) -> Any:
        return None if name == "ragas" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_ragas)
    assert _deps.missing("ragas") == 'the ragas tier needs ragas: pip install "pytest-sprout[ragas]"'
    assert "pip install \"pytest-sprout[llm]\"" in _deps.missing("llm")
    make_project(pytester, tiers="[ragas]")
    result = pytester.runpytest("-m", "ragas", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(['*-m ragas: the ragas tier needs ragas: pip install "pytest-sprout[[]ragas[]]"'])
    skipped = pytester.runpytest("-rs", "-p", "no:deepeval")
    skipped.assert_outcomes(skipped=4)
    skipped.stdout.fnmatch_lines(['*pip install "pytest-sprout[[]ragas[]]"*'])


def test_quiet_env_respects_the_user(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in _deps.QUIET_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "0")
    _deps.quiet_env()
    assert os.environ["RAGAS_DO_NOT_TRACK"] == "true"
    assert os.environ["DEEPEVAL_DISABLE_DOTENV"] == "1"
    assert os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] == "0"  # the user's choice stands
