"""The `alce` tier: ALCE's citation recall and precision (Gao et al. 2023), with an NLI judge.

ALCE's arithmetic, per answer:

- Recall. Each sentence's premise is its cited passages, formatted "Title: t\\ntext" and joined
  with newlines. The sentence scores 1 when the premise entails it. A sentence with no citation,
  or with a citation that names no retrieved passage, scores 0 and stays in the denominator.
  Recall = entailed sentences / sentences.
- Precision. Only citations of sentences without an out-of-range citation are counted (at most
  ``max_citations`` per sentence, ALCE's default 3). A citation of a sentence that is not entailed
  counts 0. For an entailed sentence with more than one citation, a citation is *irrelevant*
  (counts 0) when it alone does not entail the sentence and the other citations without it still
  do; every other citation counts 1. Precision = counted-1 citations / counted citations (0 when
  the answer cites nothing).
- Answers with no sentences are skipped (unscored). The run's score is the mean over answers.

In ``retrieved`` mode (core/citations.py) an uncited sentence cites the retrieved set, bounded here
to the ``max_retrieved`` passages (default 5) that share the most words with it (``prerank``), so
that neither the NLI work nor the citation counts of one sentence grow with the retrieval size.

The arithmetic takes any ``judge_many(pairs) -> list[Verdict]`` (pairs of (claim, passages)), so
it is tested with a scripted judge and can run on any judge of this package.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..core.citations import DEFAULT as DEFAULT_CITATIONS, mode_of, retrieved_note, sources
from ..core.errors import JudgeFailure, TierUnusable
from ..core.model import Answer, GoldenItem, Passage, Verdict
from ..core.tier import TierSettings
from . import TierResult, clip, describe_sentences, sentence_reasons, sentence_row

JudgeMany = Callable[[list[tuple[str, list[Passage]]]], list[Verdict]]
MAX_CITATIONS = 3  # ALCE's eval.py --at_most_citations default
MAX_RETRIEVED = 5  # retrieved mode: passages an uncited sentence is judged against (alce.max_retrieved)
OPTIONS = ("nli_model", "nli_endpoint", "nli_device", "nli_dtype", "nli_batch_size", "nli_max_length", "nli_window", "nli_no_cache",
           "nli_entail_label", "nli_trust_remote_code", "sprout_citations", "sprout_calibration")
# Built after collection, before any test runs, when alce items are selected: a model that is not
# found or has no entailment label is then one usage error rather than a failure per item (the
# weights themselves load at the first pair that needs them).
BUILD_EARLY = True
CACHE_DIR = "sprout-nli"


def unavailable(settings: TierSettings) -> str | None:
    """Why the tier cannot run (cheap: no import of torch or transformers).

    When the run names the tier (``settings.explicit``: ``-m alce``), this also checks that the
    model is found and has an entailment label, so that a bad ``--nli-model`` is a usage error
    before any worker starts.
    """
    from .nli_model import NLIModelError, check_model, nli_extra_missing

    name = settings.option("nli_model")
    if not name:
        return "the alce tier needs an NLI model: pass --nli-model=ID_OR_PATH or set sprout_nli_model in the ini file"
    missing = nli_extra_missing()
    if missing:
        return f"the alce tier needs {' and '.join(missing)}: pip install \"pytest-sprout[nli]\""
    if settings.explicit:
        try:
            check_model(name, settings.option("nli_entail_label"), settings.option("nli_trust_remote_code"))
        except NLIModelError as exc:
            return f"--nli-model: {exc}"
    return None  # a malformed --nli-endpoint is a usage error before this (controller.check_options)


# --- the arithmetic ---------------------------------------------------------------------------

@dataclass
class SentenceScore:
    """ALCE's outcome for one sentence."""

    verdict: Verdict  # the joint verdict (all used citations together)
    used: list[str]  # the citations ALCE counts (at most max_citations), [] when the format fails
    relevant: list[bool] = field(default_factory=list)  # one per used citation (precision)
    ignored: list[str] = field(default_factory=list)  # citations past max_citations
    retrieved: bool = False  # an uncited sentence whose citations are the retrieved set (--sprout-citations=retrieved)

    @property
    def entailed(self) -> bool:
        return self.verdict.supported is True


@dataclass
class AnswerScore:
    recall: float
    precision: float
    sentences: list[SentenceScore]

    @property
    def citations(self) -> list[bool]:
        """Per counted citation: relevant (1) or not (0), ALCE's precision numerator/denominator."""
        return [ok for s in self.sentences for ok in s.relevant]


