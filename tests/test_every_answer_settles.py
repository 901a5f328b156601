"""Every case asked of the system ends, whatever the system does: an async system that raises
CancelledError or GeneratorExit, blocks its event loop or ignores cancellation; a setup() or
close() that calls sys.exit; a retry budget of hours; an OS that refuses threads; a name or
fingerprint that raises; a module that raises while it is imported (issue 23, defects 01, 05, 16,
20, 25, 28). The answer source is tested on its own; the plugin with pytester."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
import warnings
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, strategies as st

import pytest_sprout.answers.source as source_module
from pytest_sprout.answers.source import MAX_BACKOFF, AnswerSource, retry_delay
from pytest_sprout.core.model import Case
from helpers import PASSING_SUITE, make_project

CASES = [Case(f"c{i}", "s", f"Question {i}?") for i in range(6)]


def answer_for(question: str) -> tuple[str, list[str]]:
    return f"The answer to {question} is here [1].", [f"The answer to {question} is here."]


# --- 01: async systems --------------------------------------------------------------------------
@pytest.mark.parametrize("raised", [asyncio.CancelledError, GeneratorExit])
def test_an_async_system_raising_a_base_exception_is_that_cases_error(raised: type[BaseException]) -> None:
    """Regression: repro 01 (01-async-system-hangs-run)."""
    async def system(question: str) -> Any:
        if question == CASES[2].question:
            raise raised()
        return answer_for(question)

    # The generous timeout is the source's own: before the fix the case waited for it and was
    # called a timeout; now it settles at once with what the system raised.
    source = AnswerSource(lambda: system, concurrency=2, timeout=30)
    items = source.get_many(CASES)
    source.close()
    assert raised.__name__ in (items[2].error or "") and "timeout" not in (items[2].error or "")
    assert all(item.answer is not None for n, item in enumerate(items) if n != 2)


def test_a_blocked_event_loop_times_out_the_cases_waiting_for_a_slot() -> None:
    """Regression: repro 01 (01-async-system-hangs-run)."""
    release = threading.Event()

    async def system(question: str) -> Any:
        if question != CASES[0].question:
            release.wait(20)  # a sync call inside async def: the whole loop stops
        return answer_for(question)

    source = AnswerSource(lambda: system, concurrency=2, timeout=0.3)
    items = source.get_many(CASES)
    release.set()
    assert [i.answer is None for i in items[2:]] == [True] * 4
    assert all("the system was never asked" in (i.error or "") for i in items[3:])
    source.close()


def test_a_call_that_ignores_its_cancel_gives_its_slot_to_the_next_case() -> None:
    """Regression: repro 01 (01-async-system-hangs-run)."""
    first_running = threading.Event()
    overlapped: list[str] = []
    stop = threading.Event()

    async def system(question: str) -> Any:
        if question == CASES[0].question:
            first_running.set()
            while not stop.is_set():  # swallows every cancel, for a while
                try:
                    await asyncio.sleep(0.01)
                except asyncio.CancelledError:
                    pass
            first_running.clear()
            return answer_for(question)
        if first_running.is_set():
            overlapped.append(question)
        return answer_for(question)

    source = AnswerSource(lambda: system, concurrency=1, timeout=0.3)
    items = source.get_many(CASES[:3])
    stop.set()
    assert "timed out" in (items[0].error or "")
    assert [i.answer is not None for i in items[1:]] == [True, True]
    assert overlapped == [CASES[1].question, CASES[2].question]  # asked while the stuck call ran on
    source.close()


# --- 20: the retry backoff ----------------------------------------------------------------------
@given(attempt=st.integers(0, 10_000), backoff=st.floats(0.001, 100), draw=st.floats(0, 0.999999))
def test_a_retry_waits_at_most_the_cap_and_at_least_half_its_ceiling(attempt: int, backoff: float, draw: float) -> None:
    """Regression: repro 20 (20-retry-backoff-uncapped)."""
    ceiling = min(MAX_BACKOFF, backoff * 2.0 ** min(attempt, 64))
    wait = retry_delay(attempt, backoff, lambda: draw)
    assert ceiling / 2 <= wait <= ceiling <= MAX_BACKOFF


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_twenty_retries_wait_minutes_not_days(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Regression: repro 20 (20-retry-backoff-uncapped)."""
    waits: list[float] = []

    async def no_async_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(source_module, "time", SimpleNamespace(
        sleep=waits.append, perf_counter=time.perf_counter, monotonic=time.monotonic))
    monkeypatch.setattr(source_module.asyncio, "sleep", no_async_sleep)

    def down(question: str) -> Any:
        raise ConnectionError("vector store unreachable")

    async def async_down(question: str) -> Any:
        down(question)

    source = AnswerSource(lambda: down if kind == "sync" else async_down, concurrency=1, retries=20,
                          retry_on=(ConnectionError,))
    item = source.get(CASES[0])
    source.close()
    assert "ConnectionError" in (item.error or "") and len(waits) == 20
    assert max(waits) <= MAX_BACKOFF and sum(waits) < 20 * MAX_BACKOFF  # uncapped: 58 hours
    assert len(set(waits[-8:])) > 1  # jittered: the capped waits are not all the same


