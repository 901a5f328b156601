"""The `groundedness` tier: the lexical judge on every sentence, expected facts, refusals."""

from __future__ import annotations

from typing import Any

from ..core.calibration import Calibration, load as load_calibration
from ..core.citations import DEFAULT as DEFAULT_CITATIONS, mode_of, retrieved_note, sources
from ..core.model import Answer, ClaimJudge, GoldenItem, Passage, Verdict, parse_sentence, split_sentences
from ..core.tier import TierSettings
from . import TierResult, clip, describe_sentences, sentence_reasons, sentence_row
from .facts import FACT_THRESHOLD, best_near_miss, fact_reasons, find_fact, found_by_lemma, match_fact
from .lexical import LexicalJudge

__all__ = ["FACT_THRESHOLD", "GroundednessTier", "best_near_miss", "find_fact", "judge_sentences", "make_tier"]

OPTIONS = ("sprout_citations", "sprout_calibration")


def unavailable(settings: TierSettings) -> str | None:
    return None  # needs nothing


def judge_sentences(judge: ClaimJudge, answer: Answer, mode: str = DEFAULT_CITATIONS) -> list[dict[str, Any]]:
    """Judge every sentence against the passages it cites, in the answer's order (a fragment is
    judged with the sentence before it; a sentence with no claim is unscored); in ``retrieved``
    mode a sentence without markers against every retrieved passage (core/citations.py), its reason
    naming the passages the evidence came from. A citation that names no retrieved passage makes
    the sentence unsupported."""
    found = [sources(answer, sentence, mode) for sentence in answer.sentences]
    pairs = [(sentence.text, src.passages) for sentence, src in zip(answer.sentences, found)]
    sourced = getattr(judge, "judge_answer_sourced", None)
    judged: list[tuple[Verdict, list[Any]]]
    if any(src.retrieved for src in found) and sourced is not None:
        judged = sourced(pairs)
    else:
        judge_answer = getattr(judge, "judge_answer", None) or judge.judge_many  # any judge_many judge (assert_grounded)
        judged = [(v, []) for v in judge_answer(pairs)]
    rows = []
    for sentence, src, (verdict, held) in zip(answer.sentences, found, judged):
        evidence_ids = [p.id for p in held if isinstance(p, Passage)]
        if src.retrieved and verdict.rule == "uncited":
            verdict = Verdict(False, 0.0, None, "the sentence cites no passage, and the system retrieved none", "uncited")
        elif src.retrieved and verdict.supported is not None:
            verdict = Verdict(verdict.supported, verdict.score, verdict.evidence,
                              f"{verdict.reason}; {retrieved_note(answer, evidence_ids)}", verdict.rule)
        if src.missing:
            verdict = Verdict(
                False, verdict.score, verdict.evidence,
                f"cites {', '.join(src.missing)}, which is not among the {len(answer.passages)} retrieved passages",
                "bad-citation",
            )
        row = sentence_row(sentence, verdict, answer)
        if src.retrieved:
            row["judged_against"] = "retrieved"
            row["evidence_passages"] = evidence_ids
        rows.append(row)
    return rows


def fact_text(answer: Answer) -> str:
    """The text expected facts are looked for in: the answer's sentences without their markers. A
    refused answer has no sentences to judge, but its text is still searched: a refusal that
    states a fact states it."""
    if answer.sentences or not answer.text:
        return " ".join(s.text for s in answer.sentences)
    return " ".join(s.text for s in (parse_sentence(raw, answer.passages) for raw in split_sentences(answer.text)))


class GroundednessTier:
    name = "groundedness"

    def __init__(self, coverage: float = 0.6, fact_threshold: float = FACT_THRESHOLD,
                 citations: str = DEFAULT_CITATIONS, calibration: Calibration | None = None) -> None:
        self.calibration = calibration  # fitted on the user's labels (None: the shipped one)
        self.judge = LexicalJudge(coverage=coverage, calibration=calibration)
        self.fact_threshold = fact_threshold
        self.citations = citations  # the run's mode; a case may have its own
        self._judges = {self.judge.coverage: self.judge}  # per-case coverage thresholds

    def judge_for(self, coverage: float) -> LexicalJudge:
        if coverage not in self._judges:
            self._judges[coverage] = LexicalJudge(coverage=coverage, calibration=self.calibration)
        return self._judges[coverage]

    def settings(self) -> dict[str, Any]:
        return {"judge": self.judge.settings(), "facts": self.fact_threshold, "citations": self.citations}

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
            rows = judge_sentences(judge, answer, mode_of(case, self.citations))
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
        text = fact_text(answer)
        matches = [match_fact(f, text, fact_threshold) for f in case.expected_facts]
        found = [m.found for m in matches]
        if found:
            metrics["facts"] = found
        missing = [m for m in matches if not m.found]
        if missing:
            problems.append(f"missing expected facts: {', '.join(repr(m.fact) for m in missing)} ({sum(found)} of {len(found)} found)")
            reasons += fact_reasons(missing, text, fact_threshold)
        extra = {"facts_by_lemma": found_by_lemma(matches)} if any(m.by_lemma for m in matches) else {}
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
        return TierResult(passed=passed, metrics=metrics, sentences=rows, message=message, note=note, reasons=reasons,
                          extra=extra)


def make_tier(settings: TierSettings) -> GroundednessTier:
    # The judge's own default: the tier runs the judge that the meta-evaluation measured.
    coverage = settings.threshold("groundedness", "coverage", LexicalJudge.DEFAULT_COVERAGE)
    facts = settings.threshold("groundedness", "facts", FACT_THRESHOLD / 100) * 100
    path = settings.option("sprout_calibration")  # a calibration of another judge (nli) is the alce tier's
    calibration = load_calibration(path) if path else None
    return GroundednessTier(coverage=coverage, fact_threshold=facts,
                            citations=settings.option("sprout_citations") or DEFAULT_CITATIONS,
                            calibration=calibration if calibration is not None and calibration.judge == "lexical" else None)
