"""The `llm` tier: Ragas' and DeepEval's LLM-judged metrics against a user-given OpenAI-compatible
endpoint (``--llm-base-url``, ``--llm-model``).

Per item it runs Ragas ``Faithfulness``, ``AnswerRelevancy``, ``ContextPrecision`` and
``ContextRecall`` (through Instructor on an async OpenAI client) and DeepEval's
``FaithfulnessMetric``, ``AnswerRelevancyMetric``, ``ContextualPrecisionMetric`` and
``ContextualRecallMetric`` (through a ``DeepEvalBaseLLM`` adapter on the same client). The four
precision/recall metrics need a reference answer: the case's expected facts; a case without any
does not get them.

Every score is continuous (0..1) and passes at its threshold (``--sprout-threshold
llm.ragas_faithfulness=0.7``; defaults in DEFAULT_THRESHOLDS). A judge error (timeout, HTTP error after retries,
invalid JSON, a refusal, NaN) makes that metric *unscored* for the item: it is counted apart,
never as a pass or a fail. An item with no scored metric is reported as unscored.

pytest runs items one after another, so to keep ``--llm-concurrency`` calls in flight an llm item
whose result is not there yet is judged together with the llm items coming up in this process,
which the run layer hands to ``prepare`` (run.py, upcoming.py): on a plain run the first llm item
judges every selected one and the others read their results; an xdist worker judges those the
controller has already handed it.
"""

from __future__ import annotations

import asyncio
import math
import warnings
from pathlib import Path
from typing import Any, Awaitable, Sequence

from ..core.model import GoldenItem
from ..core.tier import TierSettings
from . import TierResult, clip, threshold_reasons
from ._deps import load, missing

RAGAS_METRICS = ("ragas_faithfulness", "ragas_answer_relevancy", "ragas_context_precision", "ragas_context_recall")
DEEPEVAL_METRICS = (
    "deepeval_faithfulness", "deepeval_answer_relevancy", "deepeval_contextual_precision", "deepeval_contextual_recall",
)
METRICS = RAGAS_METRICS + DEEPEVAL_METRICS
NEEDS_REFERENCE = frozenset(
    {"ragas_context_precision", "ragas_context_recall", "deepeval_contextual_precision", "deepeval_contextual_recall"}
)
NEEDS_CONTEXT = frozenset(METRICS) - {"ragas_answer_relevancy", "deepeval_answer_relevancy"}
# Pass thresholds a careful user would pick (docs/llm.md says why). Faithfulness is the share of
# the answer's claims the contexts support: 0.9 fails an answer with one unsupported claim in five,
# where 0.5 let a half-hallucinated answer pass. Relevancy and recall ask for most, precision (a
# ranking score over a few passages, noisy) for the relevant passages ranked mostly first.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "ragas_faithfulness": 0.9, "deepeval_faithfulness": 0.9,
    "ragas_answer_relevancy": 0.7, "deepeval_answer_relevancy": 0.8,
    "ragas_context_precision": 0.5, "deepeval_contextual_precision": 0.5,
    "ragas_context_recall": 0.8, "deepeval_contextual_recall": 0.8,
}
DEFAULT_THRESHOLD = 0.5  # kept for importers; no metric uses it any more
METRIC_KIND = "mean"  # every metric is a continuous score: with nothing scored it is a mean of n=0, never 0/0
DIGITS = 9  # scores are rounded to 9 places: Ragas' 1e-10 epsilons (0.9999999999) go, nothing else
MINICHECK = "minicheck"  # ALCE citation recall/precision by a grounding checker (judges/minicheck_llm.py)
OPTIONS = ("llm_base_url", "llm_model", "llm_api_key", "llm_timeout", "llm_concurrency", "llm_metrics", "sprout_citations")
CACHE_DIR = "sprout-llm"


def selected_metrics(value: str | None, model: str | None) -> tuple[str, ...]:
    """The metrics ``--llm-metrics`` names. "auto" (the default): ``minicheck`` alone when the
    endpoint's model is a MiniCheck checker (it answers only Yes or No), else the eight Ragas and
    DeepEval metrics. Raises ValueError for an unknown name."""
    from .minicheck import is_minicheck_name

    names = [n.strip() for n in (value or "auto").split(",") if n.strip()]
    if names in ([], ["auto"]):
        return (MINICHECK,) if is_minicheck_name(model or "") else METRICS
    known = (*METRICS, MINICHECK)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"--llm-metrics: unknown metric {', '.join(unknown)}; choose from auto, {', '.join(known)}")
    return tuple(n for n in known if n in names)


