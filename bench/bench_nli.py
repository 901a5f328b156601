"""Throughput of the alce tier's NLI path against a naive ALCE-style loop, in one script run.

    .venv/bin/python bench/bench_nli.py [--golden 30] [--wice 6] [--seed 0] [--threads N]

The model is randomly initialised with DeBERTa-v3-base's shape (12 layers, hidden 768, 12 heads,
128,100-token vocabulary, relative attention): it costs what the real model costs, and its
verdicts mean nothing. Its tokenizer is a 30,000-word WordPiece trained here on the benchmark's
own text (the real one is a SentencePiece model that cannot be downloaded here). Nothing is
written to the repository: the model lives in a temporary folder.

Workloads (subsampled with --seed so that a run takes minutes on two shared cores):
  golden  --golden answers of the reference system on the demo suites (suites/), refusals left out;
  wice    --wice WiCE test claims, each citing its whole article (the evidence lines joined with
          newlines), from ../shared/benchmarks/wice/claim_test.jsonl (--wice-data).

Paths, all in this process, on the same answers:
  naive        ALCE's loop: for each sentence, then each citation for precision, one forward pass
               per (premise, claim), the whole premise truncated to the model's 512 tokens;
  off, item    the alce tier with --nli-window=off (ALCE's premise, no short-circuit): pairs
               deduplicated, sorted by length into batches, one answer at a time;
  off, batch   the same, every answer's pairs scored in one batched pass first (what a plain
               pytest run does at its first alce item);
  chunk, batch the default: sentence-aligned chunks of at most --max-length tokens and the
               verbatim short-circuit, batched across answers;
  warm         a fresh judge reading the verdicts that the last path which called the model
               cached on disk (the second pytest run), with that path's window: on the golden
               set, whose sentences all take the chunk path's verbatim short-circuit, that is
               "off, batch" (a warm run after the chunk path would time the short-circuit again).
"Pairs" are the (premise, sentence) judgements ALCE's arithmetic asks for (recall and precision),
counted as the naive loop makes them, so pairs/s is comparable across paths.
It prints pairs/s per path and the ratio to the naive loop, and how many pairs the naive loop
truncated (for WiCE also over the whole test file). Wall-clock seconds (time.perf_counter).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_sprout.judges.alce import ALCETier  # noqa: E402
from pytest_sprout.judges.nli import NLIJudge, premise_of  # noqa: E402
from pytest_sprout.model import Answer, Case, GoldenItem, Passage, Sentence  # noqa: E402

NAIVE_LIMIT = 512  # tokens: DeBERTa-v3's limit, where ALCE-style code truncates


# --- data ---------------------------------------------------------------------------------------

def golden_answers(n: int, rng: random.Random) -> list[Answer]:
    """The reference system's answers to the demo suites' alce cases, refusals left out."""
    from pytest_sprout.cases import load_suites
    from pytest_sprout.reference import make_system

    system = make_system()
    cases = [c for c in load_suites(ROOT / "suites", ROOT).cases if "alce" in c.tiers]
    answers = [a for a in (Answer.coerce(system(c.question)) for c in cases) if not a.refused and a.sentences]
    return rng.sample(answers, min(n, len(answers)))


def wice_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def wice_answer(record: dict[str, Any]) -> Answer:
    """A claim that cites its whole article, as a one-sentence answer."""
    article = Passage("article", "\n".join(record["evidence"]))
    return Answer((Sentence(record["claim"], ("article",)),), (article,))


# --- the model ----------------------------------------------------------------------------------

def build_model(folder: Path, corpus: Sequence[str]) -> Path:
    """A random DeBERTa-v3-base-shaped 3-way NLI classifier and a WordPiece tokenizer."""
    import deberta_shaped

    return deberta_shaped.build(folder, corpus, vocab_size=30000, max_length=NAIVE_LIMIT)


# --- the naive loop -----------------------------------------------------------------------------

class NaiveNLI:
    """One forward pass per (premise, claim), the whole premise truncated (ALCE's way)."""

    def __init__(self, folder: Path) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
        self.calls = 0
        self.truncated = 0
        self("Warm-up premise.", "Warm-up claim.")  # the first forward pass allocates: keep it off the clock

    def __call__(self, premise: str, claim: str) -> int:
        import torch

        self.calls += 1
        full = len(self.tokenizer(premise, claim, verbose=False)["input_ids"])
        self.truncated += full > NAIVE_LIMIT
        enc = self.tokenizer(premise, claim, truncation="only_first", max_length=NAIVE_LIMIT, return_tensors="pt")
        with torch.inference_mode():
            probs = torch.softmax(self.model(**enc).logits, dim=-1)[0]
        return int(probs[0].item() >= 0.5)  # the judge's rule: p(entailment) >= 0.5


def naive_alce(answers: Sequence[Answer], nli: Callable[[str, str], int], at_most: int = 3) -> list[tuple[float, float]]:
    """ALCE's compute_autoais loop: recall and precision per answer, one NLI call at a time."""
    scores = []
    for a in answers:
        entail = entail_prec = total = 0
        for s in a.sentences:
            found, missing = a.cited(s)
            if not found or missing:
                joint = 0
                ref: list[Passage] = []
            else:
                ref = found[:at_most]
                total += len(ref)
                joint = nli(premise_of(ref), s.text)
            entail += joint
            if joint and len(ref) > 1:
                for p in ref:
                    if nli(premise_of([p]), s.text) or not nli(premise_of([q for q in ref if q is not p]), s.text):
                        entail_prec += 1
            else:
                entail_prec += joint
        scores.append((entail / len(a.sentences), entail_prec / total if total else 0.0))
    return scores


# --- the tier's paths ---------------------------------------------------------------------------

def run_tier(folder: Path, answers: Sequence[Answer], window: str, batched: bool, cache_dir: Path,
             args: argparse.Namespace) -> tuple[float, NLIJudge]:
    """Seconds for the alce tier to evaluate every answer (a fresh judge; the model loaded, the
    weights fingerprinted and one warm-up pass run before the clock starts: once per process)."""
    judge = NLIJudge(str(folder), batch_size=args.batch_size, max_length=args.max_length, window=window,
                     cache_dir=cache_dir, threads=args.threads)
    judge.fingerprint()
    judge.entailment_probs([("Warm-up premise.", "Warm-up claim.")])  # loads; first pass allocates
    judge.counts = dict.fromkeys(judge.counts, 0)
    tier = ALCETier(judge)
    case = Case(id="bench", suite="bench", question="?")
    start = time.perf_counter()
    if batched:
        tier.warm(list(answers))
    for a in answers:
        tier.evaluate(GoldenItem(case, a))
    return time.perf_counter() - start, judge


def run_warm(folder: Path, answers: Sequence[Answer], cache_dir: Path, window: str,
             args: argparse.Namespace) -> tuple[float, NLIJudge]:
    """Seconds for a fresh process's judge to answer from the disk cache (its set-up included:
    it reads the model's JSON files and the memoised file digests, and never loads torch)."""
    start = time.perf_counter()
    judge = NLIJudge(str(folder), batch_size=args.batch_size, max_length=args.max_length, window=window,
                     cache_dir=cache_dir)
    tier = ALCETier(judge)
    case = Case(id="bench", suite="bench", question="?")
    for a in answers:
        tier.evaluate(GoldenItem(case, a))
    return time.perf_counter() - start, judge


def bench(name: str, answers: Sequence[Answer], folder: Path, naive: NaiveNLI, args: argparse.Namespace,
          paths: Sequence[tuple[str, str, bool]]) -> None:
    naive.calls = naive.truncated = 0
    start = time.perf_counter()
    naive_alce(answers, naive)
    base = time.perf_counter() - start
    pairs = naive.calls
    print(f"\n{name}: {len(answers)} answers, {sum(len(a.sentences) for a in answers)} sentences, {pairs} ALCE pairs")
    print(f"  {'naive (ALCE loop)':<22} {pairs / base:8.2f} pairs/s  {base:8.2f} s  "
          f"({naive.calls} forward passes, {naive.truncated} truncated at {NAIVE_LIMIT} tokens)")
    with tempfile.TemporaryDirectory() as tmp:
        # The warm run re-reads the cache of the last path whose model calls wrote one: a path
        # whose every pair took the verbatim short-circuit writes nothing, and a warm run after it
        # would time the short-circuit again, not the cache.
        cached: tuple[str, str, Path] | None = None
        for label, window, batched in paths:
            cache_dir = Path(tmp, label.replace(" ", "-").replace(",", ""))
            seconds, judge = run_tier(folder, answers, window, batched, cache_dir, args)
            report(label, pairs, seconds, base, judge)
            if judge.counts["model_inputs"]:
                cached = (label, window, cache_dir)
        if cached is None:
            print("  warm (disk cache)      not measured: no path called the model, so none wrote a cache")
            return
        label, window, cache_dir = cached
        seconds, judge = run_warm(folder, answers, cache_dir, window, args)
        report(f"warm ({label} cache)", pairs, seconds, base, judge)


def report(label: str, pairs: int, seconds: float, base: float, judge: NLIJudge) -> None:
    c = judge.counts
    print(f"  {label:<22} {pairs / seconds:8.2f} pairs/s  {seconds:8.2f} s  x{base / seconds:7.1f} vs naive  "
          f"(model inputs {c['model_inputs']} in {c['batches']} batches; short-circuited {c['short_circuited']}, "
          f"chunked {c['chunked']}, truncated {c['truncated']}, disk hits {c['disk_hits']})")


def truncation_census(folder: Path, records: Sequence[dict[str, Any]]) -> tuple[int, int, float]:
    """(truncated, total, mean tokens) of (whole article, claim) pairs at the naive limit."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    lengths = [len(tokenizer("\n".join(r["evidence"]), r["claim"], verbose=False)["input_ids"]) for r in records]
    return sum(n > NAIVE_LIMIT for n in lengths), len(lengths), sum(lengths) / len(lengths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", type=int, default=30, help="answers from the demo golden set (0: skip)")
    parser.add_argument("--wice", type=int, default=6, help="WiCE claims with whole-article premises (0: skip)")
    parser.add_argument("--wice-data", default=str(ROOT.parent / "shared" / "benchmarks" / "wice" / "claim_test.jsonl"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=400)
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    wice = wice_records(Path(args.wice_data)) if args.wice else []
    golden = golden_answers(args.golden, rng) if args.golden else []
    corpus = ["\n".join(r["evidence"]) + "\n" + r["claim"] for r in wice]
    corpus += [p.text for a in golden for p in a.passages] + [s.text for a in golden for s in a.sentences]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, seed {args.seed}, "
          f"batch size {args.batch_size}, chunk max length {args.max_length}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_model(Path(tmp, "model"), corpus)
        naive = NaiveNLI(folder)
        if golden:
            bench("demo golden set (reference system)", golden, folder, naive, args, [
                ("off, item", "off", False), ("off, batch", "off", True), ("chunk, batch", "chunk", True),
            ])
        if wice:
            truncated, total, mean = truncation_census(folder, wice)
            print(f"\nWiCE test, whole article: the naive loop truncates {truncated} of {total} pairs "
                  f"({truncated / total:.0%}); mean pair length {mean:.0f} tokens")
            sample = [wice_answer(r) for r in rng.sample(wice, min(args.wice, len(wice)))]
            bench("WiCE test sample, whole-article premises", sample, folder, naive, args, [
                ("off, batch", "off", True), ("chunk, batch", "chunk", True),
            ])


if __name__ == "__main__":
    main()
