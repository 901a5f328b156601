"""The llm tier's ``minicheck`` metric: ALCE citation recall and precision, judged by a grounding
checker behind the OpenAI-compatible endpoint (Bespoke-MiniCheck-7B, e.g. Ollama's
``bespoke-minicheck``), asked the way it was trained.

Per (premise, sentence) that ALCE's arithmetic asks about (alce.score_answers, the same code as
the alce tier), the premise (cited passages, ALCE-formatted) is cut into sentence-aligned chunks
of at most ``llm.minicheck_chunk_words`` words (minicheck.chunk_document) and the checker gets
MiniCheck's system and user prompt once per (chunk, sentence of the claim), with ``max_tokens=1``,
``temperature=0`` and the 5 most likely first tokens asked for. P(supported) is the summed
probability of those that read "yes"; a server that sends no logprobs is read from its text (Yes
1.0, No 0.0), and one that refuses the ``logprobs`` parameter (HTTP 400) is asked again without it,
for the rest of the run. The claim's score is the max over chunks (min over its sentences); it is
entailed at ``llm.minicheck_entailment`` (0.5). In ``retrieved`` citations mode an uncited sentence
is judged against at most ``llm.minicheck_max_retrieved`` (5) retrieved passages, chosen by the alce
tier's word-overlap pre-rank, so that neither the calls nor the citation counts grow with retrieval.

Calls go through the tier's shared client: its concurrency bound, retries, timeout and response
cache. A call that fails (timeout, HTTP error, a reply that is neither Yes nor No) leaves the
item's two metrics unscored with the reason, never a pass or a fail.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..core.model import Answer, GoldenItem, Passage, Verdict
from . import TierResult, describe_sentences
from .alce import MAX_RETRIEVED
from .minicheck import (
    ENDPOINT_CHUNK_WORDS,
    TOP_LOGPROBS,
    UnreadableAnswer,
    aggregate,
    chunk_document,
    claim_sentences,
    messages,
    splitter,
    support_from_logprobs,
    support_from_text,
)

METRIC = "minicheck"
RECALL, PRECISION = "minicheck_citation_recall", "minicheck_citation_precision"
DEFAULTS = {  # --sprout-threshold llm.NAME=VALUE
    RECALL: 1.0,  # as alce.recall: every sentence entailed by its citations
    PRECISION: 0.0,  # as alce.precision: over-citing is reported, not failed
    "minicheck_entailment": 0.5,
    "minicheck_chunk_words": float(ENDPOINT_CHUNK_WORDS),
    "minicheck_max_citations": 3.0,
    "minicheck_max_retrieved": float(MAX_RETRIEVED),  # as alce.max_retrieved: retrieved mode's bound
}


class _Pending(Exception):
    """ALCE's arithmetic asked about pairs not judged yet (they are in ``missing``)."""


@dataclass
class Outcome:
    score: Any = None  # alce.AnswerScore, or None
    why: str | None = None  # why unscored


