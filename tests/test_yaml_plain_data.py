"""The suite loader builds a YAML tree's data without the constructor's generic machinery
(yaml_lines.plain_data): the same data as the constructor for every kind of document a suite may
be, falling back to the constructor for merge keys, aliases and other tags."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from pytest_sprout.suites.yaml_lines import plain_data, plain_data_checked

REPO = Path(__file__).resolve().parent.parent
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def both(text: str) -> tuple[object, object]:
    slow, fast = LOADER(text), LOADER(text)
    try:
        expected = slow.construct_document(slow.get_single_node())
        got = plain_data(fast.get_single_node(), fast)
    finally:
        slow.dispose()
        fast.dispose()
    return got, expected


@pytest.mark.parametrize("text", [
    "cases:\n  - {id: a, question: 'q?', expected_facts: [x, y], tags: []}\n",
    "n: 3\nf: 1.5\nb: yes\nz: null\nd: 2024-01-02\nt: 2024-01-02 10:00:00\ns: '3'\nh: 0x1f\n",
    "base: &b {tiers: [groundedness]}\ncases:\n  - <<: *b\n    id: a\n",
    "a: &x [1, 2]\nb: *x\n",
    "s: !!binary aGVsbG8=\nset: !!set {a, b}\n",
    "1: one\n2.5: two\ntrue: three\n",
    "dup: 1\ndup: 2\n",
])
def test_the_same_data_as_the_constructor(text: str) -> None:
    got, expected = both(text)
    assert got == expected and type(got) is type(expected)


def test_an_unhashable_key_is_the_constructors_error() -> None:
    loader = LOADER("? [1, 2]\n: v\n")
    with pytest.raises(yaml.constructor.ConstructorError, match="found unhashable key"):
        plain_data(loader.get_single_node(), loader)
    loader.dispose()


def test_the_demo_suites_load_the_same() -> None:
    for path in sorted((REPO / "suites").glob("*.yaml")):
        got, expected = both(path.read_text(encoding="utf-8"))
        assert got == expected, path.name


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(JSONISH)
@settings(max_examples=150, deadline=None)
def test_any_plain_document_round_trips(value: object) -> None:
    got, expected = both(yaml.safe_dump({"data": value}))
    assert got == expected


@pytest.mark.parametrize(("text", "twice"), [
    ("a: 1\nb: {c: 2, d: [3, {e: 4}]}\n", False),
    ("a: 1\nb: {c: 2, c: 3}\n", True),  # a key written twice deep down
    ("1: one\n'1': two\n", True),  # not a repeated dict key, but a repeated key in the file
    ("a: &x {b: 1}\nc: *x\n", True),  # built by the constructor: not known, so looked for
])
def test_whether_a_key_may_be_written_twice(text: str, twice: bool) -> None:
    loader = LOADER(text)
    try:
        data, maybe = plain_data_checked(loader.get_single_node(), loader)
    finally:
        loader.dispose()
    assert maybe is twice
    assert data == yaml.safe_load(text)
