"""Stopping the answers' event loop right after work was handed to it: every coroutine submitted
either runs to its end (or is cancelled) or is closed, none is left "never awaited", and a waiter
gets an outcome. Deterministic: the stop is issued at once after the submit, many times over, and
the test waits for the loop's thread to finish its shut-down (joined, no wall-clock limit)."""

from __future__ import annotations

import asyncio
import gc
import sys
import warnings

import pytest

from pytest_sprout.answers.event_loop import LoopThread
from pytest_sprout.answers.source import AnswerSource
from pytest_sprout.core.model import Case

ROUNDS = 50


async def answer(question: str) -> tuple[str, list[str]]:
    await asyncio.sleep(0)
    return f"about {question}", []


class Leftovers:
    """What collecting the garbage said: warnings ("coroutine ... was never awaited") and the
    errors raised where nothing could catch them (a warning turned error inside ``__del__``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.said: list[str] = []
        monkeypatch.setattr(sys, "unraisablehook", lambda raised: self.said.append(str(raised.exc_value)))

    def collect(self) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gc.collect()
        self.said += [str(w.message) for w in caught]


@pytest.fixture
def leftovers(monkeypatch: pytest.MonkeyPatch) -> Leftovers:
    return Leftovers(monkeypatch)


def stopped(loop: LoopThread) -> None:
    thread = loop.stop()
    if thread is not None:
        thread.join()  # the shut-down (cancel what is pending, close the loop) has run


def test_a_coroutine_submitted_just_before_stop_is_never_left_unawaited(leftovers: Leftovers) -> None:
    for _ in range(ROUNDS):
        loop = LoopThread()
        futures = [loop.submit(answer("q")), loop.schedule(answer("r"))]
        stopped(loop)
        for future in futures:
            assert future.done()  # run to its end, or cancelled: never pending forever
        del futures, loop
        leftovers.collect()
    assert leftovers.said == []


def test_an_async_job_asked_just_before_close_is_settled_not_unawaited(leftovers: Leftovers) -> None:
    cases = [Case(id=f"c{i}", suite="s.yaml", question=f"q{i}") for i in range(3)]
    for _ in range(ROUNDS):
        source = AnswerSource(lambda: answer, concurrency=2)
        source.prefetch(cases)
        jobs = list(source._jobs.values())
        assert len(jobs) == 3  # an async system: all asked ahead on the loop
        loop_thread = source._events._thread
        assert source.close() is None
        assert loop_thread is not None
        loop_thread.join()
        for job in jobs:
            assert job.future.done()  # an answer, or the cancel: a waiter never hangs
        del jobs, source
        leftovers.collect()
    assert leftovers.said == []


def test_the_loop_starts_again_after_a_stop() -> None:
    loop = LoopThread()
    assert loop.wait(answer("q")) == ("about q", [])
    stopped(loop)
    assert loop.wait(answer("again")) == ("about again", [])
    stopped(loop)


def test_stop_without_a_loop_is_harmless() -> None:
    assert LoopThread().stop() is None
