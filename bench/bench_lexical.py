"""Throughput of LexicalJudge, with baselines measured in the same run.

    .venv/bin/python bench/bench_lexical.py [--claims 20000] [--repeat 7] [--seed 7]

Workloads:
  demo   the demo golden set: every sentence the reference system answers to the cases of
         suites/, with the passages it cites (what `pytest -m groundedness` judges in `make demo`);
         extractive, so most claims are sentences of their passage. The set is judged 20 times
         over in each timed run, to time about 10,000 claims: the judge keeps no verdicts, so a
         repeated claim costs what it cost the first time;
  short  synthetic plant-care passages of 100-200 words, claims of ~14 words: verbatim,
         paraphrased, shortened, negated, a number or a quantifier changed, entities swapped,
         or a sentence of another passage;
  ref    the same kinds of claims over the reference system's documents
         (pytest_sprout/reference/docs.jsonl), when that file exists;
  long   passages of ~2,000 words (13 synthetic passages joined), the same kinds of claims;
  news   SummEdits' news domain (--news, when the file exists): every sentence of every summary,
         cited with its news article (25 articles of 136-1,150 words, 524 on average; 1,117
         sentences, each article cited by about 45 of them).
In the synthetic workloads no claim repeats, so no claim is judged twice.

Per workload it prints claims/s on one core (CPU time, best of --repeat runs, the three judges
taking turns) for:
  lexical    LexicalJudge as shipped, passages already analysed (cached by passage text),
             every claim analysed (claims are not cached; a claim that is a sentence of its
             passage reuses the passage's analysis of it, as it would in a test session),
  uncached   the same judge analysing the cited passage again for every claim (the cold path:
             a passage not yet indexed),
  tokenset   a naive judge: share of the claim's words found anywhere in the passage, no rules,
and the ratios lexical/uncached and lexical/tokenset, which are what to compare across machines:
all three run in one process on the same claims. With --against PATH, a fourth judge takes its
turn too: the LexicalJudge of another copy of the judge (a single file, for example an older one from
`git show REV:pytest_sprout/judges/lexical.py > FILE`, or a package folder), with the ratio
lexical/against (and its uncached judge, with the ratio uncached/against uncached); then both judges' verdicts (verdict, score, evidence, reason, rule) are compared on
every claim of the workloads, the demo golden set's mutants and any --compare-data, at each of
--compare-settings, and the script exits 1 if any differ. --verdicts-only skips the timing.
--rules-off times this judge with every rule switched off: what the analysis of the claim, the
search for evidence and the calibrated score cost alone.
Last, the share of each kind of claim judged supported, a check that the workload exercises the
rules.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
import time
from functools import cache
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the bench helpers (summedits_data)

from pytest_sprout.judges.lexical import RULES, LexicalJudge  # noqa: E402
from pytest_sprout.core.model import split_sentences  # noqa: E402

PLANTS = ["snake plant", "pothos", "peace lily", "spider plant", "rubber plant",
          "monstera", "ZZ plant", "aloe vera", "jade plant", "Boston fern", "calathea", "orchid",
          "philodendron", "string of pearls", "cast-iron plant", "Chinese evergreen", "croton", "ficus"]
SEASONS = ["spring", "summer", "autumn", "winter"]
LIGHTS = ["bright indirect", "low", "filtered", "direct morning", "medium", "dappled"]
MIXES = ["cactus mix", "peat-free compost", "orchid bark", "loam-based compost", "coco coir"]
PESTS = ["mealybugs", "spider mites", "fungus gnats", "scale insects", "thrips", "aphids"]
PARTS = ["leaves", "stems", "roots", "rhizomes", "aerial roots", "flower spikes"]
SYMPTOMS = ["yellow", "brown at the tips", "soft and mushy", "pale", "curled", "spotted"]
CAUSES = ["overwatering", "dry air", "cold draughts", "too much fertiliser", "direct sun", "poor drainage"]
QUANTS = ["often", "sometimes", "rarely", "usually"]
UNITS = ["cm", "weeks", "days", "months"]

FACTS: list[Callable[[random.Random, str], str]] = [
    lambda r, p: f"The {p} grows best in {r.choice(LIGHTS)} light and tolerates {r.choice(LIGHTS)} light.",
    lambda r, p: f"Water the {p} every {r.randint(1, 3)} to {r.randint(4, 6)} weeks in {r.choice(SEASONS)}, "
    f"when the top {r.randint(2, 5)} cm of soil is dry.",
    lambda r, p: f"Keep the {p} above {r.randint(8, 16)}°C and away from {r.choice(CAUSES[1:3])}.",
    lambda r, p: f"The {p} does not need fertiliser in {r.choice(SEASONS)}, when growth slows down.",
    lambda r, p: f"{r.choice(PESTS).capitalize()} {r.choice(QUANTS)} attack the {p}, especially in {r.choice(SEASONS)}.",
    lambda r, p: f"Repot the {p} in {r.choice(SEASONS)} every {r.randint(2, 4)} years, using fresh {r.choice(MIXES)}.",
    lambda r, p: f"{r.choice(CAUSES).capitalize()} makes the {r.choice(PARTS)} of the {p} turn {r.choice(SYMPTOMS)}.",
    lambda r, p: f"The {p} is more sensitive to {r.choice(CAUSES)} than the {r.choice([q for q in PLANTS if q != p])}.",
    lambda r, p: f"Water the soil around the {p}, then mist the {r.choice(PARTS)} with rainwater.",
    lambda r, p: f"Most varieties of {p} reach {r.randint(30, 120)} cm indoors within {r.randint(2, 6)} years.",
    lambda r, p: f"Never place the {p} in a pot without a drainage hole, because the {r.choice(PARTS)} rot.",
    lambda r, p: f"Propagate the {p} from stem cuttings in water; new roots appear after {r.randint(2, 5)} weeks.",
    lambda r, p: f"All parts of the {p} are mildly toxic to cats and dogs if chewed.",
    lambda r, p: f"Wipe the {r.choice(PARTS)} of the {p} with a damp cloth every month to remove dust.",
]

_NUM = re.compile(r"\d+")
_SWAPS = [("often", "never"), ("sometimes", "always"), ("rarely", "often"), ("usually", "never"),
          ("Most", "All"), ("All", "Some"), ("more", "less"), ("least", "most")]


def make_passage(rng: random.Random, words: int = 150) -> str:
    plant = rng.choice(PLANTS)
    sentences: list[str] = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(rng.choice(FACTS)(rng, plant))
    return " ".join(sentences)


@cache
def sentences_of(passage: str) -> tuple[str, ...]:
    return tuple(split_sentences(passage))


KINDS = ("verbatim", "paraphrase", "shortened", "negated", "number", "quantifier", "swapped", "unrelated")
SUPPORTED_KINDS = frozenset({"verbatim", "paraphrase", "shortened"})


def make_claim(rng: random.Random, passage: str, other: str) -> tuple[str, str]:
    """A claim about ``passage`` and its kind: kept, or altered in one way (see KINDS)."""
    sentence = rng.choice(sentences_of(passage)).rstrip(".")
    kind = rng.choice(KINDS)
    if kind == "paraphrase":  # clause moved to the front, articles dropped, inflection changed
        parts = sentence.split(", ", 1)
        if len(parts) > 1:
            sentence = parts[1][0].upper() + parts[1][1:] + ", " + parts[0][0].lower() + parts[0][1:]
        return sentence.replace("Water the", "Watering the").replace(" the ", " ") + ".", kind
    if kind == "shortened":  # the first 8-15 words
        words = sentence.split()
        return " ".join(words[: max(8, min(15, len(words)))]) + ".", kind
    if kind == "negated":
        for a, b in ((" does not ", " does "), (" is ", " is not "), (" are ", " are not "),
                     (" makes ", " does not make "), ("Water ", "Do not water "), ("Keep ", "Do not keep ")):
            if a in sentence:
                return sentence.replace(a, b, 1) + ".", kind
        return "It is not true that " + sentence[0].lower() + sentence[1:] + ".", kind
    if kind == "number":
        nums = _NUM.findall(sentence)
        if nums:
            n = rng.choice(nums)
            return re.sub(rf"\b{n}\b", str(int(n) + rng.randint(1, 9)), sentence, count=1) + ".", kind
        return sentence + " within 3 weeks.", kind
    if kind == "quantifier":
        for a, b in _SWAPS:
            if a in sentence:
                return sentence.replace(a, b, 1) + ".", kind
        return "Always " + sentence[0].lower() + sentence[1:] + ".", kind
    if kind == "swapped":
        m = re.match(r"The (.+) is more sensitive to (.+) than the (.+)", sentence)
        if m:
            return f"The {m.group(3)} is more sensitive to {m.group(2)} than the {m.group(1)}.", kind
        m = re.match(r"Water the soil around the (.+), then mist the (.+) with rainwater", sentence)
        if m:
            return f"Mist the {m.group(2)} around the {m.group(1)}, then water the soil with rainwater.", kind
        kind = "unrelated"
    if kind == "unrelated":
        return rng.choice(sentences_of(other)), kind
    return sentence + ".", "verbatim"


def workload(rng: random.Random, passages: Sequence[str], n: int) -> list[tuple[str, list[str], str]]:
    """``n`` (claim, [cited passage], kind) triples; no claim text repeats."""
    seen: dict[str, tuple[str, list[str], str]] = {}
    for _ in range(4 * n):
        if len(seen) == n:
            break
        passage, other = rng.choice(passages), rng.choice(passages)
        claim, kind = make_claim(rng, passage, other)
        seen.setdefault(claim, (claim, [passage], kind))
    return list(seen.values())


def demo_golden_set() -> list[tuple[str, list[str], str]]:
    """Every sentence of the reference system's answers to the cases of suites/, with the texts of
    the passages it cites, as the groundedness tier judges them."""
    from pytest_sprout.suites.loader import load_suites
    from pytest_sprout.core.model import Answer
    from pytest_sprout.reference import make_system

    system = make_system()
    out = []
    for case in load_suites(ROOT / "suites").cases:
        answer = Answer.coerce(system(case.question))
        for sentence in answer.sentences:
            out.append((sentence.text, [p.text for p in answer.cited(sentence)[0]], "golden"))
    return out


class TokenSetJudge:
    """The naive baseline: share of the claim's lower-cased words found anywhere in the passages."""

    _word = re.compile(r"\w+")

    def judge_many(self, pairs):
        out = []
        for claim, sources in pairs:
            ours = set(self._word.findall(claim.lower()))
            theirs = set(self._word.findall(" ".join(sources).lower()))
            out.append(len(ours & theirs) / max(1, len(ours)) >= 0.6)
        return out


