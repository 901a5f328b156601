"""Shards: N shard processes of a slow system against one process, and the merge's time against
the size of the reports, measured in one script run.

    .venv/bin/python bench/bench_shards.py [--cases 120] [--delay 0.5] [--shards 3] [--concurrency 1]
                                           [--merge-rows 2000,10000] [--rounds 1] [--merge-only]

Part 1: a generated suite of ``--cases`` cases whose system sleeps ``--delay`` seconds per answer
(a remote RAG pipeline), asked ``--concurrency`` at a time (1: an endpoint that takes one request
at a time). One process runs every case; then ``--shards`` processes, started together as a CI
matrix would, each run one shard (``--sprout-shard=K/N``). Prints both wall-clocks (process
start-up included) and the speed-up; the merged report must equal the single run's.

Part 2: for each size in ``--merge-rows``, two shard reports of that many rows in all (a fast
system, the groundedness tier) are merged with ``python -m pytest_sprout.merge``; prints the
merge's wall-clock, and that of a bare ``pytest`` start in the same project (the fixed cost every
process pays) as the baseline, and seconds per 10,000 rows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_xdist import COMMON, generate

# The merge's pytest loads the same plugins as the runs (COMMON's -p no:... and quiet output).
MERGE = ["-q", "-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:randomly"]

SLOW_SYSTEM = '''
import json, pathlib, time

DATA = json.loads(pathlib.Path(__file__).with_name("answers.json").read_text())
DELAY = {delay!r}

def make():
    def system(question):
        time.sleep(DELAY)
        text, passages = DATA[question]
        return text, passages
    system.name, system.version = "bench-slow", "1"
    return system
'''


def write_project(folder: Path, n: int, delay: float) -> Path:
    import yaml

    cases, answers = generate(n)
    (folder / "suites").mkdir(parents=True)
    (folder / "answers.json").write_text(json.dumps(answers))
    (folder / "system.py").write_text(SLOW_SYSTEM.format(delay=delay))
    suite = {"suite": "gen", "defaults": {"tiers": ["groundedness"]}, "cases": cases}
    (folder / "suites" / "gen.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    (folder / "pytest.ini").write_text("[pytest]\nsprout_system = system:make\npythonpath = .\n")
    return folder


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1")


def start(cwd: Path, args: list[str], module: str = "pytest") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(proc: subprocess.Popen, what: str) -> str:
    out, _ = proc.communicate()
    if proc.returncode not in (0, 1, 5):  # 5: the bare start collects nothing, as asked
        sys.exit(f"{what} failed (exit {proc.returncode}):\n{out[-3000:]}")
    return out


CPU = [0.0]  # CPU seconds (user + system) of the last timed process: the machine is shared


def timed(cwd: Path, args: list[str], module: str = "pytest") -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    finish(start(cwd, args, module), f"{module} {' '.join(args)}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return time.perf_counter() - begin


def shards_vs_one(root: Path, cases: int, delay: float, shards: int, concurrency: int, rounds: int) -> None:
    project = write_project(root / "slow", cases, delay)
    run = [*COMMON, f"--sprout-concurrency={concurrency}"]
    one, many = [], []
    for _ in range(rounds):
        one.append(timed(project, [*run, "--sprout-report=single.json"]))
        begin = time.perf_counter()
        procs = [start(project, [*run, f"--sprout-shard={k}/{shards}", f"--sprout-report=s{k}.json"])
                 for k in range(1, shards + 1)]
        for k, proc in enumerate(procs, 1):
            finish(proc, f"shard {k}/{shards}")
        many.append(time.perf_counter() - begin)
    merge = timed(project, [*[f"s{k}.json" for k in range(1, shards + 1)], "--sprout-report=merged.json", *MERGE],
                  "pytest_sprout.merge")
    merge_cpu = CPU[0]
    same = json.loads((project / "merged.json").read_text()) == json.loads((project / "single.json").read_text())
    t1, tn = statistics.median(one), statistics.median(many)
    print(f"slow system: {cases} cases x {delay} s, --sprout-concurrency={concurrency}")
    print(f"  one process:          median {t1:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in one)})")
    print(f"  {shards} shard processes:  median {tn:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in many)})")
    print(f"  speed-up (one / {shards} shards): {t1 / tn:.2f}x (ideal {shards}x); merge {merge:.2f} s (CPU {merge_cpu:.2f} s); "
          f"merged report equals the single run's: {same}")
    if not same:
        sys.exit("the merged report differs from the single run's")


def merge_scaling(root: Path, sizes: list[int]) -> None:
    for rows in sizes:
        project = write_project(root / f"fast-{rows}", rows, 0.0)
        for k in (1, 2):
            finish(start(project, [*COMMON, f"--sprout-shard={k}/2", f"--sprout-report=s{k}.json"]), f"shard {k}/2")
        bare = timed(project, [*COMMON, "--co", "-m", "no_such_marker"])
        bare_cpu = CPU[0]
        merge = timed(project, ["s1.json", "s2.json", "--sprout-report=merged.json", *MERGE], "pytest_sprout.merge")
        merge_cpu = CPU[0]
        size = sum((project / f"s{k}.json").stat().st_size for k in (1, 2)) / 1e6
        print(f"merge of {rows} rows ({size:.1f} MB of shard reports): {merge:.2f} s wall, CPU {merge_cpu:.2f} s; "
              f"a bare pytest start that collects the same suite: {bare:.2f} s wall, CPU {bare_cpu:.2f} s; merge "
              f"{merge / rows * 10000:.2f} s wall and {merge_cpu / rows * 10000:.2f} s CPU per 10,000 rows")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--merge-rows", default="2000,10000")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--merge-only", action="store_true", help="part 2 only")
    args = parser.parse_args()
    print(f"cores available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
          f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if not args.merge_only:
            shards_vs_one(root, args.cases, args.delay, args.shards, args.concurrency, args.rounds)
        merge_scaling(root, [int(x) for x in args.merge_rows.split(",") if x])
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
