"""Kill rates of the groundedness tier's mutation testing, on the demo suites and on real answers.

    .venv/bin/python bench/mutation_rates.py                  # the judge as the tier runs it (coverage 0.5)
    .venv/bin/python bench/mutation_rates.py --coverage 0.4   # another threshold
    .venv/bin/python bench/mutation_rates.py --lfqa ../shared/benchmarks/lfqa_verification

Two tables, each rate with its n and a Wilson 95% interval:

- **demo**: what `pytest suites -m groundedness --sprout-mutate` reports, computed in one process
  through the same code (the reference system's answers, the tier's sentence verdicts,
  ``mutate.mutant_rows``), with what the plugin's table does not split: the appended clauses that
  carry a proper name apart from those in lowercase words only, and the text operators apart from
  the structural ones. The reference system copies its sentences from the passages it cites.
- **real answers**: the same operators on sentences written by language models,
  LFQA-Verification's answers of webgpt, gpt3_wdoc and alpaca_wdoc that their annotators' majority
  labelled supported, each against the documents its system was given (all of them cited, as the
  answers carry no per-sentence citations; a fragment is judged with the sentence before it, as
  ``metaeval`` does). As in a run, only the sentences the judge also accepts are mutated. The
  structural operators are left out: every document is cited, so there is nothing to move a
  citation to, and a dropped citation says nothing about the judge's reading.
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
from pytest_sprout.core.model import Answer, Passage, Sentence  # noqa: E402
from pytest_sprout.checks.metaeval import pairs_of, read_lfqa  # noqa: E402
from pytest_sprout.checks.mutation import mutant_rows  # noqa: E402
from pytest_sprout.checks.operators import OPERATORS, STRUCTURAL, TEXT_OPERATORS, mutate_sentence  # noqa: E402
from pytest_sprout.reference import make_system  # noqa: E402
from pytest_sprout.core.stats import wilson_interval  # noqa: E402

REAL_SYSTEMS = ("webgpt", "gpt3_wdoc", "alpaca_wdoc")
DEFAULT_LFQA = ROOT.parent / "shared" / "benchmarks" / "lfqa_verification"
Outcomes = dict[str, list[bool]]


def demo_outcomes(tier: GroundednessTier) -> tuple[str, Outcomes]:
    """Kill outcomes per operator on the demo suites, and a line saying what was mutated."""
    system = make_system()
    answered = sentences = supported = 0
    outcomes: Outcomes = {}
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
    return f"demo: {answered} answered cases, {sentences} sentences, {supported} judged supported", outcomes


def real_outcomes(judge: LexicalJudge, folder: Path) -> tuple[str, Outcomes]:
    """Kill outcomes per text operator on LFQA-Verification's human-supported answer sentences of
    REAL_SYSTEMS that the judge accepts, and a line saying how many there were."""
    examples = [e for system in REAL_SYSTEMS for e in read_lfqa(folder / f"annotations-{system}.json") if e.supported]
    pairs = pairs_of(examples)
    accepted = [(e, claim, premise) for e, (claim, premise), v in zip(examples, pairs, judge.judge_many(pairs))
                if v.supported is True]
    mutants = []
    for e, claim, premise in accepted:
        passages = tuple(Passage(f"d{i}", text) for i, text in enumerate(premise))
        answer = Answer((Sentence(claim, tuple(p.id for p in passages)),), passages)
        mutants += [(e.category, m, premise) for m in mutate_sentence(answer, 0, TEXT_OPERATORS)]
    verdicts = judge.judge_many([(m.sentence.text, list(premise)) for _, m, premise in mutants])
    outcomes: Outcomes = {}
    for (system, m, _), v in zip(mutants, verdicts):
        if v.supported is None:
            continue
        outcomes.setdefault(m.operator, []).append(not v.supported)
        outcomes.setdefault(f"{m.operator}@{system}", []).append(not v.supported)
    by_system = ", ".join(f"{s} {sum(e.category == s for e, _, _ in accepted)}/{sum(e.category == s for e in examples)}"
                          for s in REAL_SYSTEMS)
    line = (f"real answers (LFQA-Verification): {len(accepted)} of {len(examples)} human-supported sentences"
            f" judged supported ({by_system})")
    return line, outcomes


def print_table(title: str, outcomes: Outcomes) -> None:
    print(title)
    print(f"{'operator':34} {'killed/n':>10} {'rate':>6}  95% CI")
    rows = []
    for op in (op for op in OPERATORS if op in outcomes):
        rows.append(op)
        if op == "unsupported_clause":
            rows += [k for k in ("  clause with a proper name", "  clause lowercase words only") if k in outcomes]
    if any("@" in key for key in outcomes):
        rows = [f"{op}@{s}" if s else op for op in rows for s in ("",) + REAL_SYSTEMS if f"{op}@{s}" in outcomes or not s]
    for name in rows:
        kills = outcomes[name]
        if "@" in name:
            name = "  " + name.split("@")[1]
        k, n = sum(kills), len(kills)
        low, high = wilson_interval(k, n)
        label = name + (" (structural)" if name in STRUCTURAL else "")
        print(f"{label:34} {f'{k}/{n}':>10} {k / n:6.3f}  [{low:.3f}, {high:.3f}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coverage", type=float, default=LexicalJudge.DEFAULT_COVERAGE,
                    help="the lexical judge's coverage threshold (default: the tier's)")
    ap.add_argument("--lfqa", type=Path, default=DEFAULT_LFQA,
                    help="the LFQA-Verification folder for the real-answer table (default: ../shared/benchmarks/lfqa_verification)")
    ap.add_argument("--only", choices=("demo", "real"), help="print one table only")
    args = ap.parse_args()
    tier = GroundednessTier(coverage=args.coverage)
    print(f"coverage {args.coverage}")
    if args.only != "real":
        print_table(*demo_outcomes(tier))
    if args.only != "demo":
        if not (args.lfqa / "annotations-webgpt.json").is_file():
            print(f"real answers: no LFQA-Verification data in {args.lfqa} (pass --lfqa)")
            return
        print()
        print_table(*real_outcomes(tier.judge, args.lfqa))


if __name__ == "__main__":
    main()
