"""The dataset hash and the snapshot file, as plain Python: hypothesis properties over generated
YAML suites, the diff, the artifact registry and check/update."""

from __future__ import annotations

import fnmatch
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from pytest_sprout.suites.loader import load_suite
from pytest_sprout.core.model import TIERS, Case
from pytest_sprout.core.identity import SnapshotError, dataset_hash, diff, fingerprints
from pytest_sprout.snapshot.file import Snapshot, artifact_problems, check, read_artifact, update

# --- generated suites -------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
TEXT = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éü日?!,.'\"-:#%", min_size=1, max_size=10),
    min_size=1, max_size=5,
).map(" ".join)


@st.composite
def case_dicts(draw: Any) -> list[dict[str, Any]]:
    """Cases as they would be written in a suite (ids unique, values already normalised)."""
    ids = draw(st.lists(st.from_regex(r"[a-z][a-z0-9_.-]{0,10}", fullmatch=True), min_size=1, max_size=6, unique=True))
    cases = []
    for case_id in ids:
        expect = draw(st.sampled_from(["answer", "refuse"]))
        cases.append({
            "id": case_id,
            "question": draw(TEXT),
            "expect": expect,
            "expected_facts": [] if expect == "refuse" else draw(st.lists(TEXT, max_size=3)),
            "tiers": draw(st.lists(st.sampled_from(TIERS), min_size=1, max_size=4, unique=True)),
            "tags": draw(st.lists(WORD, max_size=3, unique=True)),
        })
    return cases


def render(cases: list[dict[str, Any]], data: Any) -> str:
    """One of the many ways to write the same suite: key and case order, block or flow style,
    defaults instead of repeated tiers, padded questions, comments."""
    order = data.draw(st.permutations(range(len(cases))))
    common_tiers = all(c["tiers"] == cases[0]["tiers"] for c in cases)
    use_defaults = common_tiers and data.draw(st.booleans())
    rows = []
    for i in order:
        case = dict(cases[i])
        if use_defaults:
            del case["tiers"]
        if case["expect"] == "answer" and data.draw(st.booleans()):
            del case["expect"]  # the default
        for key in ("expected_facts", "tags"):
            if not case[key] and data.draw(st.booleans()):
                del case[key]
        if data.draw(st.booleans()):
            case["question"] = "  " + case["question"] + " "
        keys = data.draw(st.permutations(list(case)))
        rows.append({k: case[k] for k in keys})
    doc: dict[str, Any] = {"suite": "generated", "cases": rows}
    if use_defaults:
        doc["defaults"] = {"tiers": cases[0]["tiers"]}
    doc = {k: doc[k] for k in data.draw(st.permutations(list(doc)))}
    flow = data.draw(st.sampled_from([False, None, True]))
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=data.draw(st.booleans()),
                          default_flow_style=flow, width=10**6)
    lines = text.splitlines()
    if flow is not True:  # whole-line comments anywhere between lines of a block document
        for _ in range(data.draw(st.integers(0, 3))):
            lines.insert(data.draw(st.integers(0, len(lines))), "# a comment: with [1] and -")
    else:
        lines.append("# trailing comment")
    return "\n".join(["# header comment", *lines]) + "\n"


def load_text(text: str) -> list[Case]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "suite.yaml")
        path.write_text(text, encoding="utf-8")
        suite = load_suite(path)
    assert not suite.errors, [str(e) for e in suite.errors]
    return suite.cases


PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(case_dicts(), st.data())
def test_reformatting_never_changes_the_hash(cases: list[dict[str, Any]], data: Any) -> None:
    first, second = load_text(render(cases, data)), load_text(render(cases, data))
    assert dataset_hash(first) == dataset_hash(second)
    assert not diff(fingerprints(first), fingerprints(second))


def mutate(case: dict[str, Any], name: str, others: set[str]) -> dict[str, Any]:
    """The case with one field that matters changed."""
    case = dict(case)
    if name == "id":
        case["id"] = next(f"{case['id']}-{i}" for i in range(10) if f"{case['id']}-{i}" not in others)
    elif name == "question":
        case["question"] += " again"
    elif name == "expect":
        case["expect"] = "refuse" if case["expect"] == "answer" else "answer"
        case["expected_facts"] = []
    elif name == "expected_facts":  # a refusal cannot expect facts: it becomes an answer
        case["expected_facts"] = [*case["expected_facts"], "one more fact"]
        case["expect"] = "answer"
    elif name == "tiers":
        rest = [t for t in TIERS if t not in case["tiers"]]
        case["tiers"] = case["tiers"][1:] if not rest else [*case["tiers"], rest[0]]
    elif name == "tags":
        case["tags"] = [*case["tags"], "zz-new-tag"]
    return case


