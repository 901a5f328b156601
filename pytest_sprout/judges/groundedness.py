"""The `groundedness` tier: the lexical judge on every sentence, expected facts, refusals."""

from __future__ import annotations

from typing import Any

from ..core.model import Answer, GoldenItem, Verdict
from ..core.tier import TierSettings
from . import TierResult, clip, describe_sentences, sentence_reasons, sentence_row
from .lexical import LexicalJudge

FACT_THRESHOLD = 85.0  # rapidfuzz partial_ratio, 0-100


def unavailable(settings: TierSettings) -> str | None:
    return None  # needs nothing


def find_fact(fact: str, text: str, threshold: float = FACT_THRESHOLD) -> bool:
    """Whether an expected fact appears in the answer text, allowing small wording changes."""
    from rapidfuzz import fuzz

    fact_l, text_l = fact.lower().strip(), text.lower()
    if not fact_l:
        return True
    if fact_l in text_l:
        return True
    return fuzz.partial_ratio(fact_l, text_l) >= threshold


def best_near_miss(fact: str, text: str) -> tuple[str, float]:
    """The stretch of the answer closest to an expected fact, and its rapidfuzz partial_ratio
    score (0-100): what the fuzzy match came nearest to when the fact was not found."""
    from rapidfuzz import fuzz

    fact_l, text_l = fact.lower().strip(), text.lower()
    if not fact_l or not text_l:
        return "", 0.0
    match = fuzz.partial_ratio_alignment(fact_l, text_l)
    if match is None:
        return "", 0.0
    start, end = match.dest_start, match.dest_end
    while start > 0 and text[start - 1].isalnum():  # widen to whole words, for reading
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end].strip(" .,;:!?"), round(match.score, 1)


def fact_reasons(missing: list[str], text: str, threshold: float) -> list[dict[str, Any]]:
    out = []
    for fact in missing:
        near, score = best_near_miss(fact, text)
        why = f"missing expected fact {fact!r}: " + (
            f"best near miss {near!r} scores {score:.0f}/100 (needs {threshold:.0f})" if near else "the answer has no sentences to search"
        )
        out.append({"metric": "facts", "why": why, "fact": fact, "near_miss": near, "fuzzy_score": score,
                    "threshold": threshold})
    return out


def judge_sentences(judge: LexicalJudge, answer: Answer) -> list[dict[str, Any]]:
    """Judge every sentence against the passages it cites, in the answer's order (a fragment is
    judged with the sentence before it; a sentence with no claim is unscored); a citation that
    names no retrieved passage makes the sentence unsupported."""
    pairs, rows = [], []
    for sentence in answer.sentences:
        found, _ = answer.cited(sentence)
        pairs.append((sentence.text, found))
    verdicts = judge.judge_answer(pairs)
    for sentence, verdict in zip(answer.sentences, verdicts):
        _, missing = answer.cited(sentence)
        if missing:
            verdict = Verdict(
                False, verdict.score, verdict.evidence,
                f"cites {', '.join(missing)}, which is not among the {len(answer.passages)} retrieved passages",
                "bad-citation",
            )
        rows.append(sentence_row(sentence, verdict, answer))
    return rows


class GroundednessTier:
    name = "groundedness"

    def __init__(self, coverage: float = 0.6, fact_threshold: float = FACT_THRESHOLD) -> None:
        self.judge = LexicalJudge(coverage=coverage)
        self.fact_threshold = fact_threshold
        self._judges = {self.judge.coverage: self.judge}  # per-case coverage thresholds

    def judge_for(self, coverage: float) -> LexicalJudge:
        if coverage not in self._judges:
            self._judges[coverage] = LexicalJudge(coverage=coverage)
        return self._judges[coverage]

    def settings(self) -> dict[str, Any]:
        return {"judge": self.judge.settings(), "facts": self.fact_threshold}

    def evaluate(self, item: GoldenItem) -> TierResult:
        case, answer = item.case, item.answer
        assert answer is not None
        metrics: dict[str, list[Any]] = {}
        problems: list[str] = []
        wants_refusal = case.expect == "refuse"
        refusal_ok = answer.refused == wants_refusal
        metrics["refusal"] = [refusal_ok]
        reasons: list[dict[str, Any]] = []
        if not refusal_ok:
            problems.append(
                "expected a refusal, but the system answered" if wants_refusal
                else "the system refused, but the case expects an answer"
            )
            reasons.append({"metric": "refusal", "why": problems[-1], "expected": case.expect,
                            "refused": answer.refused})
        rows: list[dict[str, Any]] = []
        judge = self.judge_for(case.threshold("groundedness", "coverage", self.judge.coverage))
        fact_threshold = case.threshold("groundedness", "facts", self.fact_threshold / 100) * 100
        if not answer.refused:
            rows = judge_sentences(judge, answer)
            # A sentence with no claim ("Based on the given context [1],") is unscored: no entry.
            supported = [r["supported"] is True for r in rows if r["supported"] is not None]
            metrics["grounded_sentence"] = supported
            metrics["grounded"] = [(bool(supported) and all(supported)) if supported or not rows else None]
            if not rows:
                problems.append("the answer has no sentences")
                reasons.append({"metric": "grounded", "why": "the answer has no sentences"})
            elif not all(supported):
                problems.append(f"{supported.count(False)} of {len(supported)} sentences unsupported")
            reasons += sentence_reasons(rows, "grounded")
        text = " ".join(s.text for s in answer.sentences)
        found = [find_fact(f, text, fact_threshold) for f in case.expected_facts]
        if found:
            metrics["facts"] = found
        missing = [f for f, ok in zip(case.expected_facts, found) if not ok]
        if missing:
            problems.append(f"missing expected facts: {', '.join(repr(f) for f in missing)} ({sum(found)} of {len(found)} found)")
            reasons += fact_reasons(missing, text, fact_threshold)
        passed: bool | None = not problems
        note = ""
        if passed and rows and not supported:  # nothing in the answer to check: unscored, not a pass
            passed = None
            note = ("no claim: the answer's one sentence states nothing to check" if len(rows) == 1 else
                    f"no claim: none of the answer's {len(rows)} sentences states anything to check")
        message = ""
        if not passed:
            lines = [f"{case.id} ({case.source or case.suite}): " + "; ".join(problems), f"  question: {case.question}"]
            if answer.refused:
                lines.append(f"  answer: (refused) {answer.text or ''}".rstrip())
            else:
                lines.extend(describe_sentences(rows, answer))
                lines.append(f"  answer: {clip(answer.render(), 400)}")
            lines += [f"  - {r['why']}" for r in reasons if r["metric"] == "facts"]
            message = "\n".join(lines)
        return TierResult(passed=passed, metrics=metrics, sentences=rows, message=message, note=note, reasons=reasons)


def make_tier(settings: TierSettings) -> GroundednessTier:
    # The judge's own default: the tier runs the judge that the meta-evaluation measured.
    coverage = settings.threshold("groundedness", "coverage", LexicalJudge.DEFAULT_COVERAGE)
    facts = settings.threshold("groundedness", "facts", FACT_THRESHOLD / 100) * 100
    return GroundednessTier(coverage=coverage, fact_threshold=facts)
