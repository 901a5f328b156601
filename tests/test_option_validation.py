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
    ("nli.recall=0.7", "*unknown tier 'nli' in nli.recall (the NLI tier is called 'alce'*; known tiers: groundedness, alce, ragas, llm"),
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



@pytest.mark.parametrize("args, message", [
    (("--llm-timeout=0",), "--llm-timeout / sprout_llm_timeout must be a positive number of seconds, got 0"),
    (("--llm-timeout=nan",), "--llm-timeout / sprout_llm_timeout must be a finite number, got nan"),
    (("-o", "sprout_llm_timeout=-1"), "--llm-timeout / sprout_llm_timeout must be a positive number of seconds, got -1"),
    (("--llm-concurrency=0",), "--llm-concurrency / sprout_llm_concurrency must be at least 1, got 0"),
    (("--llm-metrics=ragas_faithfulness,ragas_faithfulnes",), "--llm-metrics: unknown metric ragas_faithfulnes; *"),
    (("-o", "sprout_llm_model="), "the llm tier needs a model name at the endpoint: set --llm-model*"),
    (("--sprout-timeout=2s",), "--sprout-timeout / sprout_timeout needs a number, got '2s'"),
    (("--sprout-timeout=0",), "--sprout-timeout / sprout_timeout must be a positive number of seconds (leave it out for no limit), got 0"),
    (("--sprout-concurrency=0",), "--sprout-concurrency / sprout_concurrency must be at least 1, got 0"),
    (("--sprout-retries=-1",), "--sprout-retries / sprout_retries must be 0 or more, got -1"),
    (("--nli-batch-size=0",), "--nli-batch-size / sprout_nli_batch_size must be at least 1, got 0"),
    (("--nli-window=bogus",), "--nli-window / sprout_nli_window must be one of chunk, off, got 'bogus'"),
    (("--nli-dtype=half",), "--nli-dtype / sprout_nli_dtype must be one of auto, float32, bfloat16, float16, got 'half'"),
    (("-o", "sprout_nli_dtype=fp16"), "--nli-dtype / sprout_nli_dtype must be one of auto, float32, bfloat16, float16, got 'fp16'"),
])
def test_every_tier_option_is_checked_before_anything_runs(pytester: pytest.Pytester, args: tuple[str, ...], message: str) -> None:
    """Without -m naming the tier: a bad llm option once skipped every llm item on a green run,
    and a bad --sprout-timeout was a usage error only at the first item (after the reports).
    Regression: repro 02 (02-late-usage-error-clobbers-report).
    Regression: repro 22 (22-invalid-llm-option-skips-tier-exit-0)."""
    make_project(pytester, tiers="[groundedness, llm]")
    model = () if "sprout_llm_model=" in args else ("--llm-model=judge",)
    result = pytester.runpytest("-p", "no:deepeval", "--llm-base-url=http://127.0.0.1:9/v1", *model, *args)
    usage_error(result, f"ERROR: {message}")
    assert "Traceback" not in result.stderr.str()
