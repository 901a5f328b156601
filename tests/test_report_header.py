"""pytest's header says which pytest-sprout runs and how it judges: one line with the plugin's
version, the tiers that can run (and those that cannot) and the judging settings in use."""

from __future__ import annotations

import pytest

from helpers import make_project
from pytest_sprout.core.version import __version__


def header(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if line.startswith("sprout: ")]


def test_the_header_names_the_version_the_tiers_and_the_defaults(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("--co")
    (line,) = header(result)
    assert line.startswith(f"sprout: pytest-sprout {__version__}; tiers groundedness")
    assert "(not available: " in line and "alce" in line.split("not available: ")[1]  # no --nli-model
    assert line.endswith("; judging sprout_citations=required, mutate off")


def test_the_header_shows_the_settings_a_run_judges_with(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("--co", "--sprout-citations=retrieved", "--sprout-mutate",
                                "--sprout-threshold=groundedness.coverage=0.7", "--nli-model=some/nli-model")
    (line,) = header(result)
    assert "tiers groundedness, alce" in line
    assert "nli_model=some/nli-model" in line and "sprout_citations=retrieved" in line
    assert "threshold groundedness.coverage=0.7" in line and line.endswith("mutate on")


def test_the_header_never_shows_a_secret(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("--co", "--llm-base-url=https://someone:hunter2@judge.example/v1", "--llm-model=judge-7b",
                                "--llm-api-key=sk-do-not-print")
    (line,) = header(result)
    assert "hunter2" not in result.stdout.str() and "sk-do-not-print" not in result.stdout.str()
    if "llm_model=judge-7b" in line:  # the llm extra is installed: the tier can run and its settings show
        assert "llm_base_url=https://***@judge.example/v1" in line


def test_a_run_that_reaches_no_suite_prints_no_header(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makepyfile(test_unit="def test_one(): pass")
    result = pytester.runpytest("test_unit.py")
    result.assert_outcomes(passed=1)
    assert header(result) == []
