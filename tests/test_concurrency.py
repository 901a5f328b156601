"""Asking the system concurrently, through pytest: the same results, reports, golden sets and
cache at any concurrency; async systems; timeouts and retries; setup/close once per process; the
note of an item that waits; xdist workers that ask only about their own cases."""

from __future__ import annotations

import json
import sqlite3
import textwrap

import pytest

from helpers import make_project

SUITE = "\n".join(["suite: care", "cases:"] + [
    f"  - id: case-{i}\n    question: Question {i}?\n    expected_facts: [\"fact {i % 3}\"]" for i in range(24)
] + ["  - id: broken\n    question: What breaks?", "  - id: refuse\n    question: How do I file my taxes?\n    expect: refuse"])

# A system whose answers take a varying time (so they finish out of order), every fifth of which is
# unsupported and one of which raises; it logs every call with its process id.
SYSTEM = '''
import os, time, zlib

def answer(question):
    if question == "What breaks?":
        raise RuntimeError("retriever index is missing")
    if question == "How do I file my taxes?":
        return "I don't know based on the available documents.", []
    n = int(question.split()[1].rstrip("?"))
    passage = f"Item {n} needs fact {n % 3} and care."
    text = f"Item {n} needs fact {n % 3} [1]." if n % 5 else f"Item {n} needs fact {n % 3} and sunshine daily [1]."
    return text, [passage]

def log(question):
    with open("calls.txt", "a") as handle:
        handle.write(f"{os.getpid()} {question}\\n")
'''

SYNC_CONFTEST = SYSTEM + '''
def pytest_sprout_make_system(config):
    def system(question):
        log(question)
        time.sleep((zlib.crc32(question.encode()) % 7) / 500)
        return answer(question)
    system.name, system.version = "varied", "1"
    return system
'''

ASYNC_CONFTEST = SYSTEM + '''
import asyncio

def pytest_sprout_make_system(config):
    async def system(question):
        log(question)
        await asyncio.sleep((zlib.crc32(question.encode()) % 7) / 500)
        return answer(question)
    system.name, system.version = "varied", "1"
    return system
'''

RUN = ("-m", "groundedness", "-p", "no:deepeval", "-p", "no:randomly")


def project(pytester: pytest.Pytester, conftest: str) -> None:
    make_project(pytester, suite=SUITE, conftest=conftest)


def calls(pytester: pytest.Pytester) -> list[tuple[str, str]]:
    path = pytester.path / "calls.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return [tuple(line.split(" ", 1)) for line in lines]  # type: ignore[misc]


def outputs(pytester: pytest.Pytester, tag: str) -> tuple[dict, dict, list]:
    report = json.loads((pytester.path / f"r{tag}.json").read_text())
    golden = json.loads((pytester.path / f"g{tag}.json").read_text())
    cache = pytester.path / ".pytest_cache" / "d" / "sprout" / "cache.sqlite"
    entries = sorted(sqlite3.connect(cache).execute("SELECT key, case_id, slot, value FROM entries").fetchall())
    return {k: report[k] for k in ("items", "metrics", "system", "dataset_hash")}, golden["answers"], entries


@pytest.mark.parametrize("conftest", [SYNC_CONFTEST, ASYNC_CONFTEST], ids=["sync", "async"])
def test_results_reports_golden_sets_and_cache_are_the_same_at_any_concurrency(
        pytester: pytest.Pytester, conftest: str) -> None:
    project(pytester, conftest)
    seen = {}
    for concurrency in ("1", "16"):
        result = pytester.runpytest(*RUN, f"--sprout-concurrency={concurrency}", "--cache-clear", "--sprout-reuse-answers",
                                    f"--sprout-report=r{concurrency}.json", f"--sprout-record=g{concurrency}.json")
        result.assert_outcomes(passed=20, failed=6)  # 5 unsupported (every fifth adds "sunshine daily"), 1 raised
        result.stdout.fnmatch_lines(["*the system raised while answering 'broken'*", "*retriever index is missing*"])
        assert sorted(q for _, q in calls(pytester)) == sorted(
            [f"Question {i}?" for i in range(24)] + ["What breaks?", "How do I file my taxes?"])
        seen[concurrency] = outputs(pytester, concurrency)
    assert seen["1"] == seen["16"]
    assert len(seen["16"][2]) == 25 + 25  # an answer and a verdict for every case but the broken one