# --- 25: setup() and close() that call sys.exit -------------------------------------------------
def test_a_setup_that_calls_sys_exit_is_every_items_error() -> None:
    """Regression: repro 25 (25-setup-close-sys-exit-hang-internalerror)."""
    class System:
        def setup(self) -> None:
            sys.exit("index missing")

        def __call__(self, question: str) -> Any:
            return answer_for(question)

    items = AnswerSource(System, concurrency=2).get_many(CASES[:3])
    assert all("its setup raised SystemExit: index missing" in (i.error or "") for i in items)


SYS_EXIT_CONFTEST = '''
import os, sys
M = os.environ.get("M")

class System:
    name = "s"

    def setup(self):
        if M == "sync_setup":
            sys.exit("index missing")
        return self._setup()

    async def _setup(self):
        if M == "async_setup":
            sys.exit("index missing")

    async def close(self):
        if M == "async_close":
            sys.exit("bye")

    async def __call__(self, question):
        return ANSWERS[question]

def pytest_sprout_make_system(config):
    return System()
'''


@pytest.mark.parametrize("mode, outcome", [("sync_setup", {"failed": 3}), ("async_setup", {"failed": 3}),
                                           ("async_close", {"passed": 3})])
def test_a_setup_or_close_calling_sys_exit_ends_the_run_with_every_report(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, outcome: dict[str, int]) -> None:
    """Regression: repro 25 (25-setup-close-sys-exit-hang-internalerror)."""
    from helpers import SYSTEM_CONFTEST

    answers = SYSTEM_CONFTEST.split("CALLS = []")[0]
    make_project(pytester, suite=PASSING_SUITE, conftest=answers + SYS_EXIT_CONFTEST)
    monkeypatch.setenv("M", mode)
    # A safety net only: before the fix this run never ended.
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-report=r.json",
                                           timeout=300)
    result.assert_outcomes(**outcome)
    assert "INTERNALERROR" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    assert len(report["items"]) == 3 and report["complete"] is True
    if mode.endswith("_setup"):
        result.stdout.fnmatch_lines(["*its setup raised SystemExit: index missing*"])
    else:
        result.stdout.fnmatch_lines(["*closing the system under test raised SystemExit: bye*"])


# --- 05: threads --------------------------------------------------------------------------------
def test_threads_start_as_needed_never_more_than_the_cases() -> None:
    """Regression: repro 05 (05-concurrency-threads-internalerror)."""
    before = {t.ident for t in threading.enumerate()}
    source = AnswerSource(lambda: (lambda q: answer_for(q)), concurrency=2000, timeout=30)
    items = source.get_many(CASES)
    started = [t for t in threading.enumerate() if t.name == "sprout-answers" and t.ident not in before]
    source.close()
    assert all(i.answer is not None for i in items) and 1 <= len(started) <= len(CASES)


def refuse_threads_after(monkeypatch: pytest.MonkeyPatch, allowed: int) -> None:
    real_start = threading.Thread.start
    count = [0]

    def start(self: threading.Thread) -> None:
        if self.name == "sprout-answers":
            count[0] += 1
            if count[0] > allowed:
                raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)


