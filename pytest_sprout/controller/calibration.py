"""The run's calibration (``--sprout-calibration`` / ini ``sprout_calibration``, else a
``sprout.calibration.json`` at the rootdir): read before anything runs (a bad file is a usage error
naming the file, line and field), said in the summary (which file, fitted on what, and when its
labels are of another dataset or its rules of another judge), fitted from the run's own labels
with ``--sprout-calibrate``, and, without labels, what the judge is worth: its measured agreement
with people and the command that measures it on the user's data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from ..core.calibration import FILE_NAME, Calibration, CalibrationError, load

# The groundedness judge's agreement with people, measured in this repository: docs/BENCHMARKS.md,
# "Judge meta-evaluation", rules_version 19. Real LLM answers: LFQA-Verification, 3,838 answer
# sentences of six LLM systems with three human labels each, balanced accuracy cross-validated by
# question (bench/fit_lexical.py, seed 0). The judge's coefficients were fitted on that set, so the
# held-out figure, SummEdits' 4,681 summaries of 8 domains (bench/heldout_lexical.py), is said beside
# it: on data unlike the fitting sets the judge can be far weaker, which is why the line points at
# the user's own labels.
JUDGE_AGREEMENT: dict[str, dict[str, Any]] = {
    "groundedness": {
        "balanced_accuracy": 0.831, "ci_low": 0.818, "ci_high": 0.842, "n": 3838,
        "data": "real LLM answers (LFQA-Verification, which it was fitted on; cross-validated)",
        "held_out": {"balanced_accuracy": 0.598, "ci_low": 0.584, "ci_high": 0.613, "n": 4681,
                     "data": "SummEdits summaries"},
        "source": "docs/BENCHMARKS.md (bench/fit_lexical.py, bench/heldout_lexical.py)",
    },
}
SAMPLE_SIZE = 50  # what the worth line suggests labelling


@dataclass(frozen=True)
class Found:
    calibration: Calibration
    auto: bool  # found at the rootdir, not named by the option


def resolve(rootpath: Path, option: str | None) -> tuple[Path | None, bool]:
    """(the calibration file to use, whether it was found at the rootdir rather than named)."""
    if option:
        return Path(rootpath, option), False
    auto = Path(rootpath, FILE_NAME)
    return (auto, True) if auto.is_file() else (None, False)


def load_for_run(rootpath: Path, option: str | None, rel: Any) -> Found | None:
    """The run's calibration, or None; a bad file is a usage error naming file, line and field."""
    path, auto = resolve(rootpath, option)
    if path is None:
        return None
    try:
        return Found(load(path, shown=str(rel(path))), auto)
    except CalibrationError as exc:
        raise pytest.UsageError(str(exc)) from None


def lines(found: Found | None, dataset_hash: str, rules_version: int | None) -> list[str]:
    """What the summary says of the calibration in use."""
    if found is None:
        return []
    cal = found.calibration
    tier = "groundedness" if cal.judge == "lexical" else "alce (alce.entailment)"
    out = [f"calibration: {cal.describe()} used by {tier}"
           + (" (found at the rootdir)" if found.auto else "")]
    if cal.dataset is not None and cal.dataset != dataset_hash:
        out.append(f"  its labels are of an older dataset ({cal.dataset[:12]}; this run's is {dataset_hash[:12]}): "
                   "label this run's sentences and fit again with --sprout-labels=... --sprout-calibrate")
    if cal.judge == "lexical" and cal.rules_version is not None and rules_version is not None \
            and cal.rules_version != rules_version:
        out.append(f"  it was fitted with the judge's rules_version {cal.rules_version}; this judge's is "
                   f"{rules_version}: its scores differ, fit it again")
    return out


def worth_lines(tiers: set[str], labelled: bool) -> list[str]:
    """Without labels: the judge's measured agreement with people, and how to measure it here."""
    if labelled:
        return []
    out = []
    for tier in sorted(tiers & set(JUDGE_AGREEMENT)):
        a = JUDGE_AGREEMENT[tier]
        h = a["held_out"]
        out.append(f"{tier}: the judge agrees with people with balanced accuracy {a['balanced_accuracy']:.3f} "
                   f"[{a['ci_low']:.3f}, {a['ci_high']:.3f}] on {a['n']:,} sentences of {a['data']}, "
                   f"{h['balanced_accuracy']:.3f} [{h['ci_low']:.3f}, {h['ci_high']:.3f}] on {h['n']:,} held-out "
                   f"{h['data']}; yours may differ, measure it: --sprout-label-sample={SAMPLE_SIZE}, label the file, "
                   "then --sprout-labels=FILE --sprout-calibrate")
    return out


def coverage_of(controller: Any) -> Callable[[str], float]:
    """A case id -> the coverage threshold the groundedness tier judged it with: the case's own
    (``thresholds:``), else the run's (``--sprout-threshold=groundedness.coverage=...``), else the
    judge's default. A calibration is fitted on the verdicts the run gave, at those thresholds."""
    from ..judges.lexical import LexicalJudge

    run = (controller.judging().get("thresholds") or {}).get("groundedness.coverage", LexicalJudge.DEFAULT_COVERAGE)
    cases = {case.id: case for case in controller.suites().cases}

    def coverage(case_id: str) -> float:
        case = cases.get(case_id)
        return float(case.threshold("groundedness", "coverage", run) if case is not None else run)
    return coverage


