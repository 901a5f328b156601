"""The result cache under what it cannot simply store: an answer holding a lone surrogate (text
read with ``surrogateescape``), and a cache file another process keeps locked (issue 23, defect
08 and "also found"). The cache keeps what it can, says why it waits, and never ends the run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import pytest_sprout.answers.cache as cache_module
from helpers import make_project
from pytest_sprout.answers.cache import FILE, ResultCache
from pytest_sprout.core.model import Answer, Case, GoldenItem
from pytest_sprout.core.tier import TierResult

CASE = Case("snake", "care", "How much light?", source="suites/care.yaml:3")
SURROGATE = Answer.from_text("Snake plants tolerate low light \udcff [1].", ["Snake plants tolerate low \udcff light."])
SYSTEM = {"name": "lookup", "fingerprint": "fp1"}
RESULT = TierResult(True, {"grounded": [True]}, [{"text": "Snake plants tolerate low light \udcff.", "supported": True}],
                    "", "", {})


class Tier:
    """Stands in for a judge tier: only its name and settings() matter to the cache."""

    name = "groundedness"

    def settings(self) -> dict[str, float]:
        return {"coverage": 0.6}


def test_an_answer_with_a_lone_surrogate_is_keyed_stored_and_read_back_exactly(tmp_path: Path) -> None:
    """Regression: repro 08 (08-surrogate-in-answer-crashes-cache-flush)."""
    cache = ResultCache(tmp_path, "0.1", "r1")
    item = GoldenItem(CASE, SURROGATE)
    key = cache.result_key(Tier(), item, {})
    assert key is not None and key != cache.result_key(Tier(), GoldenItem(CASE, Answer.from_text(
        "Snake plants tolerate low light \udcfe [1].", ["Snake plants tolerate low \udcff light."])), {})
    cache.put_answer(CASE, SYSTEM, SURROGATE)
    cache.put_result(key, RESULT, CASE, "groundedness")
    cache.close()  # the flush: before, sqlite raised UnicodeEncodeError here
    again = ResultCache(tmp_path, "0.1", "r2")
    assert again.get_answer(CASE, SYSTEM) == SURROGATE
    assert again.get_result(key, CASE) == RESULT


CONFTEST = '''
def pytest_sprout_make_system(config):
    def system(question):
        return {"text": "Snake plants tolerate low light \\udcff [1].", "passages": ["Snake plants tolerate low light."]}
    system.name, system.fingerprint = "t", "fp1"
    return system
'''


@pytest.mark.parametrize("how", ["fingerprint", "--sprout-reuse-answers", "verdicts only"])
def test_a_surrogate_answer_is_judged_and_cached_and_every_report_written(pytester: pytest.Pytester, how: str) -> None:
    """Regression: repro 08 (08-surrogate-in-answer-crashes-cache-flush)."""
    conftest = CONFTEST if how == "fingerprint" else CONFTEST.replace(', system.fingerprint = "t", "fp1"', ' = "t"')
    extra = [how] if how.startswith("--") else []
    make_project(pytester, suite="""
        suite: care
        cases:
          - id: snake
            question: How much light does a snake plant need?
            expected_facts: ["low light"]
        """, conftest=conftest)
    for _ in range(2):  # the second run reads the cached answer and verdict back
        result = pytester.runpytest_subprocess("-p", "no:deepeval", "--sprout-report=r.json", "--sprout-html=r.html",
                                               "--junitxml=j.xml", *extra)
        assert result.ret == 0 and "Traceback" not in result.stdout.str() + result.stderr.str()
        result.assert_outcomes(passed=1)
        assert {"r.json", "r.html", "j.xml"} <= {p.name for p in pytester.path.iterdir()}
        row = json.loads((pytester.path / "r.json").read_text())["items"][0]
        assert "error" not in row and row["metrics"]["grounded"] == [True]


def locked(tmp_path: Path) -> tuple[ResultCache, sqlite3.Connection]:
    seed = ResultCache(tmp_path, "0.1", "r0")
    seed.put_answer(CASE, SYSTEM, SURROGATE)
    seed.close()
    other = sqlite3.connect(tmp_path / FILE, isolation_level=None)  # another process, writing
    other.execute("BEGIN IMMEDIATE")
    return ResultCache(tmp_path, "0.1", "r1"), other


def test_a_cache_locked_by_another_process_is_said_and_then_written(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "LOCK_NOTE_SECONDS", 0.2)
    cache, other = locked(tmp_path)
    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        other.execute("ROLLBACK")  # the other process finishes once we have said we wait

    cache.note = note
    fresh = Case("pothos", "care", "How often to water?")
    cache.put_answer(fresh, SYSTEM, SURROGATE)
    cache.flush()
    assert len(notes) == 1 and "is locked by another process" in notes[0] and "waiting up to 60 s" in notes[0]
    assert ResultCache(tmp_path, "0.1", "r2").get_answer(fresh, SYSTEM) == SURROGATE


def test_a_cache_that_stays_locked_is_given_up_with_a_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "LOCK_NOTE_SECONDS", 0.1)
    monkeypatch.setattr(cache_module, "LOCK_WAIT_SECONDS", 0.3)
    cache, other = locked(tmp_path)
    notes: list[str] = []
    cache.note = notes.append
    fresh = Case("pothos", "care", "How often to water?")
    cache.put_answer(fresh, SYSTEM, SURROGATE)
    cache.flush()  # no exception: the run goes on
    assert cache.prune(["snake"]) == 0
    other.execute("ROLLBACK")
    assert "is locked by another process" in notes[0] and "stayed locked" in notes[-1]
    assert "this run's cache entries are not written" in notes[-1]
    assert ResultCache(tmp_path, "0.1", "r2").get_answer(fresh, SYSTEM) is None
