"""The llm tier's ``minicheck`` metric against the loopback stand-in checker
(tests/fake_llm_server.py): MiniCheck's prompt, logprobs or text, a server that refuses logprobs,
chunking and the max over chunks, ALCE's arithmetic, unscored calls, caching and concurrency."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from fake_llm_server import FakeLLMServer, Reply
from helpers import make_project
from pytest_sprout.judges import minicheck
from pytest_sprout.judges._llm_client import LLMClient
from pytest_sprout.judges.llm import METRICS, selected_metrics
from pytest_sprout.judges.minicheck_llm import DEFAULTS, EndpointChecker
from pytest_sprout.core.model import Answer, Passage, Sentence


pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def run(pytester: pytest.Pytester, fake: FakeLLMServer, *args: str, model: str = "bespoke-minicheck") -> pytest.RunResult:
    return pytester.runpytest("-m", "llm", "-p", "no:randomly", "-p", "no:deepeval", f"--llm-base-url={fake.url}",
                              f"--llm-model={model}", "--sprout-report=out.json", "-rs", *args)


def items(pytester: pytest.Pytester) -> dict[str, Any]:
    return {row["case_id"]: row for row in json.loads((pytester.path / "out.json").read_text())["items"]}


def test_metric_choice() -> None:
    assert selected_metrics("auto", "bespoke-minicheck") == ("minicheck",)
    assert selected_metrics(None, "bespokelabs/Bespoke-MiniCheck-7B") == ("minicheck",)
    assert selected_metrics("auto", "qwen2.5:3b") == METRICS
    assert selected_metrics("minicheck, ragas_faithfulness", "qwen2.5:3b") == ("ragas_faithfulness", "minicheck")
    with pytest.raises(ValueError, match="unknown metric nope"):
        selected_metrics("minicheck,nope", "x")


def test_minicheck_model_gets_alce_recall_and_precision(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake)
    # pothos-water: "every 3 weeks" against "every 1 to 2 weeks": the stand-in checker says No.
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*pothos-water (suites/care.yaml:*): minicheck_citation_recall 0.00 < 1.00 (0 of 1 sentences supported by their citations)",
        "*x sentence 1: 'Water a pothos every 3 weeks.'",
        "*why: not supported: p(yes) 0.10 < 0.50*",
        "llm*minicheck_citation_recall *n=3*0.667 mean*",
        "llm*minicheck_citation_recall_sentence*3/4*",
    ])
    rows = items(pytester)
    assert rows["snake-light"]["metrics"]["minicheck_citation_recall"] == [1.0]
    assert rows["snake-light"]["metrics"]["minicheck_citation_precision_citation"] == [True, True]
    assert rows["snake-light"]["sentences"][0]["reason"] == "supported: p(yes) 0.90"
    assert set(rows["snake-light"]["metrics"]) == {
        "minicheck_citation_recall", "minicheck_citation_precision",
        "minicheck_citation_recall_sentence", "minicheck_citation_precision_citation"}
    # One call per (passage, sentence), MiniCheck's prompt, nothing else asked (no Ragas, no embeddings).
    assert (fake.chat_calls, fake.embedding_calls) == (4, 0)
    assert ("Peace lilies contain calcium oxalate crystals and are toxic to cats and dogs.",
            "Peace lilies are toxic to cats.") in fake.checks
    assert fake.prompts[0].startswith(minicheck.SYSTEM_PROMPT + "\nDocument: ")
    # A second run is answered by the response cache.
    fake.reset_counts()
    run(pytester, fake).assert_outcomes(passed=2, failed=1, skipped=1)
    assert fake.chat_calls == 0


@pytest.mark.parametrize("mode", ["send", "ignore", "reject"])
def test_yes_no_from_logprobs_or_from_the_text(fake: FakeLLMServer, mode: str) -> None:
    fake.logprobs = mode
    fake.yes_prob = lambda document, claim: 0.7 if "light" in document else 0.3
    client = LLMClient(fake.url, "bespoke-minicheck", concurrency=2)
    try:
        checker = EndpointChecker(client, dict(DEFAULTS))
        answer = Answer((Sentence("Snake plants like light.", ("1",)), Sentence("Ferns like air.", ("2",))),
                        (Passage("1", "Snake plants tolerate low light."), Passage("2", "Ferns like humid air.")))
        outcome = client.run(checker.score(answer))
    finally:
        client.close()
    assert outcome.score is not None and outcome.score.recall == 0.5
    first, second = (s.verdict for s in outcome.score.sentences)
    expected = {"send": (0.7, 0.3), "ignore": (1.0, 0.0), "reject": (1.0, 0.0)}[mode]
    assert (first.score, second.score) == pytest.approx(expected)
    assert checker.logprobs is {"send": True, "ignore": None, "reject": False}[mode]
    # A server that refuses the parameter costs one extra call per question in flight when the
    # first refusal comes back (here both); later questions are asked without it.
    assert fake.chat_calls == (4 if mode == "reject" else 2)


def test_long_premise_is_chunked_and_the_best_chunk_decides(fake: FakeLLMServer) -> None:
    passage = " ".join(f"Sentence number {i} is about plants." for i in range(12))  # 6 words each
    scores = {"Sentence number 7 is about plants.": 0.8, "Sentence number 2 is about plants.": 0.6}

    def yes_prob(document: str, claim: str) -> float:
        return max([p for s, p in scores.items() if s in document] or [0.2])

    fake.yes_prob = yes_prob
    client = LLMClient(fake.url, "bespoke-minicheck", concurrency=3)
    try:
        checker = EndpointChecker(client, {**DEFAULTS, "minicheck_chunk_words": 12})
        answer = Answer((Sentence("Number seven is about plants.", ("1",)),), (Passage("1", passage, title="Notes"),))
        outcome = client.run(checker.score(answer))
    finally:
        client.close()
    premise = f"Title: Notes\n{passage}"
    chunks = [c.text for c in minicheck.chunk_document(premise, 12)]
    assert [d for d, _ in fake.checks] == chunks or sorted(d for d, _ in fake.checks) == sorted(chunks)
    assert len(chunks) == 7  # the title line, then two sentences per chunk
    verdict = outcome.score.sentences[0].verdict
    assert verdict.score == pytest.approx(0.8) and verdict.supported
    assert verdict.evidence == next(c for c in chunks if "number 7" in c)
    assert verdict.reason == "supported: p(yes) 0.80 (best of 7 chunks)"
    assert fake.max_in_flight <= 3


def test_precision_asks_single_citations_like_alce(fake: FakeLLMServer) -> None:
    # Two citations, jointly supporting; [1] alone does, [2] alone does not, and [1] without [2]
    # still does: [2] is irrelevant. Recall 1, precision 1/2 (ALCE's arithmetic).
    fake.yes_prob = lambda document, claim: 0.9 if "low light" in document else 0.1
    client = LLMClient(fake.url, "bespoke-minicheck")
    try:
        checker = EndpointChecker(client, dict(DEFAULTS))
        answer = Answer((Sentence("Snake plants tolerate low light.", ("1", "2")),),
                        (Passage("1", "Snake plants tolerate low light."), Passage("2", "Ferns like humid air.")))
        outcome = client.run(checker.score(answer))
    finally:
        client.close()
    assert (outcome.score.recall, outcome.score.precision) == (1.0, 0.5)
    assert outcome.score.sentences[0].relevant == [True, False]


def test_failed_or_unreadable_answers_leave_the_metrics_unscored(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    def rule(prompt: str) -> Reply | None:
        if "Peace lilies" in prompt:
            return Reply(content="I think so")
        if "snake plant" in prompt.lower():
            return Reply(status=500)
        return None

    fake.rule = rule
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, "--llm-timeout=5")
    result.assert_outcomes(failed=1, skipped=3)  # pothos-water still fails; the others have no score
    rows = items(pytester)
    assert rows["lily-cats"]["metrics"]["minicheck_citation_recall"] == [None]
    assert rows["lily-cats"]["note"] == "minicheck (the checker answered 'I think so', not Yes or No)"
    assert rows["snake-light"]["extra"]["unscored"] == {"minicheck": "HTTP 500 from the endpoint"}
    result.stdout.fnmatch_lines(["llm*minicheck_citation_recall *n=1*2 unscored*"])


def test_minicheck_beside_the_framework_metrics_and_unknown_names(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, "--llm-metrics=minicheck,ragas_faithfulness", "-k", "snake", model="qwen")
    result.assert_outcomes(passed=1, deselected=3)
    row = items(pytester)["snake-light"]
    assert set(row["metrics"]) >= {"ragas_faithfulness", "minicheck_citation_recall"}
    assert "deepeval_faithfulness" not in row["metrics"]
    bad = run(pytester, fake, "--llm-metrics=nope")
    assert "unknown metric nope" in bad.stdout.str() + bad.stderr.str()


@pytest.mark.parametrize("retrieved", [3, 12])
def test_retrieved_mode_is_bounded_by_max_retrieved(fake: FakeLLMServer, retrieved: int) -> None:
    # An uncited sentence in retrieved mode is judged against the llm.minicheck_max_retrieved
    # passages that share the most words with it (the alce tier's pre-rank), so the calls and the
    # citation counts stop growing with the retrieved set.
    fake.yes_prob = lambda document, claim: 0.9 if "low light" in document else 0.1
    others = [Passage(str(i), f"Unrelated note {i} about garden tools and soil.") for i in range(2, retrieved + 1)]
    answer = Answer((Sentence("Snake plants tolerate low light.", ()),),
                    (*others, Passage("1", "Snake plants tolerate low light.")))
    client = LLMClient(fake.url, "bespoke-minicheck")
    try:
        checker = EndpointChecker(client, {**DEFAULTS, "minicheck_max_retrieved": 2})
        outcome = client.run(checker.score(answer, "retrieved"))
    finally:
        client.close()
    sentence = outcome.score.sentences[0]
    assert sentence.retrieved and sentence.verdict.supported
    assert len(sentence.used) == 2 and "1" in sentence.used  # the passage sharing the most words is kept
    assert len(outcome.score.citations) == 2
    # One joint premise (one chunk), then each of the two used passages alone: 3 questions at any size.
    assert fake.chat_calls == checker.calls == 3
    assert checker.settings()["max_retrieved"] == 2


def test_max_retrieved_setting_is_a_whole_run_count() -> None:
    from pytest_sprout.core.option_values import threshold_problem

    assert threshold_problem("llm", "minicheck_max_retrieved", 20) is None
    assert "must be a whole number" in str(threshold_problem("llm", "minicheck_max_retrieved", 2.5))
    assert "out of range" in str(threshold_problem("llm", "minicheck_max_retrieved", 0))
    assert "whole run" in str(threshold_problem("llm", "minicheck_max_retrieved", 3, per_case=True))
