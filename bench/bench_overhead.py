"""Plugin overhead: `pytest -m groundedness` over N generated cases against a plain parametrized
pytest test that calls the same system and the same judge, measured in one script run.

    .venv/bin/python bench/bench_overhead.py [--cases 5000] [--rounds 3]

Both runs are whole pytest processes (start-up included); rounds alternate so that machine noise
hits both sides alike. Both sides must see the same outcomes in every round (the same pass/fail
counts and the same failed cases), or the script stops. Prints each side's median seconds and the
ratio plugin / plain.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLANTS = ["snake plant", "pothos", "monstera", "peace lily", "spider plant", "jade plant", "fern", "aloe"]
ACTIONS = [
    ("water", "when the top {n} cm of soil is dry"),
    ("feed", "every {n} weeks in spring and summer"),
    ("repot", "every {n} years into a pot one size larger"),
    ("mist", "no more than {n} times a week"),
]

SYSTEM = '''
import json, pathlib
DATA = json.loads(pathlib.Path(__file__).with_name("answers.json").read_text())

def system(question):
    text, passages = DATA[question]
    return text, passages
'''

PLAIN_TEST = '''
import json, pathlib
import pytest
from pytest_sprout import Answer, LexicalJudge
from pytest_sprout.judges.groundedness import find_fact
from system import system

CASES = json.loads(pathlib.Path(__file__).with_name("cases.json").read_text())
JUDGE = LexicalJudge()

@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_grounded(case):
    answer = Answer.coerce(system(case["question"]))
    verdicts = JUDGE.judge_many((s.text, answer.cited(s)[0]) for s in answer.sentences)
    text = " ".join(s.text for s in answer.sentences)
    assert all(v.supported for v in verdicts)
    assert all(find_fact(f, text) for f in case["expected_facts"])
'''


def generate(n: int, seed: int = 7) -> tuple[list[dict], dict]:
    rng = random.Random(seed)
    cases, answers = [], {}
    for i in range(n):
        plant = rng.choice(PLANTS)
        verb, tail = rng.choice(ACTIONS)
        k = rng.randint(2, 9)
        fact = tail.format(n=k)
        passage = (
            f"The {plant} is a popular houseplant. {verb.capitalize()} the {plant} {fact}. "
            f"Most growers keep it away from cold draughts and direct midday sun."
        )
        question = f"Case {i}: how should I {verb} a {plant}?"
        claim = f"{verb.capitalize()} the {plant} {fact} [1]."
        if i % 10 == 0:  # some unsupported answers, so failures are part of the cost
            claim = f"{verb.capitalize()} the {plant} {tail.format(n=k + 3)} [1]."
        answers[question] = [claim, [passage]]
        cases.append({"id": f"case-{i}", "question": question, "expected_facts": [verb]})
    return cases, answers


def write_projects(root: Path, n: int) -> tuple[Path, Path]:
    import json

    import yaml

    cases, answers = generate(n)
    plugin_dir, plain_dir = root / "plugin", root / "plain"
    for d in (plugin_dir, plain_dir):
        d.mkdir()
        (d / "answers.json").write_text(json.dumps(answers))
        (d / "system.py").write_text(SYSTEM)
    (plugin_dir / "suites").mkdir()
    suite = {"suite": "gen", "defaults": {"tiers": ["groundedness"]}, "cases": [
        {"id": c["id"], "question": c["question"], "expected_facts": c["expected_facts"]} for c in cases
    ]}
    (plugin_dir / "suites" / "gen.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    (plugin_dir / "pytest.ini").write_text("[pytest]\nsprout_system = system:make\npythonpath = .\n")
    (plugin_dir / "system.py").write_text(SYSTEM + "\ndef make():\n    return system\n")
    (plain_dir / "cases.json").write_text(json.dumps(cases))
    (plain_dir / "test_plain.py").write_text(PLAIN_TEST)
    (plain_dir / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return plugin_dir, plain_dir


# The same plugins on both sides: pytest-sprout loads on the plain side too (it finds no suites
# there), and the heavy third-party plugins (deepeval, langsmith, hypothesis) load on neither.
COMMON = ["-q", "-p", "no:cacheprovider", "-p", "no:deepeval", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
          "-p", "no:randomly", "--no-header", "-o", "console_output_style=classic"]


def run(cwd: Path, args: list[str]) -> tuple[float, str, frozenset[str]]:
    """Seconds, the pass/fail counts and the ids of the failed cases of one pytest process."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", *COMMON, "-rf", *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest failed in {cwd}:\n{proc.stdout[-3000:]}")
    counts = ", ".join(re.findall(r"\d+ (?:passed|failed|skipped|error)", proc.stdout.strip().splitlines()[-1]))
    # "FAILED test_plain.py::test_grounded[case-7]" and "FAILED suites/gen.yaml::case-7[groundedness]"
    failed = frozenset(re.findall(r"^FAILED \S*?(case-\d+)", proc.stdout, re.MULTILINE))
    return elapsed, counts, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plugin_dir, plain_dir = write_projects(Path(tmp), args.cases)
        plugin_t, plain_t = [], []
        outcomes: dict[str, set[tuple[str, frozenset[str]]]] = {"plain": set(), "plugin": set()}
        for _ in range(args.rounds):
            seconds, counts, failed = run(plain_dir, ["--tb=no"])
            plain_t.append(seconds)
            outcomes["plain"].add((counts, failed))
            seconds, counts, failed = run(plugin_dir, ["-m", "groundedness", "--tb=no"])
            plugin_t.append(seconds)
            outcomes["plugin"].add((counts, failed))
    # Both sides must have judged alike: the same counts, and the same cases failed, in every round.
    if len(outcomes["plain"]) != 1 or outcomes["plain"] != outcomes["plugin"]:
        sys.exit("the two sides saw different outcomes: "
                 + "; ".join(f"{side}: {sorted((c, len(f)) for c, f in o)}" for side, o in outcomes.items()))
    counts, failed = outcomes["plain"].pop()
    p, b = statistics.median(plugin_t), statistics.median(plain_t)
    print(f"cases: {args.cases}, rounds: {args.rounds}; both sides: {counts} (the same {len(failed)} cases failed)")
    print(f"plain parametrized test : median {b:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in plain_t)})")
    print(f"pytest -m groundedness  : median {p:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in plugin_t)})")
    print(f"overhead ratio plugin/plain: {p / b:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