def labels_cv_lines(labels: Any, items: Any, dataset_hash: str,
                    coverage: Callable[[str], float] | None = None) -> list[str]:
    """With labels (no --sprout-calibrate): the judge-vs-labels line gains the calibrated judge's
    cross-validated numbers on them, and what --sprout-calibrate would keep (nothing is written)."""
    from ..checks import calibrate as fit
    from ..judges.lexical import LexicalJudge

    found = fit.from_run(labels, items, dataset=dataset_hash)
    if not found.pairs:
        return []
    judge = LexicalJudge()
    points, _ = fit.lexical_points(judge, found.pairs, found.labels, _coverages(found, coverage))
    decision = fit.decide(points, judge.threshold)
    c = decision.calibrated
    if c is None or decision.fitted is None:
        return [f"  groundedness: not calibrated on these labels: {decision.why.removeprefix('kept the shipped threshold: ')}"]
    g = decision.gain or {}
    ba = c.balanced_accuracy or (c.value, c.value, c.value)
    return [f"  groundedness calibrated on these labels (threshold {decision.fitted:.3f}, cross-validated): balanced accuracy "
            f"{c.value:.3f} [{ba[1]:.3f}, {ba[2]:.3f}], sensitivity {fit.rate_text(c.sensitivity)}, specificity "
            f"{fit.rate_text(c.specificity)}; gain {g.get('value', 0):+.3f} [{g.get('ci_low', 0):+.3f}, {g.get('ci_high', 0):+.3f}] "
            f"({fit.CONFIDENCE:.0%} interval) over the shipped judge: --sprout-calibrate would keep the {decision.kept} threshold"]


def _coverages(found: Any, coverage: Callable[[str], float] | None) -> list[float] | None:
    return None if coverage is None else [coverage(case_id) for case_id in found.cases]


def fit_from_run(labels: Any, items: Any, rootpath: Path, option: str | None,
                 dataset_hash: str, coverage: Callable[[str], float] | None = None) -> tuple[list[str], Path | None]:
    """--sprout-calibrate: the groundedness judge's threshold fitted on the run's labels (against
    the shipped judge), printed, and written to the calibration path (the option's, else the
    rootdir's sprout.calibration.json). Returns (summary lines, the file written)."""
    from ..checks import calibrate as fit
    from ..core.calibration import write
    from ..judges.lexical import LexicalJudge

    found = fit.from_run(labels, items, dataset=dataset_hash)
    out = [f"calibrate (--sprout-calibrate): the groundedness judge on {len(found.labels)} labelled sentences of "
           f"{labels.path}" + (f" ({found.unmatched} labels of sentences this run did not judge left out)"
                                if found.unmatched else "")]
    if not found.pairs:
        return out + ["  nothing to fit: no label is of a sentence the groundedness tier judged in this run"], None
    judge = LexicalJudge()  # the shipped judge: a calibration is always measured against it
    points, unscored = fit.lexical_points(judge, found.pairs, found.labels, _coverages(found, coverage))
    decision = fit.decide(points, judge.threshold)
    settings = judge.settings()
    calibration = fit.make_calibration(decision, "lexical", found.info, settings.get("rules_version"),
                                       str(settings.get("calibration")))
    out += ["  " + line for line in fit.format_decision(decision)]
    path = Path(rootpath, option or FILE_NAME)
    try:
        write(calibration, path)
    except OSError as exc:
        return out + [f"  {path}: the calibration could not be written: {exc.strerror or exc}"], None
    out.append(f"  wrote {path.name} (id {calibration.id}, {calibration.kept} threshold {calibration.threshold:.3f}); "
               "the next run uses it")
    return out, path


class RunCalibration:
    """The controller's part: the calibration read at start, the fit at the end, the summary lines."""

    def __init__(self) -> None:
        self.found: Found | None = None
        self.fitted: list[str] = []  # what --sprout-calibrate printed
        self._lines: list[str] | None = None  # said once the run is over: the Markdown and the terminal say the same

    def start(self, settings: Any, rel: Any) -> None:
        if settings.calibrate and settings.labels is None:
            raise pytest.UsageError("--sprout-calibrate fits the judge to your labels: give them with --sprout-labels=PATH")
        self.found = load_for_run(settings.rootpath, settings.calibration_option, rel)

    def fit(self, controller: Any) -> None:
        """--sprout-calibrate: the groundedness judge fitted on this run's labels, and written."""
        settings = controller.settings
        if not settings.calibrate or controller.labels is None or not controller.complete:
            return
        self.fitted, path = fit_from_run(controller.labels, controller.items, settings.rootpath,
                                         settings.calibration_option, controller.dataset_hash(), coverage_of(controller))
        if path is not None:
            controller.written["calibration"] = controller.guard.rel(path)
            controller.guard.inputs_written.add(path)

    def lines(self, controller: Any) -> list[str]:
        """The calibration in use, what --sprout-calibrate fitted, and (no labels) what the judge is worth."""
        if self._lines is None:
            self._lines = self._compose(controller)
        return self._lines

    def _compose(self, controller: Any) -> list[str]:
        from ..judges.lexical.judge import RULES_VERSION

        labels, items = controller.labels, controller.items
        tiers = {str(r.tier) for r in items}
        cv = (labels_cv_lines(labels, items, controller.dataset_hash(), coverage_of(controller))
              if labels is not None and not self.fitted and "groundedness" in tiers else [])
        judged = {str(r.tier) for r in items if r.outcome in ("passed", "failed")}  # not a run that judged nothing
        return lines(self.found, controller.dataset_hash(), RULES_VERSION) + cv + self.fitted + worth_lines(
            judged, labels is not None)
