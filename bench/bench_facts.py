"""Expected-fact matching: what judges/facts.py's match_fact costs on the demo's real answers,
against rapidfuzz's plain `partial_ratio` of each fact and answer (the old match's core), measured
on the same pairs in one process.

    .venv/bin/python bench/bench_facts.py [--rounds 5]

The pairs are every expected fact of the demo suites (suites/) with the reference system's answer
to its case (the text the groundedness tier searches). Prints the pair count, each side's best
round and the ratio matcher / baseline.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pairs() -> list[tuple[str, str]]:
    from pytest_sprout.core.model import Answer
    from pytest_sprout.judges.groundedness import fact_text
    from pytest_sprout.reference.system import make_system
    from pytest_sprout.suites.loader import load_suites

    system = make_system()
    out = []
    for case in load_suites(ROOT / "suites").cases:
        if case.expected_facts:
            text = fact_text(Answer.coerce(system(case.question)))
            out.extend((fact, text) for fact in case.expected_facts)
    return out


def best_of(rounds: int, work: list[tuple[str, str]], fn) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for fact, text in work:
            fn(fact, text)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from rapidfuzz import fuzz

    from pytest_sprout.judges.facts import find_fact

    work = pairs()
    find_fact(*work[0])  # WordNet and the lemmatiser loaded before timing
    baseline = best_of(args.rounds, work, lambda f, t: fuzz.partial_ratio(f.lower(), t.lower()))
    matcher = best_of(args.rounds, work, find_fact)
    found = sum(find_fact(f, t) for f, t in work)
    print(f"pairs: {len(work)} (found {found})")
    print(f"partial_ratio baseline: {baseline:.4f} s ({baseline / len(work) * 1e3:.4f} ms a fact)")
    print(f"match_fact            : {matcher:.4f} s ({matcher / len(work) * 1e3:.4f} ms a fact)")
    print(f"ratio match_fact / partial_ratio: {matcher / baseline:.1f}x")


if __name__ == "__main__":
    main()
