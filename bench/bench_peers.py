"""The lexical judge side by side with the offline peers that install here, on both dev sets.

    .venv/bin/python bench/bench_peers.py --data ../shared/benchmarks [--limit N]

Judges (each gives a score per claim; a claim is supported when its score reaches a threshold):

- ``lexical``: this package's LexicalJudge as shipped (its own verdicts; its score for the AUC).
- ``ragas-string``: Ragas ``NonLLMStringSimilarity`` (Levenshtein), the best similarity of the claim
  to a sentence of its premise, called through Ragas (not re-implemented).
- ``anchorcite``: anchorcite's core tier, ``anchor_claim`` with its ``LexicalScorer`` (no model), the
  best anchor score over the premise's passages (0 when nothing anchors).
- ``token-overlap``: the share of the claim's lower-cased word tokens found in the premise.

For the peers two thresholds are shown: their documented default (Ragas 0.5, anchorcite 0.4,
overlap 0.5) and the best threshold **on the same data** (a grid of 0.01 steps), which flatters
them: it is tuned on the test data itself. The lexical judge gets no such help: its numbers are its
shipped verdicts (its calibration was fitted on WiCE; see bench/fit_lexical.py for cross-validated
WiCE numbers). Balanced accuracy (BA) with the MOVER interval; ROC AUC with Hanley-McNeil.
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

from pytest_sprout import metaeval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402
from pytest_sprout.model import split_sentences  # noqa: E402

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
    tpr = metaeval.Rate(sum(p and y for p, y in zip(predicted, labels)), sum(labels))
    tnr = metaeval.Rate(sum((not p) and (not y) for p, y in zip(predicted, labels)), len(labels) - sum(labels))
    return metaeval.balanced_accuracy(tpr, tnr)


def row(name: str, labels: list[bool], scores: list[float], default: float | None,
        verdicts: list[bool] | None = None) -> str:
    auc = metaeval.roc_auc(scores, labels)
    cells = [f"{name:<14}", f"AUC {auc[0]:.3f} [{auc[1]:.3f}, {auc[2]:.3f}]"]
    if verdicts is not None:
        ba = ba_at(labels, verdicts)
        cells.append(f"BA as shipped {ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]")
    if default is not None:
        ba = ba_at(labels, [s >= default for s in scores])
        cells.append(f"BA at default {default:.2f} {ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]")
        grid = [round(t * 0.01, 2) for t in range(0, 101)]
        best_t, best = max(((t, ba_at(labels, [s >= t for s in scores])) for t in grid), key=lambda x: x[1][0])
        cells.append(f"BA at best threshold {best_t:.2f} {best[0]:.3f} [{best[1]:.3f}, {best[2]:.3f}]")
    return "  ".join(cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--limit", type=int, default=0, help="only the first N claims of each set (a quick look)")
    args = ap.parse_args()
    data = Path(args.data)
    sets = [("WiCE test (gold premises)", data / "wice" / "claim_test.jsonl"),
            ("LFQA-Verification (all six systems)", data / "lfqa_verification")]
    warnings.simplefilter("ignore")
    for title, path in sets:
        examples = metaeval.load(path)
        if args.limit:
            examples = examples[: args.limit]
        labels = [e.supported for e in examples]
        print(f"{title}: {len(examples)} claims ({sum(labels)} supported)")
        started = time.perf_counter()
        verdicts = LexicalJudge().judge_many([(e.claim, list(e.premise)) for e in examples])
        print(row("lexical", labels, [v.score for v in verdicts], None, [bool(v.supported) for v in verdicts])
              + f"  ({time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
        print(row("ragas-string", labels, ragas_scores(examples), 0.5) + f"  ({time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
        anchored = anchorcite_scores(examples)
        if anchored is None:
            print("anchorcite     not installed (pip install anchorcite)")
        else:
            print(row("anchorcite", labels, anchored, 0.4) + f"  ({time.perf_counter() - started:.1f} s)")
        print(row("token-overlap", labels, [token_overlap(e.claim, list(e.premise)) for e in examples], 0.5))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
