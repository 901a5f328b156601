"""Benchmark: llm-tier throughput with --llm-concurrency 16 against 1, in one run.

The judge is the stand-in endpoint of tests/fake_llm_server.py (a scripted stand-in for a model,
not a model), started as a separate process that takes ``--delay`` seconds (default 50 ms) to
answer every call, like a small local judge that is never the bottleneck of a real model. Both
settings judge the same synthetic items through the tier's real path (Ragas, Instructor,
DeepEval, the shared OpenAI client; no disk cache), the way the plugin does: the first item judges
every selected item, the rest read results.

    .venv/bin/python bench/bench_llm.py [--items 24] [--delay 0.05] [--concurrency 16]

Prints items/s for each setting and their ratio; the target is at least 8x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_sprout.judges._deps import quiet_env  # noqa: E402
from pytest_sprout.core.model import Answer, Case, GoldenItem  # noqa: E402

TARGET = 8.0


def make_items(n: int) -> list[GoldenItem]:
    """Answered cases with three retrieved passages and two cited sentences each."""
    items = []
    for i in range(n):
        weeks = i % 5 + 1
        passages = [
            f"Plant {i} needs water every {weeks} weeks in summer and less in winter.",
            f"Plant {i} grows best in bright indirect light near an east window.",
            f"Plant {i} is mildly toxic to cats when its leaves are chewed.",
        ]
        text = f"Plant {i} needs water every {weeks} weeks [1]. It grows best in bright indirect light [2]."
        case = Case(id=f"plant-{i}", suite="bench", question=f"How do I care for plant {i}?",
                    expected_facts=(f"every {weeks} weeks", "bright indirect light"))
        items.append(GoldenItem(case, Answer.from_text(text, passages)))
    return items


def start_judge(delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), "--delay", str(delay)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, line.split(" at ", 1)[1].split(" ", 1)[0]


def measure(url: str, concurrency: int, items: list[GoldenItem]) -> tuple[float, int, int, int, float]:
    """(items per second, HTTP calls sent, cache hits, unscored metrics, this process's CPU
    milliseconds per call sent) for one concurrency setting."""
    from pytest_sprout.judges._llm_client import LLMClient
    from pytest_sprout.judges.llm import LLMTier

    client = LLMClient(url, f"bench-c{concurrency}", concurrency=concurrency, timeout=60.0)
    tier = LLMTier(client, None)
    start, cpu = time.perf_counter(), time.process_time()
    tier.prepare(items)  # as the run layer does: the items coming up, judged together
    results = [tier.evaluate(item) for item in items]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    client.close()
    unscored = sum(v is None for r in results for values in r.metrics.values() for v in values)
    sent = client.stats.sent
    return len(items) / elapsed, sent, client.stats.cache_hits, unscored, 1000 * cpu / max(sent, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=24)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds the stand-in takes per call")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    quiet_env()
    items = make_items(args.items)
    proc, url = start_judge(args.delay)
    try:
        measure(url, args.concurrency, items[:2])  # warm-up: imports, first connections
        base, base_calls, base_hits, base_unscored, base_cpu = measure(url, 1, items)
        fast, fast_calls, fast_hits, fast_unscored, fast_cpu = measure(url, args.concurrency, items)
    finally:
        proc.terminate()
        proc.wait()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"stand-in judge: {args.delay * 1000:.0f} ms per call; {args.items} items; "
          f"{os.cpu_count()} CPUs, load average {load:.1f}")
    print(f"{'concurrency':>11}  {'items/s':>8}  {'calls':>6}  {'cached':>6}  {'unscored':>8}  {'client CPU ms/call':>18}")
    print(f"{1:>11}  {base:>8.2f}  {base_calls:>6}  {base_hits:>6}  {base_unscored:>8}  {base_cpu:>18.1f}")
    print(f"{args.concurrency:>11}  {fast:>8.2f}  {fast_calls:>6}  {fast_hits:>6}  {fast_unscored:>8}  {fast_cpu:>18.1f}")
    ratio = fast / base
    print(f"speed-up: {ratio:.1f}x (target >= {TARGET:.0f}x: {'met' if ratio >= TARGET else 'NOT met'})")
    return 0 if ratio >= TARGET and not (base_unscored or fast_unscored) else 1


if __name__ == "__main__":
    sys.exit(main())
