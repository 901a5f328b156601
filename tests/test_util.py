"""The small helpers every layer shares: one xdist-worker test, one short-hash formatter, one
Markdown cell escape, one UTF-8 cleaner."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, strategies as st

from pytest_sprout.core.util import clean_text, is_xdist_worker, md_cell, short_hash


def test_a_config_with_workerinput_is_an_xdist_worker() -> None:
    assert is_xdist_worker(SimpleNamespace(workerinput={"workerid": "gw0"}))
    assert not is_xdist_worker(SimpleNamespace(option=None))


def test_short_hash_is_the_first_twelve_characters_or_says_it_is_missing() -> None:
    digest = "0123456789abcdef" * 4
    assert short_hash(digest) == "0123456789ab"
    assert short_hash(None) == "unknown" and short_hash("", "none") == "none"


@given(st.text())
def test_a_markdown_cell_never_breaks_the_table_or_opens_html(text: str) -> None:
    cell = md_cell(text)
    assert "\n" not in cell and "<" not in cell and "`" not in cell
    # every pipe is escaped by an odd run of backslashes: it cannot end the cell
    for i, ch in enumerate(cell):
        if ch == "|":
            run = len(cell[:i]) - len(cell[:i].rstrip("\\"))
            assert run % 2 == 1


def test_clean_text_escapes_lone_surrogates_only() -> None:
    assert clean_text("ok \udcff") == "ok \\udcff" and clean_text("plain é") == "plain é"
    clean_text("x \ud800 y").encode("utf-8")