def score_answers(answers: Sequence[Answer], judge_many: JudgeMany, max_citations: int = MAX_CITATIONS,
                  modes: Sequence[str] | None = None, max_retrieved: int | None = None) -> list[AnswerScore | None]:
    """ALCE citation recall and precision for each answer (None for an answer with no sentences).

    ``modes`` gives each answer's citations mode (core/citations.py; default ``required``): in
    ``retrieved`` mode a sentence without markers cites the retrieved set, for recall and
    precision alike: every retrieved passage, or with ``max_retrieved`` the ``max_retrieved``
    that share the most words with it (``prerank``); ``max_citations`` caps what a sentence
    cites itself, not the retrieved set.

    Batched across all the answers: one judge call for the joint premises, one for the single
    citations of jointly entailed multi-citation sentences, one for the leave-one-out premises of
    those whose single citation failed (ALCE asks the last only when the first fails).
    """
    plans = _joint_scores(answers, judge_many, max_citations, modes, max_retrieved)
    _mark_relevant(answers, plans, judge_many)
    return [_answer_score(answer, row) for answer, row in zip(answers, plans)]


Pair = tuple[str, list[Passage]]  # (claim, premise passages): what a judge call judges


def _joint_scores(answers: Sequence[Answer], judge_many: JudgeMany, max_citations: int,
                  modes: Sequence[str] | None, max_retrieved: int | None = None) -> list[list[SentenceScore]]:
    """Recall: each sentence's score from its joint premise (its used citations together), one
    judge call for every answer; a sentence that cites nothing, or a passage not retrieved, scores
    0 without asking the judge."""
    plans: list[list[SentenceScore | None]] = []
    joint: list[Pair] = []
    where: list[tuple[int, int]] = []
    for a, answer in enumerate(answers):
        row: list[SentenceScore | None] = []
        mode = modes[a] if modes is not None else DEFAULT_CITATIONS
        ranker: Prerank | None = None  # built at the first uncited sentence that needs it
        for s, sentence in enumerate(answer.sentences):
            src = sources(answer, sentence, mode)
            found, missing = src.passages, src.missing
            if not found and not missing:
                why = "cites no passage" + (", and the system retrieved none" if src.retrieved else "")
                row.append(SentenceScore(Verdict(False, 0.0, None, why, "no-citation"), [], retrieved=src.retrieved))
            elif missing:
                reason = f"cites {', '.join(missing)}, which is not among the {len(answer.passages)} retrieved passages"
                row.append(SentenceScore(Verdict(False, 0.0, None, reason, "bad-citation"), []))
            else:
                if src.retrieved:
                    if max_retrieved and len(found) > max_retrieved:
                        ranker = ranker or Prerank(found)
                        found = ranker.top(sentence.text, max_retrieved)
                    used = found
                else:
                    used = found if max_citations <= 0 else found[:max_citations]
                row.append(None)
                joint.append((sentence.text, used))
                where.append((a, s))
        plans.append(row)
    for (a, s), verdict, (_, used) in zip(where, judge_many(joint), joint):
        ignored = [c for c in answers[a].sentences[s].citations if c not in {p.id for p in used}]
        wide = not answers[a].sentences[s].citations  # only the retrieved mode judges an uncited sentence
        plans[a][s] = SentenceScore(verdict, [p.id for p in used], ignored=ignored, retrieved=wide)
    filled: list[list[SentenceScore]] = []
    for row in plans:
        assert all(score is not None for score in row)  # every pending sentence got its verdict above
        filled.append([score for score in row if score is not None])
    return filled


def _mark_relevant(answers: Sequence[Answer], plans: list[list[SentenceScore]], judge_many: JudgeMany) -> None:
    """Precision: set each sentence's ``relevant`` (one flag per used citation). A sentence that
    is not entailed, or has one citation, counts each citation as it is entailed; a jointly
    entailed multi-citation sentence asks ALCE's two conditions (``_relevant_citations``)."""
    single_at: list[tuple[int, int, int]] = []
    for a, row in enumerate(plans):
        for s, score in enumerate(row):
            if score.entailed and len(score.used) > 1:
                single_at.extend((a, s, c) for c in range(len(score.used)))
            else:
                score.relevant = [score.entailed] * len(score.used)
    relevant = _relevant_citations(answers, plans, judge_many, single_at)
    for a, s, _ in single_at:
        score = plans[a][s]
        if len(score.relevant) < len(score.used):
            score.relevant = [relevant[(a, s, i)] for i in range(len(score.used))]