def uncached_judge(disabled: frozenset[str] = frozenset()) -> LexicalJudge:
    """The same judge, re-analysing the cited passage for every claim: its passage cache (an
    ``lru_cache`` around the analysis) is replaced by the function it wraps."""
    judge = LexicalJudge(disabled=disabled)
    cached = getattr(judge, "_prepare", None)
    if cached is None or not hasattr(cached, "__wrapped__"):
        raise SystemExit("bench_lexical: this LexicalJudge has no cached _prepare to bypass; update uncached_judge()")
    judge._prepare = cached.__wrapped__
    return judge


def load_judge_module(path: str):
    """Another copy of the lexical judge: a single file (``lexical.py`` as it was before the judge
    became a package, e.g. ``git show REV:pytest_sprout/judges/lexical.py > FILE``) or a package
    folder (``git archive REV pytest_sprout/judges/lexical | tar -x -C DIR``). It is loaded as
    ``pytest_sprout.judges.lexical_against``, where the original lived, so its relative imports
    (``..model`` or ``.rules``) resolve; only its public ``LexicalJudge`` is used."""
    where = Path(path)
    name = "pytest_sprout.judges.lexical_against"
    if where.is_dir():
        spec = importlib.util.spec_from_file_location(name, where / "__init__.py", submodule_search_locations=[str(where)])
    else:
        spec = importlib.util.spec_from_file_location(name, where)
    if spec is None or spec.loader is None or not (where / "__init__.py" if where.is_dir() else where).exists():
        raise SystemExit(f"--against: cannot load {path} (a lexical.py file, or a package folder with __init__.py)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    if not hasattr(module, "LexicalJudge"):
        raise SystemExit(f"--against: {path} has no LexicalJudge")
    return module


def _verdict_key(v) -> tuple:
    """What two judges must agree on: verdict, score, evidence, reason and rule."""
    return (v.supported, round(float(v.score), 9), v.evidence, v.reason, getattr(v, "rule", None))


def compare_verdicts(other_module, sets: dict[str, list[tuple[str, list[str]]]], settings: list[tuple[float, int]]) -> int:
    """Judge every claim of every set with both judges (public API only: ``LexicalJudge(coverage=,
    window=).judge_many``) at each setting; print how many verdicts differ, with examples. Returns
    the number of differing verdicts."""
    total = 0
    print("\nverdicts, current judge against --against (verdict, score, evidence, reason and rule must match)")
    print(f"{'set':14} {'coverage':>8} {'window':>6} {'claims':>7} {'differ':>6}")
    for coverage, window in settings:
        ours, theirs = LexicalJudge(coverage=coverage, window=window), other_module.LexicalJudge(coverage=coverage, window=window)
        for name, pairs in sets.items():
            unique = list({(c, tuple(p)): (c, list(p)) for c, p in pairs}.values())
            a, b = ours.judge_many(unique), theirs.judge_many(unique)
            differ = [(pair, x, y) for pair, x, y in zip(unique, a, b) if _verdict_key(x) != _verdict_key(y)]
            total += len(differ)
            print(f"{name:14} {coverage:8.2f} {window:6d} {len(unique):7d} {len(differ):6d}")
            for (claim, _), x, y in differ[:3]:
                print(f"    {claim[:100]!r}\n      now:     {_verdict_key(x)}\n      against: {_verdict_key(y)}")
    print(f"claims x settings compared: {sum(len({(c, tuple(p)) for c, p in pairs}) for pairs in sets.values()) * len(settings)};"
          f" verdicts that differ: {total}")
    return total


def demo_mutants() -> list[tuple[str, list[str]]]:
    """Every mutant of every sentence of the demo golden set, with the passages it cites."""
    from pytest_sprout.suites.loader import load_suites
    from pytest_sprout.core.model import Answer
    from pytest_sprout.checks.operators import mutate_sentence
    from pytest_sprout.reference import make_system

    system = make_system()
    out = []
    for case in load_suites(ROOT / "suites").cases:
        answer = Answer.coerce(system(case.question))
        for i in range(len(answer.sentences)):
            for m in mutate_sentence(answer, i):
                out.append((m.sentence.text, [p.text for p in answer.cited(m.sentence)[0]]))
    return out


def rates(runs: dict[str, tuple[object, list]], repeat: int) -> dict[str, float]:
    """Claims per CPU second of each (judge, pairs), best of ``repeat`` runs. The judges take turns
    (A B C A B C ...), so a slow spell of the machine falls on all of them alike. A first, untimed
    run analyses every passage once: the steady state of a test session, where each retrieved
    passage is cited by many sentences. Claims are analysed in every run (the judge keeps none)."""
    best = {name: float("inf") for name in runs}
    for judge, pairs in runs.values():
        judge.judge_many(pairs)
    for _ in range(repeat):
        for name, (judge, pairs) in runs.items():
            start = time.process_time()
            judge.judge_many(pairs)
            best[name] = min(best[name], time.process_time() - start)
    return {name: len(runs[name][1]) / best[name] for name in runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", type=int, default=20000, help="claims per workload (long: a fifth)")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per judge; the best counts")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--against", metavar="PATH", help="another copy of the judge (a lexical.py file or a package"
                    " folder) to time in the same runs and to compare verdicts with")
    ap.add_argument("--compare-settings", default="0.6:2,0.4:2,0.6:1", metavar="C:W,...",
                    help="with --against: the (coverage:window) settings to compare verdicts at")
    ap.add_argument("--compare-data", nargs="*", default=[], metavar="DATA",
                    help="with --against: labelled data files or folders (any format metaeval reads) whose claims"
                         " are compared too, e.g. ../shared/benchmarks/wice/claim_test.jsonl")
    ap.add_argument("--verdicts-only", action="store_true", help="with --against: compare verdicts, time nothing")
    ap.add_argument("--time-only", action="store_true",
                    help="with --against: time both judges, compare no verdicts (an older judge decides otherwise)")
    ap.add_argument("--news", metavar="PATH", default=str(ROOT.parent / "shared" / "benchmarks" / "summedits" / "summedits_news.json"),
                    help="SummEdits' news file for the news workload (skipped when it does not exist)")
    ap.add_argument("--only", nargs="*", default=[], metavar="WORKLOAD", help="time only these workloads")
    ap.add_argument("--rules-off", action="store_true",
                    help="time this judge with every rule of RULES switched off (the claim's analysis, the search "
                         "for evidence and the calibrated score alone); the verdict comparison is unchanged")
    args = ap.parse_args()
    other = load_judge_module(args.against) if args.against else None
    rng = random.Random(args.seed)

    workloads = {}
    if (ROOT / "suites").is_dir():
        workloads["demo"] = demo_golden_set() * 20
    short = [make_passage(rng, rng.randint(100, 200)) for _ in range(600)]
    workloads["short"] = workload(rng, short, args.claims)
    docs_path = ROOT / "pytest_sprout" / "reference" / "docs.jsonl"
    if docs_path.exists():
        lines = docs_path.read_text(encoding="utf-8").splitlines()
        docs = [json.loads(line)["text"] for line in lines if line.strip()]
        workloads["ref"] = workload(rng, docs, args.claims)
    long = [" ".join(make_passage(rng, 150) for _ in range(13)) for _ in range(20)]
    workloads["long"] = workload(rng, long, max(1000, args.claims // 5))
    if Path(args.news).is_file():
        from summedits_data import load_summaries, sentence_pairs

        workloads["news"] = [(claim, sources, "news") for claim, sources in sentence_pairs(load_summaries(args.news))]
    if args.only:
        workloads = {name: triples for name, triples in workloads.items() if name in args.only}

    off = frozenset(r.name for r in RULES) if args.rules_off else frozenset()
    judge = LexicalJudge(disabled=off)
    if args.verdicts_only and other is None:
        ap.error("--verdicts-only needs --against")
    if not args.verdicts_only:
        print(f"python {sys.version.split()[0]}; claims/s on one core (CPU time, best of {args.repeat})")
        print(f"{'workload':8} {'claims':>7} {'words/claim':>11} {'words/passage':>13} {'lexical':>8} {'uncached':>8}"
              f" {'tokenset':>8} {'vs uncached':>11} {'vs tokenset':>11} {'supported':>9}")
    agreement: dict[str, dict[str, float]] = {}
    for name, triples in workloads.items():
        pairs = [(claim, sources) for claim, sources, _ in triples]
        claim_words = sum(len(c.split()) for c, _ in pairs) / len(pairs)
        cited = [p[0] for _, p in pairs if p]
        passage_words = sum(len(p.split()) for p in cited) / max(1, len(cited))
        if args.verdicts_only:
            continue
        # Every judge times the same claims (the uncached one too: it is the slowest, not a sample).
        runs = {"lexical": (judge, pairs), "uncached": (uncached_judge(off), pairs), "tokenset": (TokenSetJudge(), pairs)}
        if other is not None:
            runs["against"] = (other.LexicalJudge(), pairs)
            against_uncached = other.LexicalJudge()
            against_uncached._prepare = against_uncached._prepare.__wrapped__
            runs["against uncached"] = (against_uncached, pairs)
        got = rates(runs, args.repeat)
        fast, slow, naive = got["lexical"], got["uncached"], got["tokenset"]
        verdicts = judge.judge_many(pairs)
        supported = sum(v.supported for v in verdicts) / len(pairs)
        print(f"{name:8} {len(pairs):7d} {claim_words:11.1f} {passage_words:13.0f} {fast:8.0f} {slow:8.0f}"
              f" {naive:8.0f} {fast / slow:10.1f}x {fast / naive:10.2f}x {supported:9.1%}"
              + (f"   against {got['against']:.0f}/s, lexical/against {fast / got['against']:.2f}x;"
                 f" against uncached {got['against uncached']:.0f}/s,"
                 f" uncached/against uncached {slow / got['against uncached']:.2f}x" if other else ""))
        by_kind: dict[str, list[bool]] = {}
        for (_, _, kind), v in zip(triples, verdicts):
            by_kind.setdefault(kind, []).append(bool(v.supported))
        if name not in ("demo", "news"):  # the golden set and SummEdits have no kinds of claim
            agreement[name] = {k: sum(vs) / len(vs) for k, vs in by_kind.items()}
    if other is not None and not args.time_only:
        from pytest_sprout.checks.metaeval import load
        from summedits_data import is_summedits, load_summaries, sentence_pairs

        sets = {name: [(c, p) for c, p, _ in triples] for name, triples in workloads.items()}
        if "demo" in sets:
            sets["demo"] = list(dict.fromkeys((c, tuple(p)) for c, p in sets["demo"]))
            sets["demo mutants"] = demo_mutants()
        for data in args.compare_data:
            if is_summedits(data):  # every summary sentence against its document
                sets[Path(data).name[:14]] = sentence_pairs(load_summaries(data))
            else:
                sets[Path(data).name[:14]] = [(e.claim, list(e.premise)) for e in load(data)]
        settings = [(float(c), int(w)) for c, w in (pair.split(":") for pair in args.compare_settings.split(","))]
        differ = compare_verdicts(other, sets, settings)
        if differ:
            sys.exit(1)
    if args.verdicts_only:
        return
    print("\nshare judged supported, by kind of claim (sanity check: the first three should be high,")
    print("the others low; a changed sentence can still be true of another sentence of the passage)")
    print(f"{'workload':8} " + " ".join(f"{k:>10}" for k in KINDS))
    for name, shares in agreement.items():
        print(f"{name:8} " + " ".join(f"{shares[k]:10.1%}" if k in shares else f"{'-':>10}" for k in KINDS))


if __name__ == "__main__":
    main()
