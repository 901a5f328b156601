"""Issue 11, point 2: the rebuild command printed from sprout.snapshot.json is one people paste:
shell-quoted, inside the rootdir, and it really rebuilds every registered artifact."""

from __future__ import annotations

import json
import shlex

import pytest

from helpers import PASSING_SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.core.identity import SnapshotError
from pytest_sprout.snapshot.file import Artifact, Snapshot, rebuild_hint

RUN = ("-m", "groundedness", "-p", "no:deepeval")


def hint_command(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    at = lines.index("if the change is intended, rebuild the whole chain in one run:")
    return shlex.split(lines[at + 1].strip())


def test_hint_paths_are_shell_quoted() -> None:
    art = Artifact("out/my report $(touch pwned).json", "report", "0" * 64, "1" * 64)
    line = rebuild_hint(Snapshot("1" * 64, {"s": 1}, {}, "0", {art.path: art}))[1]
    assert shlex.split(line) == ["pytest", "--sprout-update-snapshot", "--sprout-report=out/my report $(touch pwned).json"]
    assert "'--sprout-report=out/my report $(touch pwned).json'" in line


def test_hint_keeps_the_marker_expression_quoted() -> None:
    art = Artifact("r.json", "report", "0" * 64, "1" * 64)
    snap = Snapshot("1" * 64, {"s": 1}, {}, "0", {art.path: art})
    line = rebuild_hint(snap, "groundedness and not slow")[1]
    assert shlex.split(line) == ["pytest", "-m", "groundedness and not slow", "--sprout-update-snapshot", "--sprout-report=r.json"]
    assert shlex.split(rebuild_hint(snap, "$(touch pwned)")[1])[1:3] == ["-m", "$(touch pwned)"]
    assert "-m" not in rebuild_hint(snap)[1] and "-m" not in rebuild_hint(snap, "  ")[1]


@pytest.mark.parametrize("path", ["../outside.json", "/etc/passwd", "a/../../b.json", "C:\\\\x.json", "..\\\\x.json"])
def test_snapshot_naming_a_path_outside_the_rootdir_is_an_error_naming_the_field(path: str) -> None:
    data = {"pytest_sprout": "snapshot", "format": 1, "dataset_hash": "x", "suites": {}, "cases": {},
            "artifacts": {path: {"kind": "report", "sha256": "0", "dataset_hash": "x"}}}
    with pytest.raises(SnapshotError, match=r"field 'artifacts\..*': names a path outside the rootdir"):
        Snapshot.from_json(json.loads(json.dumps(data)), "sprout.snapshot.json")


def test_outside_path_in_snapshot_stops_the_run_with_a_message(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    assert pytester.runpytest(*RUN, "--sprout-update-snapshot").ret == 0
    snap = json.loads((pytester.path / "sprout.snapshot.json").read_text())
    snap["artifacts"]["../../evil.json"] = {"kind": "report", "sha256": "0" * 64, "dataset_hash": snap["dataset_hash"]}
    (pytester.path / "sprout.snapshot.json").write_text(json.dumps(snap))
    result = pytester.runpytest(*RUN)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*field 'artifacts.../../evil.json': names a path outside the rootdir*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_two_registered_reports_are_both_rebuilt_by_the_printed_command(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=PASSING_SUITE, conftest=SYSTEM_CONFTEST)
    (pytester.path / "out dir").mkdir()
    first = pytester.runpytest(*RUN, "--sprout-update-snapshot", "--sprout-record=golden.json",
                               "--sprout-report=a.json", "--sprout-report=out dir/b.json")
    assert first.ret == 0, first.stdout.str()
    snap = json.loads((pytester.path / "sprout.snapshot.json").read_text())
    assert set(snap["artifacts"]) == {"golden.json", "a.json", "out dir/b.json"}
    # The dataset changes: the check fails and prints the rebuild command.
    suite = pytester.path / "suites" / "care.yaml"
    suite.write_text(suite.read_text().replace('expected_facts: ["toxic to cats"]', 'expected_facts: ["toxic"]'))
    stale = pytester.runpytest(*RUN, "-k", "not unrelated")
    assert stale.ret == pytest.ExitCode.TESTS_FAILED
    command = hint_command(stale)
    assert command[0] == "pytest" and command.count("--sprout-update-snapshot") == 1
    assert "--sprout-report=a.json" in command and "--sprout-report=out dir/b.json" in command
    # issue 24: the run's -m is kept (it picks the sprout items); its -k is not (a part of the
    # dataset registers no report, so a -k rebuild would leave the chain stale)
    assert command[1:3] == ["-m", "groundedness"] and "-k" not in command
    # Pasting it as printed rebuilds the whole chain, once.
    rebuilt = pytester.runpytest("-p", "no:deepeval", *command[1:])
    assert rebuilt.ret == 0, rebuilt.stdout.str()
    after = pytester.runpytest("--sprout-check-snapshot", "-p", "no:deepeval")
    assert after.ret == 0, after.stdout.str()
    a = json.loads((pytester.path / "a.json").read_text())
    b = json.loads((pytester.path / "out dir" / "b.json").read_text())
    assert a == b and len(a["items"]) == 3
