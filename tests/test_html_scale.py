"""The HTML report of a large run is a bounded summary page: every section but the item list, and
only the first items that did not pass; written as a stream, from a store or from a report read
back. (bench/bench_scale.py measures its size and memory at 100,000 items.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_sprout.controller.rows import RowStore
from pytest_sprout.core.row import Row
from pytest_sprout.reports.html import large
from pytest_sprout.reports.html.large import write_any_html as write_html


def rows(n: int) -> list[Row]:
    out = []
    for i in range(n):
        outcome = "failed" if i % 7 == 0 else "error" if i % 11 == 0 else "passed"
        row = Row(f"c{i:05d}", "care" if i % 2 else "pets", "groundedness", metrics={"grounded": [outcome == "passed"]},
                  sentences=[{"text": f"sentence {i}", "supported": outcome == "passed", "citations": ["1"]}],
                  nodeid=f"suites/a.yaml::c{i:05d}[groundedness]", outcome=outcome, question=f"question {i}?")
        if outcome == "error":
            row.error = "the system raised"
            row.metrics = {}
        out.append(row)
    return out


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large, "LARGE", 100)
    monkeypatch.setattr(large, "SHOWN", 10)


@pytest.mark.usefixtures("small_limits")
@pytest.mark.parametrize("as_store", [True, False])
def test_above_the_limit_the_page_lists_only_the_first_items_that_did_not_pass(tmp_path: Path, as_store: bool) -> None:
    made = rows(300)
    store = RowStore()
    for row in made:
        store.add(row)
    items = store if as_store else [row.to_json() for row in made]
    report = {"plugin": "pytest-sprout", "version": "0", "dataset_hash": "ab" * 32, "system": {"name": "s"},
              "metrics": [], "items": items, "gates": {"min": []}}
    write_html(tmp_path / "r.html", report)
    page = (tmp_path / "r.html").read_text()
    failing = sorted(r.nodeid for r in made if r.outcome != "passed")
    listed = re.findall(r'<tr class="item" id="i\d+"', page)
    assert len(listed) == 10
    for nodeid in failing[:10]:
        assert f"<code>{nodeid}</code>" in page
    assert f"<code>{failing[10]}</code>" not in page
    assert f"Shown below: 10 of the {len(failing)} items that did not pass" in page
    counts = f"300 items: {sum(r.outcome == 'failed' for r in made)} failed"
    assert counts in page and 'id="suites"' in page and page.rstrip().endswith("</html>")


@pytest.mark.usefixtures("small_limits")
def test_at_the_limit_the_page_still_lists_every_item(tmp_path: Path) -> None:
    report = {"plugin": "pytest-sprout", "version": "0", "dataset_hash": None, "metrics": [],
              "items": [row.to_json() for row in rows(100)]}
    write_html(tmp_path / "r.html", report)
    page = (tmp_path / "r.html").read_text()
    assert len(re.findall(r'<tr class="item" id="i\d+"', page)) == 100 and 'id="summary-page"' not in page
