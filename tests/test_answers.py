"""The answer source on its own (no pytest run): concurrency, async systems, timeouts, retries,
setup/close, and answers that do not depend on the concurrency."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.answers.source import AnswerSource, retry_exceptions
from pytest_sprout.core.model import Case

CASES = [Case(f"c{i}", "s", f"Question {i}?") for i in range(40)]


def answer_for(question: str) -> tuple[str, list[str]]:
    return f"The answer to {question} is here [1].", [f"The answer to {question} is here."]


class Peak:
    """Counts the calls in flight at once, and lets the first `hold` calls wait for each other so
    that overlap is proven by the calls themselves, not by a clock."""

    def __init__(self, hold: int) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.barrier = threading.Barrier(hold, timeout=30)
        self.threads: set[str] = set()

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.threads.add(threading.current_thread().name)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def texts(items: list[Any]) -> list[Any]:
    return [(i.case.id, i.answer.to_json() if i.answer else None, i.error) for i in items]


def test_a_sync_system_is_asked_concurrency_at_a_time() -> None:
    peak = Peak(hold=8)

    def system(question: str) -> Any:
        peak.enter()
        try:
            if int(question.split()[1].rstrip("?")) < 8:
                peak.barrier.wait()  # the first 8 calls meet here: they ran at the same time
            return answer_for(question)
        finally:
            peak.leave()

    source = AnswerSource(lambda: system, concurrency=8)
    items = source.get_many(CASES)
    assert peak.peak == 8 and source.calls == len(CASES)
    assert texts(items) == texts(AnswerSource(lambda: answer_for, concurrency=1).get_many(CASES))
    source.close()


def test_concurrency_one_asks_in_the_calling_thread_in_order() -> None:
    asked: list[tuple[str, str]] = []

    def system(question: str) -> Any:
        asked.append((threading.current_thread().name, question))
        return answer_for(question)

    source = AnswerSource(lambda: system, concurrency=1)
    source.prefetch(CASES[:5])  # nothing is asked ahead at concurrency 1
    assert asked == []
    for case in CASES[:5]:
        source.get(case)
    assert asked == [(threading.current_thread().name, c.question) for c in CASES[:5]]


def test_an_async_system_runs_on_one_loop_concurrency_at_a_time() -> None:
    state = {"now": 0, "peak": 0}
    loops: set[int] = set()

    async def system(question: str) -> Any:
        loops.add(id(asyncio.get_running_loop()))
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return answer_for(question)

    source = AnswerSource(lambda: system, concurrency=16)
    items = source.get_many(CASES)
    assert len(loops) == 1 and 1 < state["peak"] <= 16
    assert texts(items) == texts(AnswerSource(lambda: answer_for, concurrency=1).get_many(CASES))
    source.close()


def test_a_callable_returning_an_awaitable_is_awaited() -> None:
    async def answer(question: str) -> Any:
        await asyncio.sleep(0)
        return answer_for(question)

    class Client:
        def __call__(self, question: str) -> Any:  # a plain method that returns a coroutine
            return answer(question)

    for concurrency in (1, 4):
        item = AnswerSource(Client, concurrency=concurrency).get(CASES[0])
        assert item.error is None and item.answer is not None and item.answer.sentences


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_timeout_is_an_error_naming_it_and_the_others_still_answer(kind: str) -> None:
    release = threading.Event()

    def sync_system(question: str) -> Any:
        if question == CASES[1].question:
            release.wait(60)
        return answer_for(question)

    async def async_system(question: str) -> Any:
        if question == CASES[1].question:
            await asyncio.sleep(60)
        return answer_for(question)

    system = sync_system if kind == "sync" else async_system
    source = AnswerSource(lambda: system, concurrency=2, timeout=0.2)
    items = source.get_many(CASES[:6])
    release.set()
    assert items[1].answer is None and "--sprout-timeout=0.2 s" in (items[1].error or "")
    assert all(i.answer is not None for n, i in enumerate(items) if n != 1)
    source.close()


def test_a_timeout_at_concurrency_one_is_kept_too() -> None:
    release = threading.Event()

    def system(question: str) -> Any:
        release.wait(60)
        return answer_for(question)

    item = AnswerSource(lambda: system, concurrency=1, timeout=0.1).get(CASES[0])
    release.set()
    assert item.answer is None and "timed out" in (item.error or "")


class Flaky(Exception):
    pass


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_listed_exceptions_are_retried_with_backoff(kind: str) -> None:
    failures = {c.question: 2 for c in CASES[:4]}

    def attempt(question: str) -> Any:
        if failures[question]:
            failures[question] -= 1
            raise Flaky("try again")
        return answer_for(question)

    async def async_attempt(question: str) -> Any:
        return attempt(question)

    system = attempt if kind == "sync" else async_attempt
    source = AnswerSource(lambda: system, concurrency=4, retries=2, retry_on=(Flaky,), backoff=0.001)
    assert all(i.answer is not None for i in source.get_many(CASES[:4]))
    assert source.calls == 12
    failures.update({c.question: 3 for c in CASES[:4]})
    short = AnswerSource(lambda: system, concurrency=4, retries=2, retry_on=(Flaky,), backoff=0.001)
    items = short.get_many(CASES[:4])
    assert all("Flaky: try again" in (i.error or "") for i in items) and short.calls == 12


@pytest.mark.parametrize("error", [AssertionError("wrong"), TypeError("bad call")])
def test_assertions_and_type_errors_are_never_retried(error: Exception) -> None:
    def system(question: str) -> Any:
        raise error

    source = AnswerSource(lambda: system, concurrency=2, retries=5, retry_on=(Exception,), backoff=0.001)
    item = source.get(CASES[0])
    assert source.calls == 1 and type(error).__name__ in (item.error or "")


def test_unlisted_exceptions_are_not_retried() -> None:
    def system(question: str) -> Any:
        raise ValueError("no index")

    source = AnswerSource(lambda: system, concurrency=2, retries=3, retry_on=(Flaky,), backoff=0.001)
    assert "ValueError: no index" in (source.get(CASES[0]).error or "") and source.calls == 1


def test_setup_and_close_run_once() -> None:
    events: list[str] = []

    class System:
        def setup(self) -> None:
            events.append("setup")

        def close(self) -> None:
            events.append("close")

        def __call__(self, question: str) -> Any:
            return answer_for(question)

    source = AnswerSource(System, concurrency=4)
    source.get_many(CASES[:10])
    source.get(CASES[0])
    assert source.close() is None and source.close() is None
    assert events == ["setup", "close"]


def test_an_async_context_manager_is_entered_and_left_once() -> None:
    events: list[str] = []

    class Client:
        async def __aenter__(self) -> Any:
            events.append("enter")
            return self

        async def __aexit__(self, *exc: Any) -> None:
            events.append("exit")

        async def __call__(self, question: str) -> Any:
            return answer_for(question)

    source = AnswerSource(Client, concurrency=4)
    assert all(i.answer is not None for i in source.get_many(CASES[:10]))
    source.close()
    assert events == ["enter", "exit"]


def test_a_failing_setup_or_factory_is_every_items_error() -> None:
    class Broken:
        def setup(self) -> None:
            raise RuntimeError("index not built")

        def __call__(self, question: str) -> Any:
            return answer_for(question)

    items = AnswerSource(Broken, concurrency=4).get_many(CASES[:3])
    assert all("setup raised RuntimeError: index not built" in (i.error or "") for i in items)

    def no_system() -> Any:
        raise LookupError("no system under test")

    assert AnswerSource(no_system).get(CASES[0]).error == "cannot ask the system about 'c0': no system under test"


def test_a_close_that_raises_is_reported() -> None:
    class System:
        def close(self) -> None:
            raise OSError("socket already closed")

        def __call__(self, question: str) -> Any:
            return answer_for(question)

    source = AnswerSource(System)
    source.get(CASES[0])
    assert source.close() == "closing the system under test raised OSError: socket already closed"


def test_a_long_wait_is_noted_once() -> None:
    release = threading.Event()
    noted: list[str] = []

    def system(question: str) -> Any:
        release.wait(60)
        return answer_for(question)

    def on_wait(case: Case, seconds: float) -> None:
        noted.append(case.id)
        release.set()

    source = AnswerSource(lambda: system, concurrency=2, on_wait=on_wait, wait_note=0.05)
    assert source.get(CASES[0]).answer is not None and noted == ["c0"]
    source.close()


def test_retry_exceptions_are_named_by_module_and_class() -> None:
    assert retry_exceptions(["ConnectionError", "socket.timeout", " "]) == (ConnectionError, TimeoutError)
    for bad, message in [("nosuchmodule.Error", "cannot import 'nosuchmodule'"), ("os.NoSuch", "has no attribute"),
                         ("os.path", "not an exception class")]:
        with pytest.raises(ValueError, match=message):
            retry_exceptions([bad])


@settings(max_examples=20, deadline=None)
@given(concurrency=st.integers(1, 16), picks=st.lists(st.integers(0, len(CASES) - 1), max_size=30),
       failing=st.sets(st.integers(0, len(CASES) - 1)))
def test_answers_do_not_depend_on_concurrency_or_order(concurrency: int, picks: list[int], failing: set[int]) -> None:
    def system(question: str) -> Any:
        if int(question.split()[1].rstrip("?")) in failing:
            raise RuntimeError(f"cannot answer {question}")
        return answer_for(question)

    def outcome(items: list[Any]) -> list[Any]:
        return [(i.case.id, i.answer.to_json() if i.answer else None, (i.error or "").splitlines()[-1:]) for i in items]

    source = AnswerSource(lambda: system, concurrency=concurrency)
    source.prefetch(CASES[::3])
    got = [source.get(CASES[i]) for i in picks]
    expected = [AnswerSource(lambda: system, concurrency=1).get(CASES[i]) for i in picks]
    assert outcome(got) == outcome(expected)
    source.close()
