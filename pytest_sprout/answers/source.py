"""The answer source: asks the system under test, many cases at once, and hands the answers to the
items in pytest's order.

- A plain callable runs in a pool of ``concurrency`` daemon threads (daemon: a system call that
  never returns cannot keep pytest from exiting). At concurrency 1 it is called in the calling
  thread, one case at a time, as before (in a helper thread only when a timeout must be kept).
- An ``async def`` system (or a callable whose ``__call__`` is one) runs on one event loop in one
  background thread, at most ``concurrency`` answers at a time. A plain callable that returns an
  awaitable has that awaitable run on the same loop.
- ``timeout`` bounds one answer, retries included; past it the case gets an error that names the
  timeout and the run goes on. An async call is cancelled and its slot given to the next case (a
  call that ignores the cancel runs on, ignored); a thread cannot be stopped, so a late sync call
  finishes in the background, is ignored, and its thread is replaced. A case that was never
  started (every slot busy, or an event loop blocked by a sync call inside ``async def``) times
  out too, ``timeout`` after its item began to wait for it.
- Threads are started as calls wait for them, never more than ``concurrency``; a thread the OS
  refuses lowers the concurrency to the threads there are (a warning), or, with none, is each
  waiting case's error.
- Every job settles: whatever the system raises (``CancelledError``, ``GeneratorExit``,
  ``sys.exit`` too) is its case's error; only Ctrl-C (KeyboardInterrupt) ends the run.
- ``retries``: an exception of one of the ``retry_on`` types is retried after a backoff that
  doubles each time up to ``MAX_BACKOFF`` seconds, with jitter (each wait is a random time
  between half and all of it); an AssertionError or TypeError never is.
- The system's optional ``setup()`` / ``close()`` (sync or async), or its context manager (sync or
  async), run once per process.

Plain Python, no pytest import: the session wires it to pytest (options, the cache, what comes up).
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
import time
import traceback
from concurrent.futures import Future, InvalidStateError
from typing import Any, Callable, Iterable, Sequence

from ..core.model import Answer, Case, GoldenItem
from .event_loop import LoopThread
from .jobs import (MAX_BACKOFF, NEVER_RETRIED, _Job, _NoThread, _settle, _TimedOut, is_async_callable,
                   retry_delay, retry_exceptions, system_traceback, takes_case)

__all__ = ["AnswerSource", "MAX_BACKOFF", "NEVER_RETRIED", "is_async_callable", "retry_delay", "retry_exceptions",
           "system_traceback"]

# A sync system that answers faster than this on average (over FAST_AFTER answers) is asked in
# the calling thread from then on: handing such calls to threads costs more than it overlaps.
FAST_SECONDS = 0.002
FAST_AFTER = 16
WAIT_NOTE_SECONDS = 5.0  # an item that waits longer than this on its answer says so (with -v)


class AnswerSource:
    """Answers for cases, fetched ahead. ``get(case)`` blocks until that case's answer is there.

    ``make_system`` builds the system (called once, in the thread of the first get/prefetch);
    ``lookup(case)`` may return a stored Answer (then the system is not asked) and ``store(case,
    answer)`` keeps a fresh one; ``on_wait(case)`` is called once when a get() has waited
    ``wait_note`` seconds.
    """

    def __init__(
        self,
        make_system: Callable[[], Any],
        *,
        concurrency: int = 8,
        timeout: float | None = None,
        retries: int = 0,
        retry_on: tuple[type[BaseException], ...] = (),
        backoff: float = 0.2,
        lookup: Callable[[Case], Answer | None] | None = None,
        store: Callable[[Case, Answer], None] | None = None,
        on_wait: Callable[[Case, float], None] | None = None,
        wait_note: float | None = None,
    ) -> None:
        self.make_system = make_system
        self.concurrency = max(1, int(concurrency))
        self.timeout = timeout if timeout and timeout > 0 else None
        self.retries = max(0, int(retries))
        self.retry_on = retry_on
        self.backoff = backoff
        self.lookup = lookup
        self.store = store
        self.on_wait = on_wait
        self.wait_note = WAIT_NOTE_SECONDS if wait_note is None else wait_note
        self.calls = 0  # attempts made on the system (for tests and benchmarks)
        self._done: dict[str, GoldenItem] = {}
        self._jobs: dict[str, _Job] = {}
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._system: Any = None
        self._failure: str | None = None  # why the system cannot be asked at all
        self._started = False
        self._closer: Callable[[], Any] | None = None
        self._async = False
        self._takes_case = False  # the system is called system(question, case) (jobs.takes_case)
        self._events = LoopThread()
        self._semaphore: asyncio.Semaphore | None = None
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._timed = 0  # sync answers timed so far, and their total seconds
        self._timed_total = 0.0
        self._retired: set[threading.Thread] = set()
        self._refused: str | None = None  # why the OS refused a thread (warned once)

    # --- public -------------------------------------------------------------------------------
    def get(self, case: Case) -> GoldenItem:
        """The answer for one case (or the error that stands for it)."""
        done = self._done.get(case.id)
        if done is not None:
            return done
        self._start()
        if self._failure is not None:
            item = GoldenItem(case, None, f"cannot ask the system about {case.id!r}: {self._failure}")
            self._done[case.id] = item
            return item
        stored = self.lookup(case) if self.lookup is not None else None
        if stored is not None:
            item = self._done[case.id] = GoldenItem(case, stored)
            return item
        if not self._async and self.timeout is None and (self.concurrency == 1 or self._fast()) \
                and case.id not in self._jobs:
            return self._finish(case, self._inline(case))  # one at a time, in this thread
        job = self._submit(case)
        return self._finish(case, self._wait(job))

    def get_many(self, cases: Sequence[Case]) -> list[GoldenItem]:
        """Answers for many cases: all asked at once (``concurrency`` at a time), in order."""
        self.prefetch(cases)
        return [self.get(case) for case in cases]

    def prefetch(self, cases: Iterable[Case]) -> None:
        """Start asking about these cases (those not answered or asked yet) without waiting."""
        if not self._async and (self.concurrency == 1 or self._fast()):
            return
        self._start()
        if self._failure is not None:
            return
        for case in cases:
            if case.id in self._done or case.id in self._jobs:
                continue
            if self.lookup is not None:
                stored = self.lookup(case)
                if stored is not None:
                    self._done[case.id] = GoldenItem(case, stored)
                    continue
            self._submit(case)

    def ready(self, cases: Iterable[Case]) -> list[Case] | None:
        """The cases among ``cases`` whose answer (or error) is there now, without waiting; None
        when this source does not ask ahead (one case at a time in the calling thread, or a
        system too fast to hand to threads): then nothing is answered until it is asked for."""
        if not self._async and (self.concurrency == 1 or self._fast()):
            return None
        out = []
        for case in cases:
            job = self._jobs.get(case.id)
            if case.id in self._done or (job is not None and job.future.done()):
                out.append(case)
        return out

    def forget(self, case_id: str) -> None:
        """Drop a case's answer once every item that uses it has run (it would be asked again)."""
        self._done.pop(case_id, None)

    def pending(self) -> int:
        """Cases asked about and not yet handed to an item."""
        return len(self._jobs)

    def in_flight(self) -> int:
        return sum(1 for job in list(self._jobs.values()) if not job.future.done())

    def close(self) -> str | None:
        """Close the system (once) and stop the threads; returns why closing failed, or None."""
        problem = None
        if self._closer is not None:
            closer, self._closer = self._closer, None
            try:
                result = closer()
                if inspect.isawaitable(result):
                    self._events.wait(result, self.timeout)  # a loop blocked by the system is not waited on forever
            except KeyboardInterrupt:
                raise
            except TimeoutError:
                problem = (f"closing the system under test took longer than --sprout-timeout={self.timeout:g} s "
                           "(its event loop is blocked?); it was left running")
            except BaseException as exc:  # sys.exit in a close() too: a warning, the reports are still written
                problem = f"closing the system under test raised {type(exc).__name__}: {exc}"
        for _ in self._threads:
            self._queue.put(None)
        self._threads = []
        self._events.stop()
        return problem

    # --- the system ---------------------------------------------------------------------------
    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        try:
            system = self.make_system()
        except (LookupError, TypeError, ValueError) as exc:  # no system configured, or not a usable one
            self._failure = str(exc) or type(exc).__name__
            return
        except (Exception, SystemExit) as exc:
            self._failure = f"building it raised:\n{''.join(traceback.format_exception(exc))}"
            return
        try:
            self._system = self._open(system)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # sys.exit in a setup too: every item errors with it, the run goes on
            self._failure = f"its setup raised {type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))}"
            return
        if not callable(self._system):
            self._failure = f"the system under test must be callable (question -> Answer), got {self._system!r}"
            return
        self._async = is_async_callable(self._system)
        self._takes_case = takes_case(self._system)

    def _ask(self, case: Case) -> Any:
        """One call of the system: ``system(question)``, or ``system(question, case)`` for a system
        whose signature takes the case (jobs.takes_case)."""
        return self._system(case.question, case) if self._takes_case else self._system(case.question)

    def _open(self, system: Any) -> Any:
        """Run the system's setup once: setup()/close(), or a context manager (sync or async)."""
        if hasattr(system, "__aenter__") and hasattr(system, "__aexit__"):
            entered = self._events.wait(system.__aenter__())
            self._closer = lambda: system.__aexit__(None, None, None)
            return entered if callable(entered) else system
        if hasattr(system, "__enter__") and hasattr(system, "__exit__") and not callable(getattr(system, "setup", None)):
            entered = system.__enter__()
            self._closer = lambda: system.__exit__(None, None, None)
            return entered if callable(entered) else system
        setup = getattr(system, "setup", None)
        if callable(setup):
            result = setup()
            if inspect.isawaitable(result):
                self._events.wait(result)
        close = getattr(system, "close", None)
        if callable(close):
            self._closer = close
        return system

    # --- asking -------------------------------------------------------------------------------
    def _retryable(self, exc: BaseException, attempt: int) -> bool:
        return (attempt < self.retries and isinstance(exc, self.retry_on)
                and not isinstance(exc, NEVER_RETRIED))

    def _count(self) -> None:
        with self._count_lock:
            self.calls += 1

    def _fast(self) -> bool:
        return self._timed >= FAST_AFTER and self._timed_total / self._timed < FAST_SECONDS

    def _call_sync(self, case: Case) -> Any:
        attempt = 0
        while True:
            self._count()
            try:
                started = time.perf_counter()
                result = self._ask(case)
                with self._count_lock:
                    self._timed += 1
                    self._timed_total += time.perf_counter() - started
                if inspect.isawaitable(result):
                    result = self._events.wait(result)
                return result
            except Exception as exc:
                if not self._retryable(exc, attempt):
                    raise
            time.sleep(retry_delay(attempt, self.backoff))
            attempt += 1

    async def _call_async(self, case: Case) -> Any:
        attempt = 0
        while True:
            self._count()
            try:
                result = self._ask(case)
                while inspect.isawaitable(result):
                    result = await result
                return result
            except Exception as exc:
                if not self._retryable(exc, attempt):
                    raise
            await asyncio.sleep(retry_delay(attempt, self.backoff))
            attempt += 1

    def _inline(self, case: Case) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(self._call_sync(case))
        except (Exception, SystemExit) as exc:  # sys.exit in the system is its case's error, not the run's end
            future.set_exception(exc)
        return future

    def _submit(self, case: Case) -> _Job:
        job = self._jobs.get(case.id)
        if job is not None:
            return job
        job = self._jobs[case.id] = _Job(case)
        if self._async:
            job.task = self._events.schedule(self._run_async(job))
            job.task.add_done_callback(lambda task: _cancelled_early(job, task))
        else:
            self._queue.put(job)
            self._ensure_threads()
        return job

    async def _run_async(self, job: _Job) -> None:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.concurrency)
        await self._semaphore.acquire()  # cancelled here when the waiting side gave up first
        job.slot = True
        job.started = started = time.monotonic()
        try:
            if self.timeout is None:
                result = await self._call_async(job.case)
            else:
                result = await asyncio.wait_for(self._call_async(job.case), self.timeout)
        except asyncio.TimeoutError as exc:  # wait_for's, or the system's own before the timeout
            timed_out = self.timeout is not None and time.monotonic() - started >= self.timeout
            _settle(job.future, exc=_TimedOut() if timed_out else exc)
        except BaseException as exc:  # CancelledError, GeneratorExit, sys.exit too: the waiting side decides
            _settle(job.future, exc=exc)
        else:
            _settle(job.future, result=result)
        finally:
            self._free_slot(job)

    def _free_slot(self, job: _Job) -> None:
        """On the loop: give back a job's slot, once (when it ends, or when it timed out)."""
        if job.slot and self._semaphore is not None:
            job.slot = False
            self._semaphore.release()

    def _ensure_threads(self) -> None:
        """As many threads as calls wait for, never more than ``concurrency``. A thread the OS
        refuses (a pids limit in a container, memory) lowers the concurrency to the threads there
        are; with none, the waiting cases fail with the reason."""
        with self._lock:
            wanted = min(self.concurrency, sum(1 for job in list(self._jobs.values()) if not job.future.done()))
            while len(self._threads) < wanted:
                thread = threading.Thread(target=self._work, name="sprout-answers", daemon=True)
                try:
                    thread.start()
                except RuntimeError as exc:  # "can't start new thread"
                    self._thread_refused(exc)
                    return
                self._threads.append(thread)

    def _thread_refused(self, exc: RuntimeError) -> None:
        working = len(self._threads)
        if self._refused is None:
            import warnings

            self._refused = f"{exc}"
            warnings.warn(RuntimeWarning(
                f"sprout: the OS refused a thread to ask the system ({exc}); "
                + (f"--sprout-concurrency={self.concurrency} lowered to {working}" if working else
                   "cases that need a thread fail") + " (a pids or memory limit? lower --sprout-concurrency)"), stacklevel=2)
        if working:
            self.concurrency = working
            return
        self.concurrency = 1  # without a timeout, later cases are asked in pytest's thread
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                _settle(job.future, exc=_NoThread(str(exc)))

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            job = self._queue.get()
            if job is None:
                return
            if job.future.done():  # it timed out before its turn came: not asked
                continue
            job.thread = me
            job.started = time.monotonic()
            try:
                try:
                    result = self._call_sync(job.case)
                except BaseException as exc:  # sys.exit and Ctrl-C too: the waiting side decides (_finish)
                    job.future.set_exception(exc)
                else:
                    job.future.set_result(result)
            except InvalidStateError:
                pass  # it already timed out: the late answer is ignored
            if me in self._retired:  # it overran its timeout and was replaced
                self._retired.discard(me)
                return

    def _wait(self, job: _Job) -> Future[Any]:
        """Wait for a job: past ``wait_note`` seconds say so once; past the timeout give up."""
        noted = False
        begun = time.monotonic()
        while True:
            step = 0.05 if self.timeout is not None else None
            if not noted and self.on_wait is not None:
                remaining_note = self.wait_note - (time.monotonic() - begun)
                step = remaining_note if step is None else min(step, remaining_note)
            try:
                job.future.exception(timeout=None if step is None else max(step, 0.0))
                return job.future
            except TimeoutError:
                pass
            now = time.monotonic()
            if not noted and self.on_wait is not None and now - begun >= self.wait_note:
                noted = True
                self.on_wait(job.case, now - begun)
            # The timeout runs from the job's start, or (not started: no free slot, a blocked loop)
            # from when this item began to wait for it.
            clock = begun if job.started is None else job.started
            if self.timeout is not None and now - clock >= self.timeout:
                try:
                    job.future.set_exception(_TimedOut(started=job.started is not None))
                except InvalidStateError:  # it finished just now
                    return job.future
                self._give_up(job)
                return job.future

    def _give_up(self, job: _Job) -> None:
        """A job timed out: an async one is cancelled and its slot freed for the next case (a
        call that ignores the cancel runs on, ignored); a sync one's thread is replaced."""
        if self._async:
            if job.task is not None:
                job.task.cancel()
            self._events.call_soon(self._free_slot, job)
            return
        self._replace(job)

    def _replace(self, job: _Job) -> None:
        """A sync call overran its timeout: its thread goes when the call returns; start another."""
        thread = job.thread
        if thread is None or self._async:
            return
        with self._lock:
            self._retired.add(thread)
            if thread in self._threads:
                self._threads.remove(thread)
        self._ensure_threads()

    def _finish(self, case: Case, future: Future[Any]) -> GoldenItem:
        exc = future.exception()
        if isinstance(exc, KeyboardInterrupt):
            self._jobs.pop(case.id, None)
            raise exc  # Ctrl-C (KeyboardInterrupt) raised while answering ends the run, on pytest's thread
        if isinstance(exc, _TimedOut):
            why = "the system timed out" if exc.started else (
                f"the system was never asked: all --sprout-concurrency={self.concurrency} answer slots stayed "
                "busy (an async system that blocks its event loop, or ignores cancellation?)")
            item = GoldenItem(case, None, f"no answer for {case.id!r} within --sprout-timeout={self.timeout:g} s: "
                                          f"{why} (the run goes on without it)")
        elif isinstance(exc, _NoThread):
            item = GoldenItem(case, None, f"cannot ask the system about {case.id!r}: the OS refused a thread "
                                          f"({exc}); lower --sprout-concurrency or raise the pids limit")
        elif exc is not None:
            item = GoldenItem(case, None, f"the system raised while answering {case.id!r}:\n{system_traceback(exc)}")
        else:
            try:
                item = GoldenItem(case, Answer.coerce(future.result()))
            except (TypeError, ValueError, KeyError, AttributeError) as coerce_exc:  # not an answer
                item = GoldenItem(case, None, f"the system's answer to {case.id!r} is invalid: {coerce_exc}")
            except Exception as coerce_exc:  # an answer object of the system's own that raised
                text = system_traceback(coerce_exc)
                item = GoldenItem(case, None, f"the system raised while answering {case.id!r}:\n{text}")
            else:
                if self.store is not None and item.answer is not None:
                    self.store(case, item.answer)
        if item.error is not None:  # any report can hold it: lone surrogates in the system's message escaped
            from ..core.util import clean_text

            item = GoldenItem(case, None, clean_text(item.error))
        self._done[case.id] = item
        self._jobs.pop(case.id, None)
        return item


def _cancelled_early(job: _Job, task: Future[Any]) -> None:
    """An async job's task cancelled before its body ran (the loop stopped first, or it was
    cancelled waiting for a slot): its waiter still gets an outcome, never waits on forever."""
    if task.cancelled():
        _settle(job.future, exc=asyncio.CancelledError())