def test_a_refused_thread_lowers_the_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 05 (05-concurrency-threads-internalerror)."""
    refuse_threads_after(monkeypatch, 2)
    source = AnswerSource(lambda: (lambda q: answer_for(q)), concurrency=8, timeout=30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items = source.get_many(CASES)
    source.close()
    assert all(i.answer is not None for i in items)
    assert source.concurrency == 2
    assert any("--sprout-concurrency=8 lowered to 2" in str(w.message) for w in caught)


def test_no_thread_at_all_is_each_cases_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: repro 05 (05-concurrency-threads-internalerror)."""
    refuse_threads_after(monkeypatch, 0)
    source = AnswerSource(lambda: (lambda q: answer_for(q)), concurrency=4, timeout=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        items = source.get_many(CASES[:3])
    source.close()
    assert all("the OS refused a thread (can't start new thread)" in (i.error or "") for i in items)


def test_a_refused_thread_is_no_internalerror(pytester: pytest.Pytester) -> None:
    """Regression: repro 05 (05-concurrency-threads-internalerror)."""
    make_project(pytester, suite=PASSING_SUITE)
    pytester.makeconftest(pytester.path.joinpath("conftest.py").read_text() + '''
import threading
_start = threading.Thread.start
def _refusing(self):
    if self.name == "sprout-answers":
        raise RuntimeError("can't start new thread")
    _start(self)
threading.Thread.start = _refusing
''')
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-concurrency=64",
                                           "--sprout-timeout=30", "--sprout-report=r.json")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*the OS refused a thread*lower --sprout-concurrency*"])
    assert len(json.loads((pytester.path / "r.json").read_text())["items"]) == 3


# --- 16: a name or fingerprint that raises ------------------------------------------------------
RAISING_CONFTEST = '''
import os
ANS = ("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])

class System:
    version = "1"

    def __call__(self, question):
        return ANS

    @property
    def name(self):
        if os.environ.get("M") == "name":
            raise RuntimeError("name lookup failed")
        return "s"

    def fingerprint(self):
        if os.environ.get("M") == "fp":
            raise RuntimeError("index unreachable")
        return "fp"

def pytest_sprout_make_system(config):
    return System()
'''


@pytest.mark.parametrize("mode, warning", [("fp", "the system's fingerprint raised RuntimeError: index unreachable"),
                                           ("name", "the system's name raised RuntimeError: name lookup failed")])
def test_a_name_or_fingerprint_that_raises_is_a_warning_and_the_report_is_written(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, warning: str) -> None:
    """Regression: repro 16 (16-system-fingerprint-or-name-raises-internalerror)."""
    make_project(pytester, suite="""
        suite: care
        cases:
          - id: snake
            question: How much light does a snake plant need?
            expected_facts: ["low light"]
        """, conftest=RAISING_CONFTEST)
    monkeypatch.setenv("M", mode)
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "--sprout-concurrency=4", "--sprout-report=r.json")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == 0 and "INTERNALERROR" not in output and "Traceback" not in output
    assert warning in output
    report = json.loads((pytester.path / "r.json").read_text())
    assert len(report["items"]) == 1 and report["system"]["name"] == ("conftest.System" if mode == "name" else "s")


# --- 28: a module that raises while it is imported ----------------------------------------------
def test_a_retry_on_module_that_raises_at_import_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """Regression: repro 28 (28-retry-on-module-raises-internalerror)."""
    make_project(pytester, suite=PASSING_SUITE)
    pytester.makepyfile(myclient='raise RuntimeError("MYRAG_URL is not set")\n')
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider",
                                           "--sprout-retry-on=myclient.TransientError")
    assert result.ret == 4 and "INTERNALERROR" not in result.stderr.str() + result.stdout.str()
    result.stderr.fnmatch_lines(["ERROR: sprout_retry_on: 'myclient.TransientError': importing 'myclient' raised "
                                 "RuntimeError: MYRAG_URL is not set"])


def test_a_system_module_that_calls_sys_exit_at_import_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """Regression: repro 28 (28-retry-on-module-raises-internalerror)."""
    make_project(pytester, suite=PASSING_SUITE, conftest="")
    pytester.makepyfile(myrag_cli='import sys\nsys.exit("myrag: config.toml not found")\n')
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider",
                                           "--sprout-system=myrag_cli:make_system")
    assert result.ret == 4 and "INTERNALERROR" not in result.stderr.str() + result.stdout.str()
    result.stderr.fnmatch_lines(["ERROR: sprout_system = myrag_cli:make_system: cannot import 'myrag_cli'*"
                                 "SystemExit: myrag: config.toml not found"])
