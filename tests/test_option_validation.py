"""Issue 11, points 9 and 10: options that would be ignored, or fail every item, are usage errors
(exit 4) before anything runs, listing what is valid."""

from __future__ import annotations

import pytest

from helpers import make_project
from pytest_sprout.config.options import COUNTS, check_thresholds, tier_settings

RUN = ("-p", "no:deepeval", "-m", "groundedness")


def usage_error(result: pytest.RunResult, *lines: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(list(lines))
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("value, message", [
    ("groundedness.coverge=0.7", "*unknown setting groundedness.coverge; valid names: groundedness.coverage, groundedness.facts"),
    ("grounded.coverage=0.7", "*unknown tier 'grounded' in grounded.coverage; known tiers: groundedness, alce, ragas, llm"),
    ("groundedness.coverage=7", "*groundedness.coverage=7 is out of range; it must be from 0 to 1"),
    ("groundedness.coverage=nan", "*groundedness.coverage=nan is out of range*"),
    ("alce.max_citations=0", "*alce.max_citations=0 is out of range; it must be from 1 to 1000"),
    ("alce.max_citations=2.5", "*alce.max_citations=2.5 must be a whole number"),
    ("llm.ragas_faithfulnes=0.5", "*unknown setting llm.ragas_faithfulnes; valid names: llm.ragas_faithfulness, *"),
])
def test_bad_threshold_on_the_command_line_is_a_usage_error(pytester: pytest.Pytester, value: str, message: str) -> None:
    make_project(pytester)
    usage_error(pytester.runpytest(*RUN, f"--sprout-threshold={value}"), message)


def test_bad_threshold_in_the_ini_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makeini("[pytest]\nsprout_thresholds =\n    groundedness.coverage=0.7\n    ragas.context_precison=0.5\n")
    usage_error(pytester.runpytest(*RUN), "*unknown setting ragas.context_precison; valid names: ragas.context_precision, *")


def test_every_setting_a_tier_reads_is_accepted() -> None:
    valid = {(tier, name): (low + high) / 2 if (tier, name) not in COUNTS else float(round((low + high) / 2))
             for tier, names in tier_settings().items() for name, (low, high) in names.items()}
    check_thresholds(valid)
    assert ("groundedness", "coverage") in valid and ("alce", "entailment") in valid


def test_a_valid_threshold_is_accepted(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.runpytest(*RUN, "--sprout-threshold=groundedness.coverage=0.99").assert_outcomes(passed=3, failed=1)


def test_explicit_suites_folder_that_is_missing_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    usage_error(pytester.runpytest(*RUN, "--sprout-suites=suite"), "*--sprout-suites / sprout_suites: 'suite' does not exist")
    pytester.makeini("[pytest]\nsprout_suites = cases\n")
    usage_error(pytester.runpytest(*RUN), "*--sprout-suites / sprout_suites: 'cases' does not exist")


def test_explicit_suites_folder_without_suite_files_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    (pytester.path / "empty").mkdir()
    (pytester.path / "empty" / "notes.txt").write_text("x")
    usage_error(pytester.runpytest(*RUN, "--sprout-suites=empty"),
                "*--sprout-suites / sprout_suites: 'empty' holds no suite file (*.yaml, *.yml)")


def test_default_suites_folder_may_be_absent(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_x():\n    pass\n")
    pytester.runpytest("-p", "no:deepeval").assert_outcomes(passed=1)  # a project without suites is fine


def test_update_snapshot_refuses_an_empty_dataset(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite="cases:\n  - id: bad id\n    question: q\n")
    usage_error(pytester.runpytest(*RUN, "--sprout-update-snapshot"),
                "*--sprout-update-snapshot: the suites hold no valid case; refusing to pin an empty dataset")
    assert not (pytester.path / "sprout.snapshot.json").exists()


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan"])
def test_max_unscored_must_be_a_fraction(pytester: pytest.Pytester, value: str) -> None:
    make_project(pytester)
    usage_error(pytester.runpytest(*RUN, f"--sprout-max-unscored={value}"), "*--sprout-max-unscored must be a fraction from 0 to 1*")