def test_an_async_system_with_timeout_and_retries_from_the_ini(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM + '''
import asyncio

class Flaky(Exception):
    pass

ATTEMPTS = {}

def pytest_sprout_make_system(config):
    async def system(question):
        ATTEMPTS[question] = ATTEMPTS.get(question, 0) + 1
        if question == "Question 3?":
            await asyncio.sleep(30)  # hangs: the timeout ends it
        if question == "Question 4?" and ATTEMPTS[question] < 3:
            raise Flaky("busy, try again")
        if question == "Question 5?":
            raise Flaky("always busy")
        return answer(question)
    return system
'''
    project(pytester, conftest)
    pytester.makeini(textwrap.dedent("""
        [pytest]
        sprout_timeout = 1.5
        sprout_retries = 2
        sprout_retry_on = conftest.Flaky
    """))
    result = pytester.runpytest(*RUN, "--sprout-report=r.json")
    result.assert_outcomes(passed=19, failed=7)
    result.stdout.fnmatch_lines([
        "no answer for 'case-3' within --sprout-timeout=1.5 s*",
        "*Flaky: always busy",
    ])
    rows = {row["case_id"]: row for row in json.loads((pytester.path / "r.json").read_text())["items"]}
    assert len(rows) == 26 and "error" not in rows["case-4"]  # retried twice, then answered
    assert "--sprout-timeout=1.5 s" in rows["case-3"]["error"]  # a row that names the timeout


def test_a_retry_on_that_names_no_exception_is_a_usage_error(pytester: pytest.Pytester) -> None:
    project(pytester, SYNC_CONFTEST)
    result = pytester.runpytest(*RUN, "--sprout-retry-on=nosuchmodule.Error")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*sprout_retry_on: 'nosuchmodule.Error': cannot import 'nosuchmodule'*"])


def test_setup_and_close_run_once_per_process(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM + '''
class System:
    name, version = "with-setup", "1"

    def setup(self):
        log("setup")

    def close(self):
        log("close")

    def __call__(self, question):
        return answer(question)

def pytest_sprout_make_system(config):
    return System()
'''
    project(pytester, conftest)
    pytester.runpytest(*RUN).assert_outcomes(passed=20, failed=6)
    assert [q for _, q in calls(pytester)] == ["setup", "close"]
    pytester.runpytest(*RUN, "-n", "2").assert_outcomes(passed=20, failed=6)
    events = calls(pytester)
    assert sorted(q for _, q in events) == ["close", "close", "setup", "setup"]
    assert len({pid for pid, _ in events}) == 2


def test_xdist_workers_ask_only_about_their_own_cases(pytester: pytest.Pytester) -> None:
    project(pytester, SYNC_CONFTEST)
    pytester.runpytest(*RUN, "-n", "2", "--sprout-concurrency=8", "--sprout-reuse-answers").assert_outcomes(passed=20, failed=6)
    asked = calls(pytester)
    assert len(asked) == 26 and len({q for _, q in asked}) == 26  # each case once, on one worker
    # The workers write the cache, the controller prunes what this run superseded.
    strict = pytester.runpytest(*RUN, "-n", "2", "--sprout-reuse-answers", "--sprout-threshold=groundedness.coverage=0.99")
    outcomes = strict.parseoutcomes()
    assert outcomes["passed"] + outcomes["failed"] == 26
    cache = pytester.path / ".pytest_cache" / "d" / "sprout" / "cache.sqlite"
    slots = [slot for (slot,) in sqlite3.connect(cache).execute("SELECT slot FROM entries")]
    assert slots.count("answer") == 25 and slots.count("groundedness") == 25


def test_a_long_wait_is_noted_once_with_verbose_only(pytester: pytest.Pytester) -> None:
    conftest = SYSTEM + '''
import time
import pytest_sprout.answers.source

_WAIT_NOTE_SECONDS = pytest_sprout.answers.source.WAIT_NOTE_SECONDS
pytest_sprout.answers.source.WAIT_NOTE_SECONDS = 0.2

def pytest_unconfigure(config):  # an in-process run shares the module: leave it as it was
    pytest_sprout.answers.source.WAIT_NOTE_SECONDS = _WAIT_NOTE_SECONDS

def pytest_sprout_make_system(config):
    def system(question):
        if question == "Question 0?":
            time.sleep(1.0)
        return answer(question)
    return system
'''
    project(pytester, conftest)
    verbose = pytester.runpytest(*RUN, "-v")
    verbose.assert_outcomes(passed=20, failed=6)
    verbose.stdout.fnmatch_lines(["sprout: waiting * s for the system's answer to 'case-0' (* answers in flight)"])
    assert verbose.stdout.str().count("sprout: waiting") == 1
    quiet = pytester.runpytest(*RUN, "-q")
    quiet.assert_outcomes(passed=20, failed=6)
    assert "sprout: waiting" not in quiet.stdout.str()
