"""Calibrating a judge on the user's labels: fit the decision threshold of its calibrated score by
cross-validation on the labels, and keep the fit only when it clearly beats the shipped one.

Each labelled claim is judged once, into a ``Point``: its label, the judge's score (the lexical
judge's calibrated probability, the NLI judge's p(entailment)), and whether the verdict depends on
the score at all (a failed rule, coverage below the judge's, a claim that cites nothing: never
supported, whatever the threshold). Everything after that is arithmetic on the points.

The decision (``decide``):

1. The shipped judge's balanced accuracy, sensitivity (supported claims it accepts) and
   specificity (unsupported claims it rejects) on all the labels: nothing is fitted for it.
2. The calibrated judge's, cross-validated: stratified ``FOLDS``-fold, repeated ``REPEATS`` times
   with a seeded shuffle; in each fold the threshold that maximises balanced accuracy on the other
   folds (``fit_threshold``: on a tie the shipped threshold when it is among the best, else the
   middle of the best interval nearest to it) judges the held-out fold. Each claim's out-of-fold
   verdict is right in some share of the repeats; the rates average those shares.
3. The gain, calibrated minus shipped, with a paired bootstrap over the claims (resampled within
   each class, ``RESAMPLES`` draws, seeded). The calibration is kept only when the lower bound of
   the gain's ``CONFIDENCE`` (80%) interval, its 10th percentile, is above ``MARGIN`` (0): a gain
   the labels cannot tell from no gain keeps the shipped threshold. Cross-validation scores a threshold fitted on 4/5 of the labels,
   so it understates the final fit's gain: the rule errs towards keeping the shipped judge, which
   is what a user's own labels must never make worse. Fewer than ``MIN_PER_CLASS`` labels of
   either class keep it too.
4. The kept threshold is then fitted on all the labels.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..core.calibration import Calibration
from ..core.stats import Rate, balanced_accuracy, wilson_interval

FOLDS = 5
REPEATS = 10
RESAMPLES = 2000
# The level of the gain's interval whose lower bound must be above MARGIN: 80% two-sided, so the
# calibration is kept when the gain's 10th percentile over the bootstrap is above 0. Chosen among
# 95%, 80% and 60% on the simulated users of bench/bench_calibrate.py (docs/BENCHMARKS.md): 95% kept
# almost no calibration where the shipped threshold is wrong, 60% lost 0.006 on one set.
CONFIDENCE = 0.80
MARGIN = 0.0  # the gain's lower bound must be above this for the calibration to be kept
MIN_PER_CLASS = 5
SEED = 0


@dataclass(frozen=True)
class Point:
    """One labelled claim as judged: ``scored`` is False where the verdict ignores the score
    (it is then ``fixed``); otherwise the claim is supported iff ``eligible`` (no rule failed,
    coverage met) and ``score >= threshold``."""

    label: bool
    score: float
    eligible: bool = True
    scored: bool = True
    fixed: bool = False

    def predict(self, threshold: float) -> bool:
        if not self.scored:
            return self.fixed
        return self.eligible and self.score >= threshold


def predict(points: Sequence[Point], threshold: float) -> list[bool]:
    return [p.predict(threshold) for p in points]


def _ba_counts(sup_right: float, n_sup: int, uns_right: float, n_uns: int) -> float:
    return (sup_right / n_sup + uns_right / n_uns) / 2


def fit_threshold(points: Sequence[Point], default: float) -> float:
    """The threshold that maximises balanced accuracy on ``points``: ``default`` when it is among
    the best, else the middle of the best interval nearest to it. ``default`` when a class is absent."""
    n_sup = sum(1 for p in points if p.label)
    n_uns = len(points) - n_sup
    if not n_sup or not n_uns:
        return default
    varying = sorted((p.score, p.label) for p in points if p.scored and p.eligible)
    fixed = [p for p in points if not (p.scored and p.eligible)]
    sup_right = sum(1 for p in fixed if p.label and p.predict(0.0)) + sum(1 for _, y in varying if y)
    uns_right = sum(1 for p in fixed if not p.label and not p.predict(0.0))
    # Intervals of thresholds with the same verdicts: (lo, hi] between consecutive distinct scores.
    intervals: list[tuple[float, float, float]] = []  # (balanced accuracy, lo, hi)
    lo = 0.0
    i = 0
    while True:
        hi = varying[i][0] if i < len(varying) else 1.0
        if hi > lo or not intervals:
            intervals.append((_ba_counts(sup_right, n_sup, uns_right, n_uns), lo, hi))
        if i >= len(varying):
            break
        score = varying[i][0]
        while i < len(varying) and varying[i][0] == score:
            if varying[i][1]:
                sup_right -= 1
            else:
                uns_right += 1
            i += 1
        lo = score
    best = max(ba for ba, _, _ in intervals)
    tops = [(lo, hi) for ba, lo, hi in intervals if ba >= best - 1e-12]
    for lo, hi in tops:
        if lo < default <= hi or (lo == 0.0 and default <= hi):
            return default
    lo, hi = min(tops, key=lambda t: min(abs(default - t[0]), abs(default - t[1])))
    middle = round((lo + hi) / 2, 6)
    return middle if lo < middle <= hi else hi  # an interval narrower than the rounding: its top is in it


@dataclass
class Measured:
    """A judge's verdicts against the labels: balanced accuracy (MOVER interval), sensitivity and
    specificity (Wilson), from per-claim shares of right verdicts (1 or 0 without cross-validation)."""

    sensitivity: Rate
    specificity: Rate
    balanced_accuracy: tuple[float, float, float] | None
    value: float  # the balanced accuracy from the unrounded shares

    def to_json(self) -> dict[str, Any]:
        ba = self.balanced_accuracy
        return {"balanced_accuracy": None if ba is None else {"value": self.value, "ci_low": ba[1], "ci_high": ba[2]},
                "sensitivity": self.sensitivity.to_json(), "specificity": self.specificity.to_json()}


def measure(labels: Sequence[bool], right: Sequence[float]) -> Measured:
    sup = [r for y, r in zip(labels, right) if y]
    uns = [r for y, r in zip(labels, right) if not y]
    sens = Rate(round(sum(sup)), len(sup))
    spec = Rate(round(sum(uns)), len(uns))
    value = _ba_counts(sum(sup), len(sup), sum(uns), len(uns)) if sup and uns else float("nan")
    return Measured(sens, spec, balanced_accuracy(sens, spec), value)


def folds_of(labels: Sequence[bool], folds: int, rng: random.Random) -> list[int]:
    """A stratified assignment of each claim to a fold: each class shuffled and dealt round."""
    out = [0] * len(labels)
    for cls in (True, False):
        idx = [i for i, y in enumerate(labels) if y is cls]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            out[i] = k % folds
    return out


def cross_validate(points: Sequence[Point], default: float, folds: int = FOLDS, repeats: int = REPEATS,
                   seed: int = SEED) -> list[float]:
    """Per claim, the share of repeats in which the threshold fitted without its fold judged it right."""
    labels = [p.label for p in points]
    right = [0.0] * len(points)
    rng = random.Random(f"sprout-calibrate:{seed}")
    for _ in range(repeats):
        assignment = folds_of(labels, folds, rng)
        for fold in range(folds):
            train = [p for p, f in zip(points, assignment) if f != fold]
            threshold = fit_threshold(train, default)
            for i, (p, f) in enumerate(zip(points, assignment)):
                if f == fold and p.predict(threshold) == p.label:
                    right[i] += 1
    return [r / repeats for r in right]


def bootstrap_gain(labels: Sequence[bool], first: Sequence[float], second: Sequence[float],
                   resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE) -> dict[str, float]:
    """Balanced accuracy from per-claim shares of right verdicts, ``first`` minus ``second``, with
    a paired percentile bootstrap resampling within each class."""
    pos = [a - b for y, a, b in zip(labels, first, second) if y]
    neg = [a - b for y, a, b in zip(labels, first, second) if not y]
    value = (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2
    if all(d == 0 for d in pos) and all(d == 0 for d in neg):
        return {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    rng = random.Random(f"sprout-calibrate-bootstrap:{seed}")
    np_, nn = len(pos), len(neg)
    draws = []
    choices = rng.choices
    for _ in range(resamples):
        draws.append((sum(choices(pos, k=np_)) / np_ + sum(choices(neg, k=nn)) / nn) / 2)
    draws.sort()
    tail = (1 - confidence) / 2
    return {"value": value, "ci_low": draws[int(tail * resamples)],
            "ci_high": draws[min(resamples - 1, int((1 - tail) * resamples))]}


@dataclass
class Decision:
    """What ``decide`` found: the shipped and the calibrated judge measured, the gain, what was
    kept and why, and the threshold kept."""

    n: int
    supported: int
    unsupported: int
    default_threshold: float
    threshold: float
    kept: str  # "calibrated" or "shipped"
    why: str
    shipped: Measured
    calibrated: Measured | None
    gain: dict[str, float] | None
    fitted: float | None  # the threshold fitted on all the labels (kept or not)
    settings: dict[str, Any] = field(default_factory=dict)

    def cv_json(self) -> dict[str, Any]:
        return {"shipped": self.shipped.to_json(),
                "calibrated": None if self.calibrated is None else self.calibrated.to_json(),
                "gain": self.gain, "default_threshold": self.default_threshold, "fitted_threshold": self.fitted,
                **self.settings}


def decide(points: Sequence[Point], default: float, folds: int = FOLDS, repeats: int = REPEATS,
           seed: int = SEED, resamples: int = RESAMPLES, margin: float = MARGIN,
           confidence: float = CONFIDENCE) -> Decision:
    """Fit the threshold by cross-validation and keep it only when its gain is clear (module docs)."""
    labels = [p.label for p in points]
    n_sup = sum(labels)
    n_uns = len(labels) - n_sup
    shipped_right = [1.0 if p.predict(default) == p.label else 0.0 for p in points]
    shipped = measure(labels, shipped_right)
    settings = {"folds": folds, "repeats": repeats, "seed": seed, "resamples": resamples, "margin": margin,
                "confidence": confidence}
    if min(n_sup, n_uns) < MIN_PER_CLASS:
        why = (f"kept the shipped threshold: {n_sup} supported and {n_uns} unsupported labels; calibrating needs "
               f"at least {MIN_PER_CLASS} of each")
        return Decision(len(points), n_sup, n_uns, default, default, "shipped", why, shipped, None, None, None, settings)
    cv_right = cross_validate(points, default, folds, repeats, seed)
    calibrated = measure(labels, cv_right)
    gain = bootstrap_gain(labels, cv_right, shipped_right, resamples, seed, confidence)
    fitted = fit_threshold(points, default)
    level = f"{confidence:.0%}"
    if gain["ci_low"] > margin and fitted != default:
        why = (f"kept the calibrated threshold {fitted:.3f}: the lower bound of the {level} interval of its "
               f"cross-validated gain in balanced accuracy, {gain['ci_low']:+.3f}, is above {margin:g}")
        return Decision(len(points), n_sup, n_uns, default, fitted, "calibrated", why, shipped, calibrated, gain,
                        fitted, settings)
    if fitted == default:
        why = f"kept the shipped threshold: it is the best threshold on these {len(points)} labels"
    else:
        why = (f"kept the shipped threshold: the calibrated one ({fitted:.3f}) gains {gain['value']:+.3f} "
               f"cross-validated, and the lower bound of the {level} interval of the gain, {gain['ci_low']:+.3f}, "
               f"is not above {margin:g}: the labels cannot tell it from no gain")
    return Decision(len(points), n_sup, n_uns, default, default, "shipped", why, shipped, calibrated, gain, fitted,
                    settings)


# --- the points of a judge on labelled examples ---------------------------------------------------


def lexical_points(judge: Any, pairs: Iterable[tuple[str, Sequence[Any]]], labels: Iterable[bool],
                   coverages: Sequence[float] | None = None) -> tuple[list[Point], int]:
    """(points, unscored): the lexical judge's score and eligibility for each (claim, sources),
    judged once with threshold 0 (so that the verdict says whether anything but the score rejects);
    ``coverages``: each pair's coverage threshold (a case's own, or the run's), else the judge's."""
    from ..judges.lexical import LexicalJudge

    pairs = list(pairs)
    each = list(coverages) if coverages is not None else [judge.coverage] * len(pairs)
    base = {coverage: LexicalJudge(coverage=coverage, window=judge.window, threshold=0.0,
                                   disabled=getattr(judge, "disabled", ()), calibration=judge.calibration)
            for coverage in set(each)}
    points: list[Point] = []
    unscored = 0
    for (claim, sources), label, coverage in zip(pairs, labels, each):
        verdict, found = base[coverage].assess(claim, list(sources))
        if verdict.supported is None:
            unscored += 1
            continue
        if found is None:  # cites nothing, no words: the score plays no part
            points.append(Point(label, float(verdict.score), scored=False, fixed=bool(verdict.supported)))
        else:
            points.append(Point(label, float(verdict.score), eligible=bool(verdict.supported)))
    return points, unscored


def nli_points(verdicts: Sequence[Any], labels: Sequence[bool]) -> tuple[list[Point], int]:
    """(points, unscored) of the NLI judge: p(entailment) decides every verdict but a sentence that
    cites nothing or is verbatim in its premise (no model call)."""
    points: list[Point] = []
    unscored = 0
    for verdict, label in zip(verdicts, labels):
        if verdict.supported is None:
            unscored += 1
        elif verdict.rule == "no-citation" or (verdict.supported and verdict.score == 1.0 and verdict.evidence is None):
            points.append(Point(label, float(verdict.score), scored=False, fixed=bool(verdict.supported)))
        else:
            points.append(Point(label, float(verdict.score)))
    return points, unscored


def make_calibration(decision: Decision, judge: str, labels_info: dict[str, Any], rules_version: int | None,
                     shipped: str | None) -> Calibration:
    return Calibration(judge=judge, threshold=decision.threshold, kept=decision.kept, rules_version=rules_version,
                       shipped=shipped, labels={**labels_info, "n": decision.n, "supported": decision.supported,
                                                "unsupported": decision.unsupported},
                       why=decision.why, cv=decision.cv_json())


# --- output ---------------------------------------------------------------------------------------


def _ci(ba: tuple[float, float, float] | None, value: float) -> str:
    if ba is None or math.isnan(value):
        return "-"
    return f"{value:.3f} [{ba[1]:.3f}, {ba[2]:.3f}]"


def rate_text(rate: Rate) -> str:
    if not rate.n:
        return "-"
    low, high = wilson_interval(rate.k, rate.n)
    return f"{rate.k / rate.n:.3f} ({rate.k}/{rate.n}) [{low:.3f}, {high:.3f}]"


def format_decision(decision: Decision) -> list[str]:
    """The shipped and the calibrated judge, cross-validated, and what was kept and why."""
    s = decision.settings
    rows = [("shipped", f"{decision.default_threshold:.3f}", _ci(decision.shipped.balanced_accuracy, decision.shipped.value),
             rate_text(decision.shipped.sensitivity), rate_text(decision.shipped.specificity))]
    if decision.calibrated is not None and decision.fitted is not None:
        c = decision.calibrated
        rows.append(("calibrated", f"{decision.fitted:.3f}", _ci(c.balanced_accuracy, c.value), rate_text(c.sensitivity),
                     rate_text(c.specificity)))
    header = ("judge", "threshold", "balanced acc. [95% CI]", "sensitivity (supported accepted)",
              "specificity (unsupported rejected)")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [f"{decision.n} labels ({decision.supported} supported, {decision.unsupported} unsupported); "
             f"the calibrated judge cross-validated ({s['folds']}-fold, {s['repeats']} repeats, seed {s['seed']}: "
             "each threshold fitted without the labels it judges), the shipped one on all the labels (nothing fitted)"]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    if decision.gain is not None:
        g = decision.gain
        lines.append(f"gain in balanced accuracy, calibrated - shipped: {g['value']:+.3f} "
                     f"[{g['ci_low']:+.3f}, {g['ci_high']:+.3f}] ({s['confidence']:.0%} interval, paired bootstrap, "
                     f"{s['resamples']} resamples)")
    lines.append(decision.why)
    return lines


# --- the run's own labels, with the report of the run they label ----------------------------------


@dataclass
class Labelled:
    """Labelled claims to calibrate on: (claim, sources) pairs as the judge judged them, the labels,
    and where they came from."""

    pairs: list[tuple[str, list[Any]]]
    labels: list[bool]
    info: dict[str, Any]
    unmatched: int = 0
    cases: list[str] = field(default_factory=list)  # each pair's case id (a run's labels), for its thresholds
    coverage: float | None = None  # the run's groundedness coverage threshold, when its report says it


def from_run(labels: Any, items: Iterable[Any], tier: str = "groundedness", dataset: str | None = None) -> Labelled:
    """The labelled sentences of a run (``LabelSet``, the report's item rows): each rebuilt from the
    row's answer (its sentences, citations and passages) as the tier judged it (a fragment joined
    to the sentence before it; an uncited sentence judged in ``retrieved`` mode against every
    retrieved passage), with the label that holds for ``tier`` (``LabelSet.given``)."""
    from ..core.citations import sources
    from ..core.model import Answer, Sentence, passage_list
    from ..core.row import as_rows
    from ..judges.lexical.claims import join_fragments
    from .labels import _norm

    judged: dict[tuple[str, str], tuple[str, list[Any]]] = {}
    for row in as_rows(items):
        if row.tier != tier or row.outcome == "error" or not row.answer or not row.sentences:
            continue
        answer = Answer(sentences=tuple(Sentence(text=str(s.get("text", "")), citations=tuple(s.get("citations") or ()))
                                        for s in row.sentences),
                        passages=passage_list(row.answer.get("passages") or ()), refused=bool(row.answer.get("refused")))
        mode = "retrieved" if any(s.get("judged_against") == "retrieved" for s in row.sentences) else "required"
        pairs: list[tuple[str, list[Any]]] = [(s.text, list(sources(answer, s, mode).passages)) for s in answer.sentences]
        for s, joined in zip(answer.sentences, join_fragments(pairs)[0]):
            judged.setdefault((row.case_id, _norm(s.text) or ""), joined)
    given = labels.given
    tiered = {label.item() for label in given if label.tier == tier}
    out = Labelled([], [], {"source": labels.path, "sha256": labels.sha256, "format": "labels", "dataset": dataset})
    for label in given:
        if label.sentence is None or (label.tier is not None and label.tier != tier):
            continue
        if label.tier is None and label.item() in tiered:
            continue
        pair = judged.get((label.case_id, _norm(label.sentence) or ""))
        if pair is None:
            out.unmatched += 1
            continue
        out.pairs.append(pair)
        out.labels.append(bool(label.supported))
        out.cases.append(label.case_id)
    return out
