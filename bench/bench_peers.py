"""The lexical judge side by side with the offline peers that install here, on WiCE test,
LFQA-Verification and SummEdits.

    .venv/bin/python bench/bench_peers.py --data ../shared/benchmarks [--peers DIR] [--limit N]

Judges (each gives a score per claim; a claim is supported when its score reaches a threshold):

- ``lexical``: this package's LexicalJudge as shipped (its own verdicts; its score for the AUC).
- ``ragas-string``: Ragas ``NonLLMStringSimilarity`` (Levenshtein), the best similarity of the claim
  to a sentence of its premise, called through Ragas (not re-implemented).
- ``anchorcite``: anchorcite's core tier, ``anchor_claim`` with its ``LexicalScorer`` (no model), the
  best anchor score over the premise's passages (0 when nothing anchors).
- ``groundtruth``: groundtruth's ``GroundTruthDetector`` with its default detectors (n-gram recall,
  key-term coverage, Jaccard similarity; no model), 1 minus its hallucination score, against the
  premise's passages joined; it flags a claim above 0.5, so it supports one at 0.5 or more.
- ``token-overlap``: the share of the claim's lower-cased word tokens found in the premise.

Balanced accuracy three ways: the peers at their documented default threshold (Ragas 0.5,
anchorcite 0.4, groundtruth 0.5, overlap 0.5) and the lexical judge as shipped; every score at the
threshold that is best on the **other** data (WiCE and LFQA each other's; SummEdits the two pooled),
a threshold carried from one kind of data to another; and every score at the threshold that is
best on **this** set (a grid of 0.01 steps), which flatters: it is tuned on the data it is scored on.
The lexical judge's calibration was fitted on WiCE dev and LFQA (``calibration.VERSION``): its LFQA
numbers are in-sample, its WiCE test and SummEdits numbers held out. BA with the MOVER interval;
ROC AUC with Hanley-McNeil.
Premises: WiCE test, each claim's gold sentences (as ``python -m pytest_sprout.metaeval``);
LFQA-Verification, all documents of the question; SummEdits (8 domains), the summary's document,
a summary being one answer: its claims as the lexical judge takes them (a fragment joined to the
sentence before it, sentences with no claim left out), every judge scoring those same claims; a
summary's score is its claims' lowest, so it is consistent when every claim is supported.

anchorcite and groundtruth are bench-only peers, never dependencies: install them into a folder of
their own (``pip install --target DIR anchorcite==0.1.0``; groundtruth 0.1.0 declares Python 3.12
or later, its code runs on 3.11: ``--no-deps --ignore-requires-python``) and pass ``--peers DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pytest_sprout import stats  # noqa: E402
from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.core.model import split_sentences  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402
from summedits_data import judged_claims, load_summaries  # noqa: E402

_WORD = re.compile(r"\w+")
DEFAULTS = {"ragas-string": 0.5, "anchorcite": 0.4, "groundtruth": 0.5, "token-overlap": 0.5}
Pairs = list[tuple[str, list[str]]]


def token_overlap(claim: str, premise: list[str]) -> float:
    words = _WORD.findall(claim.lower())
    if not words:
        return 0.0
    have = set(_WORD.findall(" ".join(premise).lower()))
    return sum(w in have for w in words) / len(words)


def ragas_scores(pairs: Pairs) -> list[float]:
    from ragas.metrics.collections import NonLLMStringSimilarity

    metric = NonLLMStringSimilarity()

    async def best(claim: str, premise: list[str]) -> float:
        top = 0.0
        for passage in premise:
            for sentence in split_sentences(passage):
                result = await metric.ascore(reference=sentence, response=claim)
                top = max(top, float(result.value))
        return top

    async def run() -> list[float]:
        return [await best(claim, premise) for claim, premise in pairs]

    return asyncio.run(run())


def anchorcite_scores(pairs: Pairs) -> list[float] | None:
    try:
        from anchorcite import anchor_claim
        from anchorcite.scorers import LexicalScorer
    except ImportError:
        return None
    scorer = LexicalScorer()
    out = []
    for claim, premise in pairs:
        top = 0.0
        for passage in premise:
            anchor = anchor_claim(claim, passage, scorer=scorer, threshold=0.0)
            if anchor is not None:
                top = max(top, float(anchor.score))
        out.append(top)
    return out


def groundtruth_scores(pairs: Pairs) -> list[float] | None:
    try:
        from groundtruth import GroundTruthDetector
    except ImportError:
        return None
    detector = GroundTruthDetector()
    return [1.0 - detector.detect(claim=claim, context="\n\n".join(premise)).score for claim, premise in pairs]


def peer_scores(pairs: Pairs) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Every peer's score of every pair and its seconds; a peer that is not installed is left out."""
    scorers = {"ragas-string": ragas_scores, "anchorcite": anchorcite_scores, "groundtruth": groundtruth_scores,
               "token-overlap": lambda ps: [token_overlap(c, p) for c, p in ps]}
    scores, seconds = {}, {}
    for name, scorer in scorers.items():
        started = time.perf_counter()
        values = scorer(pairs)
        if values is not None:
            scores[name], seconds[name] = values, time.perf_counter() - started
    return scores, seconds


def ba_at(labels: list[bool], predicted: list[bool]) -> tuple[float, float, float]:
    tpr = stats.Rate(sum(p and y for p, y in zip(predicted, labels)), sum(labels))
    tnr = stats.Rate(sum((not p) and (not y) for p, y in zip(predicted, labels)), len(labels) - sum(labels))
    return stats.balanced_accuracy(tpr, tnr)


def best_threshold(labels: list[bool], scores: list[float]) -> tuple[float, tuple[float, float, float]]:
    grid = [round(t * 0.01, 2) for t in range(0, 101)]
    return max(((t, ba_at(labels, [s >= t for s in scores])) for t in grid), key=lambda x: x[1][0])


def fmt(ba: tuple[float, float, float]) -> str:
    return f"{ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]"


def ahead(labels: list[bool], shipped: list[bool], scores: list[float]) -> str:
    """The lexical judge as shipped minus the peer at the peer's best threshold on these labels: the
    BA difference with its paired bootstrap interval (2,000 resamples within each class, seed 0;
    the peer's threshold held at its best, so the interval leaves out the luck of choosing it)."""
    t = best_threshold(labels, scores)[0]
    d = stats.paired_ba_difference(labels, shipped, [v >= t for v in scores])
    return "-" if d is None else f"{d['value']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"


class Scored:
    """One set: its labels, every judge's scores, the lexical judge's verdicts and the seconds."""

    def __init__(self, title: str, labels: list[bool], scores: dict[str, list[float]], shipped: list[bool],
                 seconds: dict[str, float], domains: list[str] | None = None) -> None:
        self.title, self.labels, self.scores, self.shipped = title, labels, scores, shipped
        self.seconds, self.domains = seconds, domains

    def here(self, name: str, keep: list[int] | None = None) -> str:
        """BA as shipped (lexical) or at the peer's default threshold."""
        keep = list(range(len(self.labels))) if keep is None else keep
        labels = [self.labels[i] for i in keep]
        if name == "lexical":
            return f"{fmt(ba_at(labels, [self.shipped[i] for i in keep]))} (shipped)"
        return f"{fmt(ba_at(labels, [self.scores[name][i] >= DEFAULTS[name] for i in keep]))} at {DEFAULTS[name]:.2f}"


def claim_set(title: str, path: Path, limit: int) -> Scored:
    examples = metaeval.load(path)
    if limit:
        examples = examples[:limit]
    started = time.perf_counter()
    verdicts = LexicalJudge().judge_many(metaeval.pairs_of(examples))
    lexical_seconds = time.perf_counter() - started
    # A sentence with no claim ("3.", "Based on the given context [1],") is unscored: no judge is scored on it.
    kept = [i for i, v in enumerate(verdicts) if v.supported is not None]
    examples, verdicts = [examples[i] for i in kept], [verdicts[i] for i in kept]
    scores, seconds = peer_scores([(e.claim, list(e.premise)) for e in examples])
    return Scored(title, [e.supported for e in examples], {"lexical": [v.score for v in verdicts], **scores},
                  [bool(v.supported) for v in verdicts], {"lexical": lexical_seconds, **seconds})


