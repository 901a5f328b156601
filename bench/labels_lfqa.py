"""The worked example of docs/judging-the-judges.md, "Your own labels": LFQA-Verification's
gpt3_wdoc answers judged by the lexical judge against their retrieved documents, with a share of
the sentences' human labels given to the correction (core/ppi.py).

    .venv/bin/python bench/labels_lfqa.py [--benchmarks ../shared/benchmarks] [--share 0.3] [--draws 200]

Prints the judge's rate (Wilson, and clustered by answer), the rate from every human label, the
corrected rate from a seeded sample of ``--share`` of the labels, and, for several shares, the mean
width of the corrected interval against the labels-only Wilson interval over ``--draws`` seeded
samples, with how often each covers the all-labels rate.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_sprout.checks.metaeval import read_lfqa  # noqa: E402
from pytest_sprout.core.clusters import clustered_interval  # noqa: E402
from pytest_sprout.core.ppi import corrected_rate, judge_vs_labels, strata_of  # noqa: E402
from pytest_sprout.core.stats import wilson_interval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402


def corrected(judge: list[bool], people: list[bool], sample: list[int]):  # type: ignore[no-untyped-def]
    verdicts = {True: sum(judge), False: len(judge) - sum(judge)}
    return corrected_rate(strata_of([(judge[i], people[i]) for i in sample], verdicts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", default=str(ROOT.parent / "shared" / "benchmarks"))
    parser.add_argument("--share", type=float, default=0.3)
    parser.add_argument("--draws", type=int, default=200)
    args = parser.parse_args()
    examples = read_lfqa(Path(args.benchmarks, "lfqa_verification", "annotations-gpt3_wdoc.json"))
    verdicts = list(LexicalJudge().judge_many([(e.claim, list(e.premise)) for e in examples]))
    judge = [v.supported is True for v in verdicts]
    people = [e.supported for e in examples]
    n = len(examples)
    answers: dict[str, list[int]] = {}
    for e, j in zip(examples, judge):
        cell = answers.setdefault(e.id.rsplit(":", 1)[0], [0, 0])
        cell[0] += j
        cell[1] += 1
    c = clustered_interval([(k, m) for k, m in answers.values()])
    low, high = wilson_interval(sum(judge), n)
    print(f"LFQA gpt3_wdoc: {n} sentences in {len(answers)} answers, lexical judge")
    print(f"judge:       {sum(judge) / n:.3f} [{low:.3f}, {high:.3f}] (Wilson); "
          f"[{c.ci_low:.3f}, {c.ci_high:.3f}] clustered by answer (design effect {c.design_effect:.2f})")
    low, high = wilson_interval(sum(people), n)
    print(f"all labels:  {sum(people) / n:.3f} [{low:.3f}, {high:.3f}] ({sum(people)}/{n}, people)")
    size = round(args.share * n)
    sample = random.Random(0).sample(range(n), size)
    fix = corrected(judge, people, sample)
    assert fix is not None
    low, high = wilson_interval(sum(people[i] for i in sample), size)
    print(f"corrected:   {fix.rate:.3f} [{fix.ci_low:.3f}, {fix.ci_high:.3f}] from {size} labels "
          f"({args.share:.0%}, seed 0); the labels alone {sum(people[i] for i in sample) / size:.3f} [{low:.3f}, {high:.3f}]")
    j = judge_vs_labels([(judge[i], people[i]) for i in sample])
    print(f"judge vs the {size} labels: sensitivity {j.sensitivity.value:.3f} ({j.sensitivity.k}/{j.sensitivity.n}), "
          f"specificity {j.specificity.value:.3f} ({j.specificity.k}/{j.specificity.n})")
    truth = sum(people) / n
    print(f"\nmean 95% width over {args.draws} seeded samples (coverage of the all-labels rate {truth:.3f}):")
    print("share  labels  corrected        labels only      ratio")
    for share in (0.05, 0.1, 0.2, 0.3, 0.5):
        size = round(share * n)
        widths, plain, hit, plain_hit = 0.0, 0.0, 0, 0
        rng = random.Random(share)
        for _ in range(args.draws):
            sample = rng.sample(range(n), size)
            fix = corrected(judge, people, sample)
            assert fix is not None
            low, high = wilson_interval(sum(people[i] for i in sample), size)
            widths += fix.ci_high - fix.ci_low
            plain += high - low
            hit += fix.ci_low <= truth <= fix.ci_high
            plain_hit += low <= truth <= high
        d = args.draws
        print(f"{share:>5.0%}  {size:>6}  {widths / d:.3f} ({hit / d:.0%})    {plain / d:.3f} ({plain_hit / d:.0%})    "
              f"{widths / plain:.2f}")


if __name__ == "__main__":
    main()
