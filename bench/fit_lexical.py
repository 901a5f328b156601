"""Fit the lexical judge's calibrated score: a logistic regression with a handful of coefficients.

    .venv/bin/python bench/fit_lexical.py --data ../shared/benchmarks [--folds 5] [--seed 0]
        [--weighting datasets|rows] [--write] [--without NAME,NAME] [--no-summedits]

Fitting data: WiCE dev (349 claims, gold premises) and LFQA-Verification (every answer sentence of
the six systems), pooled. Held out, never fitted on, never used to choose a threshold: WiCE test
(358 claims) and SummEdits (all 8 domains; a summary's sentences judged against its document, the
summary consistent when every sentence is supported, its score its sentences' lowest). Every
number printed is out-of-sample:

- **Grouped cross-validation** on the fitting data. Rows are split into ``--folds`` folds by group,
  so that no group is on both sides of a split: a WiCE group is the Wikipedia article the claim
  comes from (each claim is its own row already; claims of one article share names and topic), an
  LFQA group is a question (all six systems' answers to it, judged against the same documents).
  Each dataset is split separately, so every fold holds part of both. For each fold the model and
  the decision threshold are fitted on the other folds and applied to it.
- **Held out**: the model and threshold fitted on all of the fitting data judge WiCE test and
  SummEdits (what ``--write`` ships, so these are the shipped judge's numbers on them).
- **Leave one dataset out**: the model and threshold fitted on all of WiCE dev judge LFQA, WiCE
  test and SummEdits; fitted on all of LFQA, they judge WiCE dev, WiCE test and SummEdits: how
  well a threshold transfers to data of another kind.

Weighting (``--weighting``): ``datasets`` (the default) gives each fitting dataset the same total
weight, whatever its row count (LFQA has eleven times more rows than WiCE dev); ``rows`` weighs
every row alike. The threshold is the one that maximises the mean of the per-dataset balanced
accuracies on the fitting rows (with one dataset, its balanced accuracy), among thresholds of at
least 0.5: a probability below one half means people would more likely call the claim unsupported.

``--write`` stores the model and threshold fitted on all of WiCE dev and LFQA in
``pytest_sprout/judges/lexical/calibration.py``. The features are the judge's own
(``Evidence.features``); they do not depend on the coefficients, so they are computed once.
``--no-summedits`` skips SummEdits (its long documents take most of the run's time).
numpy only (no scikit-learn): Newton's method with a small L2 penalty.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pytest_sprout import stats  # noqa: E402
from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge, calibration  # noqa: E402
from pytest_sprout.judges.lexical.claims import join_fragments  # noqa: E402
from summedits_data import load_summaries  # noqa: E402

L2 = 1e-2
DATASETS = ("WiCE dev", "LFQA")  # the fitting data; WiCE test and SummEdits are held out


def features(judge: LexicalJudge, examples: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, hard, y): the features, whether a hard rule or the coverage floor rejects it, the labels.
    ``examples``: anything with ``claim``, ``premise`` and ``supported``; the caller drops the ones
    ``scored`` says the judge leaves unscored (no claim) first."""
    rows, hard, labels = [], [], []
    for e in examples:
        verdict, found = judge.assess(e.claim, list(e.premise))
        if verdict.supported is None:
            raise ValueError(f"{e.claim!r}: unscored (no claim); drop it with scored() first")
        if found is None:  # uncited or wordless: the verdict stands, with its own score
            ok = 1.0 if verdict.supported else 0.0
            by_name = {"coverage": ok, "weighted_coverage": ok, "rule_failed": 1.0 - ok, "passage_weighted": ok,
                       "single_sentence": ok, "linked_pairs": ok}
            rows.append(tuple(by_name.get(name, 0.0) for name in calibration.FEATURES))
            hard.append(not verdict.supported)
        else:
            rows.append(found.features())
            hard.append(found.failure is not None or found.coverage < judge.coverage - 1e-9)
        labels.append(e.supported)
    return np.array(rows, dtype=float).reshape(len(rows), len(calibration.FEATURES)), np.array(hard, dtype=bool), \
        np.array(labels, dtype=float)


