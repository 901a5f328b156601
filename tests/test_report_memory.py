"""A large run holds no more than it must: the JSON report is streamed item by item and stays byte
for byte what one json.dumps of the whole report writes; the controller keeps rows compact and
parses them again only for the reports; an answer is dropped once every item that uses it ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.reports.json_report import write_report_json
from pytest_sprout.reports.safe_write import write_json
from pytest_sprout.core.row import Row
from pytest_sprout.controller.rows import RowStore

from helpers import SYSTEM_CONFTEST, make_project

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)
rows = st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=4), max_size=4)
headers = st.dictionaries(st.text(max_size=6).filter(lambda k: k != "items"), json_values, max_size=5)


@settings(max_examples=150, deadline=None)
@given(header=headers, items=rows)
def test_the_streamed_report_is_byte_for_byte_the_whole_dump(tmp_path_factory: pytest.TempPathFactory,
                                                              header: dict, items: list) -> None:
    folder = tmp_path_factory.mktemp("streamed")
    write_json(folder / "whole.json", {**header, "items": items})
    write_report_json(folder / "streamed.json", header, iter(items))
    assert (folder / "streamed.json").read_bytes() == (folder / "whole.json").read_bytes()


def test_a_row_kept_as_its_json_comes_back_as_the_controller_made_it() -> None:
    store = RowStore()
    sent = {"case_id": "b", "suite": "s", "tier": "groundedness", "metrics": {"grounded": [True]},
            "golden": {"answer": "x"}, "sentences": [{"text": "s", "supported": True}], "unscored": True}
    raw = json.dumps(sent, separators=(",", ":"), sort_keys=True)
    row = Row.from_json(json.loads(raw))
    row.golden, row.nodeid, row.outcome = None, "s.yaml::b[groundedness]", "unscored"
    store.add(row, raw)
    error = Row("a", "s", "groundedness", nodeid="s.yaml::a[groundedness]", outcome="error", error="boom")
    store.add(error)
    assert list(store) == [row, error]
    assert [r.nodeid for r in store.in_order()] == ["s.yaml::a[groundedness]", "s.yaml::b[groundedness]"]
    assert list(store.of_outcome("error")) == [error]
    assert store.outcomes == {"unscored": 1, "error": 1}
    assert store.errors == [("s.yaml::a[groundedness]", "boom")]
    assert store.unscored and not store.mutated and store.sentence_tiers == {"groundedness"}
    assert "golden" not in next(iter(store)).to_json()


HELD = '''
import pytest
from pytest_sprout.session import get_session

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    source = get_session(session.config).run._answers
    with open("held.txt", "w") as handle:
        handle.write(f"{len(source._done)} {len(CALLS)} {len(set(CALLS))}")
'''


def held(pytester: pytest.Pytester) -> tuple[int, int, int]:
    """Answers still held at the end of the run; system calls; distinct questions asked."""
    held, calls, distinct = Path(pytester.path, "held.txt").read_text().split()
    return int(held), int(calls), int(distinct)


def test_an_answer_is_dropped_once_its_items_ran_and_asked_once(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest=SYSTEM_CONFTEST + HELD)
    result = pytester.runpytest("-p", "no:randomly", "--sprout-concurrency=1", "--sprout-report=r.json")
    result.assert_outcomes(passed=3, failed=1)
    assert held(pytester) == (0, 4, 4)
    assert len(json.loads(Path(pytester.path, "r.json").read_text())["items"]) == 4


def test_answers_stay_when_a_test_uses_the_golden_fixture(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest=SYSTEM_CONFTEST + HELD)
    pytester.makepyfile(test_uses_the_golden_fixture="""
        def test_zz_golden_after_the_items(sprout_golden):
            assert len(sprout_golden) == 4
    """)
    result = pytester.runpytest("-p", "no:randomly", "--sprout-concurrency=1")
    result.assert_outcomes(passed=4, failed=1)
    assert held(pytester) == (4, 4, 4)  # every answer kept for the fixture, none asked twice