class EndpointChecker:
    """Judges (premise, claim) pairs with a MiniCheck-style checker at the endpoint."""

    def __init__(self, client: Any, settings: dict[str, float]) -> None:
        self.client = client
        self.threshold = settings["minicheck_entailment"]
        self.chunk_words = max(1, int(settings["minicheck_chunk_words"]))
        self.max_citations = int(settings["minicheck_max_citations"])
        self.max_retrieved = int(settings["minicheck_max_retrieved"])
        self.recall = settings[RECALL]
        self.precision = settings[PRECISION]
        self.logprobs: bool | None = None  # None: not known yet whether the server accepts them
        self._memo: dict[tuple[str, str], Verdict | BaseException] = {}
        self._running: dict[tuple[str, str], asyncio.Future[None]] = {}
        self.calls = 0  # (chunk, sentence) questions asked (the response cache may answer them)

    def settings(self) -> dict[str, Any]:
        return {"entailment": self.threshold, "chunk_words": self.chunk_words, "max_citations": self.max_citations,
                "max_retrieved": self.max_retrieved, "splitter": splitter(), "recall": self.recall, "precision": self.precision}

    # --- one question ---------------------------------------------------------------------------
    async def ask(self, chunk: str, sentence: str) -> float:
        """P(supported) of one sentence given one chunk."""
        from openai import BadRequestError

        request: dict[str, Any] = {"model": self.client.model, "messages": messages(chunk, sentence),
                                   "temperature": 0, "max_tokens": 1}
        self.calls += 1
        if self.logprobs is not False:
            try:
                completion = await self.client.openai.chat.completions.create(
                    **request, logprobs=True, top_logprobs=TOP_LOGPROBS)
            except BadRequestError:
                if self.logprobs:  # it took them before: this 400 is about something else
                    raise
                self.logprobs = False  # a server that refuses the parameter: ask for the text
            else:
                top = _top_logprobs(completion)
                if top is not None:
                    self.logprobs = True
                    return support_from_logprobs(top)
                return support_from_text(_content(completion))
        completion = await self.client.openai.chat.completions.create(**request)
        return support_from_text(_content(completion))

    # --- one (premise, claim) -------------------------------------------------------------------
    async def check(self, premise: str, claim: str) -> None:
        """Judge one pair into the memo (an exception is memoised too: the pair is unscorable)."""
        key = (premise, claim)
        if key in self._memo:
            return
        if key in self._running:  # another item asked first: wait for its answer
            await asyncio.shield(self._running[key])
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._running[key] = done
        try:
            self._memo[key] = await self._verdict(premise, claim)
        except Exception as exc:  # any failure makes this pair, and the items needing it, unscored
            self._memo[key] = exc
        finally:
            done.set_result(None)
            del self._running[key]

    async def _verdict(self, premise: str, claim: str) -> Verdict:
        chunks = chunk_document(premise, self.chunk_words) or []
        texts = [c.text for c in chunks] or [""]
        sentences = claim_sentences(claim)
        flat = await asyncio.gather(*(self.ask(chunk, s) for chunk in texts for s in sentences))
        matrix = [list(flat[i * len(sentences):(i + 1) * len(sentences)]) for i in range(len(texts))]
        score, best = aggregate(matrix)
        where = f" (best of {len(texts)} chunks)" if len(texts) > 1 else ""
        evidence = texts[best] if len(texts) > 1 else None
        if score >= self.threshold:
            return Verdict(True, round(score, 4), evidence, f"supported: p(yes) {score:.2f}{where}")
        return Verdict(False, round(score, 4), evidence,
                       f"not supported: p(yes) {score:.2f} < {self.threshold:.2f}{where}", "minicheck")

    # --- one answer, with ALCE's arithmetic -----------------------------------------------------
    async def score(self, answer: Answer, mode: str = "required") -> Outcome:
        """ALCE recall/precision for one answer: the arithmetic is run until every pair it asks
        about is judged (at most its three rounds), each round's pairs asked concurrently."""
        from ._llm_client import describe_error
        from .alce import score_answers
        from .nli import premise_of

        missing: list[tuple[str, str]] = []

        def judge_many(pairs: list[tuple[str, list[Passage]]]) -> list[Verdict]:
            keys = [(premise_of(list(sources)), claim) for claim, sources in pairs]
            missing.extend(k for k in dict.fromkeys(keys) if k not in self._memo)
            if missing:
                raise _Pending
            out = []
            for key in keys:
                found = self._memo[key]
                if isinstance(found, BaseException):
                    raise found
                out.append(found)
            return out

        for _ in range(4):  # the arithmetic asks in at most three rounds
            missing.clear()
            try:
                return Outcome(score_answers([answer], judge_many, self.max_citations, [mode], self.max_retrieved)[0])
            except _Pending:
                await asyncio.gather(*(self.check(p, c) for p, c in missing))
            except UnreadableAnswer as exc:
                return Outcome(None, str(exc))
            except Exception as exc:
                return Outcome(None, describe_error(exc, self.client.timeout))
        raise AssertionError("ALCE's arithmetic asked for more than three rounds")

    # --- into the tier's result -----------------------------------------------------------------
    def merge(self, item: GoldenItem, base: TierResult, outcome: Outcome) -> TierResult:
        """The item's result with the minicheck metrics added to the other llm metrics' result."""
        answer = item.answer
        assert answer is not None
        metrics = dict(base.metrics)
        scores = dict(base.extra.get("scores", {}))
        unscored = dict(base.extra.get("unscored", {}))
        score = outcome.score
        if score is None:
            why = outcome.why or "the answer has no sentences (ALCE skips such answers)"
            metrics[RECALL] = [None]
            metrics[PRECISION] = [None]
            unscored[METRIC] = why
            scores[RECALL] = scores[PRECISION] = None
            other = [v for k, v in base.metrics.items() if v and v[0] is not None]
            passed = base.passed if other else None
            note = ", ".join(f"{k} ({v})" for k, v in unscored.items())
            note = f"unscored: {note}" if other else note
            extra = {**base.extra, "scores": scores, "unscored": unscored}
            return TierResult(passed, metrics, base.sentences, base.message, note, extra)
        metrics[RECALL] = [score.recall]
        metrics[PRECISION] = [score.precision]
        metrics["minicheck_citation_recall_sentence"] = [s.entailed for s in score.sentences]
        metrics["minicheck_citation_precision_citation"] = score.citations
        scores[RECALL], scores[PRECISION] = score.recall, score.precision
        from .alce import citation_rows

        rows = citation_rows(answer, score)
        problems = []
        if score.recall < self.recall:
            entailed = sum(s.entailed for s in score.sentences)
            problems.append(f"{RECALL} {score.recall:.2f} < {self.recall:.2f} "
                            f"({entailed} of {len(score.sentences)} sentences supported by their citations)")
        if score.precision < self.precision:
            cited = score.citations
            problems.append(f"{PRECISION} {score.precision:.2f} < {self.precision:.2f} "
                            f"({sum(cited)} of {len(cited)} citations relevant)")
        passed = not problems and base.passed is not False
        message = base.message
        if problems:
            case = item.case
            lines = [f"{case.id} ({case.source or case.suite}): " + "; ".join(problems), f"  question: {case.question}"]
            lines += describe_sentences(rows, answer)
            message = "\n".join([m for m in (base.message, "\n".join(lines)) if m])
        extra = {**base.extra, "scores": scores}
        return TierResult(passed, metrics, rows, message, base.note, extra)


def _top_logprobs(completion: Any) -> list[tuple[str, float]] | None:
    """The first generated token's top alternatives, (token, logprob), or None when the server
    sent no logprobs."""
    try:
        content = completion.choices[0].logprobs.content
    except (AttributeError, IndexError, TypeError):
        return None
    if not content:
        return None
    first = content[0]
    top = [(str(t.token), float(t.logprob)) for t in (getattr(first, "top_logprobs", None) or [])]
    return top or [(str(first.token), float(first.logprob))]


def _content(completion: Any) -> str:
    try:
        return str(completion.choices[0].message.content or "")
    except (AttributeError, IndexError):
        return ""


def settings_from(settings: Any) -> dict[str, float]:
    """The checker's settings from the run's thresholds (anything with ``threshold(tier, name, default)``)."""
    return {name: settings.threshold("llm", name, default) for name, default in DEFAULTS.items()}

