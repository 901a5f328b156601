"""The run: the worker half of a pytest-sprout session. It builds the system under test and the
judge tiers, gets each case its answer (asked ahead, from the cache, or replayed), and runs one
item into its row. It runs in every process that runs items (a plain run, each xdist worker).

The tiers see none of this: the run reads their options into a plain ``TierSettings``, turns the
model layer's errors into pytest's, and hands a tier that judges in batches the answered cases
coming up in this process (upcoming.py: one mechanism for every tier and for asking ahead).
The session (session.py) composes the run with the controller half.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import pytest

from ..config.settings import Settings, tier_options
from ..suites.loader import SuiteFile, SuiteSet
from ..judges import tier_module
from ..core.errors import JudgeFailure, TierUnusable
from ..core.model import TIERS, Answer, Case, GoldenItem
from ..core.identity import case_hash
from ..core.row import Row
from ..core.tier import TierResult, TierSettings
from .upcoming import get_upcoming
from ..core.util import is_xdist_worker

RUN_STASH_KEY = pytest.StashKey["Run"]()
PROGRESS_SECONDS = 30.0  # a tier that judges in batches says how far it is, this often, on long runs


def get_run(config: pytest.Config) -> Run:
    return config.stash[RUN_STASH_KEY]


class SproutFailure(Exception):
    """An item failed its tier's check; the message is the whole failure report."""


class SystemFailure(Exception):
    """The system under test raised while answering; the message carries its traceback."""


@dataclass
class ItemOutcome:
    row: Row  # travels on the report as compact JSON (Row.to_json), a user property
    result: TierResult | None = None
    error: str | None = None  # the system's traceback when it raised
    skip: str | None = None


class RunHost(Protocol):
    """What the run needs of the session that composes it (session.py gives itself)."""

    def suites(self) -> SuiteSet:
        """The suites, loaded once."""
        ...

    def suite_file(self, path: Path) -> SuiteFile | None:
        """The parsed suite of a collected path, or None when it is no suite file."""
        ...

    def replay(self) -> Any:
        """The golden set being replayed (--sprout-golden: a golden.GoldenSet), or None."""
        ...

    def other_system(self) -> dict[str, Any] | None:
        """The system that answered when this process built none (the replayed one, or on the
        xdist controller the one a worker sent back)."""
        ...


