"""Fit the lexical judge's calibrated score: a logistic regression with a handful of coefficients.

    .venv/bin/python bench/fit_lexical.py --data ../shared/benchmarks [--folds 5] [--seed 0]
        [--weighting datasets|rows] [--write] [--without NAME,NAME]

Fitting data: all the human-labelled dev data, pooled: WiCE (dev and test claims, gold premises)
and LFQA-Verification (every answer sentence of the six systems). Every number printed is
out-of-sample:

- **Grouped cross-validation.** Rows are split into ``--folds`` folds by group, so that no group
  is on both sides of a split: a WiCE group is the Wikipedia article the claim comes from (each
  claim is its own row already; claims of one article share names and topic), an LFQA group is
  a question (all six systems' answers to it, judged against the same documents). Each dataset is
  split separately, so every fold holds part of both. For each fold the model and the decision
  threshold are fitted on the other folds and applied to it.
- **Leave one dataset out.** The model and threshold fitted on all of one dataset judge the other:
  how well a threshold transfers to data of another kind.

Weighting (``--weighting``): ``datasets`` (the default) gives each dataset the same total weight in
the fit, whatever its row count (LFQA has 5.5 times more rows than WiCE); ``rows`` weighs every row
alike. The threshold is the one that maximises the mean of the per-dataset balanced accuracies on
the fitting rows (with one dataset, its balanced accuracy), among thresholds of at least 0.5: a
probability below one half means people would more likely call the claim unsupported.

``--write`` stores the model and threshold fitted on all of both datasets in
``pytest_sprout/judges/lexical/calibration.py``. The features are the judge's own
(``Evidence.features``); they do not depend on the coefficients, so they are computed once.
numpy only (no scikit-learn): Newton's method with a small L2 penalty.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_sprout import stats  # noqa: E402
from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge, calibration  # noqa: E402

L2 = 1e-2
DATASETS = ("WiCE", "LFQA")


def features(judge: LexicalJudge, examples: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, hard, y): the features, whether a hard rule or the coverage floor rejects it, the labels."""
    rows, hard, labels = [], [], []
    for e in examples:
        verdict, found = judge.assess(e.claim, list(e.premise))
        if found is None:  # uncited or wordless: the verdict stands, with its own score
            ok = 1.0 if verdict.supported else 0.0
            by_name = {"coverage": ok, "weighted_coverage": ok, "rule_failed": 1.0 - ok, "passage_weighted": ok,
                       "single_sentence": ok}
            rows.append(tuple(by_name.get(name, 0.0) for name in calibration.FEATURES))
            hard.append(not verdict.supported)
        else:
            rows.append(found.features())
            hard.append(found.failure is not None or found.coverage < judge.coverage - 1e-9)
        labels.append(e.supported)
    return np.array(rows, dtype=float), np.array(hard), np.array(labels, dtype=float)


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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weighting", choices=("datasets", "rows"), default="datasets",
                    help="each dataset the same total weight (default), or each row")
    ap.add_argument("--write", action="store_true", help="store the model fitted on both datasets in the package")
    ap.add_argument("--without", default="", metavar="NAMES",
                    help="an ablation: leave out these features (comma-separated names; not with --write)")
    args = ap.parse_args()
    left_out = [name for name in args.without.split(",") if name]
    unknown = sorted(set(left_out) - set(calibration.FEATURES))
    if unknown:
        ap.error(f"--without: no feature named {', '.join(unknown)} (features: {', '.join(calibration.FEATURES)})")
    if left_out and args.write:
        ap.error("--without is an ablation: it cannot be combined with --write")
    data = Path(args.data)
    judge = LexicalJudge()
    wice_paths = [data / "wice" / "claim_dev.jsonl", data / "wice" / "claim_test.jsonl"]
    dev, test = (metaeval.load(p) for p in wice_paths)
    lfqa = metaeval.load(data / "lfqa_verification")
    titles = wice_articles(wice_paths)
    examples = dev + test + lfqa
    X, hard, y = features(judge, examples)
    kept = [i for i, name in enumerate(calibration.FEATURES) if name not in left_out]
    X = X[:, kept]
    dataset = np.array(["WiCE"] * (len(dev) + len(test)) + ["LFQA"] * len(lfqa))
    group = [f"wice:{titles.get(e.id, e.id)}" for e in dev + test] + [f"lfqa:{e.id.split(':')[1]}" for e in lfqa]
    is_test = np.array([False] * len(dev) + [True] * len(test) + [False] * len(lfqa))
    system = np.array([""] * (len(dev) + len(test)) + [e.category or "" for e in lfqa])
    fold = grouped_folds(dataset, group, args.folds, args.seed)
    wice, lfq = dataset == "WiCE", dataset == "LFQA"
    print(f"features: {', '.join(calibration.FEATURES[i] for i in kept)}"
          + (f" (left out: {', '.join(left_out)})" if left_out else ""))
    print(f"{args.folds}-fold cross-validation grouped by WiCE article ({len({g for g, d in zip(group, dataset) if d == 'WiCE'})})"
          f" and LFQA question ({len({g for g, d in zip(group, dataset) if d == 'LFQA'})}), seed {args.seed};"
          f" threshold: best mean of per-dataset BA on the fitting rows")

    def block(title, fitted_on, weighting, detail=False):
        p, pred, w, t = out_of_sample(X, hard, y, dataset, fold, fitted_on, weighting, args.folds)
        print(f"{title} (full model's threshold {t:.2f}):")
        for name, rows in (("WiCE test", wice & is_test), ("WiCE dev", wice & ~is_test), ("WiCE dev+test", wice), ("LFQA", lfq)):
            how = "cross-validated" if set(dataset[rows]) <= set(fitted_on) else "transfer"
            print(report(f"  {name}, {how}", y[rows], p[rows], pred[rows]))
        if detail:
            for s in sorted(set(system[lfq]), key=list(system).index):
                rows = lfq & (system == s)
                print(report(f"    LFQA {s}", y[rows], p[rows], pred[rows]))
        mean = np.mean([balanced_accuracy(y[dataset == d], pred[dataset == d]) for d in DATASETS])
        print(f"  mean of the two datasets' BA: {mean:.3f}")
        return w, t

    block("fitted on WiCE only (the first calibration's data); LFQA is transfer", ("WiCE",), "rows")
    block("fitted on LFQA only; WiCE is transfer", ("LFQA",), "rows")
    other = "rows" if args.weighting == "datasets" else "datasets"
    block(f"fitted on both, weighting by {other}", DATASETS, other)
    w, t = block(f"fitted on both, weighting by {args.weighting} (the shipped protocol)", DATASETS, args.weighting, detail=True)
    print(f"fitted on all of both: intercept {w[0]:+.3f}, coefficients "
          + ", ".join(f"{calibration.FEATURES[i]} {c:+.3f}" for i, c in zip(kept, w[1:])) + f"; threshold {t:.2f}")
    if args.write:
        target = ROOT / "pytest_sprout" / "judges" / "lexical" / "calibration.py"
        text = target.read_text()
        head = text.split("\nVERSION", 1)[0]
        coefficients = ", ".join(f"{c:.4f}" for c in w[1:])
        version = (f"wice{int(wice.sum())}+lfqa{int(lfq.sum())}-"
                   f"{zlib.crc32(f'{w[0]:.4f} {coefficients} {t:.2f}'.encode()):08x}")
        target.write_text(
            f"{head}\nVERSION = {version!r}\nFEATURES = {calibration.FEATURES!r}\nINTERCEPT = {w[0]:.4f}\n"
            f"COEFFICIENTS = ({coefficients})\nTHRESHOLD = {t:.2f}\n")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