@PROPERTY
@given(case_dicts(), st.data(), st.sampled_from(["id", "question", "expect", "expected_facts", "tiers", "tags"]))
def test_any_field_that_matters_changes_the_hash(cases: list[dict[str, Any]], data: Any, name: str) -> None:
    index = data.draw(st.integers(0, len(cases) - 1))
    changed = list(cases)
    changed[index] = mutate(cases[index], name, {c["id"] for c in cases})
    before, after = load_text(render(cases, data)), load_text(render(changed, data))
    assert dataset_hash(before) != dataset_hash(after)
    found = diff(fingerprints(before), fingerprints(after))
    if name == "id":
        assert (found.removed, found.added, found.changed) == ([cases[index]["id"]], [changed[index]["id"]], {})
    else:  # expect and expected_facts may change together (a refusal has no facts)
        fields = set(found.changed[cases[index]["id"]])
        assert name in fields and fields <= {name, "expect", "expected_facts"}
        assert list(found.changed) == [cases[index]["id"]] and not found.added and not found.removed


def test_suite_name_is_part_of_the_identity() -> None:
    text = "suite: care\ncases:\n  - id: a\n    question: Q?\n"
    assert dataset_hash(load_text(text)) != dataset_hash(load_text(text.replace("care", "home")))


# --- diff and the snapshot file -----------------------------------------------------------------


def make_case(case_id: str, question: str = "Q?", **kw: Any) -> Case:
    return Case(id=case_id, suite=kw.pop("suite", "s"), question=question, **kw)


def test_diff_names_added_removed_and_changed_fields() -> None:
    old = fingerprints([make_case("a"), make_case("b"), make_case("c", tags=("x",))])
    new = fingerprints([make_case("a"), make_case("c", "Other?", tags=("y",)), make_case("d")])
    found = diff(old, new)
    assert (found.added, found.removed, found.changed) == (["d"], ["b"], {"c": ["question", "tags"]})
    assert found.lines() == ["  added (1): d", "  removed (1): b", "  changed (1): c (question, tags)"]


def test_long_lists_are_shortened() -> None:
    found = diff({}, fingerprints([make_case(f"c{i:02d}") for i in range(25)]))
    assert found.lines()[0].endswith("c19, ... and 5 more")


def test_snapshot_round_trip_and_counts(tmp_path: Path) -> None:
    cases = [make_case("a"), make_case("b", suite="t"), make_case("c", suite="t")]
    snap = Snapshot.build(cases, "9.9")
    snap.write(tmp_path / "snap.json")
    data = json.loads((tmp_path / "snap.json").read_text())
    assert data["dataset_hash"] == dataset_hash(cases) and data["suites"] == {"s": 1, "t": 2}
    assert data["case_count"] == 3 and data["plugin_version"] == "9.9"
    assert Snapshot.load(tmp_path / "snap.json", "snap.json") == snap


@pytest.mark.parametrize("content, message", [
    ("{not json", "snap.json: not valid JSON (line 1, column 2*"),
    ("[]", "snap.json: not a pytest-sprout snapshot*"),
    ('{"pytest_sprout": "snapshot", "format": 7}', "snap.json: snapshot format 7 is not supported*"),
    ('{"pytest_sprout": "snapshot", "format": 1, "suites": {}, "artifacts": {}, "cases": {}}',
     "snap.json: field 'dataset_hash' is missing"),
    ('{"pytest_sprout": "snapshot", "format": 1, "dataset_hash": 3, "suites": {}, "artifacts": {}, "cases": {}}',
     "snap.json: field 'dataset_hash' must be str, got int"),
    ('{"pytest_sprout": "snapshot", "format": 1, "dataset_hash": "h", "suites": {}, "cases": {},'
     ' "artifacts": {"g.json": {"kind": "golden", "sha256": "x"}}}',
     "snap.json: field 'artifacts.g.json.dataset_hash' is missing"),
    ('{"pytest_sprout": "snapshot", "format": 1, "dataset_hash": "h", "suites": {"s": "2"}, "cases": {}, "artifacts": {}}',
     "snap.json: field 'suites' must map suite names to case counts*"),
])
def test_broken_snapshot_names_file_and_field(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "snap.json").write_text(content)
    with pytest.raises(SnapshotError) as info:
        Snapshot.load(tmp_path / "snap.json", "snap.json")
    assert fnmatch.fnmatchcase(str(info.value), message), str(info.value)


