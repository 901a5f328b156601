"""Run time of the meta-evaluation commands of docs/BENCHMARKS.md, start-up included.

    .venv/bin/python bench/bench_metaeval.py [--benchmarks ../shared/benchmarks] [--rounds 3]

Times three whole processes, as a user runs them: WiCE test, WiCE dev with the ten-value coverage
--tune, and all of LFQA-Verification; and, as the baseline in the same run, a process that only
imports pytest_sprout.cli.metaeval (what every command pays before reading any data). Rounds
alternate between the commands, so a slow spell of the machine falls on all of them. Prints the
median seconds of each and its ratio to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUNE = "coverage=0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.8"


def commands(data: Path) -> dict[str, list[str]]:
    run = [sys.executable, "-m", "pytest_sprout.cli.metaeval", "--judge", "lexical", "--data"]
    return {
        "start-up only (baseline)": [sys.executable, "-c", "import pytest_sprout.cli.metaeval"],
        "WiCE test": [*run, str(data / "wice" / "claim_test.jsonl")],
        "WiCE dev, --tune (10 values)": [*run, str(data / "wice" / "claim_dev.jsonl"), "--tune", TUNE],
        "LFQA-Verification, all": [*run, str(data / "lfqa_verification")],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", type=Path, default=ROOT.parent / "shared" / "benchmarks",
                    help="the folder with wice/ and lfqa_verification/")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not (args.benchmarks / "wice").is_dir():
        sys.exit(f"bench_metaeval: no wice/ under {args.benchmarks}; pass --benchmarks")
    cmds = commands(args.benchmarks)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(args.rounds):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            times[name].append(time.perf_counter() - start)
            if proc.returncode != 0:
                sys.exit(f"{name} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    base = statistics.median(times["start-up only (baseline)"])
    print(f"median of {args.rounds} rounds, wall-clock, start-up included")
    for name, ts in times.items():
        median = statistics.median(ts)
        print(f"{name:30} {median:6.2f} s  ({median / base:4.1f}x start-up; runs: {', '.join(f'{t:.2f}' for t in ts)})")


if __name__ == "__main__":
    main()
