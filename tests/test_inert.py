"""Issue 24, point 2: the plugin stays out of runs that select no sprout item. A stale snapshot
and a system factory that cannot be imported stop a sprout run (as they always did), never
``pytest tests/unit``."""

from __future__ import annotations

import pytest

from helpers import make_project

UNIT_TEST = "def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    assert 'a' in 'abc'\n"


def stale_and_broken(pytester: pytest.Pytester) -> None:
    """A repo whose snapshot pins another dataset and whose sprout_system cannot be imported."""
    make_project(pytester, conftest="")
    pytester.makeini("[pytest]\nsprout_system = nosuchrag.eval:make_system\n"
                     "asyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "sprout.snapshot.json").write_text(
        '{"format": 1, "dataset_hash": "0000", "cases": {}, "suites": {}, "artifacts": {}}', encoding="utf-8")
    (pytester.path / "tests" / "unit").mkdir(parents=True)
    (pytester.path / "tests" / "unit" / "test_unit.py").write_text(UNIT_TEST, encoding="utf-8")


def test_unit_tests_run_untouched_by_a_stale_snapshot_and_a_broken_system(pytester: pytest.Pytester) -> None:
    stale_and_broken(pytester)
    result = pytester.runpytest("tests/unit", "-p", "no:deepeval")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str() + result.stderr.str()
    assert "sprout snapshot" not in text and "nosuchrag" not in text and "= sprout" not in text
    assert not (pytester.path / ".pytest_cache" / "d" / "sprout").exists()  # no cache was opened

    (pytester.path / "tests" / "unit" / "test_unit.py").write_text(UNIT_TEST + "\ndef test_three():\n    assert False\n")
    failing = pytester.runpytest("tests/unit", "-p", "no:deepeval")
    failing.assert_outcomes(passed=2, failed=1)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED  # the unit tests' own status


def test_a_sprout_run_still_stops_on_the_stale_snapshot(pytester: pytest.Pytester) -> None:
    stale_and_broken(pytester)
    result = pytester.runpytest("suites", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*= sprout snapshot =*", "sprout.snapshot.json:*"])


def test_a_sprout_run_still_stops_on_a_system_that_cannot_be_imported(pytester: pytest.Pytester) -> None:
    stale_and_broken(pytester)
    (pytester.path / "sprout.snapshot.json").unlink()
    result = pytester.runpytest("suites", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*sprout_system = nosuchrag.eval:make_system: cannot import 'nosuchrag.eval'*"])
    unit = pytester.runpytest("tests/unit", "-p", "no:deepeval")  # the same repo, the unit tests alone
    assert unit.ret == pytest.ExitCode.OK
