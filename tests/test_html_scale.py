"""The HTML report of a large run is a bounded summary page: every section but the item list, and
only the first items that did not pass; written as a stream, from a store or from a report read
back. (`bench/bench_concurrency.py scale --sizes 100000 --no-plain-run` measures its size and memory
at 100,000 items.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_sprout.controller.rows import RowStore
from pytest_sprout.core.row import Row
from pytest_sprout.reports.html import large
from pytest_sprout.reports.html.large import write_any_html as write_html

from helpers import facts_project
from test_html import body_attrs, chromium, needs_chromium


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


@pytest.mark.usefixtures("small_limits")
def test_the_page_says_how_many_items_that_did_not_pass_it_leaves_out_per_suite(tmp_path: Path) -> None:
    made = rows(300)
    report = {"plugin": "pytest-sprout", "version": "0", "dataset_hash": None, "metrics": [],
              "items": [row.to_json() for row in made]}
    write_html(tmp_path / "r.html", report)
    page = (tmp_path / "r.html").read_text()
    failing = sorted((r.nodeid, r.suite) for r in made if r.outcome != "passed")
    assert f'<b id="not-shown">{len(failing) - 10}</b> items that did not pass are not shown here' in page
    assert f"nor the {300 - len(failing)} other items" in page and "--sprout-report" in page and "--sprout-md" in page
    for suite in ("care", "pets"):
        total = sum(s == suite for _, s in failing)
        listed = sum(s == suite for _, s in failing[:10])
        assert f"<tr><td>{suite}</td><td>{total}</td><td>{listed}</td></tr>" in page


@pytest.mark.usefixtures("small_limits")
def test_the_summary_page_holds_no_more_as_the_run_grows() -> None:
    """Writing the page keeps only the items it shows, never every row parsed (about 1.8 KB a row
    here) nor every row's HTML (about 0.9 KB): what it allocates grows by under 200 bytes a row
    (about 80 measured: the per-suite table's tally of each row's values, and the sorted index)."""
    import tracemalloc

    class Sink:  # a file that keeps nothing written to it
        def write(self, text: str) -> int:
            return len(text)

    def peak(n: int) -> int:
        store = RowStore()
        for row in rows(n):
            store.add(row, json.dumps(row.to_json(), separators=(",", ":"), sort_keys=True))
        report = {"plugin": "pytest-sprout", "version": "0", "dataset_hash": None, "metrics": [], "items": store}
        sink = Sink()
        tracemalloc.start()
        try:
            large.write_summary_page(sink, report)  # type: ignore[arg-type]
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, big = peak(1_000), peak(8_000)
    assert big - small < 7_000 * 200


def summary_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """36 cases, 12 failing, through the plugin with a summary page above 20 items showing 5."""
    monkeypatch.setattr(large, "LARGE", 20)
    monkeypatch.setattr(large, "SHOWN", 5)
    monkeypatch.setenv("SPROUT_TEST_BROKEN", ",".join(str(i) for i in range(0, 36, 3)))
    facts_project(pytester, 36)
    result = pytester.runpytest("-p", "no:deepeval", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin",
                                "-m", "groundedness", "--sprout-html=out/report.html")
    result.assert_outcomes(passed=24, failed=12)
    return pytester.path / "out" / "report.html"


def test_the_plugin_writes_the_summary_page_with_its_counts(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    page = summary_project(pytester, monkeypatch).read_text()
    assert "Shown below: 5 of the 12 items that did not pass" in page and "nor the 24 other items" in page
    assert '<b id="not-shown">7</b>' in page and "<tr><td>facts</td><td>12</td><td>5</td></tr>" in page
    assert len(re.findall(r'<tr class="item" id="i\d+"', page)) == 5


@needs_chromium
def test_the_summary_page_works_in_headless_chromium(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    url = summary_project(pytester, monkeypatch).as_uri()
    attrs = body_attrs(chromium(tmp_path, url, "--dump-dom"))
    assert attrs["data-sprout-ready"] == "1" and attrs["data-shown"] == "5" and attrs["data-plots-drawn"] == "1"
    dom = chromium(tmp_path, url + "#expand=all", "--dump-dom")
    details = re.findall(r'<tr class="detail"[^>]*>', dom)
    assert len(details) == 5 and not any("hidden" in d for d in details)
