"""Issue 11, point 15: the HTML report's script survives a malformed URL fragment, and the
Markdown report makes HTML in metric names (which may come from a baseline) inert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import PASSING_SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.reports.html.page import SCRIPT, render_html
from pytest_sprout.reports.markdown import format_markdown
from pytest_sprout.core.stats import Tally
from test_html import body_attrs, chromium, hostile_report, needs_chromium

HOSTILE_NAME = '<img src=x onerror=alert(1)>'


def test_script_guards_decoding_the_fragment() -> None:
    assert "try { value = decodeURIComponent(" in SCRIPT


@needs_chromium
@pytest.mark.parametrize("fragment", ["#q=%E0%A4%A", "#tier=%", "#outcome=%ZZ&tier=groundedness", "#%E0%A4%A=1"])
def test_malformed_fragment_leaves_the_page_working(tmp_path: Path, fragment: str) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(hostile_report()), encoding="utf-8")
    attrs = body_attrs(chromium(tmp_path, page.as_uri() + fragment, "--dump-dom"))
    assert attrs["data-sprout-ready"] == "1"  # the script ran to the end
    assert attrs["data-shown"] == "4"  # the bad part was ignored: every row is shown


def test_markdown_escapes_html_in_metric_names() -> None:
    tally = Tally()
    tally.extend("groundedness", HOSTILE_NAME, [True, False])
    text = format_markdown(tally.rows())
    assert HOSTILE_NAME not in text and "&lt;img src=x onerror=alert\\(1\\)>" in text


def test_markdown_from_a_hostile_baseline_is_inert(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    assert pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=old.json").ret == 0
    old = json.loads((pytester.path / "old.json").read_text())
    old["metrics"].append({**old["metrics"][0], "metric": HOSTILE_NAME})
    old["metrics"].append({**old["metrics"][0], "tier": "<script>alert(2)</script>"})
    (pytester.path / "old.json").write_text(json.dumps(old))
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-compare=old.json", "--sprout-md=out.md")
    assert result.ret == 0
    text = (pytester.path / "out.md").read_text()
    assert "Compared with" in text and "&lt;img src=x onerror=alert\\(1\\)>" in text
    assert "<img" not in text and "<script>" not in text