def _relevant_citations(answers: Sequence[Answer], plans: list[list[SentenceScore]], judge_many: JudgeMany,
                        single_at: list[tuple[int, int, int]]) -> dict[tuple[int, int, int], bool]:
    """ALCE's relevance of each citation ``(answer, sentence, citation)`` in ``single_at``: it is
    relevant when it alone entails the sentence (condition A, one judge call for all), or when
    the other citations without it no longer do (condition B, one call for those A did not pass)."""
    singles: list[Pair] = [(answers[a].sentences[s].text, [answers[a].passage(plans[a][s].used[c])])  # type: ignore[list-item]
                           for a, s, c in single_at]
    alone = judge_many(singles) if singles else []
    relevant: dict[tuple[int, int, int], bool] = {}
    rest: list[Pair] = []
    rest_at: list[tuple[int, int, int]] = []
    for (a, s, c), verdict in zip(single_at, alone):
        if verdict.supported is True:
            relevant[(a, s, c)] = True
            continue
        others = [answers[a].passage(pid) for i, pid in enumerate(plans[a][s].used) if i != c]
        rest.append((answers[a].sentences[s].text, others))  # type: ignore[arg-type]
        rest_at.append((a, s, c))
    for key, verdict in zip(rest_at, judge_many(rest) if rest else []):
        relevant[key] = verdict.supported is not True
    return relevant


def _answer_score(answer: Answer, sentences: list[SentenceScore]) -> AnswerScore | None:
    """One answer's recall and precision from its sentences' scores (None: no sentences). A
    retrieved-mode sentence's reason says which retrieved passages supported it."""
    for score in sentences:
        if score.retrieved and answer.passages:
            named = [pid for pid, ok in zip(score.used, score.relevant) if ok and score.entailed]
            v = score.verdict
            note = retrieved_note(answer, named, len(score.used))
            score.verdict = Verdict(v.supported, v.score, v.evidence, f"{v.reason}; {note}", v.rule)
    if not sentences:
        return None
    recall = sum(s.entailed for s in sentences) / len(sentences)
    cited = [ok for s in sentences for ok in s.relevant]
    precision = sum(cited) / len(cited) if cited else 0.0
    return AnswerScore(recall, precision, sentences)


# --- retrieved mode: the lexical pre-rank ------------------------------------------------------

_STOP = frozenset("""a an and are as at be been but by can did do does for from had has have he her his how i if in
into is it its may more most no not of on or our she so than that the their them then there these they this to
was we were what when where which who will with would you your""".split())


def _words(text: str) -> set[str]:
    """Content words, lower case, a plural 's' dropped: what the pre-rank compares."""
    out = set()
    for w in re.findall(r"[^\W_]+", text.lower()):
        if w in _STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


