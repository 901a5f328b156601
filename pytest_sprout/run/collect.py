"""Collection: a suite file becomes one pytest item per (case, tier)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from ..suites.loader import SuiteError
from ..core.model import Case
from ..core.row import junit_properties
from ..core.util import safe_text
from .worker import SproutFailure, SystemFailure, get_run


class SproutFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        suite_file = get_run(self.config).suite_file(self.path)
        if suite_file is None:
            return
        if suite_file.fatal is not None:
            raise self.CollectError(str(suite_file.fatal))
        for entry in suite_file.entries:
            if isinstance(entry, SuiteError):
                yield BadCase.from_parent(self, name=(entry.case or "?").strip("'"), error=entry)
                continue
            for tier in entry.tiers:
                # The node id is given as a string so that pytest parses "[tier]" as parameters,
                # as it does for parametrized tests; --lf and node-id selection rely on it.
                name = f"{entry.id}[{tier}]"
                yield SproutItem.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", case=entry, tier=tier)


class BadCase(pytest.Collector):
    """Stands for one invalid case: collecting it reports the error, the file's other cases still
    collect."""

    def __init__(self, *, error: SuiteError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def collect(self) -> list[Any]:
        raise self.CollectError(str(self.error))


_MARKS: dict[str, Any] = {}  # tier -> its pytest mark, made once per process, not once per item


class SproutItem(pytest.Item):
    def __init__(self, *, case: Case, tier: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.tier = tier
        mark = _MARKS.get(tier)
        if mark is None:
            mark = _MARKS[tier] = getattr(pytest.mark, tier)
        self.add_marker(mark)
        self.extra_keyword_matches.update(case.tags)
        self.extra_keyword_matches.add(case.suite)

    def setup(self) -> None:
        reason = get_run(self.config).tier_unavailable(self.tier)
        if reason:
            pytest.skip(reason)

    def runtest(self) -> None:
        outcome = get_run(self.config).run_item(self.case, self.tier)
        # The row travels as compact JSON: xdist ships it as is, and --junitxml shows it readably
        # (junitxml writes str(value)); flat sprout.* properties carry the scores and verdicts.
        row = outcome.row.to_json()
        self.user_properties.append(("sprout", json.dumps(row, separators=(",", ":"), sort_keys=True)))
        self.user_properties.extend(junit_properties(row))
        if outcome.error:
            raise SystemFailure(outcome.error)
        if outcome.skip:
            pytest.skip(safe_text(outcome.skip))
        result = outcome.result
        assert result is not None  # an outcome without an error or a skip carries the tier's result
        if result.passed is False:
            raise SproutFailure(result.message)
        if result.passed is None:
            pytest.skip(safe_text(f"unscored: {result.note}"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (SproutFailure, SystemFailure)):
            return safe_text(str(excinfo.value))  # a question or answer's control characters escaped
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = None
        if self.case.source and self.case.source.rsplit(":", 1)[-1].isdigit():
            line = int(self.case.source.rsplit(":", 1)[1]) - 1
        return self.path, line, f"{self.case.id}[{self.tier}]"
