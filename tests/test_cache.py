"""The result cache: keys change with everything a result depends on; through pytest, answers and
verdicts are reused, a changed setting is never served stale, and --cache-clear empties it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from helpers import SYSTEM_CONFTEST, make_project
from pytest_sprout.answers.cache import ResultCache
from pytest_sprout.judges import TierResult
from pytest_sprout.core.model import Answer, Case, GoldenItem


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


def cache(tmp_path: Path, version: str = "0.1", run: str = "r1") -> ResultCache:
    return ResultCache(tmp_path, version, run)


def put(c: ResultCache, item: GoldenItem = ITEM, tier: Tier | None = None, result: TierResult = RESULT) -> str | None:
    tier = tier or Tier()
    key = c.result_key(tier, item, {})
    c.put_result(key, result, item.case, tier.name)
    return key


def test_result_round_trip_written_at_flush(tmp_path: Path) -> None:
    c = cache(tmp_path)
    key = c.result_key(Tier(), ITEM, {})
    assert c.get_result(key) is None
    put(c)
    assert c.get_result(key) == RESULT  # this run sees its own pending writes
    assert cache(tmp_path, run="r2").get_result(key) is None  # nothing on disk before the flush
    c.flush()
    assert cache(tmp_path, run="r2").get_result(key) == RESULT


def test_every_input_is_part_of_the_result_key(tmp_path: Path) -> None:
    base = cache(tmp_path).result_key(Tier(), ITEM, {})
    other_answer = GoldenItem(CASE, Answer.from_text("Other [1].", ["Other."]))
    variants = [
        cache(tmp_path).result_key(Tier(coverage=0.7), ITEM, {}),
        cache(tmp_path).result_key(Tier("alce", coverage=0.6), ITEM, {}),
        cache(tmp_path).result_key(Tier(), ITEM, {("groundedness", "facts"): 0.9}),
        cache(tmp_path, version="0.2").result_key(Tier(), ITEM, {}),
        ResultCache(tmp_path, "0.1", "r1", judge_code="other judge code").result_key(Tier(), ITEM, {}),
        cache(tmp_path).result_key(Tier(), other_answer, {}),
        cache(tmp_path).result_key(Tier(), GoldenItem(Case("snake", "care", "Changed?"), ANSWER), {}),
    ]
    assert base is not None and len({base, *variants}) == len(variants) + 1
    # Where the case is written is not part of it: adding a line above a case keeps its entries.
    moved = Case(CASE.id, CASE.suite, CASE.question, expected_facts=CASE.expected_facts, source="suites/care.yaml:9")
    assert cache(tmp_path).result_key(Tier(), GoldenItem(moved, ANSWER), {}) == base


def test_a_cached_message_names_where_the_case_is_now(tmp_path: Path) -> None:
    c = cache(tmp_path)
    failed = TierResult(False, {"grounded": [False]}, [], "snake (suites/care.yaml:3): 1 of 1 sentences unsupported")
    key = put(c, result=failed)
    c.flush()
    moved = Case(CASE.id, CASE.suite, CASE.question, expected_facts=CASE.expected_facts, source="suites/care.yaml:9")
    got = cache(tmp_path, run="r2").get_result(key, moved)
    assert got is not None and got.message == "snake (suites/care.yaml:9): 1 of 1 sentences unsupported"


def test_unscored_results_are_not_cached(tmp_path: Path) -> None:
    c = cache(tmp_path)
    for result in (TierResult(None, {"grounded": [None]}), TierResult(True, {"grounded": [True, None]})):
        key = put(c, tier=Tier(coverage=len(result.metrics["grounded"])), result=result)
        assert c.get_result(key) is None
    assert c.entries() == []


def test_broken_entries_are_misses_and_get_repaired(tmp_path: Path) -> None:
    c = cache(tmp_path)
    key = put(c)
    c.close()
    db = sqlite3.connect(tmp_path / "cache.sqlite")
    db.execute("UPDATE entries SET value = '{torn'")
    db.commit()
    assert cache(tmp_path).get_result(key) is None
    db.execute("""UPDATE entries SET value = '{"passed": true, "unknown_field": 1}'""")
    db.commit()
    assert cache(tmp_path).get_result(key) is None
    again = cache(tmp_path)
    put(again)
    again.close()
    assert cache(tmp_path).get_result(key) == RESULT


def test_a_cache_file_that_is_not_a_database_costs_only_time(tmp_path: Path) -> None:
    (tmp_path / "cache.sqlite").write_text("not a database")
    c = cache(tmp_path)
    key = put(c)
    c.close()
    assert c.get_result(key) is None


def test_what_is_never_cached(tmp_path: Path) -> None:
    c = cache(tmp_path)
    assert c.result_key(Tier(model=object()), ITEM, {}) is None  # settings that are not JSON
    assert c.result_key(Tier(), GoldenItem(CASE, None, "boom"), {}) is None  # the system raised
    off = ResultCache(None, "0.1")  # pytest's cache is off
    put(off)
    assert off.get_result(off.result_key(Tier(), ITEM, {})) is None
    assert c.answer_key(CASE, None) is None  # a system without a name


def test_answer_keys_follow_the_systems_declared_identity(tmp_path: Path) -> None:
    c = cache(tmp_path)
    c.put_answer(CASE, SYSTEM, ANSWER)
    got = c.get_answer(CASE, SYSTEM)
    assert got is not None and got.to_json() == ANSWER.to_json()
    assert c.get_answer(CASE, {"name": "lookup", "version": "2"}) is None
    assert c.get_answer(CASE, {"name": "other", "version": "1"}) is None
    assert c.get_answer(Case("snake", "care", "Another question?"), SYSTEM) is None
    # Facts and tags do not change what the system is asked: the answer still applies.
    assert c.get_answer(Case("snake", "care", CASE.question, expected_facts=("x",), tags=("t",)), SYSTEM) is not None
    # A fingerprint says what the answers depend on; the version then does not matter.
    printed = {"name": "lookup", "version": "1", "fingerprint": "index-7"}
    c.put_answer(CASE, printed, ANSWER)
    assert c.get_answer(CASE, {**printed, "version": "2"}) is not None
    assert c.get_answer(CASE, {**printed, "fingerprint": "index-8"}) is None


def test_editing_one_case_keeps_the_others_entries(tmp_path: Path) -> None:
    cases = [Case(f"c{i}", "care", f"Question {i}?") for i in range(5)]
    before = {case.id: cache(tmp_path).result_key(Tier(), GoldenItem(case, ANSWER), {}) for case in cases}
    cases[2] = Case("c2", "care", "Question 2, edited?")
    after = {case.id: cache(tmp_path).result_key(Tier(), GoldenItem(case, ANSWER), {}) for case in cases}
    assert [cid for cid in before if before[cid] != after[cid]] == ["c2"]


def test_pruning_drops_removed_cases_and_superseded_entries(tmp_path: Path) -> None:
    cases = [Case(f"c{i}", "care", f"Question {i}?") for i in range(3)]
    first = cache(tmp_path, run="r1")
    for case in cases:
        put(first, GoldenItem(case, ANSWER))
        put(first, GoldenItem(case, ANSWER), tier=Tier("alce", model="m"))
        first.put_answer(case, SYSTEM, ANSWER)
    first.close()
    assert len(cache(tmp_path).entries()) == 9
    # The next run: c2 is gone from the suites; c0's groundedness setting changed; c1 is not run.
    second = cache(tmp_path, run="r2")
    put(second, GoldenItem(cases[0], ANSWER), tier=Tier(coverage=0.9))
    assert second.get_result(second.result_key(Tier("alce", model="m"), GoldenItem(cases[0], ANSWER), {})) == RESULT
    second.flush()
    assert second.prune(["c0", "c1"]) == 3 + 1  # c2's three entries, c0's old groundedness result
    left = cache(tmp_path).entries()
    assert sorted((cid, slot) for cid, slot, _ in left) == [
        ("c0", "alce"), ("c0", "answer"), ("c0", "groundedness"), ("c1", "alce"), ("c1", "answer"), ("c1", "groundedness"),
    ]
    coverage = [json.loads(v) for cid, slot, v in left if (cid, slot) == ("c0", "groundedness")]
    assert coverage[0]["passed"] is True and len(coverage) == 1


def test_a_verdict_of_other_judge_code_is_never_served(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's code changes without anyone bumping RULES_VERSION or the plugin version (two
    commits did exactly that): the cached verdicts of the old code are a miss. The package is
    copied, the cache filled, one cached verdict tampered with (a hit would show it), then a judge
    file of the copy is edited: the next run judges afresh. A change outside the judges (a report
    writer) keeps the cache.
    Regression: repro 15 (15-cache-stale-verdict-across-judge-change)."""
    import shutil
    import pytest_sprout

    copy = tmp_path_factory.mktemp("pkg")
    shutil.copytree(Path(pytest_sprout.__file__).parent, copy / "pytest_sprout",
                    ignore=shutil.ignore_patterns("__pycache__"))
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(copy), os.environ.get("PYTHONPATH", "")]))
    make_project(pytester, suite=SUITE, conftest=CONFTEST)

    def tamper() -> None:
        db = sqlite3.connect(pytester.path / ".pytest_cache" / "d" / "sprout" / "cache.sqlite")
        for key, value in db.execute("SELECT key, value FROM entries WHERE case_id = 'lily-cats'").fetchall():
            data = json.loads(value)
            data.update(passed=False, message="this verdict was served from the cache")
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (json.dumps(data), key))
        db.commit()
        db.close()

    def edit(relpath: str) -> None:
        path = copy / "pytest_sprout" / relpath
        path.write_text(path.read_text() + "\n# an edit that bumps no version\n")

    pytester.runpytest_subprocess(*RUN).assert_outcomes(passed=3)
    tamper()
    edit("reports/markdown.py")
    pytester.runpytest_subprocess(*RUN).assert_outcomes(passed=2, failed=1)  # the judges did not change: a hit
    tamper()
    edit("judges/lexical/rules.py")
    fresh = pytester.runpytest_subprocess(*RUN)
    fresh.assert_outcomes(passed=3)  # judged by the new code, not served from the cache
    assert "served from the cache" not in fresh.stdout.str()


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


