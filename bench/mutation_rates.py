"""Kill rates of the groundedness tier's mutation testing on the demo suites, at any coverage.

    .venv/bin/python bench/mutation_rates.py                  # the judge as the tier runs it (coverage 0.5)
    .venv/bin/python bench/mutation_rates.py --coverage 0.4   # another threshold

What `pytest suites -m groundedness --sprout-mutate` reports, computed in one process through the
same code (the reference system's answers, the tier's sentence verdicts, ``mutate.mutant_rows``),
with what the plugin's table does not split: the appended clauses that carry a proper name apart
from those in lowercase words only, and the text operators apart from the structural ones. Each
rate has its n and a Wilson 95% interval.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_sprout.suites.loader import load_suites  # noqa: E402
from pytest_sprout.judges.groundedness import GroundednessTier, judge_sentences  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge  # noqa: E402
from pytest_sprout.core.model import Answer  # noqa: E402
from pytest_sprout.checks.mutation import mutant_rows  # noqa: E402
from pytest_sprout.checks.operators import OPERATORS, STRUCTURAL  # noqa: E402
from pytest_sprout.reference import make_system  # noqa: E402
from pytest_sprout.core.stats import wilson_interval  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coverage", type=float, default=LexicalJudge.DEFAULT_COVERAGE,
                    help="the lexical judge's coverage threshold (default: the tier's)")
    args = ap.parse_args()
    tier = GroundednessTier(coverage=args.coverage)
    system = make_system()
    answered = sentences = supported = 0
    outcomes: dict[str, list[bool]] = {}
    for case in load_suites(ROOT / "suites").cases:
        if "groundedness" not in case.tiers:
            continue
        answer = Answer.coerce(system(case.question))
        if answer.refused:
            continue
        answered += 1
        rows = judge_sentences(tier.judge, answer)
        sentences += len(rows)
        supported += sum(r["supported"] is True for r in rows)
        for m in mutant_rows(tier, answer, rows) or ():
            if m["killed"] is None:
                continue
            outcomes.setdefault(m["operator"], []).append(m["killed"])
            if m["operator"] == "unsupported_clause":
                clause = m["mutant"][len(m["sentence"]) - 1:]
                kind = "with a proper name" if re.search(r"\b[A-Z]", clause) else "lowercase words only"
                outcomes.setdefault(f"  clause {kind}", []).append(m["killed"])

    print(f"coverage {args.coverage}: {answered} answered cases, {sentences} sentences, {supported} judged supported")
    print(f"{'operator':34} {'killed/n':>10} {'rate':>6}  95% CI")
    rows = []
    for op in (op for op in OPERATORS if op in outcomes):
        rows.append(op)
        if op == "unsupported_clause":
            rows += [k for k in ("  clause with a proper name", "  clause lowercase words only") if k in outcomes]
    for name in rows:
        kills = outcomes[name]
        k, n = sum(kills), len(kills)
        low, high = wilson_interval(k, n)
        label = name + (" (structural)" if name in STRUCTURAL else "")
        print(f"{label:34} {f'{k}/{n}':>10} {k / n:6.3f}  [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
