"""The snapshot guard end to end through pytester: update, check, what a failed check says and
its exit code, stale and hand-edited artifacts, partial rebuilds, corrupt files, xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import PASSING_SUITE as SUITE
from helpers import SYSTEM_CONFTEST, make_project


RUN = ("-m", "groundedness", "-p", "no:deepeval")
CHAIN = ("--sprout-update-snapshot", "--sprout-record=golden.json", "--sprout-report=sprout.json")


def project(pytester: pytest.Pytester) -> Path:
    make_project(pytester, suite=SUITE, conftest=SYSTEM_CONFTEST)
    return pytester.path / "suites" / "care.yaml"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text and "INTERNALERROR" not in text


def test_update_edit_check_update_check(pytester: pytest.Pytester) -> None:
    suite = project(pytester)
    first = pytester.runpytest(*RUN, "--sprout-update-snapshot")
    first.assert_outcomes(passed=3)
    first.stdout.fnmatch_lines(["*= sprout snapshot =*", "sprout.snapshot.json: created (dataset *, 3 cases in 1 suite)"])
    snap = json.loads((pytester.path / "sprout.snapshot.json").read_text())
    assert snap["suites"] == {"care": 3} and set(snap["cases"]) == {"snake-light", "lily-cats", "taxes"}

    current = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert current.ret == pytest.ExitCode.OK
    current.stdout.fnmatch_lines(["sprout.snapshot.json: current (dataset *, 3 cases in 1 suite, 0 artifacts current)"])

    edit(suite, 'expected_facts: ["toxic to cats"]', 'expected_facts: ["toxic"]')
    edit(suite, "  - id: taxes", "  - id: water\n    question: How often should I water a pothos?\n  - id: taxes-2")
    stale = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert stale.ret == pytest.ExitCode.TESTS_FAILED
    stale.stdout.fnmatch_lines([
        "*= sprout snapshot =*",
        "sprout.snapshot.json: the suites no longer match the snapshot (dataset * -> *):",
        "  added (2): taxes-2, water",
        "  removed (1): taxes",
        "  changed (1): lily-cats (expected_facts)",
        "if the change is intended, rebuild the whole chain in one run:",
        "  pytest --sprout-update-snapshot",
    ])
    no_traceback(stale)

    # Every session checks it, and judges nothing when it fails.
    blocked = pytester.runpytest(*RUN)
    assert blocked.ret == pytest.ExitCode.TESTS_FAILED
    blocked.stdout.fnmatch_lines(["*changed (1): lily-cats (expected_facts)*", "*no tests ran*"])
    assert "= sprout =" not in blocked.stdout.str()

    updated = pytester.runpytest(*RUN, "-k", "not water", "--sprout-update-snapshot")
    updated.assert_outcomes(passed=3, deselected=1)
    updated.stdout.fnmatch_lines([
        "sprout.snapshot.json: updated (dataset * -> *)",
        "  added (2): taxes-2, water",
        "  removed (1): taxes",
        "  changed (1): lily-cats (expected_facts)",
    ])
    again = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["sprout.snapshot.json: current (dataset *, 4 cases in 1 suite, 0 artifacts current)"])


def test_reformatting_the_yaml_keeps_the_snapshot_current(pytester: pytest.Pytester) -> None:
    suite = project(pytester)
    pytester.runpytest(*RUN, "--sprout-update-snapshot").assert_outcomes(passed=3)
    suite.write_text(
        "# reordered, restyled and commented\ncases:\n"
        "  - {question: 'How do I file my taxes?', expect: refuse, id: taxes}\n"
        "  - question: 'Is a peace lily toxic to cats?'   # quoted now\n"
        "    id: lily-cats\n    expected_facts:\n      - toxic to cats\n"
        "  - id: snake-light\n    expected_facts: [low light]\n    question: >-\n"
        "      How much light does a snake plant need?\n"
        "suite: care\ndefaults:\n  tiers: [groundedness]\n"
    )
    result = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    # A broken suite cannot be vouched for: the check names the error (nothing is collected to show it).
    suite.write_text(suite.read_text().replace("id: lily-cats", "id: lily cats"))
    broken = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert broken.ret == pytest.ExitCode.TESTS_FAILED
    broken.stdout.fnmatch_lines([
        "  removed (1): lily-cats",
        "the suites have errors; their cases are not part of the dataset (1):",
        "  suites/care.yaml:5: case 'lily cats': field 'id': *",  # the id key's own line (issue 24)
    ])


def test_no_snapshot_no_check_but_check_only_insists(pytester: pytest.Pytester) -> None:
    project(pytester)
    plain = pytester.runpytest(*RUN)
    plain.assert_outcomes(passed=3)
    assert "sprout snapshot" not in plain.stdout.str() and not (pytester.path / "sprout.snapshot.json").exists()
    check = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert check.ret == pytest.ExitCode.TESTS_FAILED
    check.stdout.fnmatch_lines(["sprout.snapshot.json: no snapshot; create it with: pytest --sprout-update-snapshot"])


def test_snapshot_path_from_the_ini(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makeini("[pytest]\nsprout_snapshot = ci/pins.json\n")
    pytester.runpytest(*RUN, "--sprout-update-snapshot").assert_outcomes(passed=3)
    assert (pytester.path / "ci" / "pins.json").is_file() and not (pytester.path / "sprout.snapshot.json").exists()
    result = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["ci/pins.json: current*"])


def test_artifact_edited_by_hand_or_missing_is_detected(pytester: pytest.Pytester) -> None:
    project(pytester)
    chain = pytester.runpytest(*RUN, *CHAIN)
    chain.assert_outcomes(passed=3)
    chain.stdout.fnmatch_lines(["  registered golden.json (golden set)", "  registered sprout.json (report)"])
    assert pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval").ret == pytest.ExitCode.OK

    report = pytester.path / "sprout.json"
    data = json.loads(report.read_text())
    data["metrics"][0]["k"] += 1  # a friendlier number, by hand
    report.write_text(json.dumps(data, indent=2))
    result = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "sprout.snapshot.json: stale or edited artifacts:",
        "  sprout.json (report): edited since it was registered (sha256 *, registered *); it was changed by hand*",
        "  pytest --sprout-update-snapshot --sprout-record=golden.json --sprout-report=sprout.json",
    ])
    # Rebuilt from the registered golden set, the report is byte for byte the registered one again.
    rebuilt = pytester.runpytest(*RUN, "--sprout-golden=golden.json", "--sprout-report=sprout.json")
    assert rebuilt.ret == pytest.ExitCode.OK
    rebuilt.stdout.fnmatch_lines(["sprout.snapshot.json: unchanged (dataset *)"])
    assert pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval").ret == pytest.ExitCode.OK

    (pytester.path / "golden.json").unlink()
    gone = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert gone.ret == pytest.ExitCode.TESTS_FAILED
    gone.stdout.fnmatch_lines(["  golden.json (golden set): registered but missing; rebuild it, or run --sprout-update-snapshot to unregister it"])


def test_partial_rebuild_fails_and_the_whole_chain_passes(pytester: pytest.Pytester) -> None:
    suite = project(pytester)
    pytester.runpytest(*RUN, *CHAIN).assert_outcomes(passed=3)
    edit(suite, "Is a peace lily toxic to cats?", "Is a peace lily toxic to a cat?")
    edit(pytester.path / "conftest.py", '"Is a peace lily toxic to cats?"', '"Is a peace lily toxic to a cat?"')

    partial = pytester.runpytest(*RUN, "--sprout-update-snapshot", "--sprout-record=golden.json")
    partial.assert_outcomes(passed=3)
    assert partial.ret == pytest.ExitCode.TESTS_FAILED
    partial.stdout.fnmatch_lines([
        "  changed (1): lily-cats (question)",
        "  re-registered golden.json (golden set)",
        "sprout.snapshot.json: the registered artifacts do not form one chain:",
        "  sprout.json (report): stale, built from dataset * but the suites are now *",
        "  sprout.json (report): built from golden set *, not from the registered golden set (a partial rebuild*",
    ])
    assert pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval").ret == pytest.ExitCode.TESTS_FAILED

    whole = pytester.runpytest(*RUN, *CHAIN)
    assert whole.ret == pytest.ExitCode.OK
    assert pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval").ret == pytest.ExitCode.OK
    # A report replayed from the registered golden set belongs to the chain too.
    replay = pytester.runpytest(*RUN, "--sprout-golden=golden.json", "--sprout-report=sprout.json")
    assert replay.ret == pytest.ExitCode.OK
    assert pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval").ret == pytest.ExitCode.OK


def test_corrupt_snapshot_is_a_clear_failure(pytester: pytest.Pytester) -> None:
    """(Every way a snapshot can be broken is in test_snapshot.py; here: what the user sees.)"""
    content = '{"pytest_sprout": "snapshot", '
    message = "sprout.snapshot.json: not valid JSON (line 1, column 31: *); fix it, or delete it and run pytest --sprout-update-snapshot"
    project(pytester)
    (pytester.path / "sprout.snapshot.json").write_text(content)
    for args in (("--sprout-check-snapshot",), RUN):
        result = pytester.runpytest(*args, "-p", "no:deepeval")
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines([message])
        no_traceback(result)
    update = pytester.runpytest(*RUN, "--sprout-update-snapshot")
    assert update.ret == pytest.ExitCode.TESTS_FAILED
    update.stdout.fnmatch_lines(["*cannot update it without losing its artifact registry*"])
    assert (pytester.path / "sprout.snapshot.json").read_text() == content


def test_check_and_update_together_is_a_usage_error(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest("--sprout-check-snapshot", "--sprout-update-snapshot", "-p", "no:deepeval")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --sprout-check-snapshot and --sprout-update-snapshot cannot be combined*"])


def test_xdist_only_the_controller_writes(pytester: pytest.Pytester) -> None:
    """Under -n 2 each worker answers part of the cases; the golden set, report and snapshot hold
    all of them, written once by the controller, and match a -n 0 run."""
    suite = project(pytester)
    result = pytester.runpytest_subprocess("-n", "2", *RUN, *CHAIN)
    result.assert_outcomes(passed=3)
    golden = json.loads((pytester.path / "golden.json").read_text())
    assert set(golden["answers"]) == {"snake-light", "lily-cats", "taxes"}
    assert golden["system"] == {"name": "lookup", "version": "1"}
    assert not list(pytester.path.glob(".*.tmp")), "a temporary file was left behind"
    distributed = {name: (pytester.path / name).read_bytes() for name in ("golden.json", "sprout.json", "sprout.snapshot.json")}

    pytester.runpytest(*RUN, *CHAIN).assert_outcomes(passed=3)
    for name, data in distributed.items():
        assert (pytester.path / name).read_bytes() == data, name

    # A run the check stops starts no workers at all.
    edit(suite, "expect: refuse", "expect: refuse\n    tags: [money]")
    stale = pytester.runpytest_subprocess("-n", "2", *RUN)
    assert stale.ret == pytest.ExitCode.TESTS_FAILED
    stale.stdout.fnmatch_lines(["  changed (1): taxes (tags)"])
    assert "workers" not in stale.stdout.str()
