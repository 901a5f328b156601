"""Wires the answer source (answers.py) to a pytest run: its options (the run's ``Settings``, read
once per process in config/settings.py), the result cache, the note of an item that waits, and the
end of the run (close the system, write and prune the cache). The run (run.py) calls these, and
asks ahead about the cases coming up itself (upcoming.py)."""

from __future__ import annotations

import warnings
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest

from ..core.model import Answer, Case
from ..core.util import is_xdist_worker, safe_text

RUN_KEY = pytest.StashKey[str]()
LEFT_KEY = pytest.StashKey["Counter[str] | None"]()
HELD_KEY = pytest.StashKey["list[warnings.WarningMessage]"]()


@contextmanager
def held_warnings(item: Any) -> Iterator[None]:
    """Around what the plugin does for an item before pytest's own warnings capture begins
    (asking ahead builds the system and reads its name, version and fingerprint): the warnings
    raised are held on the item, all of them, for ``reissue_warnings`` to raise again inside that
    capture, where the run's filters decide and the warnings summary shows them. Raised here they
    went to stderr, mid-line, and never reached the summary."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            if said:
                item.stash.setdefault(HELD_KEY, []).extend(said)


def reissue_warnings(item: Any) -> None:
    """Raise again, once, the warnings ``held_warnings`` held for this item (from its setup,
    inside pytest's capture)."""
    for said in item.stash.get(HELD_KEY, []):
        warnings.warn_explicit(said.message, said.category, said.filename, said.lineno, source=said.source)
    if HELD_KEY in item.stash:
        del item.stash[HELD_KEY]


def retry_on(names: Sequence[str]) -> tuple[type[BaseException], ...]:
    """The exception classes of ``sprout_retry_on`` (``Settings.retry_on``: their names, as given);
    a name that cannot be used is a usage error."""
    from .source import retry_exceptions

    try:
        return retry_exceptions(list(names))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def make_source(session: Any) -> Any:
    """The answers.AnswerSource of this process, with the run's options and cache (``session``:
    the run.Run of this process; its ``settings`` are the run's options)."""
    from .source import AnswerSource

    settings = session.settings

    def make_system() -> Any:
        try:
            return session.system()
        except pytest.UsageError as exc:  # a bad sprout_system: each item says so
            raise LookupError(str(exc)) from None

    decided: list[bool] = []

    def reusing() -> bool:
        """Answers are kept and reused across runs only when asked (--sprout-reuse-answers) or for
        a system that declares a fingerprint of what its answers depend on (decided once)."""
        if not decided:
            info = session.system_info()
            decided.append(bool(settings.reuse_answers or (info and info.get("fingerprint"))))
        return decided[0]

    def identity() -> dict[str, Any]:
        """The system's name, version, fingerprint and origin (factory and import path)."""
        return {**(session.system_info() or {}), "origin": session.system_origin()}

    def reused(case: Case) -> Answer | None:
        return session.result_cache().get_answer(case, identity()) if reusing() else None

    def store(case: Case, answer: Answer) -> None:
        if reusing():  # a recording too: it asks the system and refreshes what is kept
            session.result_cache().put_answer(case, identity(), answer)

    return AnswerSource(
        make_system,
        concurrency=settings.concurrency,
        timeout=settings.timeout,
        retries=settings.retries,
        retry_on=retry_on(settings.retry_on),
        lookup=None if settings.record else reused,  # a recording always asks the system
        store=store,
        on_wait=lambda case, seconds: waiting_note(session, case, seconds),
    )


def waiting_note(session: Any, case: Case, seconds: float) -> None:
    """With -v, an item that has waited a while on its answer says so once (a plain run only: an
    xdist worker's output is not the terminal)."""
    config = session.config
    if config.get_verbosity() < 1 or is_xdist_worker(config):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    in_flight = session.answers().in_flight()
    with capture.global_and_fixture_disabled():
        reporter.ensure_newline()
        reporter.write_line(f"sprout: waiting {seconds:.0f} s for the system's answer to {case.id!r} "
                            f"({in_flight} answers in flight)")


def say(config: Any, text: str) -> None:
    """A line on the terminal now, whatever the verbosity (a plain run or the xdist controller:
    a worker's output is not the terminal). Used when the run is held up and would seem stuck."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or is_xdist_worker(config):
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.ensure_newline()
            reporter.write_line(safe_text(f"sprout: {text}"))
    else:
        reporter.write_line(safe_text(f"sprout: {text}"))


def item_finished(run: Any, item: Any, collected: Sequence[Any]) -> None:
    """After an item ran: once no item of this process that is still to run uses its case, the
    case's answer is dropped (a 50,000-case run need not hold 50,000 answers to its end)."""
    case = getattr(item, "case", None)
    if case is None:
        return
    left = items_left(run.config, collected)
    if left is None or case.id not in left:
        return
    left[case.id] -= 1
    if left[case.id] <= 0:
        del left[case.id]
        if run._answers is not None:
            run._answers.forget(case.id)
        run._golden.pop(case.id, None)


def items_left(config: Any, collected: Sequence[Any]) -> Counter[str] | None:
    """Case id -> how many of this process's collected items that use it have not run yet; None
    when answers must stay (a test uses the sprout_golden fixture, which hands out every answer).
    An xdist worker counts every collected item, also those run elsewhere: it drops only the
    answers of cases whose every item it ran itself, never one still to come."""
    if LEFT_KEY not in config.stash:
        if any("sprout_golden" in getattr(item, "fixturenames", ()) for item in collected):
            config.stash[LEFT_KEY] = None
        else:
            config.stash[LEFT_KEY] = Counter(item.case.id for item in collected if getattr(item, "case", None) is not None)
    return config.stash[LEFT_KEY]


def close(session: Any) -> None:
    """At the end of the run: close the system (once), write the cache and, on the controller
    (after every worker wrote), prune it."""
    if session._answers is not None:
        problem = session._answers.close()
        if problem:
            import warnings

            warnings.warn(pytest.PytestWarning(safe_text(problem)), stacklevel=1)
    cache = session.result_cache()
    cache.flush()
    if not is_xdist_worker(session.config) and cache.root is not None:
        files = session.suites().files.values()
        broken = any(f.fatal is not None for f in files)  # its cases are unknown, not removed
        cache.prune(None if broken else [case.id for case in session.cases],
                    loaded_suites(session.settings.rootpath, session.settings.suites_option))
    cache.close()


def describe_system(system: Any, import_name: str) -> dict[str, Any]:
    """The system's ``name`` (else ``import_name``, its module.qualname), ``version`` and
    ``fingerprint`` for the reports and the answer cache. One that raises is left out with a
    warning (a name falls back to the import name): the run goes on, and without a fingerprint
    the answers are not kept across runs."""
    info: dict[str, Any] = {}
    for key, default in (("name", import_name), ("version", "")):
        try:
            info[key] = str(getattr(system, key, None) or default)
        except Exception as exc:  # a property of the system's own
            info[key] = default
            then = f"the reports name it {default!r}" if default else "the reports leave it out"
            warnings.warn(pytest.PytestWarning(safe_text(f"the system's {key} raised {type(exc).__name__}: {exc}; {then}")),
                          stacklevel=2)
    try:
        fingerprint = system_fingerprint(system)
    except Exception as exc:
        fingerprint = None
        warnings.warn(pytest.PytestWarning(safe_text(f"the system's fingerprint raised {type(exc).__name__}: {exc}; "
                                                     "its answers are not kept across runs")), stacklevel=2)
    if fingerprint:
        info["fingerprint"] = fingerprint
    return info


def loaded_suites(rootpath: Path, suites: str) -> Callable[[str], bool]:
    """Whether a suite file (as a case's source names it) lies under the suites this run loaded
    (``suites``: --sprout-suites as given, a folder or one file, relative to ``rootpath``)."""
    root = Path(rootpath, suites).resolve()

    def loaded(suite: str) -> bool:
        path = Path(rootpath, suite).resolve()
        return path == root or root in path.parents

    return loaded


def system_fingerprint(system: Any) -> str | None:
    """What the system declares its answers depend on (``fingerprint``: a string, or a callable
    returning one), or None."""
    value = getattr(system, "fingerprint", None)
    if callable(value):
        value = value()
    return str(value) if value else None


def run_id(config: Any) -> str:
    """One id per run, the same on the xdist controller and its workers (for cache pruning)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput and workerinput.get("sprout_run"):
        return str(workerinput["sprout_run"])
    if RUN_KEY not in config.stash:
        import uuid

        config.stash[RUN_KEY] = uuid.uuid4().hex
    return config.stash[RUN_KEY]
