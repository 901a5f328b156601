"""The lexical judge side by side with the offline peers that install here, on both dev sets.

    .venv/bin/python bench/bench_peers.py --data ../shared/benchmarks [--limit N]

Judges (each gives a score per claim; a claim is supported when its score reaches a threshold):

- ``lexical``: this package's LexicalJudge as shipped (its own verdicts; its score for the AUC).
- ``ragas-string``: Ragas ``NonLLMStringSimilarity`` (Levenshtein), the best similarity of the claim
  to a sentence of its premise, called through Ragas (not re-implemented).
- ``anchorcite``: anchorcite's core tier, ``anchor_claim`` with its ``LexicalScorer`` (no model), the
  best anchor score over the premise's passages (0 when nothing anchors).
- ``token-overlap``: the share of the claim's lower-cased word tokens found in the premise.

Balanced accuracy three ways: the peers at their documented default threshold (Ragas 0.5,
anchorcite 0.4, overlap 0.5) and the lexical judge as shipped; every judge's score at the threshold
that is best on the **other** set (a threshold carried from one kind of data to another); and
every score at the threshold that is best on **this** set (a grid of 0.01 steps), which flatters:
it is tuned on the data it is scored on. The lexical judge's numbers here are in-sample (its
calibration was fitted on both sets, pooled); its cross-validated numbers are printed by
bench/fit_lexical.py. Balanced accuracy (BA) with the MOVER interval; ROC AUC with Hanley-McNeil.
Premises: WiCE test, each claim's gold sentences (as ``python -m pytest_sprout.metaeval``);
LFQA-Verification, all documents of the question.

anchorcite is a bench-only peer, not a dependency: ``pip install anchorcite`` (0.1.0 here).
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

from pytest_sprout import stats  # noqa: E402
from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402
from pytest_sprout.core.model import split_sentences  # noqa: E402

_WORD = re.compile(r"\w+")


def token_overlap(claim: str, premise: list[str]) -> float:
    words = _WORD.findall(claim.lower())
    if not words:
        return 0.0
    have = set(_WORD.findall(" ".join(premise).lower()))
    return sum(w in have for w in words) / len(words)


def ragas_scores(examples: list) -> list[float]:
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
        return [await best(e.claim, list(e.premise)) for e in examples]

    return asyncio.run(run())


def anchorcite_scores(examples: list) -> list[float] | None:
    try:
        from anchorcite import anchor_claim
        from anchorcite.scorers import LexicalScorer
    except ImportError:
        return None
    scorer = LexicalScorer()
    out = []
    for e in examples:
        top = 0.0
        for passage in e.premise:
            anchor = anchor_claim(e.claim, passage, scorer=scorer, threshold=0.0)
            if anchor is not None:
                top = max(top, float(anchor.score))
        out.append(top)
    return out


def ba_at(labels: list[bool], predicted: list[bool]) -> tuple[float, float, float]:
    tpr = stats.Rate(sum(p and y for p, y in zip(predicted, labels)), sum(labels))
    tnr = stats.Rate(sum((not p) and (not y) for p, y in zip(predicted, labels)), len(labels) - sum(labels))
    return stats.balanced_accuracy(tpr, tnr)


def best_threshold(labels: list[bool], scores: list[float]) -> tuple[float, tuple[float, float, float]]:
    grid = [round(t * 0.01, 2) for t in range(0, 101)]
    return max(((t, ba_at(labels, [s >= t for s in scores])) for t in grid), key=lambda x: x[1][0])


def fmt(ba: tuple[float, float, float]) -> str:
    return f"{ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--limit", type=int, default=0, help="only the first N claims of each set (a quick look)")
    args = ap.parse_args()
    data = Path(args.data)
    sets = [("WiCE test (gold premises)", data / "wice" / "claim_test.jsonl"),
            ("LFQA-Verification (all six systems)", data / "lfqa_verification")]
    warnings.simplefilter("ignore")
    defaults = {"ragas-string": 0.5, "anchorcite": 0.4, "token-overlap": 0.5}
    results = []  # per set: (title, labels, {judge: scores}, lexical verdicts, seconds)
    for title, path in sets:
        examples = metaeval.load(path)
        if args.limit:
            examples = examples[: args.limit]
        scores, seconds = {}, {}
        started = time.perf_counter()
        verdicts = LexicalJudge().judge_many(metaeval.pairs_of(examples))
        seconds["lexical"] = time.perf_counter() - started
        # A sentence with no claim ("3.", "Based on the given context [1],") is unscored: no judge is scored on it.
        kept = [i for i, v in enumerate(verdicts) if v.supported is not None]
        examples, verdicts = [examples[i] for i in kept], [verdicts[i] for i in kept]
        labels = [e.supported for e in examples]
        scores["lexical"] = [v.score for v in verdicts]
        started = time.perf_counter()
        scores["ragas-string"] = ragas_scores(examples)
        seconds["ragas-string"] = time.perf_counter() - started
        started = time.perf_counter()
        anchored = anchorcite_scores(examples)
        if anchored is not None:
            scores["anchorcite"] = anchored
            seconds["anchorcite"] = time.perf_counter() - started
        started = time.perf_counter()
        scores["token-overlap"] = [token_overlap(e.claim, list(e.premise)) for e in examples]
        seconds["token-overlap"] = time.perf_counter() - started
        results.append((title, labels, scores, [bool(v.supported) for v in verdicts], seconds))
    for k, (title, labels, scores, shipped, seconds) in enumerate(results):
        other_title, other_labels, other_scores = results[1 - k][:3] if len(results) == 2 else results[k][:3]
        print(f"{title}: {len(labels)} claims ({sum(labels)} supported)")
        print(f"{'judge':<14} {'ROC AUC':<22} {'BA as shipped / at default':<34} "
              f"{'BA, threshold of the other set':<36} {'BA, best threshold on this set':<36} seconds")
        for name, values in scores.items():
            auc = stats.roc_auc(values, labels)
            if name == "lexical":
                here = f"{fmt(ba_at(labels, shipped))} (shipped)"
            else:
                here = f"{fmt(ba_at(labels, [v >= defaults[name] for v in values]))} at {defaults[name]:.2f}"
            transfer_t = best_threshold(other_labels, other_scores[name])[0]
            transfer = fmt(ba_at(labels, [v >= transfer_t for v in values])) + f" at {transfer_t:.2f}"
            t, best = best_threshold(labels, values)
            print(f"{name:<14} {fmt(auc):<22} {here:<34} {transfer:<36} {fmt(best) + f' at {t:.2f}':<36} "
                  f"{seconds[name]:.1f}")
        if "anchorcite" not in scores:
            print("anchorcite     not installed (pip install anchorcite)")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
