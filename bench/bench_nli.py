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

MiniCheck (--minicheck N claims, 0 to skip): a randomly initialised model with
MiniCheck-RoBERTa-Large's shape (24 layers, hidden 1024, 16 heads, 50,265-token vocabulary, a
2-class head labelled "0"/"1", recognised as MiniCheck by its config) and a byte-level BPE
tokenizer trained here. Each claim (a WiCE test claim) is checked against a 2,000-word passage
(WiCE evidence lines, joined until 2,000 words):
  naive      one forward pass per (passage sentence, claim), the maximum taken: the
             sentence-by-sentence loop a checker without chunking needs;
  minicheck  the alce tier's NLIJudge: the reference's 400-token chunks, batched (--batch-size).
It prints claims/s on each path, their ratio, and model inputs (sentences or chunks) per claim.

Pipeline (--pipeline N cases, 0 to skip): four pytest runs (subprocesses, the same project) of a
system that sleeps --pipeline-delay seconds per answer (asked --pipeline-concurrency at a time) and
answers each case with a WiCE claim citing its first --pipeline-lines evidence lines; the model is
the DeBERTa-v3-base-shaped one:
  answers   -m groundedness --sprout-record: the time to get every answer (the lexical judge's
            share is small), and the golden set the next run replays;
  judging   -m alce --sprout-golden: the alce tier with every answer there at once;
  pipelined -m alce with the live system (this package);
  serial    the same with the tier's pipelining switched off in the project's conftest (every
            answer first, then the judging: how the tier ran before).
It prints each wall time and pipelined / max(answers, judging), the target being at most 1.15.

Endpoint (--endpoint N pairs, 0 to skip): the DeBERTa-v3-base-shaped model scores N (WiCE
evidence, claim) pairs in this process, then through tests/tei_server.py (the test suite's
stand-in for a text-embeddings-inference server, in a subprocess with the same torch threads) with
--nli-endpoint: pairs/s of each and their ratio (the target: the endpoint within 1.3x).

Precision (--dtype N pairs, 0 to skip): the DeBERTa-v3-base-shaped model scores N (WiCE evidence
line, claim) pairs at float32 and at bfloat16 (--dtype-other), each with a fresh judge: the largest
and the mean |p(entailment) difference|, how many verdicts (p >= 0.5) agree, and the speed ratio.
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
from pytest_sprout.core.model import Answer, Case, GoldenItem, Passage, Sentence  # noqa: E402

NAIVE_LIMIT = 512  # tokens: DeBERTa-v3's limit, where ALCE-style code truncates


# --- data ---------------------------------------------------------------------------------------

def golden_answers(n: int, rng: random.Random) -> list[Answer]:
    """The reference system's answers to the demo suites' alce cases, refusals left out."""
    from pytest_sprout.suites.loader import load_suites
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


# --- MiniCheck-RoBERTa-shaped checker on long passages -----------------------------------------------

MINICHECK_WORDS = 2000