def unavailable(settings: TierSettings) -> str | None:
    lacking = missing("llm")
    if lacking:
        return lacking
    if not settings.option("llm_base_url"):
        return "the llm tier needs a judge endpoint: set --llm-base-url (or sprout_llm_base_url in the ini file)"
    return option_problem(settings)


def option_problem(settings: TierSettings) -> str | None:
    """What is wrong with the llm options themselves (not with what is installed): checked at
    start, where it is a usage error, so that a bad value never skips the tier on a green run."""
    base_url = settings.option("llm_base_url")
    if base_url and not settings.option("llm_model"):
        return "the llm tier needs a model name at the endpoint: set --llm-model (or sprout_llm_model in the ini file)"
    concurrency, timeout = settings.option("llm_concurrency"), settings.option("llm_timeout")
    if concurrency is not None and concurrency < 1:
        return f"--llm-concurrency must be at least 1, got {concurrency}"
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        return f"--llm-timeout must be a positive number of seconds, got {timeout}"
    try:
        selected_metrics(settings.option("llm_metrics"), settings.option("llm_model"))
    except ValueError as exc:
        return str(exc)
    return None


def reference_text(facts: tuple[str, ...]) -> str:
    """The case's expected facts as a reference answer, one sentence per fact."""
    return " ".join(f if f.rstrip().endswith((".", "!", "?")) else f"{f.rstrip()}." for f in facts)


def make_deepeval_judge(client: Any) -> Any:
    """A DeepEval model that sends every prompt to the shared endpoint client."""
    from deepeval.models import DeepEvalBaseLLM

    from ._llm_client import JudgeRefused

    class EndpointJudge(DeepEvalBaseLLM):
        """DeepEval's judge interface on pytest-sprout's shared OpenAI-compatible client."""

        def __init__(self) -> None:
            self.client = client
            super().__init__(client.model)

        def load_model(self) -> Any:
            return self.client.openai

        async def a_generate(self, prompt: str, schema: Any = None) -> str:
            extra = {"response_format": {"type": "json_object"}} if schema is not None else {}
            completion = await self.client.openai.chat.completions.create(
                model=self.client.model,
                messages=[{"role": "user", "content": prompt}],
                temperature=0,
                **extra,
            )
            message = completion.choices[0].message
            if not message.content:  # (a refusal never gets here: the transport raises it)
                raise JudgeRefused("an empty answer")
            return message.content  # DeepEval parses (and tolerates) the JSON itself

        def generate(self, prompt: str, schema: Any = None) -> str:
            return self.client.run(self.a_generate(prompt, schema))

        def get_model_name(self) -> str:
            return f"{self.client.model} at {self.client.base_url}"

    return EndpointJudge()