def summary_set(title: str, path: Path, limit: int) -> Scored:
    """SummEdits by summary: every judge scores the claims the lexical judge judged; a summary's
    score is its claims' lowest. A summary with no claim at all is left out."""
    summaries = load_summaries(path)
    if limit:
        summaries = summaries[:limit]
    judge = LexicalJudge()
    started = time.perf_counter()
    judged = [judged_claims(judge, s) for s in summaries]
    lexical_seconds = time.perf_counter() - started
    kept = [i for i, claims in enumerate(judged) if claims]
    ends = [0]
    for i in kept:
        ends.append(ends[-1] + len(judged[i]))
    scores, seconds = peer_scores([pair for i in kept for pair, _ in judged[i]])
    by_summary: dict[str, list[float]] = {
        "lexical": [min(v.score for _, v in judged[i]) for i in kept],
        **{name: [min(values[a:b]) for a, b in zip(ends, ends[1:])] for name, values in scores.items()}}
    return Scored(title, [summaries[i].consistent for i in kept], by_summary,
                  [all(bool(v.supported) for _, v in judged[i]) for i in kept], {"lexical": lexical_seconds, **seconds},
                  [summaries[i].domain for i in kept])


def print_table(s: Scored, carried: dict[str, float], carried_from: str) -> None:
    print(f"{s.title}: {len(s.labels)} items ({sum(s.labels)} supported)")
    print(f"{'judge':<14} {'ROC AUC':<22} {'BA as shipped / at default':<34} "
          f"{'BA, best threshold of ' + carried_from:<36} {'BA, best threshold on this set':<36} seconds")
    for name, values in s.scores.items():
        t = carried[name]
        transfer = fmt(ba_at(s.labels, [v >= t for v in values])) + f" at {t:.2f}"
        best_t, best = best_threshold(s.labels, values)
        print(f"{name:<14} {fmt(stats.roc_auc(values, s.labels)):<22} {s.here(name):<34} {transfer:<36} "
              f"{fmt(best) + f' at {best_t:.2f}':<36} {s.seconds[name]:.1f}")
    for name in DEFAULTS:
        if name not in s.scores:
            print(f"{name:<14} not installed (see --peers)")
    print("lexical as shipped minus the peer at the peer's best threshold on this set (BA, paired bootstrap):")
    for name, values in s.scores.items():
        if name != "lexical":
            print(f"  {name:<14} {ahead(s.labels, s.shipped, values)}")
    print()


def print_domains(s: Scored) -> None:
    """Per SummEdits domain: AUC, BA as shipped / at default, BA at the best threshold on the domain."""
    assert s.domains is not None
    print(f"{s.title}, by domain (AUC; BA as shipped / at default; BA at the best threshold on the domain;"
          " lexical as shipped minus the peer there)")
    for domain in sorted(set(s.domains)):
        keep = [i for i, d in enumerate(s.domains) if d == domain]
        labels = [s.labels[i] for i in keep]
        print(f"  {domain}: {len(keep)} summaries ({sum(labels)} consistent)")
        for name, values in s.scores.items():
            mine = [values[i] for i in keep]
            best_t, best = best_threshold(labels, mine)
            versus = "" if name == "lexical" else f"  lexical minus {ahead(labels, [s.shipped[i] for i in keep], mine)}"
            print(f"    {name:<14} AUC {fmt(stats.roc_auc(mine, labels)):<22} {s.here(name, keep):<34} "
                  f"best {fmt(best)} at {best_t:.2f}{versus}")
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--peers", default="", help="a folder holding the bench-only peers (pip install --target)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N claims / summaries of each set")
    args = ap.parse_args()
    if args.peers:
        sys.path.insert(0, str(Path(args.peers).resolve()))
    data = Path(args.data)
    warnings.simplefilter("ignore")
    judge = LexicalJudge()
    print(f"lexical judge rules_version {judge.settings().get('rules_version', '?')}, "
          f"calibration {judge.settings().get('calibration', '?')}\n")
    wice = claim_set("WiCE test (gold premises; lexical held out)", data / "wice" / "claim_test.jsonl", args.limit)
    lfqa = claim_set("LFQA-Verification (all six systems; lexical in-sample)", data / "lfqa_verification", args.limit)
    summ = summary_set("SummEdits, 8 domains by summary (lexical held out)", data / "summedits", args.limit)
    pooled = {name: best_threshold(wice.labels + lfqa.labels, wice.scores[name] + lfqa.scores[name])[0]
              for name in wice.scores}
    print_table(wice, {n: best_threshold(lfqa.labels, v)[0] for n, v in lfqa.scores.items()}, "LFQA")
    print_table(lfqa, {n: best_threshold(wice.labels, v)[0] for n, v in wice.scores.items()}, "WiCE test")
    print_table(summ, pooled, "WiCE+LFQA")
    print_domains(summ)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