# --- artifacts, check and update ----------------------------------------------------------------


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_check_passes_then_names_every_kind_of_problem(tmp_path: Path) -> None:
    cases = [make_case("a"), make_case("b")]
    h = dataset_hash(cases)
    golden = write(tmp_path / "golden.json", {"dataset_hash": h})
    (tmp_path / "out").mkdir()
    report = write(tmp_path / "out" / "r.json", {"dataset_hash": h, "golden": {"sha256": read_artifact(golden, "golden", tmp_path).sha256}})
    snap_path = tmp_path / "sprout.snapshot.json"
    _, lines = update(snap_path, "sprout.snapshot.json", cases, tmp_path, [(golden, "golden"), (report, "report")], "1")
    assert lines == ["sprout.snapshot.json: created (dataset %s, 2 cases in 1 suite)" % h[:12],
                     "  registered golden.json (golden set)", "  registered out/r.json (report)"]
    assert check(snap_path, "sprout.snapshot.json", cases, tmp_path).ok

    golden.write_text(golden.read_text() + " ")  # a hand edit
    result = check(snap_path, "sprout.snapshot.json", cases + [make_case("c")], tmp_path)
    assert not result.ok and result.diff.added == ["c"]
    text = "\n".join(result.lines())
    assert "golden.json (golden set): edited since it was registered" in text
    assert f"out/r.json (report): stale, built from dataset {h[:12]}" in text
    assert check(snap_path, "x", cases, tmp_path, exempt=["golden.json"]).ok


def test_partial_rebuild_is_a_broken_chain(tmp_path: Path) -> None:
    cases = [make_case("a")]
    h = dataset_hash(cases)
    golden = write(tmp_path / "golden.json", {"dataset_hash": h, "answers": 1})
    report = write(tmp_path / "r.json", {"dataset_hash": h, "golden": {"sha256": "0" * 64}})
    live = write(tmp_path / "live.json", {"dataset_hash": h})
    arts = [read_artifact(p, k, tmp_path) for p, k in ((golden, "golden"), (report, "report"), (live, "report"))]
    problems = artifact_problems(arts, tmp_path, h)
    assert problems == [
        "r.json (report): built from golden set 000000000000, not from the registered golden set "
        "(a partial rebuild: re-run the whole chain, or none of it)",
        "live.json (report): built from a live run, not from the registered golden set "
        "(a partial rebuild: re-run the whole chain, or none of it)",
    ]
    assert artifact_problems(arts[2:], tmp_path, h) == []  # reports alone need no golden set


def test_update_keeps_registry_drops_missing_and_reports_changes(tmp_path: Path) -> None:
    cases = [make_case("a"), make_case("b")]
    golden = write(tmp_path / "golden.json", {"dataset_hash": dataset_hash(cases)})
    path = tmp_path / "snap.json"
    update(path, "snap.json", cases, tmp_path, [(golden, "golden")], "1")
    before = path.read_bytes()
    _, lines = update(path, "snap.json", cases, tmp_path, [], "1")
    assert lines == ["snap.json: unchanged (dataset %s)" % dataset_hash(cases)[:12]] and path.read_bytes() == before
    golden.unlink()
    new_cases = [make_case("a", "New?"), make_case("c")]
    snap, lines = update(path, "snap.json", new_cases, tmp_path, [], "1")
    assert lines[1:] == ["  added (1): c", "  removed (1): b", "  changed (1): a (question)",
                         "  unregistered golden.json (golden set): the file is gone"]
    assert snap.artifacts == {} and snap.dataset_hash == dataset_hash(new_cases)


def test_update_refuses_to_overwrite_a_broken_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text('{"pytest_sprout": "snapshot"')
    with pytest.raises(SnapshotError, match="snap.json: not valid JSON"):
        update(path, "snap.json", [make_case("a")], tmp_path, [], "1")
    assert path.read_text() == '{"pytest_sprout": "snapshot"'


def test_artifact_without_dataset_hash_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "r.json", {"items": []})
    with pytest.raises(SnapshotError, match="r.json: field 'dataset_hash' is missing"):
        read_artifact(tmp_path / "r.json", "report", tmp_path)
