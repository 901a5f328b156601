"""The calibration in a run: --sprout-calibration / sprout_calibration / sprout.calibration.json at
the rootdir (used, and said so), a bad file a usage error naming file, line and field, a
calibration fitted on another dataset's labels said so, --sprout-calibrate fitting from the run's
labels, and the line that says what the judge is worth when there are no labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_sprout.core.calibration import Calibration, write

from test_labels import make, people_reject_the_smallness, write_labels


def calibration(threshold: float, dataset: str | None = None) -> Calibration:
    return Calibration(judge="lexical", threshold=threshold, rules_version=18, shipped="x",
                       labels={"source": "mine.jsonl", "sha256": "ab" * 32, "n": 80, "dataset": dataset})


def test_without_labels_the_summary_says_what_the_judge_is_worth_and_how_to_measure_it(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-md=summary.md")
    result.stdout.fnmatch_lines(["groundedness: the judge agrees with people with balanced accuracy 0.831 "
                                 "*real LLM answers*held-out*--sprout-label-sample=50*--sprout-calibrate"])
    # the CI step summary says it too, as one list item, the options in it inert
    summary = Path(pytester.path, "summary.md").read_text(encoding="utf-8")
    assert len([line for line in summary.splitlines() if line.startswith(
        "- groundedness: the judge agrees with people with balanced accuracy 0.831 ")]) == 1


def test_a_run_that_judged_nothing_says_nothing_of_the_judges_worth(pytester: pytest.Pytester) -> None:
    """Only a tier that judged an item is described: a run stopped by a bad case before any item ran
    has rows (not run) but no verdict the line could be read against."""
    pytester.makeconftest("""
        def pytest_sprout_make_system(config):
            return lambda q: ("Water it weekly [1].", ["Water it weekly."])
    """)
    pytester.mkdir("suites")
    good = '  - id: b\n    question: How often should I water it?\n    expected_facts: ["weekly"]\n'
    bad = '  - id: a\n    question: What light?\n    expected_facts: "low light"\n'
    pytester.path.joinpath("suites", "care.yaml").write_text("suite: care\ncases:\n" + bad + good)
    stopped = pytester.runpytest("-p", "no:cacheprovider", "suites", "-m", "groundedness")
    assert "field 'expected_facts'" in stopped.stdout.str()
    assert "the judge agrees with people" not in stopped.stdout.str()
    pytester.path.joinpath("suites", "care.yaml").write_text("suite: care\ncases:\n" + good)
    judged = pytester.runpytest("-p", "no:cacheprovider", "suites", "-m", "groundedness")
    assert "the judge agrees with people" in judged.stdout.str()


def test_a_calibration_at_the_rootdir_is_used_and_the_summary_says_so(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write(calibration(0.9999), Path(pytester.path, "sprout.calibration.json"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-report=r.json", "--sprout-md=summary.md")
    # the sentences the shipped judge accepts score below 0.9999: the calibration's threshold rejects them
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([f"calibration: sprout.calibration.json (id {calibration(0.9999).id}, lexical judge, "
                                 "threshold 1.000; fitted on 80 labels of mine.jsonl) used by groundedness (found at the rootdir)"])
    assert "older dataset" not in result.stdout.str()  # labels from elsewhere name no dataset
    summary = Path(pytester.path, "summary.md").read_text(encoding="utf-8")
    assert f"- calibration: sprout.calibration.json \\(id {calibration(0.9999).id}, lexical judge" in summary


def test_the_option_names_a_calibration_and_one_of_another_dataset_says_so(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write(calibration(0.1, dataset="f" * 64), Path(pytester.path, "mine.json"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-calibration=mine.json")
    result.assert_outcomes(passed=3, failed=1)  # the negation is a rule: no threshold accepts it
    result.stdout.fnmatch_lines(["calibration: mine.json (id *) used by groundedness",
                                 "  its labels are of an older dataset (ffffffffffff; this run's is *): label this run's "
                                 "sentences and fit again with --sprout-labels=... --sprout-calibrate"])


def test_a_bad_calibration_file_is_a_usage_error_naming_file_line_and_field(pytester: pytest.Pytester) -> None:
    make(pytester, cases=2)
    path = Path(pytester.path, "sprout.calibration.json")
    write(calibration(0.5), path)
    path.write_text(path.read_text().replace('"threshold": 0.5', '"threshold": "high"'))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*sprout.calibration.json:*: field 'threshold' must be a number in [[]0, 1[]], got 'high'"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_calibrate_needs_labels(pytester: pytest.Pytester) -> None:
    make(pytester, cases=2)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-calibrate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-calibrate fits the judge to your labels: give them with --sprout-labels=PATH"])


def test_labels_show_the_calibrated_judge_and_calibrate_fits_and_writes_it(pytester: pytest.Pytester) -> None:
    make(pytester, cases=12)
    write_labels(pytester, people_reject_the_smallness())
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl")
    result.stdout.fnmatch_lines(["*grounded_sentence: judge vs labels: sensitivity 1.000 (9/9)*specificity 0.250 (3/12)*",
                                 "  groundedness calibrated on these labels (threshold *, cross-validated): balanced "
                                 "accuracy *--sprout-calibrate would keep the * threshold"])
    assert "the judge agrees with people" not in result.stdout.str()
    assert not Path(pytester.path, "sprout.calibration.json").exists()  # nothing written without --sprout-calibrate
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-labels=labels.jsonl", "--sprout-calibrate")
    result.stdout.fnmatch_lines(["calibrate (--sprout-calibrate): the groundedness judge on 21 labelled sentences of labels.jsonl",
                                 "  21 labels (9 supported, 12 unsupported)*",
                                 "*shipped *0.520*", "*kept the *", "  wrote sprout.calibration.json (id *"])
    written = json.loads(Path(pytester.path, "sprout.calibration.json").read_text())
    assert written["judge"] == "lexical" and written["labels"]["n"] == 21 and written["labels"]["source"] == "labels.jsonl"
    assert len(written["labels"]["dataset"]) == 64
    again = pytester.runpytest("-p", "no:cacheprovider")
    again.stdout.fnmatch_lines([f"calibration: sprout.calibration.json (id {written['id']}*) used by groundedness "
                                "(found at the rootdir)"])
    assert "older dataset" not in again.stdout.str()


def test_the_calibration_joins_the_snapshot_chain(pytester: pytest.Pytester) -> None:
    make(pytester, cases=4)
    write(calibration(0.3), Path(pytester.path, "sprout.calibration.json"))
    first = pytester.runpytest("-p", "no:cacheprovider", "--sprout-update-snapshot")
    first.stdout.fnmatch_lines(["*registered sprout.calibration.json (calibration)*"])
    snapshot = json.loads(Path(pytester.path, "sprout.snapshot.json").read_text(encoding="utf-8"))
    assert snapshot["artifacts"]["sprout.calibration.json"]["kind"] == "calibration"
    assert pytester.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.TESTS_FAILED  # fact-3's negation only
    write(calibration(0.4), Path(pytester.path, "sprout.calibration.json"))
    second = pytester.runpytest("-p", "no:cacheprovider")
    second.stdout.fnmatch_lines(["*sprout.calibration.json (calibration): edited since it was registered*",
                                 "*--sprout-calibration=sprout.calibration.json*"])
