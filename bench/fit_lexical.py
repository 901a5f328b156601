"""Fit the lexical judge's calibrated score: a logistic regression with a handful of coefficients.

    .venv/bin/python bench/fit_lexical.py --data ../shared/benchmarks [--folds 5] [--seed 0] [--write]

Fitting data: WiCE (dev and test claims, gold premises), and only through cross-validation: the
claims are split into ``--folds`` stratified folds; for each fold the model and the decision
threshold (the one that maximises balanced accuracy on the other folds) are fitted on the other
folds and applied to it. The pooled out-of-fold predictions give the cross-validated numbers,
reported for WiCE test, WiCE dev and both. LFQA-Verification is a second check, never fitted on:
it is judged with the model and threshold fitted on all of WiCE, the ones ``--write`` stores in
``pytest_sprout/judges/lexical/calibration.py``.

The features are the judge's own (``Evidence.features``); they do not depend on the coefficients,
so they are computed once. numpy only (no scikit-learn): Newton's method with a small L2 penalty.
"""

from __future__ import annotations

import argparse
import random
import zlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_sprout import metaeval  # noqa: E402
from pytest_sprout.judges.lexical import LexicalJudge, calibration  # noqa: E402

L2 = 1e-2


def features(judge: LexicalJudge, examples: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, hard, y): the features, whether a hard rule or the coverage floor rejects it, the labels."""
    rows, hard, labels = [], [], []
    for e in examples:
        verdict, found = judge.assess(e.claim, list(e.premise))
        if found is None:  # uncited or wordless: the verdict stands, with its own score
            rows.append((1.0 if verdict.supported else 0.0,) * 2 + (0.0, 0.0, 0.0, 0.0 if verdict.supported else 1.0, 0.0))
            hard.append(not verdict.supported)
        else:
            rows.append(found.features())
            hard.append(found.failure is not None or found.coverage < judge.coverage - 1e-9)
        labels.append(e.supported)
    return np.array(rows, dtype=float), np.array(hard), np.array(labels, dtype=float)


def fit(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression by Newton's method; returns [intercept, coefficients...]."""
    A = np.hstack([np.ones((len(X), 1)), X])
    w = np.zeros(A.shape[1])
    penalty = L2 * np.eye(A.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(A @ w)))
        grad = A.T @ (p - y) + penalty @ w
        H = (A * (p * (1 - p))[:, None]).T @ A + penalty
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


def best_threshold(p: np.ndarray, hard: np.ndarray, y: np.ndarray) -> float:
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    scores = [balanced_accuracy(y, (p >= t) & ~hard) for t in grid]
    return float(grid[int(np.argmax(scores))])


def folds_of(y: np.ndarray, k: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    fold = np.zeros(len(y), dtype=int)
    for label in (0, 1):
        idx = [i for i in range(len(y)) if y[i] == label]
        rng.shuffle(idx)
        for n, i in enumerate(idx):
            fold[i] = n % k
    return fold


def report(name: str, y: np.ndarray, p: np.ndarray, pred: np.ndarray) -> str:
    labels = [bool(v) for v in y]
    auc = metaeval.roc_auc(list(p), labels)
    tpr = metaeval.Rate(int((pred & (y == 1)).sum()), int((y == 1).sum()))
    tnr = metaeval.Rate(int((~pred & (y == 0)).sum()), int((y == 0).sum()))
    ba = metaeval.balanced_accuracy(tpr, tnr)
    return (f"{name:<34} n={len(y):>5} ({int(y.sum())}/{int((1 - y).sum())})  BA {ba[0]:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]"
            f"  AUC {auc[0]:.3f} [{auc[1]:.3f}, {auc[2]:.3f}]  recall sup {tpr.k}/{tpr.n}  recall unsup {tnr.k}/{tnr.n}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks"), help="the benchmarks folder")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", action="store_true", help="store the model fitted on all of WiCE in the package")
    args = ap.parse_args()
    data = Path(args.data)
    judge = LexicalJudge()
    dev = metaeval.load(data / "wice" / "claim_dev.jsonl")
    test = metaeval.load(data / "wice" / "claim_test.jsonl")
    lfqa = metaeval.load(data / "lfqa_verification")
    X, hard, y = features(judge, dev + test)
    is_test = np.array([False] * len(dev) + [True] * len(test))
    fold = folds_of(y, args.folds, args.seed)
    p_cv = np.zeros(len(y))
    pred_cv = np.zeros(len(y), dtype=bool)
    for k in range(args.folds):
        train, held = fold != k, fold == k
        w = fit(X[train], y[train])
        t = best_threshold(predict(w, X[train]), hard[train], y[train])
        p_cv[held] = predict(w, X[held])
        pred_cv[held] = (p_cv[held] >= t) & ~hard[held]
    print(f"features: {', '.join(calibration.FEATURES)}; {args.folds}-fold stratified cross-validation, seed {args.seed}")
    print("cross-validated (each claim judged by a model fitted without its fold):")
    print(report("  WiCE test", y[is_test], p_cv[is_test], pred_cv[is_test]))
    print(report("  WiCE dev", y[~is_test], p_cv[~is_test], pred_cv[~is_test]))
    print(report("  WiCE dev+test", y, p_cv, pred_cv))
    w = fit(X, y)
    t = best_threshold(predict(w, X), hard, y)
    XL, hardL, yL = features(judge, lfqa)
    pL = predict(w, XL)
    print(f"fitted on all of WiCE: intercept {w[0]:+.3f}, coefficients "
          + ", ".join(f"{n} {c:+.3f}" for n, c in zip(calibration.FEATURES, w[1:])) + f"; threshold {t:.2f}")
    print("second check, never fitted on:")
    print(report("  LFQA-Verification", yL, pL, (pL >= t) & ~hardL))
    if args.write:
        target = ROOT / "pytest_sprout" / "judges" / "lexical" / "calibration.py"
        text = target.read_text()
        head = text.split("\nVERSION", 1)[0]
        coefficients = ", ".join(f"{c:.4f}" for c in w[1:])
        version = f"wice{len(y)}-{zlib.crc32(f'{w[0]:.4f} {coefficients} {t:.2f}'.encode()):08x}"
        target.write_text(
            f"{head}\nVERSION = {version!r}\nFEATURES = {calibration.FEATURES!r}\nINTERCEPT = {w[0]:.4f}\n"
            f"COEFFICIENTS = ({coefficients})\nTHRESHOLD = {t:.2f}\n")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
