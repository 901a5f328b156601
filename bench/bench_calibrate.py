"""Simulated users of ``python -m pytest_sprout.calibrate``: on each labelled set, a user labels 100
items drawn at random, calibrates the lexical judge on them (checks/calibrate.decide: the threshold
fitted by cross-validation, kept only when its gain is clear), and judges the rest. Per set, over
50 seeded draws: the shipped judge's and the calibrated judge's mean balanced accuracy on the rest,
the difference, how often the calibration was kept, and the best balanced accuracy any threshold
gets on the whole set (what the score could give on that kind of data; fitted on everything, so a
ceiling, not a result).

Sets: each SummEdits domain (a summary is consistent when every sentence is supported: its point
is the lowest score of its sentences, and it is rejected when any sentence fails a rule), each
LFQA-Verification system (one point per answer sentence, majority label), and WiCE test (claims
against their gold sentences). The judge scores every item once; everything after that is
arithmetic on the scores.

    python bench/bench_calibrate.py --benchmarks ../shared/benchmarks [--draws 50] [--size 100] [--cache PATH]

Target (issue 48): mean balanced accuracy never below the shipped judge's by more than 0.01 on any
set, and above it where the shipped threshold is wrong for that kind of data.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from pytest_sprout.checks import calibrate as fit
from pytest_sprout.checks.metaeval import pairs_of, read_lfqa, read_wice
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.judges.lexical.claims import join_fragments


def summedits_points(path: Path, judge: LexicalJudge) -> dict[str, list[fit.Point]]:
    from summedits_data import load_summaries

    out: dict[str, list[fit.Point]] = {}
    for summary in load_summaries(path):
        pairs, _ = join_fragments([(s, [summary.doc]) for s in summary.sentences])
        points, _ = fit.lexical_points(judge, pairs, [summary.consistent] * len(pairs))
        if not points:
            continue  # no sentence with a claim: the judge says nothing of it
        fixed = all(p.fixed for p in points if not p.scored)
        scored = [p for p in points if p.scored]
        if not scored:
            point = fit.Point(summary.consistent, 1.0, scored=False, fixed=fixed)
        else:
            point = fit.Point(summary.consistent, min(p.score for p in scored),
                              eligible=fixed and all(p.eligible for p in scored))
        out.setdefault(f"summedits {summary.domain}", []).append(point)
    return out


def lfqa_points(path: Path, judge: LexicalJudge) -> dict[str, list[fit.Point]]:
    examples = read_lfqa(path)
    out: dict[str, list[fit.Point]] = {}
    for system in sorted({e.category for e in examples if e.category}):
        chosen = [e for e in examples if e.category == system]
        points, _ = fit.lexical_points(judge, pairs_of(chosen), [e.supported for e in chosen])
        out[f"lfqa {system}"] = points
    return out


def wice_points(path: Path, judge: LexicalJudge) -> dict[str, list[fit.Point]]:
    examples = read_wice(path)
    points, _ = fit.lexical_points(judge, pairs_of(examples), [e.supported for e in examples])
    return {"wice test": points}


def ba(points: list[fit.Point], threshold: float) -> float:
    sup = [p.predict(threshold) for p in points if p.label]
    uns = [not p.predict(threshold) for p in points if not p.label]
    return (sum(sup) / len(sup) + sum(uns) / len(uns)) / 2


def simulate(points: list[fit.Point], default: float, draws: int, size: int, seed: int,
             confidence: float = fit.CONFIDENCE) -> dict[str, float]:
    rng = random.Random(f"bench-calibrate:{seed}")
    shipped, calibrated, kept = [], [], 0
    for _ in range(draws):
        while True:  # a draw whose rest lacks a class cannot be scored: draw again (seeded)
            order = list(range(len(points)))
            rng.shuffle(order)
            labelled = [points[i] for i in order[:size]]
            rest = [points[i] for i in order[size:]]
            if any(p.label for p in rest) and not all(p.label for p in rest):
                break
        decision = fit.decide(labelled, default, confidence=confidence)
        kept += decision.kept == "calibrated"
        shipped.append(ba(rest, default))
        calibrated.append(ba(rest, decision.threshold))
    best = fit.fit_threshold(points, default)
    return {"n": len(points), "supported": sum(p.label for p in points),
            "shipped": sum(shipped) / draws, "calibrated": sum(calibrated) / draws,
            "worst_draw": min(c - s for c, s in zip(calibrated, shipped)),
            "kept": kept / draws, "ceiling": ba(points, best), "ceiling_threshold": best}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", required=True, help="the folder with wice/, lfqa_verification/ and summedits/")
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--confidence", type=float, default=fit.CONFIDENCE,
                        help="the level of the gain's interval whose lower bound must be above 0 (default: the shipped rule's)")
    parser.add_argument("--cache", help="a JSON file to keep the judge's points in between runs")
    args = parser.parse_args()
    judge = LexicalJudge()
    root = Path(args.benchmarks)
    cache = Path(args.cache) if args.cache else None
    key = json.dumps(judge.settings(), sort_keys=True)
    sets: dict[str, list[fit.Point]] | None = None
    if cache is not None and cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.get("settings") == key:
            sets = {name: [fit.Point(*p) for p in pts] for name, pts in stored["sets"].items()}
    if sets is None:
        started = time.perf_counter()
        sets = {}
        sets.update(summedits_points(root / "summedits", judge))
        sets.update(lfqa_points(root / "lfqa_verification", judge))
        sets.update(wice_points(root / "wice" / "claim_test.jsonl", judge))
        print(f"judged every item once in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        if cache is not None:
            cache.write_text(json.dumps({"settings": key, "sets": {
                name: [[p.label, p.score, p.eligible, p.scored, p.fixed] for p in pts] for name, pts in sets.items()}}),
                encoding="utf-8")
    default = judge.threshold
    print(f"lexical judge {key}; {args.draws} draws of {args.size} labels per set, seed {args.seed}, kept when the {args.confidence:.0%} interval of the gain is above 0; "
          f"balanced accuracy on the items not drawn, mean over draws")
    header = ("set", "n (supported)", "shipped", "calibrated", "difference", "worst draw", "kept", "ceiling (threshold)")
    rows = []
    worst = 0.0
    for name, points in sets.items():
        if len(points) <= args.size + 10:
            continue
        r = simulate(points, default, args.draws, args.size, args.seed, args.confidence)
        worst = min(worst, r["calibrated"] - r["shipped"])
        rows.append((name, f"{r['n']} ({r['supported']})", f"{r['shipped']:.3f}", f"{r['calibrated']:.3f}",
                     f"{r['calibrated'] - r['shipped']:+.3f}", f"{r['worst_draw']:+.3f}", f"{r['kept']:.0%}",
                     f"{r['ceiling']:.3f} ({r['ceiling_threshold']:.2f})"))
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
    print(f"largest mean loss against the shipped judge: {-worst:.3f} (target: at most 0.01)")
    return 0 if worst >= -0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
