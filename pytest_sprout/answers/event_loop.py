"""The answer source's event loop: one asyncio loop in one daemon thread, started on first need.
An async system's calls run on it, and so do the awaitables a sync system returns and an async
setup or close. Plain Python, no pytest import."""

from __future__ import annotations

import asyncio
import concurrent.futures
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
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    ready.set()
                    loop.run_forever()

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

        return asyncio.run_coroutine_threadsafe(wrap(), self.ensure())

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
        if self._loop is not None:
            self._loop.call_soon_threadsafe(callback, *args)

    def stop(self) -> None:
        """Stop the loop (its thread ends); a later ``ensure`` starts another."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop = None
