"""The `ragas` tier: Ragas' own non-LLM metrics, called (not re-implemented), with pass thresholds.

- ``context_precision``: Ragas ``NonLLMContextPrecisionWithReference`` with the retrieved passages
  (in rank order) as ``retrieved_contexts`` and the passages the answer cites as
  ``reference_contexts``: high when the cited passages are ranked first.
- ``context_recall``: Ragas ``NonLLMContextRecall`` on the same sample: the share of cited contexts
  that were retrieved. A citation marker that names no retrieved passage (``[7]`` of 3) is a
  reference context the retriever did not return, so it lowers recall.
- ``string_similarity``: Ragas ``NonLLMStringSimilarity`` (Levenshtein) of each expected fact to the
  closest stretch of the answer with about as many words (one more or one fewer), averaged over the
  case's facts.

Every score is continuous (0..1); an item passes when each scored metric reaches its threshold
(``--sprout-threshold ragas.context_precision=0.5`` and so on). A metric Ragas cannot compute for
an item (no citations, nothing retrieved) is unscored for that item.
"""

from __future__ import annotations

import asyncio
import math
import warnings
from typing import Any, Awaitable

from ..core.citations import DEFAULT as DEFAULT_CITATIONS, mode_of
from ..core.model import Answer, GoldenItem
from ..core.tier import TierSettings
from . import TierResult, threshold_reasons, clip
from ._deps import load, missing

OPTIONS = ("sprout_citations",)
# What each metric measures, in the report's metric rows (``description``) and the summary. The two
# context metrics compare the passages the answer cites with the retrieved ones: they check the
# citations, not the retriever (no reference says what should have been retrieved).
DESCRIPTIONS: dict[str, str] = {
    "context_precision": "citation rank: how near the top of the retrieved passages the cited ones rank "
                         "(Ragas NonLLMContextPrecisionWithReference, cited passages as the reference); "
                         "not retrieval precision",
    "context_recall": "citations retrieved: the share of cited passages that are among the retrieved ones "
                      "(Ragas NonLLMContextRecall); 1.0 by construction unless a marker names no retrieved "
                      "passage; not retrieval recall",
    "string_similarity": "expected facts: the Levenshtein similarity of each fact to the closest stretch of "
                         "the answer (Ragas NonLLMStringSimilarity)",
}
SUMMARY_NOTE = ("ragas: context_precision and context_recall check the answer's citations against the retrieved "
                "passages (cited passages ranked first; cited passages retrieved), not the retriever: no "
                "reference says what should have been retrieved, so context_recall is 1.000 by construction "
                "unless a marker names a passage that was not retrieved (docs/llm.md)")
THRESHOLDS: dict[str, float] = {"context_precision": 0.5, "context_recall": 1.0, "string_similarity": 0.8}
# Ragas adds 1e-10 to a denominator (a precision of 1/2 comes back as 0.49999999995): scores are
# rounded to this many places, which removes that and nothing else.
DIGITS = 9
_EDGE_PUNCTUATION = ".,;:!?\"'()[]{}\u201c\u201d\u2018\u2019"


def unavailable(settings: TierSettings) -> str | None:
    return missing("ragas")


def words(text: str) -> list[str]:
    """Lower-cased words with punctuation stripped from their edges (the same for facts and answers)."""
    out = [w.strip(_EDGE_PUNCTUATION) for w in text.lower().split()]
    return [w for w in out if w]


def fact_windows(fact: str, text: str) -> list[str]:
    """The stretches of ``text`` that a fact is compared with: every run of words as long as the
    fact, one word shorter or one word longer."""
    fact_len, tokens = len(words(fact)), words(text)
    if not tokens:
        return []
    sizes = sorted({max(1, fact_len - 1), max(1, fact_len), fact_len + 1})
    windows: list[str] = []
    for size in sizes:
        size = min(size, len(tokens))
        windows.extend(" ".join(tokens[i:i + size]) for i in range(len(tokens) - size + 1))
    return list(dict.fromkeys(windows))


def reference_contexts(answer: Answer, mode: str = DEFAULT_CITATIONS) -> list[str]:
    """The texts of the passages the answer cites, in first-cited order; a citation that names no
    retrieved passage stands as its marker text. In ``retrieved`` mode (core/citations.py) a
    sentence without markers cites every retrieved passage."""
    refs: dict[str, str] = {}
    for sentence in answer.sentences:
        cites = sentence.citations
        if mode == "retrieved" and not cites:
            cites = tuple(p.id for p in answer.passages)
        for cid in cites:
            if cid not in refs:
                passage = answer.passage(cid)
                refs[cid] = passage.text if passage is not None else cid
    return list(refs.values())


def answer_text(answer: Answer) -> str:
    """The answer without citation markers."""
    return " ".join(s.text for s in answer.sentences)