def build_minicheck(folder: Path, corpus: Sequence[str], family: str = "roberta") -> Path:
    """A random model with the config of lytang/MiniCheck-RoBERTa-Large (family "roberta"),
    MiniCheck-DeBERTa-v3-Large ("deberta") or MiniCheck-Flan-T5-Large ("t5"), and a byte-level BPE
    tokenizer trained on ``corpus`` (the real tokenizers cannot be downloaded here)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, RobertaConfig, RobertaForSequenceClassification
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=30000, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        unk_token="<unk>", pad_token="<pad>", mask_token="<mask>", model_max_length=512 if family == "roberta" else 2048,
    )
    labels = {0: "0", 1: "1"}
    head = dict(num_labels=2, id2label=labels, label2id={v: k for k, v in labels.items()})
    torch.manual_seed(0)
    if family == "roberta":  # lytang/MiniCheck-RoBERTa-Large's config.json
        model: Any = RobertaForSequenceClassification(RobertaConfig(
            vocab_size=50265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
            max_position_embeddings=514, type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0,
            eos_token_id=2, **head))
        name = "lytang/MiniCheck-RoBERTa-Large"
    elif family == "deberta":  # lytang/MiniCheck-DeBERTa-v3-Large's config.json
        from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

        model = DebertaV2ForSequenceClassification(DebertaV2Config(
            vocab_size=128100, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
            max_position_embeddings=512, relative_attention=True, position_buckets=256, norm_rel_ebd="layer_norm",
            share_att_key=True, pos_att_type=["p2c", "c2p"], max_relative_positions=-1, position_biased_input=False,
            type_vocab_size=0, layer_norm_eps=1e-7, pad_token_id=1, pooler_hidden_size=1024, **head))
        name = "lytang/MiniCheck-DeBERTa-v3-Large"
    else:  # lytang/MiniCheck-Flan-T5-Large's config.json (its name is in its folder, not its config)
        from transformers import T5Config, T5ForConditionalGeneration

        model = T5ForConditionalGeneration(T5Config(
            vocab_size=32128, d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_decoder_layers=24, num_heads=16,
            feed_forward_proj="gated-gelu", tie_word_embeddings=False, decoder_start_token_id=1, pad_token_id=1,
            eos_token_id=2))
        name = None
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if name:
        path = folder / "config.json"
        data = json.loads(path.read_text())
        data["_name_or_path"] = name
        path.write_text(json.dumps(data))
    return folder


def long_passages(records: Sequence[dict[str, Any]], n: int, rng: random.Random) -> list[tuple[str, str]]:
    """n (passage of about 2,000 words, claim) pairs: WiCE evidence lines, one per line, from
    records taken in random order until the passage has 2,000 words; the claim is the first one's."""
    pool = list(records)
    rng.shuffle(pool)
    out = []
    for i in range(n):
        lines: list[str] = []
        j = i
        while sum(len(x.split()) for x in lines) < MINICHECK_WORDS:
            lines.extend(pool[j % len(pool)]["evidence"])
            j += n
        words = 0
        kept = []
        for line in lines:
            if words >= MINICHECK_WORDS:
                break
            kept.append(line)
            words += len(line.split())
        out.append(("\n".join(kept), pool[i]["claim"]))
    return out


def bench_minicheck(records: Sequence[dict[str, Any]], args: argparse.Namespace, rng: random.Random) -> None:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    pairs = long_passages(records, args.minicheck, rng)
    corpus = [p for p, _ in pairs] + [c for _, c in pairs] + ["\n".join(r["evidence"]) for r in records[:200]]
    with tempfile.TemporaryDirectory() as tmp:
        family = args.minicheck_family
        folder = build_minicheck(Path(tmp, f"MiniCheck-{family}-shaped"), corpus, family)
        tokenizer = AutoTokenizer.from_pretrained(folder)
        words = sum(len(p.split()) for p, _ in pairs) / len(pairs)
        tokens = sum(len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p, _ in pairs) / len(pairs)
        print(f"\nMiniCheck-{family}-shaped checker (random weights), {len(pairs)} claims, passages of "
              f"{words:.0f} words ({tokens:.0f} tokens) on average")
        base, inputs = None, 0
        if family == "roberta" and not args.no_naive:
            model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
            base, inputs = naive_per_sentence(model, tokenizer, pairs)
            print(f"  {'naive (per sentence)':<22} {len(pairs) / base:8.3f} claims/s  {base:8.1f} s  "
                  f"{inputs / len(pairs):6.1f} model inputs per claim (one per sentence, unbatched)")
            del model
        judge = NLIJudge(str(folder), batch_size=args.batch_size, threads=args.threads)
        assert judge.minicheck is not None, "the benchmark model must be recognised as MiniCheck"
        judge.entailment_probs([("Warm-up premise.", "Warm-up claim.")])
        judge.counts = dict.fromkeys(judge.counts, 0)
        start = time.perf_counter()
        judge.entailment_probs(pairs)
        seconds = time.perf_counter() - start
        c = judge.counts
        versus = (f"  x{base / seconds:.2f} vs naive, {inputs / max(c['model_inputs'], 1):.1f}x fewer model inputs"
                  if base else "")
        print(f"  {'minicheck (chunks)':<22} {len(pairs) / seconds:8.3f} claims/s  {seconds:8.1f} s  "
              f"{c['model_inputs'] / len(pairs):6.1f} model inputs per claim ({judge.chunk_size}-{judge.minicheck.unit} "
              f"chunks, {c['batches']} batches of up to {args.batch_size}; {c['model_inputs'] / seconds:.2f} chunks/s){versus}")