class Run:
    """The worker half of the session: one per pytest config (``config.stash[RUN_STASH_KEY]``).

    It reads the run's options from ``settings`` (config/settings.py, read once per process),
    and what it needs of the session that composes it from ``host`` (``RunHost``).
    """

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        thresholds: Mapping[tuple[str, str], float],
        host: RunHost,
    ) -> None:
        self.config = config
        self.settings = settings
        self.thresholds = thresholds
        self.suites = host.suites
        self.suite_file = host.suite_file
        self._replay = host.replay
        self._other_system = host.other_system
        self._system: Callable[[str], Any] | None = None
        self._info: dict[str, Any] | None = None  # the system's name, version and fingerprint
        self._system_spec = ""  # where the system came from: its factory spec, or the hook
        self._system_error: BaseException | None = None  # the factory failed: not called again
        self._golden: dict[str, GoldenItem] = {}
        self._tiers: dict[str, Any] = {}
        self._unavailable: dict[str, str | None] = {}
        self._unusable: dict[str, str] = {}  # tier -> why it could not be built (an xdist worker)
        self._cache: Any = None  # cache.ResultCache, built on first use
        self._answers: Any = None  # answers.AnswerSource, built on first use
        self._progress: dict[str, list[float]] = {}  # tier -> [first prepare, last progress line] (monotonic)

    @property
    def cases(self) -> list[Case]:
        return self.suites().cases

    # --- the system under test ----------------------------------------------------------------
    def system(self) -> Callable[[str], Any]:
        """The system under test, built once per process. A factory that fails is not called
        again: its error (kept in ``_system_error``) is every item's."""
        if self._system_error is not None:
            raise self._system_error
        try:
            return self._make_system()
        except (LookupError, TypeError, pytest.UsageError) as exc:
            self._system_error = exc
            raise
        except (Exception, SystemExit) as exc:  # the user's factory raised: its items error, the run goes on
            self._system_error = exc
            raise

    def _make_system(self) -> Callable[[str], Any]:
        if self._system is None:
            # In order: --sprout-system on the command line, the conftest hook, the ini sprout_system.
            spec = self.settings.system_cli
            system = None if spec else self.config.hook.pytest_sprout_make_system(config=self.config)
            spec = spec or (self.settings.system if system is None else None)
            if spec:
                system = load_factory(spec, self.config.rootpath)()
            self._system_spec = spec or "the pytest_sprout_make_system hook"
            if system is None:
                raise LookupError(
                    "no system under test: define pytest_sprout_make_system(config) in a "
                    "conftest.py, or set sprout_system = package.module:factory in the ini file"
                )
            if not (callable(system) or hasattr(system, "__aenter__") or hasattr(system, "__enter__")):
                raise TypeError(f"the system under test must be callable (question -> Answer), got {system!r}")
            self._system = system
        return self._system

    def system_info(self) -> dict[str, Any] | None:
        if self._system is None:
            return self._other_system()  # a replay, or the xdist controller: only workers built it
        if self._info is None:  # read once: a fingerprint may hash an index
            from ..answers.wiring import describe_system

            self._info = describe_system(self._system, callable_name(self._system))
        return self._info

    def system_origin(self) -> str | None:
        """Where the system came from: its factory (the --sprout-system / sprout_system spec, or the
        conftest hook) and the callable's own import path. Reused answers are keyed on it, so two
        systems that share a name (or have none) never share answers."""
        if self._system is None:
            return None
        return f"{self._system_spec} -> {callable_name(self._system)}"

    # --- answers ------------------------------------------------------------------------------
    def answer(self, case: Case) -> GoldenItem:
        """The system's answer for a case, computed once per process however many tiers run
        (answers.py asks ahead, --sprout-concurrency at a time); with --sprout-golden the recorded
        one, and the system is not called."""
        if self.settings.golden_option:
            item = self._golden.get(case.id)
            if item is None:
                item = self._golden[case.id] = self.replayed(case)
            return item
        return self.answers().get(case)

    def answer_many(self, cases: list[Case]) -> list[GoldenItem]:
        """Answers for many cases, asked all at once (--sprout-concurrency at a time)."""
        if self.settings.golden_option:
            return [self.answer(case) for case in cases]
        return self.answers().get_many(cases)

    def answers(self) -> Any:
        """The answers.AnswerSource of this process (built on first use by asking.py)."""
        if self._answers is None:
            from ..answers.wiring import make_source

            self._answers = make_source(self)
        return self._answers

    def item_starting(self, item: Any) -> None:
        """Before an item runs: note where the run is, and ask ahead about the cases coming up
        when fewer than --sprout-concurrency are asked and not yet used."""
        upcoming = get_upcoming(self.config)
        upcoming.started(item)
        if self.settings.golden_option or getattr(item, "case", None) is None:
            return
        concurrency = self.settings.concurrency
        if concurrency <= 1:
            return
        source = self.answers()
        if source.pending() >= concurrency:  # enough asked ahead: look again when it runs low
            return
        available = {tier: not self.tier_unavailable(tier) for tier in TIERS}  # others skip unasked
        source.prefetch(upcoming.cases(limit=2 * concurrency, available=available.__getitem__))

    def coming_up(self, tier: str, answered_only: bool = False) -> list[GoldenItem]:
        """The answered cases of this tier's items coming up in this process (upcoming.py), the
        one now running first; refusals and system errors have nothing to judge.

        ``answered_only`` (the pipeline): every one of them is asked about (ahead, at
        --sprout-concurrency), but only those whose answers are already there are returned, so
        that judging starts with the first answers while the system works on the rest. A source
        that does not ask ahead (concurrency 1, a very fast system) answers them all first."""
        cases = get_upcoming(self.config).cases(tier)
        if answered_only and not self.settings.golden_option:
            source = self.answers()
            source.prefetch(cases)
            ready = source.ready(cases)
            if ready is not None:
                cases = ready
        golden = self.answer_many(cases)
        return [g for g in golden if g.answer is not None and not g.answer.refused]

    def close_answers(self) -> None:
        """At the end of the run: close the system, write and prune the cache (asking.py)."""
        from ..answers.wiring import close

        close(self)

    def replayed(self, case: Case) -> GoldenItem:
        """The answer recorded in the --sprout-golden set (checked at session start)."""
        from ..core.identity import SnapshotError

        try:
            return self._replay().item(case)
        except SnapshotError as exc:  # an xdist worker found the file changed since the controller read it
            return GoldenItem(case, None, str(exc))

    def result_cache(self) -> Any:
        """The cache.ResultCache of answers and tier results in pytest's cache dir."""
        if self._cache is None:
            from ..core.version import __version__
            from ..answers.wiring import run_id
            from ..answers.cache import ResultCache, cache_root

            from ..answers.wiring import say
            from ..core.util import judge_code_fingerprint

            self._cache = ResultCache(cache_root(self.config), __version__, run_id(self.config), judge_code_fingerprint(),
                                      note=lambda text: say(self.config, text))
        return self._cache

    def golden(self) -> dict[str, GoldenItem]:
        """Every valid case with the system's answer, keyed by case id."""
        return {item.case.id: item for item in self.answer_many(self.cases)}

    # --- tiers --------------------------------------------------------------------------------
    def tier_settings(self, name: str) -> TierSettings:
        """What tier ``name`` is built from: this run's thresholds and the tier's own options."""
        config = self.config
        cache = getattr(config, "cache", None)  # None with -p no:cacheprovider: no disk cache
        workerinput = getattr(config, "workerinput", None)
        return TierSettings(
            thresholds=self.thresholds,
            options=tier_options(config, getattr(tier_module(name), "OPTIONS", ())),
            cache_dir=None if cache is None else cache.mkdir,
            workers=None if workerinput is None else int(workerinput.get("workercount", 1)),
            explicit=workerinput is None and name in self.settings.explicit_tiers,
        )

    def tier_unavailable(self, name: str) -> str | None:
        if name not in self._unavailable:
            self._unavailable[name] = tier_module(name).unavailable(self.tier_settings(name))
        return self._unavailable[name]

    def tier(self, name: str) -> Any:
        """The tier, built once per process. A judge that cannot be used is a usage error; on an
        xdist worker, where that would crash the worker, each of its items fails with it instead."""
        if name not in self._tiers:
            if name in self._unusable:
                raise SproutFailure(self._unusable[name])
            reason = self.tier_unavailable(name)
            if reason:  # only a fixture gets here (nli_judge): the tier's items skip in their setup
                pytest.skip(reason)
            try:
                tier = tier_module(name).make_tier(self.tier_settings(name))
            except TierUnusable as exc:
                raise pytest.UsageError(str(exc)) from None
            if hasattr(tier, "close"):
                self.config.add_cleanup(tier.close)
            self._tiers[name] = tier
        return self._tiers[name]

    def judges_record(self) -> dict[str, Any]:
        """The JSON report's ``judges``: each tier built in this process, as it judged
        (core/judges.py: name, version, settings(), calibration id, model fingerprint)."""
        from ..core.judges import judge_record

        return {name: judge_record(name, tier) for name, tier in sorted(self._tiers.items())}

    def collected(self, items: Sequence[Any]) -> None:
        """After collection, before any test runs: build each tier that asks for it (BUILD_EARLY)
        and has items selected, so that a judge that cannot be used is one usage error rather
        than a failure per item (an xdist worker keeps the error for its items)."""
        selected = {item.tier for item in items if hasattr(item, "case") and getattr(item, "tier", None) in TIERS}
        if self.settings.collect_only:
            return
        for name in [t for t in TIERS if t in selected]:
            if not getattr(tier_module(name), "BUILD_EARLY", False) or self.tier_unavailable(name):
                continue
            if is_xdist_worker(self.config):
                try:
                    self.tier(name)
                except pytest.UsageError as exc:  # raised on an xdist worker it would be an INTERNALERROR
                    self._unusable[name] = str(exc)
            else:
                self.tier(name)

    def evaluate(self, name: str, item: GoldenItem) -> TierResult:
        """A tier's result for an answered case; reused from the cache when nothing it depends on
        changed. A tier that judges in batches first gets the cases coming up with this one."""
        tier, cache = self.tier(name), self.result_cache()
        key = None
        if not (name == "alce" and self.settings.nli_no_cache):
            key = cache.result_key(tier, item, self.thresholds)
        result = cache.get_result(key, item.case)
        if result is None:
            if hasattr(tier, "prepare") and not tier.prepared(item):
                # pipelined: the answers there now are judged in one batched pass while the
                # system answers the rest; an item whose answer came later prepares again
                pipelined = getattr(tier, "pipelined", False)
                tier.prepare([item, *(g for g in self.coming_up(name, pipelined) if g.case.id != item.case.id)])
                self._say_progress(name, tier)
            result = tier.evaluate(item)
            cache.put_result(key, result, item.case, name)
        return result

    def _say_progress(self, name: str, tier: Any) -> None:
        """On a long run, a line every PROGRESS_SECONDS: how many answers the tier has judged and
        how many of its items are still to come here (a plain run's terminal; not a worker's)."""
        now = time.monotonic()
        first, last = self._progress.setdefault(name, [now, now])
        if now - last < PROGRESS_SECONDS or not hasattr(tier, "progress"):
            return
        self._progress[name][1] = now
        left = len(get_upcoming(self.config).cases(name))
        from ..answers.wiring import say

        say(self.config, f"{name}: {tier.progress()}, {left} item{'s' if left != 1 else ''} to go, {now - first:.0f} s")

    def run_item(self, case: Case, tier: str) -> ItemOutcome:
        row = Row(case_id=case.id, suite=case.suite, tier=tier, case_hash=case_hash(case), question=case.question,
                  expect=case.expect, expected_facts=list(case.expected_facts))
        golden = self.answer(case)
        if golden.answer is not None:
            row.answer = answer_row(golden.answer)
        if self.settings.record:  # the answer travels to the controller, which writes the golden set
            from ..answers.golden import entry

            row.golden = entry(golden, self.system_info())
        if golden.error is not None:
            row.error = golden.error.strip().splitlines()[-1]
            return ItemOutcome(row, error=golden.error)
        assert golden.answer is not None
        if golden.answer.refused and tier != "groundedness":
            row.note = "the system refused; nothing to judge (the groundedness tier scores refusals)"
            return ItemOutcome(row, skip=row.note)
        try:
            result = self.evaluate(tier, golden)
        except JudgeFailure as exc:  # a tier's own brief failure (a model that cannot load): its message stands
            raise SproutFailure(str(exc)) from None
        except SproutFailure:
            raise
        except (Exception, SystemExit) as exc:  # a judge that raised errors this item, not the run
            error = f"the {tier} judge raised on {case.id!r}:\n{format_exception(exc)}"
            row.error = error.strip().splitlines()[-1]
            return ItemOutcome(row, error=error)
        row.metrics, row.sentences = result.metrics, result.sentences
        if result.reasons:
            row.reasons = result.reasons
        if self.settings.mutate:  # mutants go in their own key, never in the metrics
            from ..checks.mutation import mutate_item

            from ..core.citations import mode_of

            mode = mode_of(case, self.settings.citations)
            mutated = mutate_item(self.tier(tier), golden.answer, result.sentences, mode)
            row.mutants, row.mutants_skipped = mutated.get("mutants"), mutated.get("mutants_skipped")
        if result.note:
            row.note = result.note
        if result.extra:
            row.extra = result.extra
        if result.passed is None:
            row.unscored = True
        return ItemOutcome(row, result=result)


