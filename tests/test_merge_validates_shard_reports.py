"""python -m pytest_sprout.merge reads each shard report field by field, with the very checks
--sprout-compare reads a baseline with (core/report_check.py): a hand-edited shard report is a
usage error naming the file and the field, never a hang, an INTERNALERROR, a traceback or rows
counted that the suites do not have (repro 37); and an empty shard (more shards than cases) does
not block the merge (repro 36)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import PASSING_SUITE, make_project
from pytest_sprout.cli.merge import MergeError, read_report
from pytest_sprout.controller.gates import load_baseline

RUN = ("-p", "no:cacheprovider", "-p", "no:deepeval")
ITEM = {"nodeid": "suites/care.yaml::c1[groundedness]", "case_id": "c1", "suite": "care", "tier": "groundedness",
        "outcome": "passed", "metrics": {"grounded": [True]}, "sentences": []}


def shard_report(tmp_path: Path, name: str = "s.json", shard: Any = None, **item: Any) -> Path:
    report = {"plugin": "pytest-sprout", "schema": 1, "version": "0", "dataset_hash": "d", "metrics": [],
              "shard": shard if shard is not None else {"index": 1, "count": 2, "judging": {}},
              "items": [{**ITEM, **item}]}
    path = tmp_path / name
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


@pytest.mark.parametrize("shard, message", [
    ({"index": 1, "count": 10**8}, "field 'shard' says shard 1 of 100000000: the index must be from 1 to the count, "
                                   "and the count from 1 to 999999"),
    ({"index": 3, "count": 2}, "field 'shard' says shard 3 of 2"),
    ({"index": 0, "count": 2}, "field 'shard' says shard 0 of 2"),
    ({"index": True, "count": 2}, "field 'shard' says shard True of 2"),
    ({"index": 1, "count": 2, "judging": "x"}, "field 'shard.judging' must be an object"),
])
def test_a_shard_index_or_count_out_of_range_is_refused(tmp_path: Path, shard: Any, message: str) -> None:
    """Regression: repro 37 (37-merge-trusts-hand-edited-shards)."""
    with pytest.raises(MergeError, match="s.json: ") as info:
        read_report(str(shard_report(tmp_path, shard=shard)))
    assert message in str(info.value)


@pytest.mark.parametrize("item, message", [
    ({"metrics": {"grounded": "yes"}}, "items[0] field 'metrics.grounded' must be a list of true/false"),
    ({"metrics": {"grounded": [float("inf")]}}, "items[0] field 'metrics.grounded' must be a list"),
    ({"reasons": ["x"]}, "items[0] field 'reasons[0]' must be an object"),
    ({"reasons": "x"}, "items[0] field 'reasons' must be a list or null"),
    ({"sentences": [1]}, "items[0] field 'sentences[0]' must be an object"),
    ({"outcome": "great"}, "items[0] field 'outcome' must be one of passed, failed, error, skipped, unscored"),
    ({"nodeid": 7}, "items[0] field 'nodeid' must be a string"),
    ({"tier": None}, "items[0] field 'tier' is missing or not a string"),
    ({"answer": []}, "items[0] field 'answer' must be an object or null"),
    ({"known": "yes"}, "items[0] field 'known' must be true, false or null"),
])
def test_a_hand_edited_row_is_refused_naming_file_and_field(tmp_path: Path, item: dict[str, Any], message: str) -> None:
    """Regression: repro 37 (37-merge-trusts-hand-edited-shards)."""
    path = shard_report(tmp_path, **item)
    with pytest.raises(MergeError) as info:
        read_report(str(path))
    assert str(info.value).startswith(f"{path}: {message}")
    if "must be a list of" in message:  # the same file read as a baseline: the same words
        with pytest.raises(pytest.UsageError, match="metrics.grounded' must be a list of true/false"):
            load_baseline(path, "s.json")


def test_a_report_of_a_newer_schema_is_refused_by_both_readers(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"plugin": "pytest-sprout", "schema": 99, "metrics": [], "items": [],
                                "shard": {"index": 1, "count": 1}}), encoding="utf-8")
    with pytest.raises(MergeError, match="report schema 99 is newer than this pytest-sprout reads"):
        read_report(str(path))
    with pytest.raises(pytest.UsageError, match="report schema 99 is newer than this pytest-sprout reads"):
        load_baseline(path, "s.json")


def merge(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pytest_sprout.merge", *args, "--sprout-report=m.json", "-p", "no:deepeval")


def test_shards_edited_by_hand_never_hang_crash_or_count(pytester: pytest.Pytester) -> None:
    """Regression: repro 37 (37-merge-trusts-hand-edited-shards)."""
    make_project(pytester, PASSING_SUITE)
    for k in (1, 2, 3):
        pytester.runpytest(*RUN, f"--sprout-shard={k}/3", f"--sprout-report=s{k}.json")
    reports = {k: json.loads((pytester.path / f"s{k}.json").read_text()) for k in (1, 2, 3)}

    def edited(name: str, k: int, change: Any) -> str:
        data = json.loads(json.dumps(reports[k]))
        change(data)
        (pytester.path / name).write_text(json.dumps(data), encoding="utf-8")
        return name

    huge = [edited(f"u{k}.json", k, lambda d: d["shard"].update(count=10**8)) for k in (1, 2, 3)]
    result = merge(pytester, *huge)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["merge: error: u1.json: field 'shard' says shard 1 of 100000000*"])
    ghost = edited("g1.json", 1, lambda d: d["items"].append({**d["items"][0], "case_id": "ghost",
                                                                "nodeid": "suites/care.yaml::ghost[groundedness]"}))
    result = merge(pytester, ghost, "s2.json", "s3.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("ERROR: merge: g1.json: items[1] field 'nodeid' is 'suites/care.yaml::ghost[groundedness]', not an item "
            "of the suites here") in result.stderr.str()
    twice = edited("t1.json", 1, lambda d: d["items"].append(d["items"][0]))
    result = merge(pytester, twice, "s2.json", "s3.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: merge: t1.json: items[1] suites/care.yaml::" in result.stderr.str()
    assert "is given twice" in result.stderr.str()
    assert not (pytester.path / "m.json").exists()
    assert "Traceback" not in result.stderr.str() and "INTERNALERROR" not in result.stdout.str()


def test_an_empty_shard_does_not_block_the_merge(pytester: pytest.Pytester) -> None:
    """Regression: repro 36 (36-empty-shard-blocks-merge)."""
    make_project(pytester, PASSING_SUITE)  # 3 cases, 4 shards: one shard has none
    statuses = [pytester.runpytest(*RUN, f"--sprout-shard={k}/4", f"--sprout-report=s{k}.json").ret for k in (1, 2, 3, 4)]
    empty = [k for k in (1, 2, 3, 4) if not json.loads((pytester.path / f"s{k}.json").read_text())["items"]]
    assert len(empty) == 1 and statuses[empty[0] - 1] == pytest.ExitCode.NO_TESTS_COLLECTED
    assert json.loads((pytester.path / f"s{empty[0]}.json").read_text())["system"] is None
    result = merge(pytester, "s1.json", "s2.json", "s3.json", "s4.json")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    merged = json.loads((pytester.path / "m.json").read_text())
    assert (merged["selected"], merged["total"], merged["partial"], merged["complete"]) == (3, 3, False, True)
    assert merged["system"] == {"name": "lookup", "version": "1"}
