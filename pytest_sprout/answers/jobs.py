"""The pieces the answer source (source.py) is built from: the exception classes to retry and the
wait before each retry, one job (a case being asked) and the ways it can end, and the system's own
traceback. Plain Python, no pytest import."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import inspect
import os
import random
import threading
import traceback
from concurrent.futures import Future, InvalidStateError
from typing import Any, Callable, Iterable

from ..core.model import Case

NEVER_RETRIED = (AssertionError, TypeError)
MAX_BACKOFF = 30.0  # seconds: the longest wait before a retry, however many retries are allowed


def retry_delay(attempt: int, backoff: float, draw: Callable[[], float] = random.random) -> float:
    """The wait before retry ``attempt + 1``: ``backoff * 2 ** attempt`` capped at MAX_BACKOFF,
    then a random time between half and all of it (``draw`` gives a number in [0, 1)), so that
    many cases failing at once do not retry in step."""
    ceiling = MAX_BACKOFF if attempt >= 64 else min(MAX_BACKOFF, backoff * 2 ** attempt)
    return ceiling * (0.5 + 0.5 * draw())


def retry_exceptions(names: Iterable[str]) -> tuple[type[BaseException], ...]:
    """The exception classes named 'module.Class' (or a builtin name) in ``sprout_retry_on``.
    Raises ValueError naming the entry that cannot be used."""
    found: list[type[BaseException]] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        module_name, dot, attr = name.rpartition(".")
        try:
            holder = importlib.import_module(module_name if dot else "builtins")
        except ImportError as exc:
            raise ValueError(f"sprout_retry_on: {name!r}: cannot import {module_name!r} ({exc})") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the module raised while it loads (a configuration check, sys.exit)
            raise ValueError(f"sprout_retry_on: {name!r}: importing {module_name!r} raised "
                             f"{type(exc).__name__}: {exc}") from None
        try:
            cls = getattr(holder, attr)
        except AttributeError:
            raise ValueError(f"sprout_retry_on: {name!r}: {module_name or 'builtins'!r} has no attribute {attr!r}") from None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise ValueError(f"sprout_retry_on: {name!r} is not an exception class")
        found.append(cls)
    return tuple(found)


_PLUMBING = (__file__, os.path.join(os.path.dirname(__file__), "source.py"), os.path.dirname(asyncio.__file__),
             os.path.dirname(concurrent.futures.__file__))


def system_traceback(exc: BaseException) -> str:
    """The traceback from the system's own code on: the frames of this module, asyncio and
    concurrent.futures say how it was called, which differs with the concurrency."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_PLUMBING):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def takes_case(system: Any) -> bool:
    """Whether the system is called ``system(question, case)`` rather than ``system(question)``:
    its signature has a second positional parameter with no default, or one named ``case``. A
    second parameter with a default under another name (``def system(question, k=5)``), ``*args``
    or a signature Python cannot read keep the one-argument call every system had before."""
    try:
        params = list(inspect.signature(system).parameters.values())
    except (TypeError, ValueError):  # a builtin or an extension type without a signature
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2:
        return False
    second = positional[1]
    return second.default is inspect.Parameter.empty or second.name == "case"


def is_async_callable(system: Any) -> bool:
    return inspect.iscoroutinefunction(system) or inspect.iscoroutinefunction(getattr(system, "__call__", None))  # noqa: B004 (an async __call__, not callable())


class _Job:
    __slots__ = ("case", "future", "started", "thread", "task", "slot")

    def __init__(self, case: Case) -> None:
        self.case = case
        self.future: Future[Any] = Future()  # the raw result of the system, or its exception
        self.started: float | None = None  # time.monotonic() when the first attempt began
        self.thread: threading.Thread | None = None
        self.task: Future[Any] | None = None  # an async job: its task on the loop
        self.slot = False  # an async job holds one of the ``concurrency`` slots (on the loop only)


class _TimedOut(Exception):
    def __init__(self, started: bool = True) -> None:
        super().__init__()
        self.started = started  # False: the system was never asked (no slot, or a blocked loop)


class _NoThread(Exception):
    """No thread could be started to ask the system (the OS refused it)."""


class _Raised(Exception):
    """Carries a BaseException (sys.exit, a cancel, GeneratorExit) raised by an awaitable on the
    answers' loop to the thread that waits for it: raised on the loop, it would stop the loop's
    thread and leave the wait unanswered forever."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.exc = exc


def _settle(future: Future[Any], result: Any = None, exc: BaseException | None = None) -> None:
    """Give a job its outcome, unless the waiting side already gave up on it (timed out)."""
    try:
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass
