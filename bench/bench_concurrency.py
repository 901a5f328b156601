"""Concurrency, cache cost and scale, each measured against a baseline in the same script run.

    .venv/bin/python bench/bench_concurrency.py concurrency [--cases 100] [--sleep 0.5] [--concurrency 16]
    .venv/bin/python bench/bench_concurrency.py cache [--cases 10000] [--rounds 1]
    .venv/bin/python bench/bench_concurrency.py scale [--sizes 1000,10000,50000] [--no-plain-run] [--keep DIR]
    .venv/bin/python bench/bench_concurrency.py collect [--cases 50000] [--rounds 5] [--before DIR]

concurrency: ``pytest -m groundedness --sprout-concurrency=N`` over generated cases whose system
  sleeps ``--sleep`` seconds per answer (a sync and an async variant), against the physical limit
  (cases x sleep / N) and against DeepEval's ``evaluate`` with an async custom metric that awaits
  the same sleep and runs the same judge, at ``AsyncConfig(max_concurrent=N)``. The pytest time is
  pytest's run loop (every item, first to last; start-up and collection, which a loaded machine
  makes noisy, are printed apart); DeepEval's is the ``evaluate`` call alone.
cache: the first run with pytest's cache on (empty) and a warm re-run, each against
  ``-p no:cacheprovider``; the cache's size on disk after the first run.
scale: for each size, a plain parametrized test that calls the same system and judge, and the
  plugin (cache on, JSON report written): ``--co`` and whole-run CPU time and peak memory (max
  RSS), and the plugin/plain ratios; then the plugin again with ``--sprout-html`` (from an empty
  cache again): its peak memory and CPU against the run without it, and the HTML file's size. ``--no-plain-run`` leaves out the plain
  test's whole run (the longest process at 100,000 cases) and so the run and memory ratios against
  it: what is left is the ``--co`` pair and the plugin with and without ``--sprout-html``.
  ``--keep DIR`` keeps each size's plugin project (with its JSON and HTML reports) under DIR.
collect: ``pytest --co`` alone, the plain parametrized test against ``pytest --co -m groundedness``
  (the same plugins on both sides), rounds alternating and each round's order reversed from the
  last; CPU seconds of each process, and the min and median of the per-round ratios. ``--before
  DIR`` adds a third side: the plugin side again with the pytest_sprout of another checkout (DIR,
  first on PYTHONPATH), e.g. the main branch's code, against the same plain runs.

On a shared machine wall time mostly measures the neighbours: the cache and scale sections print
CPU seconds of each pytest process (user + system) beside wall seconds where both make sense.

Every pytest run is its own process; the system and the judge are cheap in the cache and scale
sections, so the plugin's own costs are what is measured.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_overhead import write_projects

# The same plugins on both sides of every comparison: pytest-sprout loads on the plain side too
# (it finds no suites there), and the heavy third-party plugins load on neither.
COMMON = ["-q", "-p", "no:deepeval", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest", "-p", "no:randomly",
          "--no-header", "--tb=no", "-o", "console_output_style=classic"]
# Runs pytest in-process and prints its peak memory, so that each run is measured on its own.
RUNNER = ("import resource, sys, pytest; rc = pytest.main(sys.argv[1:]); "
          "print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)")


LAST_OUTPUT = [""]
LAST_CPU = [0.0]


def run(cwd: Path, args: list[str], **extra_env: str) -> tuple[float, float]:
    """(seconds, peak MB) of one pytest process; its CPU seconds go to LAST_CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", DEEPEVAL_TELEMETRY_OPT_OUT="1", DEEPEVAL_DISABLE_DOTENV="1",
               **extra_env)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUNNER, *COMMON, *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU[0] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest failed in {cwd} ({args}):\n{proc.stdout[-3000:]}")
    LAST_OUTPUT[0] = proc.stdout
    rss = next((int(line.split()[1]) for line in proc.stdout.splitlines() if line.startswith("MAXRSS_KB")), 0)
    return elapsed, rss / 1024


# --- concurrency ------------------------------------------------------------------------------

SLEEPY_SYNC = '''
import json, pathlib, time
DATA = json.loads(pathlib.Path(__file__).with_name("answers.json").read_text())
SLEEP = {sleep}

def system(question):
    time.sleep(SLEEP)
    text, passages = DATA[question]
    return text, passages

def make():
    return system
'''

SLEEPY_ASYNC = '''
import asyncio, json, pathlib
DATA = json.loads(pathlib.Path(__file__).with_name("answers.json").read_text())
SLEEP = {sleep}

async def system(question):
    await asyncio.sleep(SLEEP)
    text, passages = DATA[question]
    return text, passages

def make():
    return system
'''

# Times pytest's run loop (every item, from the first to the last), apart from start-up and
# collection, which the loaded machine makes noisy.
TIMER_CONFTEST = '''
import time
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    start = time.perf_counter()
    yield
    print("\\nRUNLOOP_SECONDS", time.perf_counter() - start)
'''

DEEPEVAL_SCRIPT = '''
import asyncio, json, os, sys, time
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")
from deepeval import evaluate
from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig
from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase
from pytest_sprout import Answer, LexicalJudge

cases = json.load(open("cases.json"))
answers = json.load(open("answers.json"))
SLEEP, CONCURRENCY = float(sys.argv[1]), int(sys.argv[2])
JUDGE = LexicalJudge()


class Grounded(BaseMetric):
    """Asks the system (an async sleep) for the answer, then judges it with the same judge."""

    def __init__(self):
        self.threshold = 1.0
        self.async_mode = True

    def _judge(self, test_case):
        text, passages = answers[test_case.input]
        answer = Answer.coerce((text, passages))
        verdicts = JUDGE.judge_many((s.text, answer.cited(s)[0]) for s in answer.sentences)
        self.score = float(all(v.supported for v in verdicts))
        self.success = self.score >= self.threshold
        return self.score

    def measure(self, test_case, *args, **kwargs):
        time.sleep(SLEEP)
        return self._judge(test_case)

    async def a_measure(self, test_case, *args, **kwargs):
        await asyncio.sleep(SLEEP)
        return self._judge(test_case)

    def is_successful(self):
        return bool(self.success)

    @property
    def __name__(self):
        return "Grounded"


test_cases = [LLMTestCase(input=c["question"], actual_output=answers[c["question"]][0]) for c in cases]
start = time.perf_counter()
evaluate(test_cases, [Grounded()], async_config=AsyncConfig(run_async=True, max_concurrent=CONCURRENCY),
         display_config=DisplayConfig(show_indicator=False, print_results=False, inspect_after_run=False),
         cache_config=CacheConfig(write_cache=False, use_cache=False))
print("EVALUATE_SECONDS", time.perf_counter() - start)
'''


def concurrency(args: argparse.Namespace) -> None:
    limit = args.cases * args.sleep / args.concurrency
    print(f"{args.cases} cases, the system sleeps {args.sleep} s per answer; physical limit at "
          f"concurrency {args.concurrency}: {limit:.2f} s (target <= {1.5 * limit:.2f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        plugin_dir, plain_dir = write_projects(Path(tmp), args.cases)
        (plugin_dir / "conftest.py").write_text(TIMER_CONFTEST)
        for variant, source in (("sync", SLEEPY_SYNC), ("async", SLEEPY_ASYNC)):
            (plugin_dir / "system.py").write_text(source.format(sleep=args.sleep))
            levels = [args.concurrency] + ([1] if args.serial else [])
            for level in levels:
                whole, _ = run(plugin_dir, ["-p", "no:cacheprovider", "-m", "groundedness", f"--sprout-concurrency={level}"])
                loop = run_loop_seconds()
                print(f"pytest-sprout {variant:5} system, --sprout-concurrency={level}: {loop:.2f} s running the items "
                      f"= {loop / (args.cases * args.sleep / level):.2f}x the physical limit ({whole:.2f} s whole process)")
        (plain_dir / "deepeval_bench.py").write_text(DEEPEVAL_SCRIPT)
        env = dict(os.environ, DEEPEVAL_TELEMETRY_OPT_OUT="1", DEEPEVAL_DISABLE_DOTENV="1",
                   DEEPEVAL_NO_INSPECT_PROMPT="1", DEEPEVAL_RESULTS_FOLDER=str(Path(tmp) / "deepeval"))
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "deepeval_bench.py", str(args.sleep), str(args.concurrency)],
                              cwd=plain_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        whole = time.perf_counter() - start
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("EVALUATE_SECONDS")), None)
        if line is None:
            sys.exit(f"the DeepEval run failed:\n{proc.stdout[-3000:]}")
        deepeval_t = float(line.split()[1])
        print(f"DeepEval evaluate, async custom metric, max_concurrent={args.concurrency}: {deepeval_t:.2f} s "
              f"(the evaluate call; {whole:.2f} s whole process) = {deepeval_t / limit:.2f}x the physical limit")


def run_loop_seconds() -> float:
    line = next(ln for ln in LAST_OUTPUT[0].splitlines() if ln.startswith("RUNLOOP_SECONDS"))
    return float(line.split()[1])


# --- cache ------------------------------------------------------------------------------------

def cache(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plugin_dir, _ = write_projects(Path(tmp), args.cases)
        base = ["-m", "groundedness"]
        runs: dict[str, list[tuple[float, float]]] = {"off": [], "first": [], "warm": []}
        for _ in range(args.rounds):
            shutil.rmtree(plugin_dir / ".pytest_cache", ignore_errors=True)
            for name, extra in (("off", ["-p", "no:cacheprovider"]), ("first", []), ("warm", [])):
                seconds, _ = run(plugin_dir, [*extra, *base])
                runs[name].append((seconds, LAST_CPU[0]))
                if name == "first":
                    files = [p for p in (plugin_dir / ".pytest_cache").rglob("*") if p.is_file()]
                    size = sum(p.stat().st_size for p in files)
        best = {name: (min(t for t, _ in r), min(c for _, c in r)) for name, r in runs.items()}
        (o, oc), (f, fc), (w, wc) = best["off"], best["first"], best["warm"]
        print(f"{args.cases} cases, best of {args.rounds}; wall seconds, then CPU seconds (user + system)")
        print(f"-p no:cacheprovider : {o:.2f} s, CPU {oc:.2f} s")
        print(f"first run, cache on : {f:.2f} s = {f / o:.2f}x, CPU {fc:.2f} s = {fc / oc:.2f}x (target <= 1.15x)")
        print(f"warm re-run         : {w:.2f} s = {w / o:.2f}x, CPU {wc:.2f} s = {wc / oc:.2f}x (target <= 1.00x)")
        print(f"cache after a run   : {len(files)} files, {size / 1e6:.1f} MB")


# --- scale ------------------------------------------------------------------------------------

def scale(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    print("CPU seconds (user + system) of each pytest process; peak memory (max RSS) in MB; both sides load the "
          "same plugins (pytest-sprout included; deepeval, langsmith and hypothesis on neither)")
    print("size    | --co plain | --co plugin | ratio | run plain | run plugin | ratio | MB plain | MB plugin | ratio "
          "| MB +html | vs plugin | CPU +html | HTML MB", flush=True)
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            plugin_dir, plain_dir = write_projects(Path(tmp), n)
            plugin_row, run_plain, mem_plain = scale_one(plugin_dir, plain_dir, not args.no_plain_run)
            if args.keep:
                shutil.copytree(plugin_dir, Path(args.keep) / f"plugin-{n}", dirs_exist_ok=True)
        co_plain, co_plugin, run_plugin, mem_plugin, run_html, mem_html, html_mb = plugin_row
        rows.append((n, run_plain, run_plugin, mem_plain, mem_plugin))
        if run_plain is None or mem_plain is None:
            plain = f"{'-':>9} | {run_plugin:9.2f}s | {'-':>5} | {'-':>8} | {mem_plugin:9.1f} | {'-':>5}"
        else:
            plain = (f"{run_plain:8.2f}s | {run_plugin:9.2f}s | {run_plugin / run_plain:4.2f}x | {mem_plain:8.0f} | "
                     f"{mem_plugin:9.1f} | {mem_plugin / mem_plain:4.2f}x")
        print(f"{n:7d} | {co_plain:9.2f}s | {co_plugin:10.2f}s | {co_plugin / co_plain:4.2f}x | {plain} | "
              f"{mem_html:8.1f} | {mem_html / mem_plugin:8.2f}x | {run_html:8.2f}s | {html_mb:7.2f}", flush=True)
    if len(rows) > 1:
        (n0, _, t0, _, m0), (n1, _, t1, _, m1) = rows[0], rows[-1]
        print(f"plugin from {n0} to {n1} cases ({n1 / n0:.0f}x): time {t1 / t0:.1f}x, peak memory {m1 / m0:.1f}x "
              f"(per case: {t0 / n0 * 1e3:.2f} -> {t1 / n1 * 1e3:.2f} ms)")


def scale_one(plugin_dir: Path, plain_dir: Path, plain_run: bool) -> tuple[tuple[float, ...], float | None, float | None]:
    """One size: ((--co plain, --co plugin, plugin CPU, plugin MB, +html CPU, +html MB, HTML MB),
    plain CPU, plain MB), the plain run's two None when it is left out."""
    # CPU seconds: the machine is shared, and a run's own work is what scales with the cases
    run(plain_dir, ["-p", "no:cacheprovider", "--co"])
    co_plain = LAST_CPU[0]
    run(plugin_dir, ["-p", "no:cacheprovider", "--co", "-m", "groundedness"])
    co_plugin = LAST_CPU[0]
    run_plain = mem_plain = None
    if plain_run:
        _, mem_plain = run(plain_dir, ["-p", "no:cacheprovider"])
        run_plain = LAST_CPU[0]
    _, mem_plugin = run(plugin_dir, ["-m", "groundedness", "--sprout-report=report.json"])
    run_plugin = LAST_CPU[0]
    shutil.rmtree(plugin_dir / ".pytest_cache", ignore_errors=True)  # both plugin runs start from an empty cache
    _, mem_html = run(plugin_dir, ["-m", "groundedness", "--sprout-report=report.json", "--sprout-html=report.html"])
    run_html = LAST_CPU[0]
    html_mb = (plugin_dir / "report.html").stat().st_size / 1e6
    return (co_plain, co_plugin, run_plugin, mem_plugin, run_html, mem_html, html_mb), run_plain, mem_plain


# --- collect ----------------------------------------------------------------------------------

def collect(args: argparse.Namespace) -> None:
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        plugin_dir, plain_dir = write_projects(Path(tmp), args.cases)
        sides: dict[str, tuple[Path, list[str], dict[str, str]]] = {
            "plain": (plain_dir, [], {}),
            "plugin": (plugin_dir, ["-m", "groundedness"], {}),
        }
        if args.before:
            path = os.pathsep.join([str(Path(args.before).resolve()), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
            sides["before"] = (plugin_dir, ["-m", "groundedness"], {"PYTHONPATH": path})
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        items: dict[str, set[str]] = {name: set() for name in sides}
        order = list(sides)
        for _ in range(args.rounds):
            for name in order:
                cwd, extra, env = sides[name]
                run(cwd, ["-p", "no:cacheprovider", "--co", *extra], **env)
                cpu[name].append(LAST_CPU[0])
                items[name].add(LAST_OUTPUT[0].strip().splitlines()[-2].split(" in ")[0])  # "50000 tests collected"
            order.reverse()
    print(f"{args.cases} cases, pytest --co, {args.rounds} rounds; CPU seconds (user + system) of each process; "
          "both sides load the same plugins (pytest-sprout included; deepeval, langsmith and hypothesis on neither)")
    for name, times in cpu.items():
        line = f"{name:7}: min {min(times):6.2f} s, median {statistics.median(times):6.2f} s  ({', '.join(f'{t:.2f}' for t in times)})"
        if name != "plain":
            ratios = [t / b for t, b in zip(times, cpu["plain"])]
            line += f"; ratio to plain per round: min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x"
        print(line + "; " + " / ".join(sorted(items[name])))
    print("target: plugin <= 1.3x plain")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="section", required=True)
    p = sub.add_parser("concurrency")
    p.add_argument("--cases", type=int, default=100)
    p.add_argument("--sleep", type=float, default=0.5)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--serial", action="store_true", help="also time --sprout-concurrency=1")
    p = sub.add_parser("cache")
    p.add_argument("--cases", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=1)
    p = sub.add_parser("scale")
    p.add_argument("--sizes", default="1000,10000")
    p.add_argument("--no-plain-run", action="store_true", help="leave out the plain test's whole run")
    p.add_argument("--keep", metavar="DIR", help="keep each size's plugin project and its reports under DIR")
    p = sub.add_parser("collect")
    p.add_argument("--cases", type=int, default=50000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--before", help="a checkout whose pytest_sprout the third side loads (e.g. the main branch)")
    args = parser.parse_args()
    {"concurrency": concurrency, "cache": cache, "scale": scale, "collect": collect}[args.section](args)


if __name__ == "__main__":
    main()
