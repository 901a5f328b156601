"""The lexical judge as shipped on every labelled set here, by the targets of issue 26: balanced
accuracy (BA, MOVER interval) and score AUC (Hanley-McNeil), the share of unsupported claims it
rejects, the share of sentences copied from their passage it accepts, and number swaps on news.

    .venv/bin/python bench/heldout_lexical.py [--data ../shared/benchmarks] [--limit N]

Sets: WiCE dev and test (gold premises, as ``python -m pytest_sprout.metaeval``), LFQA-Verification
(every answer sentence against its question's documents), SummEdits (all 8 domains; a summary is
consistent when every one of its sentences is supported; its score is its sentences' lowest).
Copies: for every set, up to 300 sentences of the passages themselves, judged against them.
Number swaps (SummEdits news documents): a sentence of an article with its first number replaced
by another number the same article states elsewhere (false, or at least not what the article
says of that sentence), against the copies of those sentences.
WiCE dev and LFQA are the fitting data (bench/fit_lexical.py); WiCE test and SummEdits are held out.
A sentence with no claim ("Based on the given context [1],") is unscored: counted apart ("unscored
N"), never a pass or a fail; a fragment ("In 2011.") is judged with the sentence before it in its
answer (LFQA) or summary (SummEdits).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pytest_sprout import stats  # noqa: E402
from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.core.model import split_sentences  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402
from summedits_data import judged_claims, load_summaries  # noqa: E402

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\w.,]?\d)")


def ba(labels: list[bool], predicted: list[bool]) -> tuple[float, float, float] | None:
    tpr = stats.Rate(sum(p and y for p, y in zip(predicted, labels)), sum(labels))
    tnr = stats.Rate(sum((not p) and (not y) for p, y in zip(predicted, labels)), len(labels) - sum(labels))
    return stats.balanced_accuracy(tpr, tnr)


def fmt(x: tuple[float, float, float] | None) -> str:
    return "-" if x is None else f"{x[0]:.3f} [{x[1]:.3f}, {x[2]:.3f}]"


def row(name: str, labels: list[bool], supported: list[bool | None], scores: list[float], copies: float | None) -> None:
    """One set's line; items the judge left unscored (no claim) are counted apart, never a pass or a fail."""
    kept = [i for i, s in enumerate(supported) if s is not None]
    unscored = len(labels) - len(kept)
    labels, scores = [labels[i] for i in kept], [scores[i] for i in kept]
    judged = [bool(supported[i]) for i in kept]
    unsupported = [s for s, y in zip(judged, labels) if not y]
    rejects = 1 - sum(unsupported) / len(unsupported) if unsupported else float("nan")
    print(f"{name:26} {len(labels):6d}  BA {fmt(ba(labels, judged)):22}  AUC {fmt(stats.roc_auc(scores, labels)):22}"
          f"  rejects {rejects:6.1%}  copies accepted {'-' if copies is None else f'{copies:.1%}'}"
          + (f"  unscored {unscored}" if unscored else ""))


def copies_accepted(judge: LexicalJudge, premises: list[list[str]], rng: random.Random, n: int = 300) -> float:
    pairs = []
    for premise in premises:
        for passage in premise:
            pairs.extend((s, premise) for s in split_sentences(passage) if len(s.split()) >= 5)
    rng.shuffle(pairs)
    chosen = pairs[:n]
    return sum(bool(v.supported) for v in judge.judge_many(chosen)) / max(len(chosen), 1)


def number_swaps(judge: LexicalJudge, docs: list[str], rng: random.Random, n: int = 300) -> tuple[float, float, int]:
    """(share of swapped sentences accepted, share of their copies accepted, how many)."""
    swapped, copies = [], []
    for doc in docs:
        sentences = split_sentences(doc)
        stated = [m.group() for s in sentences for m in _NUMBER.finditer(s)]
        for s in sentences:
            m = _NUMBER.search(s)
            if m is None:
                continue
            others = sorted({x for x in stated if x != m.group() and x.replace(",", "") != m.group().replace(",", "")})
            if not others:
                continue
            other = rng.choice(others)
            swapped.append((s[: m.start()] + other + s[m.end():], [doc]))
            copies.append((s, [doc]))
    order = list(range(len(swapped)))
    rng.shuffle(order)
    order = order[:n]
    judged = judge.judge_many([swapped[i] for i in order])
    kept = judge.judge_many([copies[i] for i in order])
    return (sum(bool(v.supported) for v in judged) / len(order), sum(bool(v.supported) for v in kept) / len(order),
            len(order))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--limit", type=int, default=0, help="at most this many claims per set (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = Path(args.data)
    judge = LexicalJudge()
    rng = random.Random(args.seed)
    print(f"lexical judge as shipped (coverage {judge.coverage}, window {judge.window}, threshold {judge.threshold})")
    for name, path in [("WiCE dev (fit)", data / "wice" / "claim_dev.jsonl"),
                       ("WiCE test (held out)", data / "wice" / "claim_test.jsonl"),
                       ("LFQA (fit)", data / "lfqa_verification")]:
        examples = metaeval.load(path)
        if args.limit:
            examples = examples[: args.limit]
        verdicts = judge.judge_many(metaeval.pairs_of(examples))
        row(name, [e.supported for e in examples], [v.supported for v in verdicts], [v.score for v in verdicts],
            copies_accepted(judge, [list(e.premise) for e in examples], rng))
    summaries = load_summaries(data / "summedits")
    if args.limit:
        summaries = summaries[: args.limit]
    by_domain: dict[str, list] = {}
    for s in summaries:
        by_domain.setdefault(s.domain, []).append(s)
    everything: tuple[list[bool], list[bool | None], list[float]] = ([], [], [])
    for domain, group in sorted(by_domain.items()):
        labels, supported, scores = [], [], []
        for s in group:  # a summary is an answer: its fragments judged with the sentence before them
            mine = [v for _, v in judged_claims(judge, s)]
            labels.append(s.consistent)
            supported.append(all(bool(v.supported) for v in mine) if mine else None)
            scores.append(min(v.score for v in mine) if mine else 0.0)
        for into, values in zip(everything, (labels, supported, scores)):
            into.extend(values)
        row(f"SummEdits {domain}", labels, supported, scores,
            copies_accepted(judge, [[doc] for doc in dict.fromkeys(s.doc for s in group)], rng, 100))
    row("SummEdits, 8 domains", *everything, None)
    news = list(dict.fromkeys(s.doc for s in by_domain.get("news", [])))
    accepted, kept, n = number_swaps(judge, news, rng)
    print(f"number swaps on SummEdits news ({n} sentences): swapped accepted {accepted:.1%}, copies accepted {kept:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