def scored(judge: LexicalJudge, examples: list) -> list:
    """The examples the judge scores, each with its claim as judged (a fragment joined with the
    sentence before it, ``metaeval.pairs_of``): a sentence with no claim is neither a pass nor a
    fail, so it is neither fitted on nor counted."""
    out = []
    for e, (claim, premise) in zip(examples, metaeval.pairs_of(examples)):
        if judge.judge(claim, premise).supported is not None:
            out.append(Claim(claim, tuple(premise), e.supported, getattr(e, "id", ""), getattr(e, "category", None)))
    return out


@dataclass(frozen=True)
class Claim:
    claim: str
    premise: tuple[str, ...]
    supported: bool
    id: str = ""
    category: str | None = None
    previous: str | None = None


@dataclass
class HeldOut:
    """A held-out set's features; ``summary``: for SummEdits, the summary each sentence belongs to
    (a summary is judged consistent when all its sentences are, and scored by its lowest)."""

    name: str
    X: np.ndarray
    hard: np.ndarray
    y: np.ndarray
    summary: np.ndarray | None = None
    domain: np.ndarray | None = None

    @property
    def size(self) -> int:
        """How many items: claims, or SummEdits' summaries."""
        return len(self.y) if self.summary is None else int(self.summary.max()) + 1

    def judged(self, w: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(labels, scores, predictions) of the set's items under the model ``w`` and threshold ``t``."""
        p = predict(w, self.X)
        pred = (p >= t) & ~self.hard
        if self.summary is None:
            return self.y, p, pred
        n = self.size
        score = np.ones(n)
        np.minimum.at(score, self.summary, p)
        consistent = np.ones(n, dtype=bool)
        np.logical_and.at(consistent, self.summary, pred)
        label = np.zeros(n)
        label[self.summary] = self.y
        return label, score, consistent


def summedits_set(judge: LexicalJudge, folder: Path) -> HeldOut:
    """SummEdits' sentences as claims (each labelled as its summary), with their summary and domain."""
    summaries = load_summaries(folder)
    claims, summary, domain = [], [], []
    for s in summaries:  # each summary an answer: a fragment judged with the sentence before it
        mine = [Claim(sentence, (s.doc,), s.consistent)
                for sentence, _ in join_fragments([(sentence, (s.doc,)) for sentence in s.sentences])[0]
                if judge.judge(sentence, [s.doc]).supported is not None]
        if mine:  # a summary with no claim at all is unscored: not counted
            claims += mine
            summary += [len(domain)] * len(mine)
            domain.append(s.domain)
    X, hard, y = features(judge, claims)
    return HeldOut("SummEdits, 8 domains", X, hard, y, np.array(summary), np.array(domain))


def wice_articles(paths: list[Path]) -> dict[str, str]:
    """WiCE claim id -> the title of the Wikipedia article the claim comes from."""
    titles = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                meta = json.loads(line).get("meta") or {}
                titles[str(meta.get("id"))] = str(meta.get("claim_title", meta.get("id")))
    return titles


def fit(X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Weighted logistic regression by Newton's method; returns [intercept, coefficients...]."""
    A = np.hstack([np.ones((len(X), 1)), X])
    weight = weight * (len(y) / weight.sum())  # the penalty keeps its strength whatever the weights
    w = np.zeros(A.shape[1])
    penalty = L2 * np.eye(A.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(A @ w)))
        grad = A.T @ (weight * (p - y)) + penalty @ w
        H = (A * (weight * p * (1 - p))[:, None]).T @ A + penalty
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def predict(w: np.ndarray, X: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(w[0] + X @ w[1:])))


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    pos, neg = y == 1, y == 0
    return 0.5 * (pred[pos].mean() + (~pred[neg]).mean())


# The least threshold: a calibrated probability below one half says people would more likely call
# the claim unsupported, so it never counts as supported, whatever the dev sets' class balance.
FLOOR = 0.5


def best_threshold(p: np.ndarray, hard: np.ndarray, y: np.ndarray, dataset: np.ndarray) -> float:
    """The threshold (at least ``FLOOR``) with the best mean of the per-dataset balanced accuracies."""
    grid = np.round(np.arange(FLOOR, 0.951, 0.01), 2)
    names = sorted(set(dataset))
    scores = [np.mean([balanced_accuracy(y[dataset == d], ((p >= t) & ~hard)[dataset == d]) for d in names])
              for t in grid]
    return float(grid[int(np.argmax(scores))])


def weights_of(dataset: np.ndarray, weighting: str) -> np.ndarray:
    if weighting == "rows":
        return np.ones(len(dataset))
    counts = {d: int((dataset == d).sum()) for d in set(dataset)}
    return np.array([1.0 / counts[d] for d in dataset])


