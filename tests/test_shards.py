"""--sprout-shard=K/N and python -m pytest_sprout.merge: the split (balanced, every tier of a case
together, stable when cases are added), and shards of the demo suites merged into exactly the
report and terminal table of one run; the merge's refusals, each naming the files."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pytest_sprout.core.errors import SettingsError
from pytest_sprout.core.shard import assign, parse_shard

REPO = Path(__file__).resolve().parent.parent
RUN = ("-p", "no:deepeval", "-p", "no:cacheprovider", "-m", "groundedness")
KEYS = st.lists(st.text(min_size=1, max_size=12), min_size=0, max_size=200, unique=True)


@given(KEYS, st.integers(1, 9))
@settings(max_examples=60, deadline=None)
def test_every_unit_lands_in_one_shard_and_the_shards_are_balanced_to_within_one(keys: list[str], n: int) -> None:
    where = assign(keys, n)
    assert set(where) == set(keys) and all(1 <= s <= n for s in where.values())
    sizes = Counter(where.values())
    counts = [sizes.get(s, 0) for s in range(1, n + 1)]
    assert max(counts) - min(counts) <= 1
    assert assign(list(reversed(keys)), n) == where  # the order units come in does not matter


@given(st.lists(st.text(min_size=1, max_size=12), min_size=50, max_size=300, unique=True), st.integers(2, 8),
       st.text(min_size=13, max_size=20))
@settings(max_examples=40, deadline=None)
def test_adding_a_case_moves_at_most_a_few_others(keys: list[str], n: int, new: str) -> None:
    before, after = assign(keys, n), assign(keys + [new], n)
    moved = [k for k in keys if before[k] != after[k]]
    assert len(moved) <= n  # hash-based: not a shift of every case after the new one


def test_shard_values_are_checked() -> None:
    assert parse_shard(" 2/3 ") == (2, 3)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", ""):
        with pytest.raises(SettingsError, match="SPROUT_SHARD"):
            parse_shard(bad, "SPROUT_SHARD")


def demo(pytester: pytest.Pytester) -> None:
    shutil.copytree(REPO / "suites", pytester.path / "suites")
    shutil.copy(REPO / "conftest.py", pytester.path / "conftest.py")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def sprout_section(text: str) -> list[str]:
    """The terminal's sprout section: the table and what follows it, less the files written and
    the start-up hint (which plugins a process loaded)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "= sprout =" in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("=", "FAILED"))), len(lines))
    return [ln for ln in lines[start + 1:end] if not ln.startswith(("wrote ", "start-up:"))]


def merge(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pytest_sprout.merge", *args, "-p", "no:deepeval")


def test_three_shards_of_the_demo_merge_into_the_single_runs_report(pytester: pytest.Pytester) -> None:
    demo(pytester)
    single = pytester.runpytest(*RUN, "--sprout-mutate", "--sprout-report=single.json", "--sprout-min=groundedness.refusal=0.5")
    shards = [pytester.runpytest(*RUN, "--sprout-mutate", f"--sprout-shard={k}/3", f"--sprout-report=s{k}.json")
              for k in (1, 2, 3)]
    sizes = [json.loads((pytester.path / f"s{k}.json").read_text())["selected"] for k in (1, 2, 3)]
    assert max(sizes) - min(sizes) <= 3 and sum(sizes) == json.loads((pytester.path / "single.json").read_text())["selected"]
    assert all(json.loads((pytester.path / f"s{k}.json").read_text())["partial"] for k in (1, 2, 3))
    merged = merge(pytester, "s1.json", "s2.json", "s3.json", "--sprout-report=merged.json",
                   "--sprout-min=groundedness.refusal=0.5")
    assert merged.ret == single.ret == pytest.ExitCode.TESTS_FAILED
    one, many = (json.loads((pytester.path / name).read_text()) for name in ("single.json", "merged.json"))
    assert many == one  # items, metrics, mutation, gates: no field a run measures in time
    assert one["mutation"]["kill_rates"] and one["gates"]["min"]
    assert sprout_section(merged.stdout.str()) == sprout_section(single.stdout.str())
    assert all(s.ret == pytest.ExitCode.TESTS_FAILED for s in shards)


def shard_reports(pytester: pytest.Pytester) -> None:
    from helpers import PASSING_SUITE, make_project

    make_project(pytester, suite=PASSING_SUITE)
    for k in (1, 2, 3):
        pytester.runpytest(*RUN, f"--sprout-shard={k}/3", f"--sprout-report=s{k}.json").assert_outcomes(passed=1, deselected=2)


def test_a_missing_shard_is_refused_unless_allowed(pytester: pytest.Pytester) -> None:
    shard_reports(pytester)
    refused = merge(pytester, "s1.json", "s3.json", "--sprout-report=m.json")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*merge: shard 2/3 missing (no report given): the merged report would lack 1 of the "
                                  "dataset's 3 cases; pass --allow-partial*"])
    assert not (pytester.path / "m.json").exists()
    allowed = merge(pytester, "s1.json", "s3.json", "--allow-partial", "--sprout-report=m.json")
    assert allowed.ret == pytest.ExitCode.OK
    report = json.loads((pytester.path / "m.json").read_text())
    assert (report["partial"], report["selected"], report["total"]) == (True, 2, 3)
    whole = merge(pytester, "s1.json", "s2.json", "s3.json", "--sprout-report=m.json")
    assert whole.ret == pytest.ExitCode.OK and json.loads((pytester.path / "m.json").read_text())["partial"] is False


