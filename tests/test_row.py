"""The typed item row: the one contract between the worker and the controller round-trips every
row exactly, keeping absent keys absent and unknown keys as they came."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.core.row import Row, as_rows

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                      max_leaves=8)
OPTIONAL = ["nodeid", "outcome", "question", "expect", "expected_facts", "answer", "golden", "error", "note",
            "reasons", "extra", "unscored", "mutants", "mutants_skipped"]
rows = st.fixed_dictionaries(
    {"case_id": st.text(max_size=6), "suite": st.text(max_size=6), "tier": st.sampled_from(["groundedness", "alce"]),
     "metrics": st.dictionaries(st.text(max_size=4), st.lists(st.booleans() | st.none(), max_size=3), max_size=2),
     "sentences": st.lists(st.dictionaries(st.text(max_size=4), scalars, max_size=3), max_size=2)},
    optional={**dict.fromkeys(OPTIONAL, values), "future_key": values, "other": values},
)


@settings(max_examples=200, deadline=None)
@given(data=rows)
def test_a_row_round_trips_exactly(data: dict) -> None:
    row = Row.from_json(data)
    assert row.to_json() == data
    dumped = json.dumps(data, sort_keys=True)
    assert json.dumps(Row.from_json(json.loads(dumped)).to_json(), sort_keys=True) == dumped


def test_absent_and_null_are_told_apart() -> None:
    row = Row.from_json({"case_id": "c", "suite": "s", "tier": "groundedness", "metrics": {}, "sentences": [],
                         "expect": None})
    assert row.expect is None and row.error is None
    assert "error" not in row.to_json() and row.to_json()["expect"] is None


def test_report_items_read_back_become_rows() -> None:
    row = Row("c", "s", "groundedness", nodeid="s.yaml::c[groundedness]", outcome="passed")
    (same, parsed) = as_rows([row, row.to_json()])
    assert same is row and parsed == row
