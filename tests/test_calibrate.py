"""Calibration from labels (checks/calibrate.py, core/calibration.py, python -m pytest_sprout.calibrate):
the threshold fit, the rule that keeps the shipped threshold unless the cross-validated gain is
clear, the calibration file (versioned, hashed, every problem named by file, line and field), and
the lexical judge and metaeval reading it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pytest_sprout.checks import calibrate as fit
from pytest_sprout.cli.calibrate import main
from pytest_sprout.cli.metaeval import main as metaeval_main
from pytest_sprout.core.calibration import Calibration, CalibrationError, load, write
from pytest_sprout.judges.lexical import LexicalJudge


def ba(points: list[fit.Point], threshold: float) -> float:
    sup = [p.predict(threshold) for p in points if p.label]
    uns = [not p.predict(threshold) for p in points if not p.label]
    return (sum(sup) / len(sup) + sum(uns) / len(uns)) / 2


def shifted(n: int = 100, seed: int = 1) -> list[fit.Point]:
    """Data the shipped threshold (0.52) is wrong for: unsupported claims score 0.55-0.75,
    supported ones 0.7-0.95 (news summaries copy the document's words)."""
    rng = random.Random(seed)
    return [fit.Point(i % 2 == 0, rng.uniform(0.7, 0.95) if i % 2 == 0 else rng.uniform(0.55, 0.75)) for i in range(n)]


def test_the_fitted_threshold_separates_what_the_default_does_not() -> None:
    points = shifted()
    t = fit.fit_threshold(points, 0.52)
    assert 0.55 < t < 0.95 and ba(points, t) > ba(points, 0.52) + 0.3


def test_the_default_is_kept_when_it_is_among_the_best_thresholds() -> None:
    points = [fit.Point(True, 0.9), fit.Point(True, 0.8), fit.Point(False, 0.2), fit.Point(False, 0.1)]
    assert fit.fit_threshold(points, 0.52) == 0.52


def test_a_best_interval_narrower_than_the_rounding_is_not_rounded_out_of() -> None:
    # Scores 0.0 (unsupported) and 2.2e-16 (supported): only a threshold in (0, 2.2e-16] separates
    # them, and its middle rounded to six places is 0.0, which calls both supported.
    points = [fit.Point(False, 0.0), fit.Point(True, 2.2e-16)]
    t = fit.fit_threshold(points, 0.5)
    assert 0.0 < t <= 2.2e-16 and ba(points, t) == 1.0


def test_points_the_score_does_not_decide_keep_their_verdict() -> None:
    rejected = fit.Point(True, 0.99, eligible=False)  # a rule failed: rejected at any threshold
    fixed = fit.Point(False, 0.0, scored=False, fixed=True)  # a wordless claim found verbatim
    assert not rejected.predict(0.0) and fixed.predict(1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0, 1), st.booleans()), min_size=4, max_size=60),
       st.floats(0, 1))
def test_the_fitted_threshold_is_never_worse_on_the_points_it_was_fitted_on(
        raw: list[tuple[bool, float, bool]], default: float) -> None:
    points = [fit.Point(y, s, eligible=e) for y, s, e in raw]
    if all(p.label for p in points) or not any(p.label for p in points):
        assert fit.fit_threshold(points, default) == default
        return
    t = fit.fit_threshold(points, default)
    assert 0.0 <= t <= 1.0 and ba(points, t) >= ba(points, default) - 1e-12


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0, 1)), min_size=10, max_size=60), st.floats(0.05, 0.95),
       st.floats(-0.05, 0.2))
def test_a_calibration_is_never_kept_when_its_gain_is_not_clear(
        raw: list[tuple[bool, float]], default: float, margin: float) -> None:
    points = [fit.Point(y, s) for y, s in raw]
    decision = fit.decide(points, default, repeats=2, resamples=200, margin=margin)
    if decision.kept == "calibrated":
        assert decision.gain is not None and decision.gain["ci_low"] > margin
        assert decision.threshold == decision.fitted != default
    else:
        assert decision.threshold == default
        assert decision.gain is None or decision.gain["ci_low"] <= margin or decision.fitted == default