def grouped_folds(dataset: np.ndarray, group: list[str], k: int, seed: int) -> np.ndarray:
    """A fold per row: each dataset's groups shuffled, then dealt largest first to the lightest fold."""
    rng = random.Random(seed)
    fold = np.zeros(len(group), dtype=int)
    for d in sorted(set(dataset)):
        rows: dict[str, list[int]] = {}
        for i in np.flatnonzero(dataset == d):
            rows.setdefault(group[i], []).append(int(i))
        keys = sorted(rows)
        rng.shuffle(keys)
        keys.sort(key=lambda g: -len(rows[g]))  # stable: ties keep the shuffled order
        load = [0] * k
        for g in keys:
            f = load.index(min(load))
            fold[rows[g]] = f
            load[f] += len(rows[g])
    return fold


def model(X, hard, y, dataset, rows: np.ndarray, weighting: str) -> tuple[np.ndarray, float]:
    w = fit(X[rows], y[rows], weights_of(dataset[rows], weighting))
    return w, best_threshold(predict(w, X[rows]), hard[rows], y[rows], dataset[rows])


def out_of_sample(X, hard, y, dataset, fold, fitted_on: tuple[str, ...], weighting: str, k: int):
    """(p, pred) for every row: cross-validated on the fitted datasets, the full model on the others."""
    p = np.zeros(len(y))
    pred = np.zeros(len(y), dtype=bool)
    inside = np.isin(dataset, fitted_on)
    for f in range(k):
        w, t = model(X, hard, y, dataset, inside & (fold != f), weighting)
        held = inside & (fold == f)
        p[held] = predict(w, X[held])
        pred[held] = (p[held] >= t) & ~hard[held]
    w, t = model(X, hard, y, dataset, inside, weighting)
    p[~inside] = predict(w, X[~inside])
    pred[~inside] = (p[~inside] >= t) & ~hard[~inside]
    return p, pred, w, t


def report(name: str, y: np.ndarray, p: np.ndarray, pred: np.ndarray) -> str:
    labels = [bool(v) for v in y]
    auc = stats.roc_auc(list(p), labels)
    tpr = stats.Rate(int((pred & (y == 1)).sum()), int((y == 1).sum()))
    tnr = stats.Rate(int((~pred & (y == 0)).sum()), int((y == 0).sum()))
    ba = stats.balanced_accuracy(tpr, tnr)
    return (f"{name:<30} n={len(y):>5} ({int(y.sum())}/{int((1 - y).sum())})  BA {ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]"
            f"  AUC {auc[0]:.3f} [{auc[1]:.3f}, {auc[2]:.3f}]  recall sup {tpr.k}/{tpr.n}  recall unsup {tnr.k}/{tnr.n}")


