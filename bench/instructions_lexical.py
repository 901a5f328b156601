"""Instructions executed per claim by LexicalJudge, counted by valgrind (callgrind), not timed.

    .venv/bin/python bench/instructions_lexical.py [--claims 2000] [--against FILE_OR_DIR]

A machine's noise does not move an instruction count, so this is the speed figure to compare
across runs on a busy machine. For each judge (the current one, and with --against another copy
loaded as bench_lexical.py does) it runs a child Python under callgrind twice on the same
``short`` claims of bench_lexical.py (seed 7): once with 0 and once with 2 passes over the claims,
both after one untimed pass that analyses every passage (the steady state of a test session).
Instructions per claim = (count with 2 passes - count with 0) / (2 x claims): start-up, imports
and the workload's generation cancel out. ``--what analyse`` counts the analysis of the claim alone
(the judge's ``Sentence``, where the judge module has one), instead of the whole judgement.
Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def child(claims: int, passes: int, what: str, against: str | None) -> None:
    import bench_lexical

    if against:
        module = bench_lexical.load_judge_module(against)
    else:
        from pytest_sprout.judges import lexical as module
    rng = random.Random(7)
    passages = [bench_lexical.make_passage(rng, rng.randint(100, 200)) for _ in range(600)]
    pairs = [(c, p) for c, p, _ in bench_lexical.workload(rng, passages, claims)]
    judge = module.LexicalJudge()
    judge.judge_many(pairs)  # every passage analysed once, untimed in both counts
    if what == "analyse":
        analyse = getattr(module, "Sentence", None)
        if analyse is None:
            sys.exit("--what analyse: this judge module has no Sentence class")
        for _ in range(passes):
            for claim, _ in pairs:
                analyse(claim)
    else:
        for _ in range(passes):
            judge.judge_many(pairs)


def count(claims: int, passes: int, what: str, against: str | None) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
           "--child", str(passes), "--claims", str(claims), "--what", what]
    if against:
        cmd += ["--against", against]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        sys.exit(f"callgrind run failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", type=int, default=2000)
    ap.add_argument("--against", metavar="PATH", help="another copy of the judge (file or package folder)")
    ap.add_argument("--what", choices=("judge", "analyse"), default="judge")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.claims, args.child, args.what, args.against)
        return
    if shutil.which("valgrind") is None:
        sys.exit("instructions_lexical: needs valgrind on PATH")
    judges = {"current": None, **({"against": args.against} if args.against else {})}
    print(f"instructions per claim ({args.what}), {args.claims} short claims, (2 passes - 0 passes) / 2")
    per = {}
    for name, path in judges.items():
        zero, two = count(args.claims, 0, args.what, path), count(args.claims, 2, args.what, path)
        per[name] = (two - zero) / (2 * args.claims)
        print(f"{name:8} {per[name]:12,.0f}")
    if args.against:
        print(f"against / current: {per['against'] / per['current']:.2f}x")


if __name__ == "__main__":
    main()