def stored(pytester: pytest.Pytester) -> list[tuple[str, str, str]]:
    """(case_id, slot, value) of every entry in the project's cache."""
    path = pytester.path / ".pytest_cache" / "d" / "sprout" / "cache.sqlite"
    return sorted(sqlite3.connect(path).execute("SELECT case_id, slot, value FROM entries").fetchall())


def test_verdicts_are_reused_never_stale_and_cleared(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3
    assert [slot for _, slot, _ in stored(pytester)] == ["groundedness"] * 3

    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3  # answers are asked afresh; their verdicts come from the cache
    assert len(stored(pytester)) == 3

    strict = pytester.runpytest(*RUN, "--sprout-threshold=groundedness.coverage=0.9")
    strict.assert_outcomes(passed=2, failed=1)  # a changed setting is judged afresh
    strict.stdout.fnmatch_lines(["*snake-light*1 of 1 sentences unsupported*"])
    assert len(stored(pytester)) == 3  # the verdicts of the old setting were pruned

    # A cached verdict really is what the next run reports: tamper with one and see it come back.
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    db = sqlite3.connect(pytester.path / ".pytest_cache" / "d" / "sprout" / "cache.sqlite")
    for key, value in db.execute("SELECT key, value FROM entries WHERE slot = 'groundedness'").fetchall():
        data = json.loads(value)
        if data["passed"] and "drought" in json.dumps(data["sentences"]):
            data.update(passed=False, message="this verdict was served from the cache")
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (json.dumps(data), key))
    db.commit()
    db.close()
    served = pytester.runpytest(*RUN)
    served.assert_outcomes(passed=2, failed=1)
    served.stdout.fnmatch_lines(["*this verdict was served from the cache*"])

    cleared = pytester.runpytest(*RUN, "--cache-clear")
    cleared.assert_outcomes(passed=3)
    assert calls(pytester) == 3


