"""The answer source's event loop: one asyncio loop in one daemon thread, started on first need.
An async system's calls run on it, and so do the awaitables a sync system returns and an async
setup or close. Plain Python, no pytest import."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from concurrent.futures import Future
from typing import Any, Callable

from .jobs import _Raised


class LoopThread:
    """The loop and its thread (named ``sprout-answers-loop``; a daemon, so that a call that never
    returns cannot keep pytest from exiting)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def ensure(self) -> asyncio.AbstractEventLoop:
        """The running loop, started in its thread if it is not yet."""
        with self._lock:
            return self._ensure()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        """``ensure`` with ``self._lock`` held."""
        if self._loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                ready.set()
                try:
                    loop.run_forever()
                finally:
                    _shut_down(loop)

            self._thread = threading.Thread(target=run, name="sprout-answers-loop", daemon=True)
            self._thread.start()
            ready.wait()
            self._loop = loop
        return self._loop

    def submit(self, awaitable: Any) -> Future[Any]:
        """Run an awaitable on the loop; what it raises beyond Exception (sys.exit, GeneratorExit)
        comes back wrapped, so that it cannot stop the loop's thread."""
        async def wrap() -> Any:
            try:
                return await awaitable
            except Exception:
                raise
            except BaseException as exc:  # raised on the loop it would stop the loop's thread
                raise _Raised(exc) from None

        future = self.schedule(wrap())
        if inspect.iscoroutine(awaitable):
            future.add_done_callback(lambda _: _close_unstarted(awaitable))
        return future

    def schedule(self, coro: Any) -> Future[Any]:
        """``asyncio.run_coroutine_threadsafe`` on the loop (started if need be). Under the lock
        that ``stop`` takes too, so that the loop cannot be told to stop between choosing it and
        handing it the coroutine: whatever was scheduled runs before the stop, and what is still
        pending then is cancelled (see ``_shut_down``). A coroutine that never started (cancelled
        first) is closed, not left to warn that it was never awaited."""
        with self._lock:
            future = asyncio.run_coroutine_threadsafe(coro, self._ensure())
        future.add_done_callback(lambda _: _close_unstarted(coro))
        return future

    def wait(self, awaitable: Any, timeout: float | None = None) -> Any:
        """Run an awaitable on the loop and wait for it in this thread: its result, or what it
        raised (sys.exit too) raised here. TimeoutError past ``timeout`` seconds."""
        future = self.submit(awaitable)
        try:
            return future.result(timeout)
        except _Raised as raised:
            raise raised.exc from None
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no result within {timeout} s") from None

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call ``callback(*args)`` on the loop, if it runs."""
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(callback, *args)

    def stop(self) -> threading.Thread | None:
        """Stop the loop; a later ``ensure`` starts another. What was scheduled on it and is still
        pending is cancelled and run to its end, then the loop is closed and its thread ends (not
        waited for here: a system that blocks its loop must not hang the run). Returns that thread
        (None when no loop ran), for a caller that wants to join it."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
            if loop is not None:
                loop.call_soon_threadsafe(loop.stop)
        return thread


def _close_unstarted(coro: Any) -> None:
    """Close a coroutine that never began (its task was cancelled first, or never made): closed,
    it does not warn "coroutine ... was never awaited" when collected."""
    if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
        coro.close()


def _shut_down(loop: asyncio.AbstractEventLoop) -> None:
    """In the loop's thread, once ``stop`` stopped it: cancel what is still pending (a job
    scheduled just before the stop has not started yet), let it end, then close the loop. Rounds
    repeat while cancelling makes new tasks; callbacks queued before the stop run there too."""
    try:
        while True:
            pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
            if not pending:
                break
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
