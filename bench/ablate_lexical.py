"""What each rule of the lexical judge pays for: every rule of ``RULES`` switched off in turn.

    .venv/bin/python bench/ablate_lexical.py [--data ../shared/benchmarks] [--seeds 5] [--off NAME,NAME]

Per rule: how many labelled items it fires on (its check returns a failure at least once while the
item is judged) and decides (the item's verdict, supported or not, changes with the rule off, at
the shipped calibration), on WiCE dev, LFQA, WiCE test and SummEdits' sentences together; then the
balanced accuracy with the rule off, as the shipped protocol measures it (``bench/fit_lexical.py``,
the model and threshold refitted on the ablated features):

- **fitted sets**: WiCE dev and LFQA, grouped 5-fold cross-validation (by article, by question),
  the mean over ``--seeds`` fold seeds;
- **held out**: WiCE test and SummEdits (8 domains, summary level), judged by the model fitted on
  all of WiCE dev and LFQA. Reported, not used to decide what stays;
- **kill rates**: each mutation operator's kill rate on the demo suites and on real answers
  (``bench/mutation_rates.py``), the change in points with the rule off (the largest drop shown).

A rule off changes only the items it fires on (a check that returns nothing everywhere decides
nothing), so only those are judged again. ``--off`` switches rules off together first (the
baseline is then the judge without them): to measure the judge after removing several rules.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.judges.groundedness import GroundednessTier  # noqa: E402
from pytest_sprout.judges.lexical import RULES, LexicalJudge  # noqa: E402
from pytest_sprout.judges.lexical.claims import join_fragments  # noqa: E402
import fit_lexical as F  # noqa: E402
import mutation_rates as M  # noqa: E402
from summedits_data import load_summaries  # noqa: E402

FIRED: set[str] = set()  # the rules whose check returned a failure since it was last cleared


def traced(judge: LexicalJudge) -> LexicalJudge:
    """``judge`` with every rule's check recording in FIRED when it returns a failure."""
    def wrap(name: str, check: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            out = check(*args)
            if out is not None:
                FIRED.add(name)
            return out
        return run
    judge._arrange(tuple(replace(r, check=wrap(r.name, r.check)) for r in judge.rules))
    return judge


class Sets:
    """The labelled items, the features of each under a judge, and the ablated BAs."""

    def __init__(self, data: Path, base: LexicalJudge) -> None:
        dev_path = data / "wice" / "claim_dev.jsonl"
        self.dev = F.scored(base, metaeval.load(dev_path))
        self.lfqa = F.scored(base, metaeval.load(data / "lfqa_verification"))
        self.test = F.scored(base, metaeval.load(data / "wice" / "claim_test.jsonl"))
        self.summ, summary, domain = [], [], []
        for s in load_summaries(data / "summedits"):
            mine = [F.Claim(c, (s.doc,), s.consistent) for c, _ in join_fragments([(c, (s.doc,)) for c in s.sentences])[0]
                    if base.judge(c, [s.doc]).supported is not None]
            if mine:
                self.summ += mine
                summary += [len(domain)] * len(mine)
                domain.append(s.domain)
        self.summary, self.domain = np.array(summary), np.array(domain)
        self.items = self.dev + self.lfqa + self.test + self.summ
        titles = F.wice_articles([dev_path])
        self.dataset = np.array(["WiCE dev"] * len(self.dev) + ["LFQA"] * len(self.lfqa))
        self.group = [f"wice:{titles.get(e.id, e.id)}" for e in self.dev] + [f"lfqa:{e.id.split(':')[1]}" for e in self.lfqa]

    def judge_all(self, judge: LexicalJudge, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, list]:
        """(X, hard, fired per row) of the items ``rows`` (all when None)."""
        rows = range(len(self.items)) if rows is None else rows
        X, hard, fired = [], [], []
        for i in rows:
            FIRED.clear()
            x, h, _ = F.features(judge, [self.items[i]])
            X.append(x[0])
            hard.append(h[0])
            fired.append(frozenset(FIRED))
        return np.array(X).reshape(len(X), -1), np.array(hard, dtype=bool), fired

    def scores(self, X: np.ndarray, hard: np.ndarray, seeds: int) -> dict[str, float]:
        """BA per set: WiCE dev and LFQA cross-validated (mean over seeds), the held-out sets by the full model."""
        n = len(self.dataset)
        y = np.array([float(e.supported) for e in self.items])
        out = {"WiCE dev": 0.0, "LFQA": 0.0}
        for seed in range(seeds):
            fold = F.grouped_folds(self.dataset, self.group, 5, seed)
            p, pred, w, t = F.out_of_sample(X[:n], hard[:n], y[:n], self.dataset, fold, F.DATASETS, "datasets", 5)
            for name in F.DATASETS:
                rows = self.dataset == name
                out[name] += F.balanced_accuracy(y[:n][rows], pred[rows]) / seeds
        k = n + len(self.test)
        test = F.HeldOut("WiCE test", X[n:k], hard[n:k], y[n:k])
        summ = F.HeldOut("SummEdits", X[k:], hard[k:], y[k:], self.summary, self.domain)
        for h in (test, summ):
            labels, _, judged = h.judged(w, t)
            out[h.name] = F.balanced_accuracy(labels, judged)
        return out

    def verdicts(self, judge: LexicalJudge, rows: list[int]) -> list[bool | None]:
        return [judge.judge(self.items[i].claim, list(self.items[i].premise)).supported for i in rows]


def kill_rates(make: Callable[[float], LexicalJudge], lfqa: Path) -> tuple[dict[str, float], set[str]]:
    """Each operator's kill rate, demo ("demo:op") and real answers ("real:op"), and the rules that
    fired anywhere while they were computed."""
    tier = GroundednessTier()
    judges: dict[float, LexicalJudge] = {}

    def judge_for(coverage: float) -> LexicalJudge:
        if coverage not in judges:
            judges[coverage] = make(coverage)
        return judges[coverage]

    tier.judge = judge_for(tier.judge.coverage)
    tier.judge_for = judge_for  # type: ignore[method-assign]
    FIRED.clear()
    rates = {}
    for where, (_, outcomes) in (("demo", M.demo_outcomes(tier)), ("real", M.real_outcomes(tier.judge, lfqa))):
        for op, kills in outcomes.items():
            if not op.startswith(" ") and "@" not in op:
                rates[f"{where}:{op}"] = sum(kills) / len(kills)
    return rates, set(FIRED)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--seeds", type=int, default=5, help="fold seeds of the cross-validation")
    ap.add_argument("--off", default="", metavar="NAMES", help="rules switched off in every run, the baseline too")
    ap.add_argument("--only", default="", metavar="NAMES", help="ablate only these rules (comma-separated)")
    args = ap.parse_args()
    data = Path(args.data)
    only = {name for name in args.only.split(",") if name}
    off = {name for name in args.off.split(",") if name}
    base = traced(LexicalJudge(disabled=off))
    sets = Sets(data, base)
    X, hard, fired = sets.judge_all(base)
    before = sets.scores(X, hard, args.seeds)
    rows_all = list(range(len(sets.items)))
    verdicts = sets.verdicts(base, rows_all)

    def make(coverage: float, extra: frozenset[str] = frozenset()) -> LexicalJudge:
        return traced(LexicalJudge(coverage=coverage, disabled=off | extra))
    kills, kill_fired = kill_rates(make, data / "lfqa_verification")
    print(f"items: WiCE dev {len(sets.dev)}, LFQA {len(sets.lfqa)}, WiCE test {len(sets.test)}, SummEdits sentences "
          f"{len(sets.summ)} ({len(sets.domain)} summaries); off in every run: {', '.join(sorted(off)) or 'none'}")
    print("all rules on: " + ", ".join(f"{k} {v:.4f}" for k, v in before.items()))
    print("kill rates: " + ", ".join(f"{k} {v:.3f}" for k, v in kills.items()))
    head = f"{'rule':24} {'family':11} {'fires':>6} {'decides':>7} {'WiCE dev':>9} {'LFQA':>8} {'WiCE test':>9} {'SummEd':>8}"
    print("\nBA change with the rule off (fitted: CV mean over seeds; held out: full model), kill rates in points")
    print(f"{head}  largest kill-rate drop")
    for rule in RULES:
        if rule.name in off or (only and rule.name not in only):
            continue
        rows = [i for i, f in enumerate(fired) if rule.name in f]
        judge = make(LexicalJudge.DEFAULT_COVERAGE, frozenset({rule.name}))
        X2, hard2 = X.copy(), hard.copy()
        if rows:
            X2[rows], hard2[rows], _ = sets.judge_all(judge, rows)
        after = sets.scores(X2, hard2, args.seeds) if rows else before
        decides = sum(a != b for a, b in zip(sets.verdicts(judge, rows), (verdicts[i] for i in rows)))
        if rule.name in kill_fired:
            rates, _ = kill_rates(lambda c, name=rule.name: make(c, frozenset({name})), data / "lfqa_verification")
            drops = sorted(((100 * (rates.get(k, 0.0) - v), k) for k, v in kills.items()))
            drop = f"{drops[0][0]:+.1f} {drops[0][1]}" if drops[0][0] < 0 else "0"
        else:
            drop = "0 (fires on no mutant)"
        deltas = " ".join(f"{after[k] - before[k]:+9.4f}" for k in ("WiCE dev", "LFQA", "WiCE test", "SummEdits"))
        print(f"{rule.name:24} {rule.family:11} {len(rows):6d} {decides:7d} {deltas}  {drop}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