class LLMTier:
    name = "llm"

    def __init__(
        self,
        client: Any,
        thresholds: dict[str, float] | None = None,
        metrics: tuple[str, ...] = METRICS,
        minicheck: dict[str, float] | None = None,
        citations: str = "required",
    ) -> None:
        self.client = client
        self.citations = citations  # the run's mode (minicheck's citation recall/precision); a case may have its own
        self.thresholds = dict(DEFAULT_THRESHOLDS)
        self.thresholds.update(thresholds or {})
        self._results: dict[GoldenItem, TierResult] = {}
        self.metrics = metrics
        self.minicheck: Any = None
        self.ragas: dict[str, Any] = {}
        self._versions: dict[str, str] = {}
        if MINICHECK in metrics:
            from .minicheck_llm import DEFAULTS, EndpointChecker

            self.minicheck = EndpointChecker(client, {**DEFAULTS, **(minicheck or {})})
        if any(name in metrics for name in METRICS):
            self._load_frameworks(client)

    def _load_frameworks(self, client: Any) -> None:
        """Ragas' and DeepEval's metrics on the shared client (only when one of theirs is run)."""
        load("ragas", "llm")
        deepeval = load("deepeval", "llm")
        from deepeval.metrics import (
            AnswerRelevancyMetric,
            ContextualPrecisionMetric,
            ContextualRecallMetric,
            FaithfulnessMetric,
        )
        from ragas.embeddings import OpenAIEmbeddings
        from ragas.llms import llm_factory
        from ragas.metrics.collections import AnswerRelevancy, ContextPrecision, ContextRecall, Faithfulness

        # max_retries=1: one Instructor attempt per prompt. Its default (3) repeats a call after
        # any error, timeouts and HTTP errors included, on top of the transport's retries; here a
        # reply that does not parse is reported as unscored, as DeepEval's are.
        llm = llm_factory(client.model, provider="openai", client=client.openai, max_retries=1)
        embeddings = OpenAIEmbeddings(client=client.openai, model=client.model)
        self.ragas = {
            "ragas_faithfulness": Faithfulness(llm=llm),
            "ragas_answer_relevancy": AnswerRelevancy(llm=llm, embeddings=embeddings),
            "ragas_context_precision": ContextPrecision(llm=llm),
            "ragas_context_recall": ContextRecall(llm=llm),
        }
        self.deepeval_classes = {
            "deepeval_faithfulness": FaithfulnessMetric,
            "deepeval_answer_relevancy": AnswerRelevancyMetric,
            "deepeval_contextual_precision": ContextualPrecisionMetric,
            "deepeval_contextual_recall": ContextualRecallMetric,
        }
        self.deepeval_judge = make_deepeval_judge(client)
        import ragas

        self._versions = {"ragas": ragas.__version__, "deepeval": str(getattr(deepeval, "__version__", "?"))}

    def settings(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.metrics != METRICS:
            extra["metrics"] = list(self.metrics)
        if self.minicheck is not None:
            extra["minicheck"] = self.minicheck.settings()
            extra["citations"] = self.citations
        return {
            "base_url": self.client.base_url,
            "model": self.client.model,
            "thresholds": self.thresholds,
            **self._versions,
            **extra,
        }

    # --- judging ------------------------------------------------------------------------------
    def prepared(self, item: GoldenItem) -> bool:
        return item in self._results

    def prepare(self, items: Sequence[GoldenItem]) -> None:
        """Judge these items together (``--llm-concurrency`` calls in flight); evaluate() reads
        each result back once. The run layer hands it an item about to be judged and the llm
        items coming up after it in this process."""
        batch = list(dict.fromkeys(item for item in items if item not in self._results))
        if not batch:
            return
        with warnings.catch_warnings():  # Instructor warns about its own deprecated modes on every call
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="instructor")
            self._results.update(self.client.run(self.judge_many(batch)))

    def evaluate(self, item: GoldenItem) -> TierResult:
        if item not in self._results:
            self.prepare([item])
        return self._results.pop(item)

    def close(self) -> None:
        """At the end of the run: close the endpoint client."""
        self.client.close()

    async def judge_many(self, items: list[GoldenItem]) -> dict[GoldenItem, TierResult]:
        results = await asyncio.gather(*(self.judge_item(item) for item in items))
        return dict(zip(items, results))

    async def judge_item(self, item: GoldenItem) -> TierResult:
        case, answer = item.case, item.answer
        assert answer is not None
        question = case.question
        response = " ".join(s.text for s in answer.sentences)
        contexts = [p.text for p in answer.passages]
        reference = reference_text(case.expected_facts)
        calls: dict[str, Awaitable[tuple[float, list[str]]]] = {}
        skipped: dict[str, str] = {}
        for name in METRICS:
            if name not in self.metrics:
                continue
            if name in NEEDS_REFERENCE and not reference:
                continue  # not applicable: the case has no expected facts
            if name in NEEDS_CONTEXT and not contexts:
                skipped[name] = "the system retrieved no passage"
            elif not response:
                skipped[name] = "the answer is empty"
            elif name in self.ragas:
                calls[name] = self._ragas(name, question, response, contexts, reference)
            else:
                calls[name] = self._deepeval(name, question, response, contexts, reference)
        from ..core.citations import mode_of

        checked = self.minicheck.score(answer, mode_of(item.case, self.citations)) if self.minicheck is not None else None
        outcomes = await asyncio.gather(*(self._guard(call) for call in calls.values()), *([checked] if checked else []))
        scored = dict(zip(calls, outcomes))
        for name, why in skipped.items():
            scored[name] = (None, why, [])
        result = self._result(item, {name: scored[name] for name in METRICS if name in scored})
        if self.minicheck is not None:
            result = self.minicheck.merge(item, result, outcomes[-1])
        return result

    async def _ragas(self, name: str, question: str, response: str, contexts: list[str], reference: str) -> tuple[float, list[str]]:
        metric = self.ragas[name]
        if name == "ragas_faithfulness":
            result = await metric.ascore(user_input=question, response=response, retrieved_contexts=contexts)
        elif name == "ragas_answer_relevancy":
            result = await metric.ascore(user_input=question, response=response)
        else:
            result = await metric.ascore(user_input=question, reference=reference, retrieved_contexts=contexts)
        return float(result.value), []

    async def _deepeval(self, name: str, question: str, response: str, contexts: list[str], reference: str) -> tuple[float, list[str]]:
        from deepeval.test_case import LLMTestCase

        # A fresh metric per item: DeepEval keeps each measurement's state on the metric object.
        metric = self.deepeval_classes[name](
            threshold=self.thresholds[name], model=self.deepeval_judge, include_reason=False, async_mode=True
        )
        retrieval: list[Any] = list(contexts)  # the field is list[str | RetrievedContextData]: a list is invariant
        case = LLMTestCase(
            input=question, actual_output=response, retrieval_context=retrieval, expected_output=reference or None
        )
        await metric.a_measure(case, _show_indicator=False)
        reasons = [
            str(v.reason) for v in (getattr(metric, "verdicts", None) or [])
            if str(getattr(v, "verdict", "")).lower().endswith("no") and getattr(v, "reason", None)
        ]
        return float(metric.score), reasons

    async def _guard(self, call: Awaitable[tuple[float, list[str]]]) -> tuple[float | None, str | None, list[str]]:
        """(score, None, details) or (None, why unscored, [])."""
        from ._llm_client import describe_error

        try:
            value, details = await call
        except Exception as exc:  # any judge failure is this metric's, never the run's
            return None, describe_error(exc, self.client.timeout), []
        if math.isnan(value):
            return None, "the metric came out NaN", []
        if not 0.0 <= value <= 1.0:
            return None, f"score {value!r} is outside 0..1", []
        return round(value, DIGITS), None, details

    def _result(self, item: GoldenItem, scored: dict[str, tuple[float | None, str | None, list[str]]]) -> TierResult:
        base = self.thresholds
        self.thresholds = {name: item.case.threshold("llm", name, value) for name, value in base.items()}
        try:
            return self._scored_result(item, scored)
        finally:
            self.thresholds = base

    def _scored_result(self, item: GoldenItem, scored: dict[str, tuple[float | None, str | None, list[str]]]) -> TierResult:
        metrics: dict[str, list[Any]] = {}
        failed: list[str] = []
        details: list[str] = []
        unscored: dict[str, str] = {}
        for name, (value, why, judge_reasons) in scored.items():
            metrics[name] = [value]
            if value is None:
                unscored[name] = why or "unscored"
            elif value < self.thresholds[name]:
                failed.append(f"{name} {value:.2f} < {self.thresholds[name]:.2f}")
                details += [f"  {name}: {clip(r, 200)}" for r in judge_reasons[:3]]
        has_score = any(v[0] is not None for v in metrics.values())
        passed = (not failed) if has_score else None
        note = ", ".join(f"{k} ({v})" for k, v in unscored.items())
        if note and has_score:  # an item with nothing scored is reported as "unscored: <note>"
            note = f"unscored: {note}"
        message = ""
        if failed:
            case, answer = item.case, item.answer
            assert answer is not None
            lines = [f"{case.id} ({case.source or case.suite}): " + "; ".join(failed), f"  question: {case.question}"]
            lines += details
            if unscored:
                lines.append(f"  {note}")
            lines.append(f"  answer: {clip(answer.render(), 400)}")
            message = "\n".join(lines)
        extra = {"scores": {k: v[0] for k, v in metrics.items()}}
        if unscored:
            extra["unscored"] = unscored
        reasons = threshold_reasons(extra["scores"], self.thresholds)
        for reason in reasons:
            reason["judge_reasons"] = [clip(r, 300) for r in scored[reason["metric"]][2][:3]]
        return TierResult(passed=passed, metrics=metrics, message=message, note=note, extra=extra, reasons=reasons)


def make_tier(settings: TierSettings) -> LLMTier:
    from ..core import secret

    load("openai", "llm")
    from ._llm_client import LLMClient

    cache_dir = Path(settings.cache_dir(CACHE_DIR)) if settings.cache_dir is not None else None
    client = LLMClient(
        settings.option("llm_base_url"),
        settings.option("llm_model"),
        api_key=secret.api_key(settings.option("llm_api_key")),
        timeout=settings.option("llm_timeout"),
        concurrency=settings.option("llm_concurrency"),
        cache_dir=cache_dir,
    )
    thresholds = {name: settings.threshold("llm", name, DEFAULT_THRESHOLDS[name]) for name in METRICS}
    from .minicheck_llm import settings_from

    try:
        metrics = selected_metrics(settings.option("llm_metrics"), settings.option("llm_model"))
        return LLMTier(client, thresholds, metrics, settings_from(settings), settings.option("sprout_citations") or "required")
    except BaseException:  # the tier is not built: nothing else will close its client
        client.close()
        raise
