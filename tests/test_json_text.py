"""reports/safe_write.dumps: the text of every JSON file the plugin writes is byte for byte
``json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)``, whatever the value."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from pytest_sprout.reports.safe_write import dumps


def reference(data: object) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    | st.tuples(inner, inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_same_text_as_the_standard_encoder(data: object) -> None:
    assert dumps(data) == reference(data)


def test_a_report_row_and_the_odd_values() -> None:
    row = {"nodeid": "suites/a.yaml::c-1[groundedness]", "metrics": {"grounded": [True, None, 0.5]},
           "sentences": [{"text": "Café \u2028 \"q\" \\ \x01", "citations": [], "score": math.nan}],
           "empty": {}, "none": [], "big": 10**30, "neg": -0.0, "inf": [math.inf, -math.inf]}
    assert dumps(row) == reference(row)


def test_what_it_leaves_to_the_standard_encoder() -> None:
    assert dumps({2: "a", 1: [True]}) == reference({2: "a", 1: [True]})  # keys that are not strings
    nested: list[object] = []
    for _ in range(300):  # deeper than the fast encoder goes
        nested = [nested]
    assert dumps(nested) == reference(nested)
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(cycle)
    with pytest.raises(TypeError):
        dumps({"when": object()})