def test_a_shard_given_twice_or_a_case_in_two_shards_is_refused(pytester: pytest.Pytester) -> None:
    shard_reports(pytester)
    twice = merge(pytester, "s1.json", "s2.json", "s3.json", str(pytester.path / "s2.json"))
    assert twice.ret == pytest.ExitCode.USAGE_ERROR
    twice.stderr.fnmatch_lines(["merge: error: shard 2/3 is given twice: s2.json and */s2.json"])
    # s1's case under another shard number: the same case in two shards
    (pytester.path / "s1b.json").write_text((pytester.path / "s1.json").read_text().replace('"index": 1', '"index": 2'))
    both = merge(pytester, "s1.json", "s1b.json", "s3.json")
    both.stderr.fnmatch_lines(["merge: error: suites/care.yaml::* is in both s1.json and s1b.json: a case in two shards*"])


def test_mixed_datasets_settings_and_systems_are_refused(pytester: pytest.Pytester) -> None:
    shard_reports(pytester)
    for field, value, what in (("dataset_hash", "0" * 64, "dataset hashes"), ("system", {"name": "other"}, "systems"),
                               ("version", "0.0.1", "plugin versions")):
        data = json.loads((pytester.path / "s2.json").read_text())
        data[field] = value
        (pytester.path / "odd.json").write_text(json.dumps(data))
        result = merge(pytester, "s1.json", "odd.json", "s3.json")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"merge: error: s1.json and odd.json have different {what} (*"])
    data = json.loads((pytester.path / "s2.json").read_text())
    data["shard"]["judging"]["thresholds"] = {"groundedness.coverage": 0.9}
    (pytester.path / "odd.json").write_text(json.dumps(data))
    merge(pytester, "s1.json", "odd.json", "s3.json").stderr.fnmatch_lines([
        "merge: error: s1.json and odd.json were judged with different settings (thresholds: *"])
    not_a_shard = merge(pytester, "s1.json", "-k", "x")
    not_a_shard.stderr.fnmatch_lines(["merge: error: -k: not an option of the merge*"])


def test_a_bad_shard_option_is_a_usage_error(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import PASSING_SUITE, make_project

    make_project(pytester, suite=PASSING_SUITE)
    result = pytester.runpytest(*RUN, "--sprout-shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-shard='4/3': K must be from 1 to N*"])
    monkeypatch.setenv("SPROUT_SHARD", "2/3")
    from_env = pytester.runpytest(*RUN, "--sprout-report=r.json")
    from_env.assert_outcomes(passed=1, deselected=2)
    assert json.loads((pytester.path / "r.json").read_text())["shard"]["index"] == 2


def test_the_merge_reads_the_suites_when_the_ini_points_pytest_elsewhere(pytester: pytest.Pytester) -> None:
    shard_reports(pytester)
    pytester.makeini("[pytest]\ntestpaths = tests\nasyncio_default_fixture_loop_scope = function\n")
    merged = merge(pytester, "s1.json", "s2.json", "s3.json", "--sprout-report=m.json")
    assert merged.ret == pytest.ExitCode.OK
    report = json.loads((pytester.path / "m.json").read_text())
    assert (report["partial"], report["selected"], len(report["items"])) == (False, 3, 3)


def test_the_merge_pauses_the_garbage_collector_and_gives_it_back() -> None:
    """The merge runs with the cyclic collector paused (its objects live to the end) and leaves it
    as it found it, for a caller in the same process."""
    import gc

    from pytest_sprout.core.util import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("a merge that fails")
        assert not gc.isenabled()  # disabled by the caller: it stays so
    finally:
        gc.enable()