def test_a_changed_knowledge_base_is_never_served_stale(pytester: pytest.Pytester) -> None:
    """The system's answers change while its declared version does not: the next run sees them."""
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text().replace(
        "Peace lilies contain calcium oxalate crystals and are toxic to cats and dogs.", "Peace lilies like shade."))
    result = pytester.runpytest(*RUN)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*lily-cats*"])
    assert calls(pytester) == 3


def test_answers_are_reused_only_when_asked_or_fingerprinted(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert "answer" not in [slot for _, slot, _ in stored(pytester)]  # not asked to keep them
    pytester.runpytest(*RUN, "--sprout-reuse-answers").assert_outcomes(passed=3)
    assert calls(pytester) == 3  # the first run that may reuse them asks and keeps them
    pytester.runpytest(*RUN, "--sprout-reuse-answers").assert_outcomes(passed=3)
    assert calls(pytester) == 0
    # Edit one case: only that case is asked again.
    suite = pytester.path / "suites" / "care.yaml"
    suite.write_text(suite.read_text().replace("Is a peace lily toxic to cats?", "Is a peace lily toxic to cats, really?"))
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text().replace('"Is a peace lily toxic to cats?"', '"Is a peace lily toxic to cats, really?"'))
    pytester.runpytest(*RUN, "--sprout-reuse-answers").assert_outcomes(passed=3)
    assert calls(pytester) == 1

    # A system that declares a fingerprint has its answers reused while the fingerprint holds.
    conftest.write_text(conftest.read_text().replace('system.version = "1"', 'system.version = "1"\n    system.fingerprint = "kb-1"'))
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 0
    conftest.write_text(conftest.read_text().replace('"kb-1"', '"kb-2"'))
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert calls(pytester) == 3
    pytester.runpytest(*RUN, "--sprout-reuse-answers", "--sprout-record=g.json").assert_outcomes(passed=3)
    assert calls(pytester) == 3  # a recording always asks the system