def answer_row(answer: Answer) -> dict[str, Any]:
    """What the system said, for an item row: the text with its markers, whether it refused, and
    the passages it retrieved (the sentences are in the row, with their verdicts)."""
    return {"text": answer.render(), "refused": answer.refused, "passages": [p.to_json() for p in answer.passages]}


def format_exception(exc: BaseException) -> str:
    """A traceback as text that any report can hold (lone surrogates escaped)."""
    from ..core.util import clean_text

    return clean_text("".join(traceback.format_exception(exc)))


def callable_name(system: Any) -> str:
    """A system's import path, module.qualname: of the function, else of its class."""
    target = system if hasattr(system, "__qualname__") else type(system)
    return f"{getattr(target, '__module__', None) or '?'}.{getattr(target, '__qualname__', type(system).__name__)}"


def load_factory(spec: str, rootdir: Path | None = None) -> Callable[..., Any]:
    """The factory named by 'package.module:factory'. Surrounding quotes are dropped (an ini file
    keeps them), and the module is looked up from the rootdir first, as pytest's `pythonpath = .`
    would; a module that cannot be imported is a usage error."""
    spec = spec.strip()
    if len(spec) >= 2 and spec[0] == spec[-1] and spec[0] in "'\"":
        spec = spec[1:-1].strip()
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(f"sprout_system must look like package.module:factory, got {spec!r}")
    if rootdir is not None and str(rootdir) not in sys.path:
        sys.path.insert(0, str(rootdir))
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # an ImportError, or the module itself raising (or exiting) while it loads
        raise pytest.UsageError(
            f"sprout_system = {spec}: cannot import {module_name!r} (looked in the rootdir {rootdir} and "
            f"on sys.path): {type(exc).__name__}: {exc}"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise pytest.UsageError(f"sprout_system = {spec}: {module_name!r} has no attribute {attr!r}") from None