class Prerank:
    """Orders an answer's retrieved passages for one uncited sentence, cheaply (no model): each
    passage scores the sum, over the sentence's content words it holds (title included), of the
    word's inverse document frequency in the retrieved set, log((n + 1) / (df + 0.5)); ties go to
    the earlier retrieval rank. The passages' words are read once per answer."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = list(passages)
        self.bags = [_words(f"{p.title or ''} {p.text}") for p in self.passages]
        df: dict[str, int] = {}
        for bag in self.bags:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = len(self.passages)
        self.idf = {w: math.log((n + 1) / (d + 0.5)) for w, d in df.items()}

    def top(self, claim: str, k: int) -> list[Passage]:
        """The ``k`` passages that score highest for ``claim``, in retrieval order."""
        want = _words(claim)
        scores = [sum(self.idf[w] for w in want & bag) for bag in self.bags]
        best = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
        return [self.passages[i] for i in sorted(best)]


def prerank(claim: str, passages: Sequence[Passage], k: int) -> list[Passage]:
    """At most ``k`` of ``passages`` for ``claim`` (Prerank); all of them when k < 1 or they fit."""
    if k < 1 or len(passages) <= k:
        return list(passages)
    return Prerank(passages).top(claim, k)


# --- the tier ---------------------------------------------------------------------------------

class ALCETier:
    """Evaluates one answered case: ALCE citation recall/precision with the NLI judge.

    An item passes when citation recall >= ``recall`` (default 1.0: every sentence is entailed by
    its citations) and citation precision >= ``precision`` (default 0.0: over-citing is reported,
    not failed).
    """

    name = "alce"
    pipelined = True  # the run hands prepare() the answers there so far, not all it will get (run/worker.py)

    def __init__(self, judge: Any, recall: float = 1.0, precision: float = 0.0,
                 max_citations: int = MAX_CITATIONS, citations: str = DEFAULT_CITATIONS,
                 max_retrieved: int = MAX_RETRIEVED) -> None:
        self.judge = judge
        self.citations = citations  # the run's mode; a case may have its own
        self.recall = recall
        self.precision = precision
        self.max_citations = max_citations
        self.max_retrieved = max_retrieved
        self._warmed: set[int] = set()  # id() of answers already warmed (the run keeps them alive)

    def settings(self) -> dict[str, Any]:
        return {"judge": self.judge.settings(), "max_citations": self.max_citations, "max_retrieved": self.max_retrieved,
                "recall": self.recall, "precision": self.precision, "citations": self.citations}

    def warm(self, answers: list[Answer], modes: Sequence[str] | None = None) -> None:
        """Score many answers at once so that their pairs share batches (results are memoised
        by the judge; evaluate() then reads them back)."""
        score_answers(answers, self.judge.judge_many, self.max_citations, modes, self.max_retrieved)

    def close(self) -> None:
        """At the end of the run: the judge's connections (an --nli-endpoint's), if it has any."""
        close = getattr(self.judge, "close", None)
        if close is not None:
            close()

    def retrieved_passages(self, claim: str, passages: Sequence[Passage]) -> list[Passage]:
        """What an uncited sentence is judged against in retrieved mode (the mutation check asks)."""
        return prerank(claim, passages, self.max_retrieved)

    def progress(self) -> str:
        """How far the judging is, for the run's progress line."""
        counts = getattr(self.judge, "counts", {})
        return (f"judged {len(self._warmed)} answer{'s' if len(self._warmed) != 1 else ''}"
                + (f" ({counts['model_inputs']} model inputs)" if "model_inputs" in counts else ""))

    def prepared(self, item: GoldenItem) -> bool:
        return id(item.answer) in self._warmed

    def prepare(self, items: Sequence[GoldenItem]) -> None:
        """Warm, in one batched pass, the answers of an item about to be judged and of those coming
        up after it in this process (the run layer gathers them: every selected one on a plain run,
        those the controller has already handed an xdist worker there)."""
        fresh = list({id(i.answer): i for i in items if i.answer is not None and id(i.answer) not in self._warmed}.values())
        batch = [i.answer for i in fresh if i.answer is not None]
        modes = [mode_of(i.case, self.citations) for i in fresh]
        self._warmed.update(id(a) for a in batch)  # first: a load error is not retried per item
        self._guarded(lambda: self.warm(batch, modes))

    def evaluate(self, item: GoldenItem) -> TierResult:
        base = (self.recall, self.precision)
        self.recall = item.case.threshold("alce", "recall", self.recall)  # a case's own thresholds
        self.precision = item.case.threshold("alce", "precision", self.precision)
        try:
            return self._evaluate(item)
        finally:
            self.recall, self.precision = base

    def _evaluate(self, item: GoldenItem) -> TierResult:
        answer = item.answer
        assert answer is not None
        asked: list[tuple[str, list[Passage]]] = []

        def judge_many(pairs: list[tuple[str, list[Passage]]]) -> list[Verdict]:
            asked.extend(pairs)
            return self.judge.judge_many(pairs)

        modes = [mode_of(item.case, self.citations)]
        score = self._guarded(lambda: score_answers([answer], judge_many, self.max_citations, modes, self.max_retrieved)[0])
        if score is None:
            note = "the answer has no sentences (ALCE skips such answers)"
            return TierResult(None, {"citation_recall": [None], "citation_precision": [None]}, note=note)
        rows = citation_rows(answer, score)
        metrics: dict[str, list[Any]] = {
            "citation_recall": [score.recall],
            "citation_precision": [score.precision],
            "citation_recall_sentence": [s.entailed for s in score.sentences],
            "citation_precision_citation": score.citations,
        }
        passed = score.recall >= self.recall and score.precision >= self.precision
        describe = getattr(self.judge, "describe_pairs", None)
        extra = describe(asked) if describe is not None else {}
        message = "" if passed else self._message(item, score, rows)
        reasons: list[dict[str, Any]] = []
        if score.recall < self.recall:
            reasons.append({"metric": "citation_recall", "why": f"citation recall {score.recall:.2f} is below {self.recall:.2f}",
                            "score": score.recall, "threshold": self.recall})
            reasons += sentence_reasons(rows, "citation_recall")
        if score.precision < self.precision:
            reasons.append({"metric": "citation_precision", "why": f"citation precision {score.precision:.2f} is below {self.precision:.2f}",
                            "score": score.precision, "threshold": self.precision})
        return TierResult(passed, metrics, rows, message, extra=extra, reasons=reasons)

    def _guarded(self, run: Callable[[], Any]) -> Any:
        """Run the judge; a model whose weights fail to load at first use fails the item with one
        line, not a traceback."""
        from .nli import NLIModelError

        try:
            return run()
        except NLIModelError as exc:
            raise JudgeFailure(f"--nli-model: {exc}") from None

    def _message(self, item: GoldenItem, score: AnswerScore, rows: list[dict[str, Any]]) -> str:
        case, answer = item.case, item.answer
        assert answer is not None
        entailed = sum(s.entailed for s in score.sentences)
        problems = []
        if score.recall < self.recall:
            problems.append(f"citation recall {score.recall:.2f} ({entailed} of {len(score.sentences)} sentences entailed by their citations)")
        if score.precision < self.precision:
            cited = score.citations
            problems.append(f"citation precision {score.precision:.2f} < {self.precision:.2f} ({sum(cited)} of {len(cited)} citations relevant)")
        lines = [f"{case.id} ({case.source or case.suite}): " + "; ".join(problems), f"  question: {case.question}"]
        lines.extend(describe_sentences(rows, answer))
        for i, row in enumerate(rows):
            if row.get("irrelevant_citations"):
                lines.append(f"  ~ sentence {i + 1}: irrelevant citation(s) {', '.join(row['irrelevant_citations'])}")
        lines.append(f"  answer: {clip(answer.render(), 400)}")
        return "\n".join(lines)


def make_tier(settings: TierSettings) -> ALCETier:
    """The tier and its NLIJudge, once per process; TierUnusable when the model cannot be used."""
    from .nli import NLIJudge, NLIModelError

    cache_dir = None
    if settings.cache_dir is not None and not settings.option("nli_no_cache"):
        try:
            cache_dir = settings.cache_dir(CACHE_DIR)
        except OSError:
            cache_dir = None
    try:
        judge = NLIJudge(
            settings.option("nli_model"),
            device=settings.option("nli_device"),
            dtype=settings.option("nli_dtype") or "auto",
            endpoint=settings.option("nli_endpoint") or None,
            batch_size=settings.option("nli_batch_size"),
            max_length=settings.option("nli_max_length"),
            window=settings.option("nli_window"),
            threshold=settings.threshold("alce", "entailment", entailment_threshold(settings)),
            cache_dir=cache_dir,
            threads=threads_for(settings.workers),
            entail_label=settings.option("nli_entail_label"),
            trust_remote_code=settings.option("nli_trust_remote_code"),
        )
    except NLIModelError as exc:
        raise TierUnusable(f"--nli-model: {exc}") from None
    max_citations = int(settings.threshold("alce", "max_citations", MAX_CITATIONS))
    return ALCETier(judge, recall=settings.threshold("alce", "recall", 1.0),
                    precision=settings.threshold("alce", "precision", 0.0), max_citations=max_citations,
                    citations=settings.option("sprout_citations") or DEFAULT_CITATIONS,
                    max_retrieved=int(settings.threshold("alce", "max_retrieved", MAX_RETRIEVED)))


def entailment_threshold(settings: TierSettings) -> float:
    """alce.entailment's default: an nli calibration's threshold (--sprout-calibration), else 0.5."""
    from ..core.calibration import load

    path = settings.option("sprout_calibration")
    calibration = load(path) if path else None
    return calibration.threshold if calibration is not None and calibration.judge == "nli" else 0.5


def threads_for(workers: int | None) -> int | None:
    """CPU threads per xdist worker: the cores shared out among ``workers``, so that workers do not
    oversubscribe them. None (torch's default) outside xdist or when OMP_NUM_THREADS is set."""
    if workers is None or os.environ.get("OMP_NUM_THREADS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // max(1, int(workers)))


def citation_rows(answer: Answer, score: Any) -> list[dict[str, Any]]:
    """One row per sentence of an ALCE-scored answer, with the citations that added nothing to an
    entailed sentence (precision) and those past ``max_citations`` (ignored)."""
    rows = []
    for sentence, s in zip(answer.sentences, score.sentences):
        row = sentence_row(sentence, s.verdict, answer)
        irrelevant = [pid for pid, ok in zip(s.used, s.relevant) if not ok and s.entailed]
        if irrelevant and not s.retrieved:  # the retrieved set stood in for markers: nothing was cited in vain
            row["irrelevant_citations"] = irrelevant
        if s.ignored:
            row["ignored_citations"] = s.ignored
        if s.retrieved:
            row["judged_against"] = "retrieved"
            row["evidence_passages"] = [pid for pid, ok in zip(s.used, s.relevant) if ok and s.entailed]
        rows.append(row)
    return rows