def naive_per_sentence(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]]) -> tuple[float, int]:
    """Seconds and model inputs for the sentence-by-sentence loop (MiniCheck's input format)."""
    import torch

    from pytest_sprout.core.model import split_sentences

    def check(passage: str, claim: str) -> int:
        sentences = [s for line in passage.split("\n") for s in split_sentences(line)]
        best = 0.0
        for sentence in sentences:
            enc = tokenizer(sentence + tokenizer.eos_token + claim, truncation=True, max_length=512, return_tensors="pt")
            with torch.inference_mode():
                best = max(best, torch.softmax(model(**enc).logits, dim=-1)[0, 1].item())
        return len(sentences)

    check("Warm-up sentence.", "Warm-up claim.")
    start = time.perf_counter()
    inputs = sum(check(p, c) for p, c in pairs)
    return time.perf_counter() - start, inputs


def bench_dtype(folder: Path, records: Sequence[dict[str, Any]], args: argparse.Namespace, rng: random.Random) -> None:
    """p(entailment) at float32 against --dtype-other on the same pairs, and the time of each."""
    picked = rng.sample(list(records), min(args.dtype, len(records)))
    pairs = [(line, r["claim"]) for r in picked for line in r["evidence"][:1]]
    probs, seconds = {}, {}
    for dtype in ("float32", args.dtype_other):
        judge = NLIJudge(str(folder), batch_size=args.batch_size, max_length=args.max_length, dtype=dtype,
                         threads=args.threads)
        judge.entailment_probs([("Warm-up premise.", "Warm-up claim.")])
        start = time.perf_counter()
        probs[dtype] = judge.entailment_probs(pairs)
        seconds[dtype] = time.perf_counter() - start
    diffs = [abs(a - b) for a, b in zip(probs["float32"], probs[args.dtype_other])]
    agree = sum((a >= 0.5) == (b >= 0.5) for a, b in zip(probs["float32"], probs[args.dtype_other]))
    print(f"\nprecision, DeBERTa-v3-base shape (random weights), {len(pairs)} WiCE (evidence line, claim) pairs:")
    print(f"  float32 {seconds['float32']:.2f} s, {args.dtype_other} {seconds[args.dtype_other]:.2f} s: "
          f"{args.dtype_other} takes x{seconds[args.dtype_other] / seconds['float32']:.2f} the time; "
          f"|p difference| max {max(diffs):.4f}, mean {sum(diffs) / len(diffs):.4f}; "
          f"verdicts agree {agree}/{len(pairs)}")


PIPELINE_CONFTEST = """
import json, os, time
from pytest_sprout.judges.alce import ALCETier
ALCETier.pipelined = os.environ.get("BENCH_SERIAL") != "1"
ANSWERS = json.load(open(os.path.join(os.path.dirname(__file__), "answers.json")))

def pytest_sprout_make_system(config):
    def system(question):
        time.sleep(float(os.environ["BENCH_DELAY"]))
        return ANSWERS[question]
    system.name, system.version = "slow", "1"
    return system
"""


