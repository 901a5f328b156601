"""Is the demo's report unchanged by a refactoring? Runs the demo evaluation (the `make demo`
command, at -n 0 and at -n 2) with the code of a base revision and with the working tree, and
compares the JSON and Markdown reports byte for byte, apart from timing fields (there are none
today; TIMING lists any that a later change adds).

    .venv/bin/python bench/same_report.py --base HEAD~3

Both sides run in the same venv, each with its own tree first on PYTHONPATH. Exits 1 and prints
the first differing lines when a report differs.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMING = {"duration", "elapsed", "seconds", "started", "finished"}
VARIANTS = {
    "-n 0": ["-p", "no:xdist"],
    "-n 2": ["-n", "2"],
}


def strip_timing(value):
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def run_demo(tree: Path, out: Path, extra: list[str]) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "RAGAS_DO_NOT_TRACK": "true",
           "DEEPEVAL_TELEMETRY_OPT_OUT": "1", "DEEPEVAL_DISABLE_DOTENV": "1"}
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pytest", "suites", "-m", "groundedness", "-q", "-rN", "-p", "no:deepeval",
           "-p", "no:cacheprovider", "--sprout-mutate", f"--sprout-report={out / 'r.json'}",
           f"--sprout-md={out / 'r.md'}", *extra]
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode > 1:
        sys.exit(f"the demo failed in {tree.name} (exit {proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    data = strip_timing(json.loads((out / "r.json").read_text()))
    return {"json": json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False).encode(),
            "md": (out / "r.md").read_bytes()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="the revision to compare the working tree with")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp, "base")
        archive = subprocess.run(["git", "archive", args.base], cwd=REPO, capture_output=True, check=True).stdout
        base.mkdir()
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        for name, extra in VARIANTS.items():
            before = run_demo(base, Path(tmp, "out-base", name.replace(" ", "")), extra)
            after = run_demo(REPO, Path(tmp, "out-tree", name.replace(" ", "")), extra)
            for kind in before:
                if before[kind] == after[kind]:
                    print(f"{name} {kind}: identical ({len(after[kind]):,} bytes)")
                    continue
                failed = True
                print(f"{name} {kind}: DIFFERS from {args.base}")
                diff = difflib.unified_diff(before[kind].decode().splitlines(), after[kind].decode().splitlines(),
                                            args.base, "working tree", lineterm="", n=1)
                for line in list(diff)[:40]:
                    print("  " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