class RagasTier:
    name = "ragas"

    def __init__(self, thresholds: dict[str, float] | None = None, citations: str = DEFAULT_CITATIONS) -> None:
        self.thresholds = {**THRESHOLDS, **(thresholds or {})}
        self.citations = citations  # the run's mode; a case may have its own
        load("ragas", "ragas")
        with warnings.catch_warnings():  # 0.4 keeps these under ragas.metrics only, with a warning
            warnings.simplefilter("ignore", DeprecationWarning)
            from ragas.metrics import NonLLMContextPrecisionWithReference, NonLLMContextRecall
        from ragas.dataset_schema import SingleTurnSample
        from ragas.metrics.collections import NonLLMStringSimilarity

        self._sample = SingleTurnSample
        self.precision = NonLLMContextPrecisionWithReference()
        self.recall = NonLLMContextRecall()
        self.similarity = NonLLMStringSimilarity()

    def settings(self) -> dict[str, Any]:
        import ragas

        return {"ragas": ragas.__version__, "thresholds": self.thresholds, "distance": "levenshtein",
                "citations": self.citations}

    # --- Ragas calls --------------------------------------------------------------------------
    async def _context(self, metric: Any, retrieved: list[str], refs: list[str]) -> float:
        sample = self._sample(retrieved_contexts=retrieved, reference_contexts=refs)
        return float(await metric.single_turn_ascore(sample))

    async def fact_similarity(self, fact: str, text: str) -> tuple[float, str]:
        """The best Ragas string similarity of a fact to a stretch of the text, and that stretch."""
        target = " ".join(words(fact))
        best, where = 0.0, ""
        for window in fact_windows(fact, text):
            result = await self.similarity.ascore(reference=target, response=window)
            if float(result.value) > best:
                best, where = float(result.value), window
        return best, where

    async def _scores(self, item: GoldenItem) -> dict[str, Any]:
        answer = item.answer
        assert answer is not None
        retrieved = [p.text for p in answer.passages]
        mode = mode_of(item.case, self.citations)
        refs = reference_contexts(answer, mode)
        out: dict[str, Any] = {}
        if not refs:
            why = "the answer cites no passage" + (", and the system retrieved none" if mode == "retrieved" else "")
            out["context_precision"] = out["context_recall"] = (None, why)
        elif not retrieved:
            why = "the system retrieved no passage"
            out["context_precision"] = out["context_recall"] = (None, why)
        else:
            out["context_precision"] = await _guard(self._context(self.precision, retrieved, refs))
            out["context_recall"] = await _guard(self._context(self.recall, retrieved, refs))
        facts = item.case.expected_facts
        if facts:
            text = answer_text(answer)
            found = [await self.fact_similarity(f, text) for f in facts]
            out["facts"] = [{"fact": f, "similarity": s, "closest": w} for f, (s, w) in zip(facts, found)]
            out["string_similarity"] = (round(sum(s for s, _ in found) / len(found), DIGITS), None)
        return out

    def evaluate(self, item: GoldenItem) -> TierResult:
        base = self.thresholds
        self.thresholds = {name: item.case.threshold("ragas", name, value) for name, value in base.items()}
        try:
            return self._evaluate(item)
        finally:
            self.thresholds = base

    def _evaluate(self, item: GoldenItem) -> TierResult:
        scores = asyncio.run(self._scores(item))
        metrics: dict[str, list[Any]] = {}
        failed, unscored = [], []
        for name in ("context_precision", "context_recall", "string_similarity"):
            if name not in scores:
                continue
            value, why = scores[name]
            metrics[name] = [value]
            if value is None:
                unscored.append(f"{name} ({why})")
            elif value < self.thresholds[name]:
                failed.append(f"{name} {value:.2f} < {self.thresholds[name]:.2f}")
        extra: dict[str, Any] = {"scores": {k: v[0] for k, v in metrics.items()}}
        if "facts" in scores:
            extra["facts"] = scores["facts"]
        scored = [v for v in extra["scores"].values() if v is not None]
        passed = None if not scored else not failed
        note = ", ".join(unscored)
        if note and scored:  # an item with nothing scored is reported as "unscored: <note>"
            note = f"unscored: {note}"
        message = ""
        if failed:
            message = self._message(item, failed, unscored, scores.get("facts", []))
        reasons = threshold_reasons(extra["scores"], self.thresholds)
        for reason in reasons:
            if reason["metric"] == "string_similarity":
                reason["facts"] = [row for row in scores.get("facts", []) if row["similarity"] < self.thresholds["string_similarity"]]
        return TierResult(passed=passed, metrics=metrics, message=message, note=note, extra=extra, reasons=reasons)

    def _message(self, item: GoldenItem, failed: list[str], unscored: list[str], facts: list[dict[str, Any]]) -> str:
        case, answer = item.case, item.answer
        assert answer is not None
        lines = [f"{case.id} ({case.source or case.suite}): " + "; ".join(failed), f"  question: {case.question}"]
        index = {p.id: i + 1 for i, p in enumerate(answer.passages)}
        cited = list(dict.fromkeys(c for s in answer.sentences for c in s.citations))
        ranks = ", ".join(f"[{index[c]}] {c}" if c in index else f"{c} (not retrieved)" for c in cited)
        lines.append(f"  cited: {ranks or 'nothing'} of {len(answer.passages)} retrieved")
        for row in facts:
            if row["similarity"] < self.thresholds["string_similarity"]:
                lines.append(
                    f"  fact {row['fact']!r}: closest {clip(row['closest'], 80)!r} ({row['similarity']:.2f})"
                )
        if unscored:
            lines.append(f"  unscored: {', '.join(unscored)}")
        lines.append(f"  answer: {clip(answer.render(), 400)}")
        return "\n".join(lines)


async def _guard(call: Awaitable[float]) -> tuple[float | None, str | None]:
    """A Ragas score, or None and why when Ragas raised or returned NaN."""
    try:
        value = await call
    except Exception as exc:  # Ragas asserts and raises on inputs it cannot score
        return None, f"ragas raised {type(exc).__name__}: {clip(str(exc), 120)}"
    if math.isnan(value):
        return None, "ragas returned NaN"
    return round(value, DIGITS), None


def make_tier(settings: TierSettings) -> RagasTier:
    return RagasTier({name: settings.threshold("ragas", name, default) for name, default in THRESHOLDS.items()},
                     settings.option("sprout_citations") or DEFAULT_CITATIONS)