def test_labels_the_shipped_threshold_is_wrong_for_are_calibrated() -> None:
    decision = fit.decide(shifted(), 0.52)
    assert decision.kept == "calibrated" and 0.6 < decision.threshold < 0.8
    assert decision.calibrated is not None and decision.calibrated.value > decision.shipped.value + 0.3
    assert decision.gain is not None and decision.gain["ci_low"] > 0
    assert "lower bound" in decision.why and "above 0" in decision.why


def test_labels_that_say_nothing_keep_the_shipped_threshold() -> None:
    rng = random.Random(3)
    points = [fit.Point(rng.random() < 0.5, rng.random()) for _ in range(100)]  # the score ignores the label
    decision = fit.decide(points, 0.52)
    assert decision.kept == "shipped" and decision.threshold == 0.52
    assert "cannot tell it from no gain" in decision.why or "best threshold" in decision.why


def test_too_few_labels_of_a_class_keep_the_shipped_threshold() -> None:
    points = [fit.Point(True, 0.9)] * 30 + [fit.Point(False, 0.6)] * 4
    decision = fit.decide(points, 0.52)
    assert decision.kept == "shipped" and decision.calibrated is None and "at least 5 of each" in decision.why


# --- the calibration file -------------------------------------------------------------------------


def calibration(threshold: float = 0.7) -> Calibration:
    return Calibration(judge="lexical", threshold=threshold, rules_version=18, shipped="x",
                       labels={"source": "labels.jsonl", "sha256": "ab" * 32, "n": 100, "dataset": "d" * 64})


