"""xdist speed-up: wall-clock of `pytest -n 2` against `pytest -n 0` on the same generated suite,
measured in one script run, for the groundedness tier and for the alce tier.

    .venv/bin/python bench/bench_xdist.py [--cases 5000] [--alce-cases 200] [--rounds 3] [--no-alce]

Every run is a whole pytest process (start-up, worker start-up and model loading included), with
pytest's cache off so that no answer, result or NLI verdict is reused between runs. Rounds
alternate -n 0 and -n 2 so that machine noise hits both alike. The alce tier runs a randomly
initialised model with DeBERTa-v3-base's shape (12 layers, hidden 768, 128,100-token vocabulary,
relative attention), which costs what the real model costs; its verdicts mean nothing. Prints each
side's median seconds and the ratio (-n 0 time) / (-n 2 time): above 1 means -n 2 is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLANTS = ["snake plant", "pothos", "monstera", "peace lily", "spider plant", "jade plant", "fern", "aloe", "ficus", "cactus"]
FACTS = [
    ("water", "when the top {n} cm of soil is dry"),
    ("feed", "every {n} weeks in spring and summer"),
    ("repot", "every {n} years into a pot one size larger"),
    ("mist", "no more than {n} times a week"),
    ("prune", "after {n} new leaves have opened"),
]

SYSTEM = '''
import json, pathlib

DATA = json.loads(pathlib.Path(__file__).with_name("answers.json").read_text())

def make():
    def system(question):
        text, passages = DATA[question]
        return text, passages
    system.name, system.version = "bench", "1"
    return system
'''

# Unrelated plugins installed here would add their own start-up to every process and every worker.
COMMON = ["-q", "--tb=no", "--no-header", "-p", "no:cacheprovider", "-p", "no:deepeval",
          "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:randomly"]


def generate(n: int, seed: int = 11) -> tuple[list[dict], dict]:
    """n cases, each answered in two cited sentences from three retrieved passages; every tenth
    answer carries a wrong number, so failures are part of the cost."""
    rng = random.Random(seed)
    cases, answers = [], {}
    for i in range(n):
        plant = rng.choice(PLANTS)
        (verb, tail), (verb2, tail2) = rng.sample(FACTS, 2)
        k, k2 = rng.randint(2, 9), rng.randint(2, 9)
        passages = [
            f"The {plant} is a popular houseplant. {verb.capitalize()} the {plant} {tail.format(n=k)}.",
            f"Growers {verb2} the {plant} {tail2.format(n=k2)}. Keep it away from cold draughts.",
            "Most houseplants dislike direct midday sun and sudden changes of temperature.",
        ]
        wrong = k + 3 if i % 10 == 0 else k
        text = (f"{verb.capitalize()} the {plant} {tail.format(n=wrong)} [1]. "
                f"You can {verb2} it {tail2.format(n=k2)} [2][3].")
        question = f"Case {i}: how should I look after a {plant}?"
        answers[question] = [text, passages]
        cases.append({"id": f"case-{i}", "question": question, "expected_facts": [verb]})
    return cases, answers


def write_project(folder: Path, n: int, tier: str) -> Path:
    import yaml

    cases, answers = generate(n)
    (folder / "suites").mkdir(parents=True)
    (folder / "answers.json").write_text(json.dumps(answers))
    (folder / "system.py").write_text(SYSTEM)
    suite = {"suite": "gen", "defaults": {"tiers": [tier]}, "cases": cases}
    (folder / "suites" / "gen.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    (folder / "pytest.ini").write_text("[pytest]\nsprout_system = system:make\npythonpath = .\n")
    return folder


def deberta_base_shaped(folder: Path, corpus: list[str]) -> Path:
    """A randomly initialised DeBERTa-v3-base-shaped NLI classifier (see deberta_shaped.py)."""
    import deberta_shaped

    return deberta_shaped.build(folder, corpus, vocab_size=4000)


def intra_op_speedup(model_dir: Path, answers: dict, rounds: int, batch: int = 16) -> float:
    """How much faster one forward pass runs on 2 torch threads than on 1, in this process. -n 0
    already runs the model on every core this way, so with 2 free cores -n 2 (one thread per
    worker) can gain about 2 / this over -n 0 on the model's share of the time, less the second
    model load. On a busy machine a 2-thread pass can even be slower than a 1-thread one."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    pairs = [(" ".join(passages), text.split(" [")[0]) for text, passages in list(answers.values())[:batch]]
    enc = tokenizer([p for p, _ in pairs], [h for _, h in pairs], padding=True, truncation=True, return_tensors="pt")
    times: dict[int, list[float]] = {1: [], 2: []}
    with torch.inference_mode():
        model(**enc)  # warm-up
        for _ in range(rounds):
            for threads in (1, 2):
                torch.set_num_threads(threads)
                start = time.perf_counter()
                for _ in range(3):
                    model(**enc)
                times[threads].append(time.perf_counter() - start)
    return statistics.median(times[1]) / statistics.median(times[2])


def run(cwd: Path, args: list[str]) -> tuple[float, str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", *COMMON, *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest {' '.join(args)} failed in {cwd} (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
    counts = re.findall(r"(\d+ (?:passed|failed|skipped))", proc.stdout.strip().splitlines()[-1])
    return elapsed, ", ".join(counts)


def compare(name: str, cwd: Path, args: list[str], rounds: int) -> float:
    """Median wall-clock of -n 0 and -n 2, alternating; both must see the same outcomes."""
    times: dict[str, list[float]] = {"0": [], "2": []}
    outcomes: dict[str, set[str]] = {"0": set(), "2": set()}
    for _ in range(rounds):
        for n in ("0", "2"):
            elapsed, counts = run(cwd, [*args, "-n", n])
            times[n].append(elapsed)
            outcomes[n].add(counts)
    if outcomes["0"] != outcomes["2"] or len(outcomes["0"]) != 1:
        sys.exit(f"{name}: -n 0 and -n 2 saw different outcomes: {outcomes}")
    t0, t2 = statistics.median(times["0"]), statistics.median(times["2"])
    print(f"{name}: {outcomes['0'].pop()}")
    for n in ("0", "2"):
        print(f"  -n {n}: median {statistics.median(times[n]):.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[n])})")
    print(f"  speed-up (-n 0 time / -n 2 time): {t0 / t2:.2f}x")
    return t0 / t2


def alce_missing() -> str | None:
    try:
        from pytest_sprout.judges.nli import nli_extra_missing
    except ImportError as exc:
        return f"the alce tier is not importable ({exc})"
    missing = nli_extra_missing()
    return f"{' and '.join(missing)} not installed" if missing else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=5000, help="cases for the groundedness tier")
    parser.add_argument("--alce-cases", type=int, default=200, help="cases for the alce tier")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-alce", action="store_true", help="measure the groundedness tier only")
    args = parser.parse_args()
    print(f"cores available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
          f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = write_project(root / "groundedness", args.cases, "groundedness")
        compare(f"groundedness tier, {args.cases} cases", project, ["-m", "groundedness"], args.rounds)
        missing = None if not args.no_alce else "--no-alce given"
        missing = missing or alce_missing()
        if missing:
            print(f"alce tier: NOT MEASURED ({missing})")
            return
        project = write_project(root / "alce", args.alce_cases, "alce")
        _, answers = generate(args.alce_cases)
        corpus = [text for text, passages in answers.values() for text in [text, *passages]]
        model = deberta_base_shaped(root / "model", corpus)
        gain = intra_op_speedup(model, answers, args.rounds)
        print(f"torch intra-op speed-up, 2 threads vs 1, batch of 16 pairs: {gain:.2f}x; with 2 free cores, two "
              f"1-thread workers (-n 2) would run the model about {2 / gain:.2f}x as fast as -n 0's one 2-thread process")
        compare(f"alce tier, {args.alce_cases} cases, DeBERTa-v3-base-shaped random model", project,
                ["-m", "alce", f"--nli-model={model}"], args.rounds)
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