def bench_pipeline(folder: Path, records: Sequence[dict[str, Any]], args: argparse.Namespace, rng: random.Random) -> None:
    """Wall times of the answers alone, the judging alone, and of a pipelined and a serial run."""
    import subprocess

    picked = rng.sample(list(records), min(args.pipeline, len(records)))
    answers = {f"q{i}": {"text": f"{r['claim']} [1]", "passages": [" ".join(r["evidence"][:args.pipeline_lines])]}
               for i, r in enumerate(picked)}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "answers.json").write_text(json.dumps(answers))
        (project / "conftest.py").write_text(PIPELINE_CONFTEST)
        (project / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                                            "addopts = -p no:deepeval -p no:langsmith_plugin -p no:hypothesispytest\n")
        (project / "suites").mkdir()
        cases = "".join(f"  - {{id: c{i}, question: q{i}}}\n" for i in range(len(answers)))
        (project / "suites" / "s.yaml").write_text(f"defaults: {{tiers: [alce, groundedness]}}\ncases:\n{cases}")
        env = {**os.environ, "BENCH_DELAY": str(args.pipeline_delay), "PYTHONPATH": str(ROOT),
               "OMP_NUM_THREADS": str(args.threads or torch_threads())}
        common = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--sprout-concurrency={args.pipeline_concurrency}",
                  f"--nli-model={folder}", f"--nli-batch-size={args.batch_size}"]

        def run(label: str, extra: list[str], serial: bool = False) -> float:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "pytest", *common, *extra], cwd=project, capture_output=True,
                                  text=True, env={**env, "BENCH_SERIAL": "1" if serial else "0"})
            seconds = time.perf_counter() - start
            tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
            print(f"  {label:<10} {seconds:8.1f} s   ({tail})")
            return seconds

        print(f"\npipeline: {len(answers)} cases, the system takes {args.pipeline_delay:g} s per answer at "
              f"--sprout-concurrency={args.pipeline_concurrency} (at least "
              f"{len(answers) * args.pipeline_delay / args.pipeline_concurrency:.1f} s of answers), "
              f"DeBERTa-v3-base shape on CPU, {args.pipeline_lines} evidence line(s) per passage")
        answers_s = run("answers", ["-m", "groundedness", "--sprout-record=golden.json"])
        judging_s = run("judging", ["-m", "alce", "--sprout-golden=golden.json"])
        piped_s = run("pipelined", ["-m", "alce"])
        serial_s = run("serial", ["-m", "alce"], serial=True)
        bound = max(answers_s, judging_s)
        print(f"  pipelined / max(answers, judging) = {piped_s / bound:.2f} (target <= 1.15); "
              f"serial / max = {serial_s / bound:.2f}; (answers + judging) / max = {(answers_s + judging_s) / bound:.2f}")


