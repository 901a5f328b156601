"""Shards: N shard processes of a slow system against one process, and the merge's time against
the size of the reports, measured in one script run.

    .venv/bin/python bench/bench_shards.py [--cases 120] [--delay 0.5] [--shards 3] [--concurrency 1]
                                           [--merge-rows 10000,30000] [--rounds 1] [--merge-only]
                                           [--against FOLDER]

Part 1: a generated suite of ``--cases`` cases whose system sleeps ``--delay`` seconds per answer
(a remote RAG pipeline), asked ``--concurrency`` at a time (1: an endpoint that takes one request
at a time). One process runs every case; then ``--shards`` processes, started together as a CI
matrix would, each run one shard (``--sprout-shard=K/N``). Prints both wall-clocks (process
start-up included) and the speed-up; the merged report must equal the single run's.

Part 2: for each size in ``--merge-rows``, two shard reports of that many rows in all (a fast
system, the groundedness tier) are merged with ``python -m pytest_sprout.merge``; prints the
merge's CPU seconds (user + system: the machine may be shared) and those of a bare ``pytest``
start in the same project (it loads the plugins and reads the same suite), the median of
``--rounds`` rounds, and the marginal cost per 10,000 rows: the difference between the largest and
the smallest size, which the fixed start-up cancels out of. ``--against FOLDER`` (a folder holding
another copy of ``pytest_sprout``, main's say) times that copy's merge too, in turn with this
checkout's in every round, checks that the two merged reports are byte-identical and prints the
ratio of their marginal costs.
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


def start(cwd: Path, args: list[str], module: str = "pytest", extra: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env={**env(), **(extra or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(proc: subprocess.Popen, what: str) -> str:
    out, _ = proc.communicate()
    if proc.returncode not in (0, 1, 5):  # 5: the bare start collects nothing, as asked
        sys.exit(f"{what} failed (exit {proc.returncode}):\n{out[-3000:]}")
    return out


CPU = [0.0]  # CPU seconds (user + system) of the last timed process: the machine is shared


def timed(cwd: Path, args: list[str], module: str = "pytest", extra: dict[str, str] | None = None) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    finish(start(cwd, args, module, extra), f"{module} {' '.join(args)}")
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


def merge_timed(project: Path, package: str | None) -> float:
    """CPU seconds of one merge of the project's two shard reports, by this checkout's package or
    (``package``: a folder that holds another copy of pytest_sprout) by that copy."""
    out = "merged.json" if package is None else "merged-against.json"
    extra = {} if package is None else {"PYTHONPATH": package}
    timed(project, ["s1.json", "s2.json", f"--sprout-report={out}", *MERGE], "pytest_sprout.merge", extra)
    return CPU[0]


def merge_scaling(root: Path, sizes: list[int], rounds: int, against: str | None) -> None:
    """Per size: the merge's CPU, a bare pytest start's (it loads the plugins and reads the same
    suite), and with ``against`` the other package's merge, taking turns within each round. Then
    the marginal cost: the difference between the largest and the smallest size, per 10,000 rows,
    which the fixed start-up cancels out of."""
    projects = {}
    for rows in sizes:
        projects[rows] = project = write_project(root / f"fast-{rows}", rows, 0.0)
        for k in (1, 2):
            finish(start(project, [*COMMON, f"--sprout-shard={k}/2", f"--sprout-report=s{k}.json"]), f"shard {k}/2")
    cpu: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for rows, project in projects.items():
            timed(project, [*COMMON, "--co", "-m", "no_such_marker"])
            cpu.setdefault(("bare", rows), []).append(CPU[0])
            cpu.setdefault(("merge", rows), []).append(merge_timed(project, None))
            if against:
                cpu.setdefault(("against", rows), []).append(merge_timed(project, against))
    kinds = ["merge", "bare"] + (["against"] if against else [])
    names = {"merge": "merge (this checkout)", "bare": "bare pytest start", "against": "merge (--against)"}
    median = {key: statistics.median(values) for key, values in cpu.items()}
    for rows, project in projects.items():
        size = sum((project / f"s{k}.json").stat().st_size for k in (1, 2)) / 1e6
        print(f"{rows} rows ({size:.1f} MB of shard reports), median CPU seconds of {rounds} round(s):")
        for kind in kinds:
            print(f"  {names[kind]:<40} {median[kind, rows]:6.2f} s  (runs: "
                  f"{', '.join(f'{t:.2f}' for t in cpu[kind, rows])})")
        if against:
            same = (project / "merged.json").read_bytes() == (project / "merged-against.json").read_bytes()
            print(f"  merged reports byte-identical: {same}")
    small, big = min(sizes), max(sizes)
    if big == small:
        return
    per = (big - small) / 10000
    print(f"marginal CPU per 10,000 rows, ({big} rows - {small} rows) / {per:g}:")
    for kind in kinds:
        print(f"  {names[kind]:<40} {(median[kind, big] - median[kind, small]) / per:6.2f} s")
    own = ((median["merge", big] - median["bare", big]) - (median["merge", small] - median["bare", small])) / per
    print(f"  merge less the bare start                {own:6.2f} s")
    if against:
        print(f"  ratio, {names['against']} / {names['merge']}: "
              f"{(median['against', big] - median['against', small]) / (median['merge', big] - median['merge', small]):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--merge-rows", default="10000,30000")
    parser.add_argument("--against", help="a folder holding another copy of pytest_sprout (main's, say): its merge "
                        "is timed in turn with this checkout's, and the two merged reports compared byte for byte")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--merge-only", action="store_true", help="part 2 only")
    args = parser.parse_args()
    print(f"cores available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
          f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if not args.merge_only:
            shards_vs_one(root, args.cases, args.delay, args.shards, args.concurrency, args.rounds)
        merge_scaling(root, [int(x) for x in args.merge_rows.split(",") if x], args.rounds, args.against)
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