def test_a_calibration_file_round_trips_with_its_id(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    write(calibration(), path)
    read = load(path)
    assert read == calibration() and read.id == calibration().id and len(read.id) == 16
    assert calibration(0.71).id != read.id
    data = json.loads(path.read_text())
    assert data["format"] == "sprout-calibration" and data["version"] == 1 and data["judge"] == "lexical"
    assert data["rules_version"] == 18 and data["labels"]["n"] == 100


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(threshold=1.5), r"c\.json:\d+: field 'threshold' must be a number in \[0, 1\], got 1.5"),
    (lambda d: d.update(threshold=0.9), r"c\.json:\d+: field 'id' is '[0-9a-f]+' but the file's content hashes to"),
    (lambda d: d.update(judge="minicheck"), r"c\.json:\d+: field 'judge' must be one of lexical, nli"),
    (lambda d: d.pop("labels"), r"c\.json:1: field 'labels' is missing"),
    (lambda d: d["labels"].update(n="many"), r"c\.json:\d+: field 'n' \(in 'labels'\) must be the number"),
    (lambda d: d.update(version=7), r"c\.json:\d+: field 'version' must be 1"),
])
def test_a_bad_calibration_file_names_the_file_line_and_field(tmp_path: Path, edit, message: str) -> None:
    path = tmp_path / "c.json"
    write(calibration(), path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(CalibrationError, match=message):
        load(path)


def test_a_calibration_file_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{\n  "format": "sprout-calibration",\n  "version": 1,\n}\n')
    with pytest.raises(CalibrationError, match=r"c\.json:4: not valid JSON"):
        load(path)


def test_the_line_named_is_the_fields_own(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    write(calibration(), path)
    text = path.read_text().replace('"threshold": 0.7', '"threshold": -1')
    path.write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"threshold"' in row)
    with pytest.raises(CalibrationError, match=rf"c\.json:{line}: field 'threshold'"):
        load(path)


def test_the_lexical_judge_takes_a_calibration_and_says_so_in_its_settings(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    write(calibration(0.95), path)
    judge = LexicalJudge(calibration=path)
    assert judge.threshold == 0.95 and judge.settings()["user_calibration"] == calibration(0.95).id
    assert "user_calibration" not in LexicalJudge().settings()
    claim, passage = "Snake plants tolerate low light.", ["Snake plants tolerate low light and need little water."]
    shipped, calibrated = LexicalJudge().judge(claim, passage), judge.judge(claim, passage)
    assert shipped.score == calibrated.score
    assert calibrated.supported is (calibrated.score >= 0.95)
    assert LexicalJudge(calibration=path, threshold=0.1).threshold == 0.1  # an explicit threshold wins


def test_a_calibration_of_another_judge_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    write(Calibration(judge="nli", threshold=0.3, labels={"n": 10}), path)
    with pytest.raises(CalibrationError, match=r"field 'judge' is 'nli': this calibration is for the nli judge"):
        LexicalJudge(calibration=path)


# --- the command line -----------------------------------------------------------------------------


def labelled_jsonl(path: Path, n: int = 60) -> Path:
    """Claims people call supported only when the passage states them word for word: a judge
    that accepts close paraphrases and extra words is too lenient for these labels."""
    rows = []
    for i in range(n):
        premise = f"The plant number {i} grows in low light and needs water every week."
        if i % 2 == 0:
            claim, label = f"The plant number {i} grows in low light.", "supported"
        else:
            claim, label = f"The plant number {i} grows in low light and bright sun near windows.", "not_supported"
        rows.append({"id": str(i), "premise": premise, "claim": claim, "label": label})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_command_prints_both_judges_and_what_it_kept(tmp_path: Path) -> None:
    data = labelled_jsonl(tmp_path / "l.jsonl")
    out: list[str] = []
    assert main(["--judge", "lexical", "--data", str(data), "--out", str(tmp_path / "c.json"), "--repeats", "3"],
                out=out.append) == 0
    text = "\n".join(out)
    assert "rules_version" in text and "60 labels (30 supported, 30 unsupported)" in text
    assert "shipped" in text and "calibrated" in text and "balanced acc." in text
    assert "sensitivity (supported accepted)" in text and "specificity (unsupported rejected)" in text
    assert "gain in balanced accuracy" in text and "kept the" in text
    written = load(tmp_path / "c.json", judge="lexical")
    assert written.labels["n"] == 60 and written.labels["source"] == "l.jsonl" and written.why in text
    assert f"id {written.id}" in text


def test_the_command_names_the_file_line_and_field_of_bad_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "l.jsonl"
    data.write_text('{"premise": "p", "claim": "c", "label": "supported"}\n{"premise": "p", "claim": "c"}\n')
    assert main(["--judge", "lexical", "--data", str(data)]) == 2
    assert f"{data}:2: field 'label' is missing" in capsys.readouterr().err


def test_a_labels_file_needs_the_report_of_its_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "labels.jsonl"
    data.write_text('{"case_id": "c1", "sentence": "x", "supported": true}\n')
    assert main(["--judge", "lexical", "--data", str(data)]) == 2
    assert "give --report" in capsys.readouterr().err


def test_metaeval_judges_with_a_calibration(tmp_path: Path) -> None:
    data = labelled_jsonl(tmp_path / "l.jsonl", n=10)
    path = tmp_path / "c.json"
    write(calibration(0.999), path)
    out: list[str] = []
    assert metaeval_main(["--judge", "lexical", "--data", str(data), "--calibration", str(path)], out=out.append) == 0
    assert '"threshold": 0.999' in out[0] and f'"user_calibration": "{calibration(0.999).id}"' in out[0]


def test_the_nli_judge_is_calibrated_and_its_threshold_is_alces(yes_model: Path, tmp_path: Path) -> None:
    from pytest_sprout.core.tier import TierSettings
    from pytest_sprout.judges.alce import entailment_threshold

    data = labelled_jsonl(tmp_path / "l.jsonl", n=20)
    out: list[str] = []
    assert main(["--judge", "nli", "--nli-model", str(yes_model), "--nli-device", "cpu", "--data", str(data),
                 "--out", str(tmp_path / "nli.json"), "--repeats", "2"], out=out.append) == 0
    text = "\n".join(out)
    assert "nli judge" in text and "p(entailment) threshold 0.500" in text and "20 labels (10 supported, 10 unsupported)" in text
    written = load(tmp_path / "nli.json", judge="nli")
    assert written.judge == "nli" and written.labels["n"] == 20
    assert entailment_threshold(TierSettings(options={"sprout_calibration": str(tmp_path / "nli.json")})) == written.threshold
    lexical = tmp_path / "lexical.json"
    write(calibration(0.7), lexical)
    assert entailment_threshold(TierSettings(options={"sprout_calibration": str(lexical)})) == 0.5  # the groundedness tier's
    assert entailment_threshold(TierSettings()) == 0.5


def test_a_model_that_fails_at_first_use_is_one_error_line_not_a_traceback(
        yes_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Weights that do not load surface when the judge first runs: calibrate says so in one line
    and exits 2, as metaeval does, instead of ending in a traceback."""
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(yes_model, broken)
    weights = [p for p in broken.iterdir() if p.suffix in (".safetensors", ".bin")]
    assert weights
    for path in weights:
        path.write_bytes(b"not a weights file")
    data = labelled_jsonl(tmp_path / "l.jsonl", n=20)
    code = main(["--judge", "nli", "--nli-model", str(broken), "--nli-device", "cpu", "--data", str(data),
                 "--repeats", "2"], out=lambda line: None)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("calibrate: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_each_labelled_sentence_is_scored_at_the_coverage_it_was_judged_with() -> None:
    # Three of the claim's five content words are in the passage: coverage 0.60. At the default 0.5
    # the score decides it (eligible); at a case's coverage of 0.9 it is rejected whatever the
    # threshold, as the run rejected it, and the fit must see it so.
    from pytest_sprout.judges.lexical import LexicalJudge

    pair = ("Ferns need humid shade in winter.", ["Ferns need humid air."])
    judge = LexicalJudge()
    (plain,), _ = fit.lexical_points(judge, [pair], [True])
    (strict,), _ = fit.lexical_points(judge, [pair], [True], coverages=[0.9])
    assert plain.eligible and not strict.eligible


def test_the_runs_and_each_cases_coverage_reach_the_fit() -> None:
    from types import SimpleNamespace

    from pytest_sprout.controller.calibration import coverage_of
    from pytest_sprout.core.model import Case

    own = Case("strict", "s", "q?", thresholds=((("groundedness", "coverage"), 0.9),))
    cases = {"strict": own, "plain": Case("plain", "s", "q?")}
    # Stands in for the run's controller: only the two things coverage_of reads.
    controller = SimpleNamespace(judging=lambda: {"thresholds": {"groundedness.coverage": 0.7}},
                                 suites=lambda: SimpleNamespace(cases=list(cases.values())))
    coverage = coverage_of(controller)
    assert (coverage("strict"), coverage("plain"), coverage("gone")) == (0.9, 0.7, 0.7)
    controller.judging = lambda: {"thresholds": {}}
    assert coverage_of(controller)("plain") == 0.5


def test_the_command_scores_a_runs_labels_at_the_coverage_its_report_names() -> None:
    from pytest_sprout.cli.calibrate import build_parser, points_of

    pair = ("Ferns need humid shade in winter.", ["Ferns need humid air."])  # coverage 0.60
    data = fit.Labelled([pair], [True], {}, cases=["c1"], coverage=0.9)
    args = build_parser().parse_args(["--judge", "lexical", "--data", "labels.jsonl"])
    assert not points_of(args, data)[1][0].eligible  # the report's 0.9, not the default 0.5
    args = build_parser().parse_args(["--judge", "lexical", "--data", "labels.jsonl", "--coverage", "0.5"])
    assert points_of(args, data)[1][0].eligible  # an explicit --coverage wins