def bench_endpoint(folder: Path, records: Sequence[dict[str, Any]], args: argparse.Namespace, rng: random.Random) -> None:
    """Pairs/s in process and through the local TEI stand-in, on the same pairs and batch size."""
    import subprocess

    picked = rng.sample(list(records), min(args.endpoint, len(records)))
    pairs = [("\n".join(r["evidence"][:args.pipeline_lines]), r["claim"]) for r in picked]
    threads = args.threads or torch_threads()
    seconds = {}
    local = NLIJudge(str(folder), batch_size=args.batch_size, max_length=args.max_length, threads=threads)
    local.entailment_probs([("Warm-up premise.", "Warm-up claim.")])
    start = time.perf_counter()
    want = local.entailment_probs(pairs)
    seconds["in process"] = time.perf_counter() - start
    inputs = local.counts["model_inputs"] - 1
    del local
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "tei_server.py"), str(folder), "--threads", str(threads),
                               "--lifetime", "900"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        remote = NLIJudge(str(folder), batch_size=args.batch_size, max_length=args.max_length, endpoint=url)
        remote.entailment_probs([("Warm-up premise.", "Warm-up claim.")])
        start = time.perf_counter()
        got = remote.entailment_probs(pairs)
        seconds["endpoint"] = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(30)
    same = max(abs(a - b) for a, b in zip(want, got))
    print(f"\nendpoint: {len(pairs)} WiCE pairs ({inputs} model inputs), DeBERTa-v3-base shape, batch size "
          f"{args.batch_size}, {threads} torch threads on each side")
    for label, secs in seconds.items():
        print(f"  {label:<11} {len(pairs) / secs:8.2f} pairs/s  {secs:8.1f} s")
    print(f"  endpoint takes x{seconds['endpoint'] / seconds['in process']:.2f} the in-process time (target <= 1.3); "
          f"largest |p difference| {same:.2g}")


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", type=int, default=30, help="answers from the demo golden set (0: skip)")
    parser.add_argument("--wice", type=int, default=6, help="WiCE claims with whole-article premises (0: skip)")
    parser.add_argument("--wice-data", default=str(ROOT.parent / "shared" / "benchmarks" / "wice" / "claim_test.jsonl"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=400)
    parser.add_argument("--minicheck", type=int, default=0,
                        help="WiCE claims checked against 2,000-word passages by a MiniCheck-shaped model (0: skip)")
    parser.add_argument("--minicheck-family", choices=("roberta", "deberta", "t5"), default="roberta")
    parser.add_argument("--no-naive", action="store_true", help="skip the per-sentence baseline (MiniCheck only)")
    parser.add_argument("--pipeline", type=int, default=0, help="cases of the pipeline benchmark (0: skip)")
    parser.add_argument("--pipeline-delay", type=float, default=0.5, help="seconds the system takes per answer")
    parser.add_argument("--pipeline-concurrency", type=int, default=8, help="--sprout-concurrency of the pipeline runs")
    parser.add_argument("--pipeline-lines", type=int, default=2, help="WiCE evidence lines per passage")
    parser.add_argument("--endpoint", type=int, default=0, help="pairs scored in process and through the TEI stand-in (0: skip)")
    parser.add_argument("--dtype", type=int, default=0, help="pairs scored at float32 and at --dtype-other (0: skip)")
    parser.add_argument("--dtype-other", choices=("bfloat16", "float16"), default="bfloat16")
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, seed {args.seed}, "
          f"batch size {args.batch_size}, chunk max length {args.max_length}")
    if args.minicheck:
        bench_minicheck(wice_records(Path(args.wice_data)), args, random.Random(args.seed))
    if args.pipeline:
        records = wice_records(Path(args.wice_data))
        with tempfile.TemporaryDirectory() as tmp:
            corpus = ["\n".join(r["evidence"]) + "\n" + r["claim"] for r in records[:300]]
            bench_pipeline(build_model(Path(tmp, "model"), corpus), records, args, random.Random(args.seed))
    if args.endpoint:
        records = wice_records(Path(args.wice_data))
        with tempfile.TemporaryDirectory() as tmp:
            corpus = ["\n".join(r["evidence"]) + "\n" + r["claim"] for r in records[:300]]
            bench_endpoint(build_model(Path(tmp, "model"), corpus), records, args, random.Random(args.seed))
    if args.dtype:
        records = wice_records(Path(args.wice_data))
        with tempfile.TemporaryDirectory() as tmp:
            corpus = ["\n".join(r["evidence"]) + "\n" + r["claim"] for r in records[:300]]
            bench_dtype(build_model(Path(tmp, "model"), corpus), records, args, random.Random(args.seed))
    if not args.golden and not args.wice:
        return
    wice = wice_records(Path(args.wice_data)) if args.wice else []
    golden = golden_answers(args.golden, rng) if args.golden else []
    corpus = ["\n".join(r["evidence"]) + "\n" + r["claim"] for r in wice]
    corpus += [p.text for a in golden for p in a.passages] + [s.text for a in golden for s in a.sentences]
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