def main() -> int:
    args, left_out = arguments()
    data = Path(args.data)
    judge = LexicalJudge()
    dev_path = data / "wice" / "claim_dev.jsonl"
    dev = scored(judge, metaeval.load(dev_path))
    lfqa = scored(judge, metaeval.load(data / "lfqa_verification"))
    titles = wice_articles([dev_path])
    X, hard, y = features(judge, dev + lfqa)
    kept = [i for i, name in enumerate(calibration.FEATURES) if name not in left_out]
    X = X[:, kept]
    dataset = np.array(["WiCE dev"] * len(dev) + ["LFQA"] * len(lfqa))
    group = [f"wice:{titles.get(e.id, e.id)}" for e in dev] + [f"lfqa:{e.id.split(':')[1]}" for e in lfqa]
    system = np.array([""] * len(dev) + [e.category or "" for e in lfqa])
    held_out = [HeldOut("WiCE test", *features(judge, scored(judge, metaeval.load(data / "wice" / "claim_test.jsonl"))))]
    if not args.no_summedits:
        held_out.append(summedits_set(judge, data / "summedits"))
    for h in held_out:
        h.X = h.X[:, kept]
    fold = grouped_folds(dataset, group, args.folds, args.seed)
    print(f"features: {', '.join(calibration.FEATURES[i] for i in kept)}"
          + (f" (left out: {', '.join(left_out)})" if left_out else ""))
    print(f"fitting data: WiCE dev ({len(dev)}) and LFQA ({len(lfqa)}); held out, never fitted on: "
          + ", ".join(f"{h.name} ({h.size})" for h in held_out))
    print(f"{args.folds}-fold cross-validation grouped by WiCE article ({len({g for g, d in zip(group, dataset) if d == 'WiCE dev'})})"
          f" and LFQA question ({len({g for g, d in zip(group, dataset) if d == 'LFQA'})}), seed {args.seed};"
          f" threshold: best mean of per-dataset BA on the fitting rows")

    def block(title: str, fitted_on: tuple[str, ...], weighting: str, detail: bool = False):
        p, pred, w, t = out_of_sample(X, hard, y, dataset, fold, fitted_on, weighting, args.folds)
        print(f"{title} (full model's threshold {t:.2f}):")
        for name in DATASETS:
            rows = dataset == name
            how = "cross-validated" if name in fitted_on else "transfer"
            print(report(f"  {name}, {how}", y[rows], p[rows], pred[rows]))
            if detail and name == "LFQA":
                for s in sorted(set(system[rows]), key=list(system).index):
                    sub = rows & (system == s)
                    print(report(f"    LFQA {s}", y[sub], p[sub], pred[sub]))
        for h in held_out:
            labels, scores, judged = h.judged(w, t)
            print(report(f"  {h.name}, held out", labels, scores, judged))
            if detail and h.domain is not None:
                for d in sorted(set(h.domain)):
                    sub = h.domain == d
                    print(report(f"    SummEdits {d}", labels[sub], scores[sub], judged[sub]))
        mean = np.mean([balanced_accuracy(y[dataset == d], pred[dataset == d]) for d in DATASETS])
        print(f"  mean of the two fitting datasets' BA: {mean:.3f}")
        return w, t

    block("fitted on WiCE dev only; LFQA is transfer", ("WiCE dev",), "rows")
    block("fitted on LFQA only; WiCE dev is transfer", ("LFQA",), "rows")
    other = "rows" if args.weighting == "datasets" else "datasets"
    block(f"fitted on both, weighting by {other}", DATASETS, other)
    w, t = block(f"fitted on both, weighting by {args.weighting} (the shipped protocol)", DATASETS, args.weighting,
                 detail=True)
    print(f"fitted on all of both: intercept {w[0]:+.3f}, coefficients "
          + ", ".join(f"{calibration.FEATURES[i]} {c:+.3f}" for i, c in zip(kept, w[1:])) + f"; threshold {t:.2f}")
    if args.write:
        write(w, t, len(dev), len(lfqa))
    return 0


def arguments() -> tuple[argparse.Namespace, list[str]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weighting", choices=("datasets", "rows"), default="datasets",
                    help="each fitting dataset the same total weight (default), or each row")
    ap.add_argument("--write", action="store_true", help="store the model fitted on WiCE dev and LFQA in the package")
    ap.add_argument("--without", default="", metavar="NAMES",
                    help="an ablation: leave out these features (comma-separated names; not with --write)")
    ap.add_argument("--no-summedits", action="store_true", help="skip the SummEdits held-out set (faster)")
    args = ap.parse_args()
    left_out = [name for name in args.without.split(",") if name]
    unknown = sorted(set(left_out) - set(calibration.FEATURES))
    if unknown:
        ap.error(f"--without: no feature named {', '.join(unknown)} (features: {', '.join(calibration.FEATURES)})")
    if left_out and args.write:
        ap.error("--without is an ablation: it cannot be combined with --write")
    return args, left_out


def write(w: np.ndarray, t: float, n_dev: int, n_lfqa: int) -> None:
    """Store the model in calibration.py; its VERSION names the fitting data and hashes the model."""
    target = ROOT / "pytest_sprout" / "judges" / "lexical" / "calibration.py"
    text = target.read_text()
    head = text.split("\nVERSION", 1)[0]
    coefficients = ", ".join(f"{c:.4f}" for c in w[1:])
    version = f"wicedev{n_dev}+lfqa{n_lfqa}-{zlib.crc32(f'{w[0]:.4f} {coefficients} {t:.2f}'.encode()):08x}"
    target.write_text(
        f"{head}\nVERSION = {version!r}\nFEATURES = {calibration.FEATURES!r}\nINTERCEPT = {w[0]:.4f}\n"
        f"COEFFICIENTS = ({coefficients})\nTHRESHOLD = {t:.2f}\n")
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    raise SystemExit(main())
