"""The result cache: keys change with everything a result depends on; through pytest, answers and
verdicts are reused, a changed setting is never served stale, and --cache-clear empties it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import SYSTEM_CONFTEST, make_project
from pytest_sprout.cache import ResultCache
from pytest_sprout.judges import TierResult
from pytest_sprout.model import Answer, Case, GoldenItem


class Tier:
    """Stands in for a judge tier: only its name and settings() matter to the cache."""

    def __init__(self, name: str = "groundedness", **settings: Any) -> None:
        self.name = name
        self._settings = settings or {"coverage": 0.6}

    def settings(self) -> dict[str, Any]:
        return self._settings


CASE = Case("snake", "care", "How much light?", expected_facts=("low light",), source="suites/care.yaml:3")
ANSWER = Answer.from_text("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])
ITEM = GoldenItem(CASE, ANSWER)
SYSTEM = {"name": "lookup", "version": "1"}
RESULT = TierResult(True, {"grounded": [True], "score": [0.9]}, [{"text": "x", "supported": True}], "", "", {"k": 1})


def cache(tmp_path: Path, dataset: str = "d1", version: str = "0.1") -> ResultCache:
    return ResultCache(tmp_path, dataset, version)


def test_result_round_trip(tmp_path: Path) -> None:
    c = cache(tmp_path)
    key = c.result_key(Tier(), ITEM, SYSTEM, {})
    assert c.get_result(key) is None
    c.put_result(key, RESULT)
    assert cache(tmp_path).get_result(key) == RESULT


def test_every_input_is_part_of_the_result_key(tmp_path: Path) -> None:
    base = cache(tmp_path).result_key(Tier(), ITEM, SYSTEM, {})
    variants = [
        cache(tmp_path).result_key(Tier(coverage=0.7), ITEM, SYSTEM, {}),
        cache(tmp_path).result_key(Tier("alce", coverage=0.6), ITEM, SYSTEM, {}),
        cache(tmp_path).result_key(Tier(), ITEM, {"name": "lookup", "version": "2"}, {}),
        cache(tmp_path).result_key(Tier(), ITEM, SYSTEM, {("groundedness", "facts"): 0.9}),
        cache(tmp_path, dataset="d2").result_key(Tier(), ITEM, SYSTEM, {}),
        cache(tmp_path, version="0.2").result_key(Tier(), ITEM, SYSTEM, {}),
        cache(tmp_path).result_key(Tier(), GoldenItem(CASE, Answer.from_text("Other [1].", ["Other."])), SYSTEM, {}),
        cache(tmp_path).result_key(Tier(), GoldenItem(Case("snake", "care", "Changed?"), ANSWER), SYSTEM, {}),
    ]
    assert base is not None and len({base, *variants}) == len(variants) + 1
    assert cache(tmp_path).result_key(Tier(), ITEM, dict(SYSTEM), {}) == base


def test_unscored_results_are_not_cached(tmp_path: Path) -> None:
    c = cache(tmp_path)
    for result in (TierResult(None, {"grounded": [None]}), TierResult(True, {"grounded": [True, None]})):
        key = c.result_key(Tier(coverage=len(result.metrics["grounded"])), ITEM, SYSTEM, {})
        c.put_result(key, result)
        assert c.get_result(key) is None


def test_broken_entries_are_misses_and_get_repaired(tmp_path: Path) -> None:
    c = cache(tmp_path)
    key = c.result_key(Tier(), ITEM, SYSTEM, {})
    c.put_result(key, RESULT)
    (path,) = (tmp_path / "results").rglob("*.json")
    path.write_text("{torn")
    assert c.get_result(key) is None
    path.write_text('{"passed": true, "unknown_field": 1}')
    assert c.get_result(key) is None
    c.put_result(key, RESULT)
    assert c.get_result(key) == RESULT


def test_what_is_never_cached(tmp_path: Path) -> None:
    c = cache(tmp_path)
    assert c.result_key(Tier(model=object()), ITEM, SYSTEM, {}) is None  # settings that are not JSON
    assert c.result_key(Tier(), GoldenItem(CASE, None, "boom"), SYSTEM, {}) is None  # the system raised
    off = ResultCache(None, "d1", "0.1")  # pytest's cache is off
    off.put_result(off.result_key(Tier(), ITEM, SYSTEM, {}), RESULT)
    assert off.get_result(off.result_key(Tier(), ITEM, SYSTEM, {})) is None


def test_answers_are_cached_only_for_a_versioned_system(tmp_path: Path) -> None:
    c = cache(tmp_path)
    for unversioned in (None, {"name": "lookup", "version": ""}):
        c.put_answer(CASE, unversioned, ANSWER)
        assert c.get_answer(CASE, unversioned) is None
    c.put_answer(CASE, SYSTEM, ANSWER)
    got = c.get_answer(CASE, SYSTEM)
    assert got is not None and got.to_json() == ANSWER.to_json()
    assert c.get_answer(CASE, {"name": "lookup", "version": "2"}) is None


# --- through pytest -----------------------------------------------------------------------------

SUITE = """
suite: care
cases:
  - id: snake-light
    question: How much light does a snake plant need?
  - id: lily-cats
    question: Is a peace lily toxic to cats?
  - id: taxes
    question: How do I file my taxes?
    expect: refuse
"""
# The lookup system with one answer that only partly covers its passage (coverage 0.83), and a
# record of how often it was called in each session.
CONFTEST = SYSTEM_CONFTEST.replace(
    '"Snake plants tolerate low light [1]. They grow faster in bright indirect light [1]."',
    '"Snake plants tolerate low light and drought [1]."',
) + '''
def pytest_sessionfinish(session):
    with open("calls.txt", "a") as handle:
        handle.write(f"{len(CALLS)}\\n")
'''
RUN = ("-m", "groundedness", "-p", "no:deepeval")


def calls(pytester: pytest.Pytester) -> int:
    """How often the system was called in the last session."""
    return int((pytester.path / "calls.txt").read_text().split()[-1])


def test_results_are_reused_never_stale_and_cleared(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3
    results = pytester.path / ".pytest_cache" / "d" / "sprout" / "results"
    assert len(list(results.rglob("*.json"))) == 3

    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 0  # the answers came from the cache (the system declares a version)
    assert len(list(results.rglob("*.json"))) == 3

    strict = pytester.runpytest(*RUN, "--sprout-threshold=groundedness.coverage=0.9")
    strict.assert_outcomes(passed=2, failed=1)  # a changed setting is judged afresh
    strict.stdout.fnmatch_lines(["*snake-light*1 of 1 sentences unsupported*"])
    assert len(list(results.rglob("*.json"))) == 6

    # A cached verdict really is what the next run reports: tamper with one and see it come back.
    for path in results.rglob("*.json"):
        data = json.loads(path.read_text())
        if data["passed"] and "drought" in json.dumps(data["sentences"]):
            data.update(passed=False, message="this verdict was served from the cache")
            path.write_text(json.dumps(data))
    served = pytester.runpytest(*RUN)
    served.assert_outcomes(passed=2, failed=1)
    served.stdout.fnmatch_lines(["*this verdict was served from the cache*"])

    cleared = pytester.runpytest(*RUN, "--cache-clear")
    cleared.assert_outcomes(passed=3)
    assert calls(pytester) == 3


def test_a_recording_or_a_new_system_version_asks_again(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    pytester.runpytest(*RUN, "--sprout-record=g.json").assert_outcomes(passed=3)
    assert calls(pytester) == 3
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text().replace('system.version = "1"', 'system.version = "2"'))
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3