def test_reused_answers_never_cross_systems(pytester: pytest.Pytester) -> None:
    """Two factories picked with --sprout-system, neither system named: each is asked for its own
    answers (once an unnamed system was named "function", and the second got the first's answers).
    Regression: repro 18 (18-reuse-answers-crosses-systems)."""
    pytester.makepyfile(systems='''
        def good():
            def system(question):
                return ("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])
            return system

        def bad():
            def system(question):
                return ("Snake plants need full sun [1].", ["Snake plants tolerate low light."])
            return system
    ''')
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "care.yaml").write_text("defaults: {tiers: [groundedness]}\ncases:\n  - {id: snake, question: q}\n")
    args = ("-p", "no:deepeval", "--sprout-reuse-answers", "--sprout-report=r.json")
    pytester.runpytest(*args, "--sprout-system=systems:good").assert_outcomes(passed=1)
    pytester.runpytest(*args, "--sprout-system=systems:bad").assert_outcomes(failed=1)  # asked, not good's answer
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["system"]["name"] == "systems.bad.<locals>.system"
    assert report["items"][0]["answer"]["text"] == "Snake plants need full sun [1]."
    pytester.runpytest(*args, "--sprout-system=systems:good").assert_outcomes(passed=1)  # its own answers, kept


def test_entries_of_removed_cases_are_pruned(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert {cid for cid, _, _ in stored(pytester)} == {"snake-light", "lily-cats", "taxes"}
    suite = pytester.path / "suites" / "care.yaml"
    text = suite.read_text()
    suite.write_text(text[: text.index("  - id: taxes")])
    pytester.runpytest(*RUN).assert_outcomes(passed=2)
    assert {cid for cid, _, _ in stored(pytester)} == {"snake-light", "lily-cats"}


def test_a_run_of_one_suite_file_keeps_the_other_suites_entries(pytester: pytest.Pytester) -> None:
    """--sprout-suites=suites/care.yaml loads one file: the cases of the others are not "gone"
    (once they were pruned, and the next full run paid for every answer again).
    Regression: repro 14 (14-sprout-suites-one-file-prunes-other-suites-cache)."""
    make_project(pytester, suite=SUITE, conftest=CONFTEST)
    other = pytester.path / "suites" / "other.yaml"
    other.write_text((pytester.path / "suites" / "care.yaml").read_text().replace("suite: care", "suite: other")
                     .replace("id: snake-light", "id: o-snake").replace("id: lily-cats", "id: o-lily").replace("id: taxes", "id: o-taxes"))
    pytester.runpytest(*RUN).assert_outcomes(passed=6)
    everything = stored(pytester)
    assert len(everything) == 6
    pytester.runpytest(*RUN, "--sprout-suites=suites/care.yaml").assert_outcomes(passed=3)
    assert stored(pytester) == everything
    other.unlink()  # a suite file removed from the folder a run loads: its entries go
    pytester.runpytest(*RUN).assert_outcomes(passed=3)
    assert {cid for cid, _, _ in stored(pytester)} == {"snake-light", "lily-cats", "taxes"}


def test_pruning_only_drops_removed_cases_of_the_suites_loaded(tmp_path: Path) -> None:
    """Regression: repro 14 (14-sprout-suites-one-file-prunes-other-suites-cache)."""
    first = cache(tmp_path, run="r1")
    for cid, source in (("a", "suites/a.yaml:3"), ("b", "suites/b.yaml:3"), ("old", None)):
        put(first, GoldenItem(Case(cid, "care", f"{cid}?", source=source), ANSWER))
    first.close()
    second = cache(tmp_path, run="r2")
    assert second.prune(["a"], lambda suite: suite == "suites/a.yaml") == 0  # b's file was not loaded
    assert second.prune([], lambda suite: suite == "suites/a.yaml") == 1  # a left its loaded file
    assert [cid for cid, _, _ in second.entries()] == ["b", "old"]  # an entry of unknown suite stays


def test_pruning_keeps_cases_whose_suite_did_not_load(tmp_path: Path) -> None:
    first = cache(tmp_path, run="r1")
    for cid in ("a", "b"):
        put(first, GoldenItem(Case(cid, "care", f"{cid}?"), ANSWER))
    first.close()
    second = cache(tmp_path, run="r2")
    assert second.prune(None) == 0  # a suite file did not parse: its cases are unknown, not removed
    assert len(second.entries()) == 2
