"""No output path may be one of the run's inputs, or another output: the labels file, the label
sample, pytest's --junitxml, the merge's shard reports and convert's files are checked before
anything runs, and the usage error names both (regressions: repros 33 and 38)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from helpers import PASSING_SUITE, make_project
from pytest_sprout.cli.convert import main as convert_main
from pytest_sprout.core.paths import clash_message, same_file

RUN = ("-p", "no:cacheprovider", "-p", "no:deepeval")
LABELS = '{"case_id": "snake-light", "sentence": "Snake plants tolerate low light.", "supported": true}\n'


def test_same_file_sees_through_dots_links_and_hard_links(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    assert same_file(a, tmp_path / "sub" / ".." / "a.json")  # neither exists yet: the resolved paths decide
    a.write_text("{}")
    (tmp_path / "link.json").symlink_to(a)
    os.link(a, tmp_path / "hard.json")
    assert same_file(a, tmp_path / "link.json") and same_file(a, tmp_path / "hard.json")
    assert not same_file(a, tmp_path / "b.json")
    assert clash_message([("--out x", tmp_path / "x"), ("--golden y", tmp_path / "hard.json")],
                         [("the input a.json", a)]) == ("--golden y is also the input a.json: refusing to overwrite "
                                                        "it; write the output to another path")


@pytest.mark.parametrize("option", ["--sprout-report", "--sprout-md", "--sprout-html", "--junitxml"])
def test_no_report_is_written_over_the_labels_file(pytester: pytest.Pytester, option: str) -> None:
    """Regression: repro 33 (33-outputs-overwrite-labels-and-shard-inputs)."""
    make_project(pytester, PASSING_SUITE)
    (pytester.path / "labels.jsonl").write_text(LABELS, encoding="utf-8")
    result = pytester.runpytest(*RUN, "--sprout-labels=labels.jsonl", f"{option}=labels.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {option}=labels.jsonl is also the labels file (--sprout-labels): "
                                 "refusing to overwrite it*"])
    assert (pytester.path / "labels.jsonl").read_text(encoding="utf-8") == LABELS


def test_junitxml_is_never_written_over_the_compared_baseline(pytester: pytest.Pytester) -> None:
    """Regression: repro 33 (33-outputs-overwrite-labels-and-shard-inputs)."""
    make_project(pytester, PASSING_SUITE)
    assert pytester.runpytest(*RUN, "--sprout-report=base.json").ret == 0
    before = (pytester.path / "base.json").read_bytes()
    result = pytester.runpytest(*RUN, "--sprout-compare=base.json", "--junitxml=./sub/../base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --junitxml=base.json is also the report it compares with (--sprout-compare)*"])
    assert (pytester.path / "base.json").read_bytes() == before


def test_the_label_sample_and_a_report_never_share_a_path(pytester: pytest.Pytester) -> None:
    """Regression: repro 33 (33-outputs-overwrite-labels-and-shard-inputs)."""
    make_project(pytester, PASSING_SUITE)
    result = pytester.runpytest(*RUN, "--sprout-label-sample=4", "--sprout-report=sprout-label-sample.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *sprout-label-sample.jsonl is also *sprout-label-sample.jsonl: two outputs "
                                 "on one path would keep only the last*"])
    assert not (pytester.path / "sprout-label-sample.jsonl").exists()


def test_the_merge_never_writes_over_a_shard_report_it_merges(pytester: pytest.Pytester) -> None:
    """Regression: repro 33 (33-outputs-overwrite-labels-and-shard-inputs)."""
    make_project(pytester, PASSING_SUITE)
    for k in (1, 2):
        pytester.runpytest(*RUN, f"--sprout-shard={k}/2", f"--sprout-report=s{k}.json")
    before = {k: (pytester.path / f"s{k}.json").read_bytes() for k in (1, 2)}
    for option in ("--sprout-report", "--sprout-html", "--sprout-md", "--junitxml"):
        result = pytester.run(sys.executable, "-m", "pytest_sprout.merge", "s1.json", "s2.json", f"{option}=s2.json",
                              "-p", "no:deepeval")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"ERROR: {option}=s2.json is also a shard report it merges (s2.json): refusing*"])
        assert {k: (pytester.path / f"s{k}.json").read_bytes() for k in (1, 2)} == before
    merged = pytester.run(sys.executable, "-m", "pytest_sprout.merge", "s1.json", "s2.json", "--sprout-report=m.json",
                          "-p", "no:deepeval")
    assert merged.ret == 0 and json.loads((pytester.path / "m.json").read_text())["complete"] is True


def test_convert_never_writes_the_golden_set_over_the_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: repro 38 (38-convert-out-equals-golden)."""
    source = tmp_path / "g.json"
    source.write_text(json.dumps([{"input": "How much light does a snake plant need?", "name": "snake",
                                   "actual_output": "Snake plants tolerate low light.",
                                   "retrieval_context": ["Snake plants tolerate low light."]}]), encoding="utf-8")
    same = tmp_path / "same.jsonl"
    assert convert_main(["deepeval", str(source), "--suite", "imp", "--out", str(same), "--golden", str(same)]) == 2
    err = capsys.readouterr().err
    assert f"--golden {same} and --out {same} name the same file" in err and "nothing was written" in err
    assert not same.exists()
    for flag in ("--out", "--golden"):  # nor over the input it reads, even with --force
        args = ["--out", str(tmp_path / "s.yaml")] + (["--golden", str(source)] if flag == "--golden" else [])
        if flag == "--out":
            args = ["--out", str(source)]
        assert convert_main(["deepeval", str(source), "--suite", "imp", *args, "--force"]) == 2
        assert f"{flag} {source} is also the input {source}: refusing to overwrite it" in capsys.readouterr().err
    assert json.loads(source.read_text(encoding="utf-8"))[0]["name"] == "snake"


@pytest.mark.parametrize("tool, flag, other", [("metaeval", "--json", "--data"), ("calibrate", "--out", "--data")])
def test_metaeval_and_calibrate_never_write_over_their_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             tool: str, flag: str, other: str) -> None:
    from pytest_sprout.cli import calibrate, metaeval

    data = tmp_path / "labels.jsonl"
    text = '{"id": "1", "premise": "Snake plants tolerate low light.", "claim": "Snake plants like low light.", "label": 1}\n'
    data.write_text(text, encoding="utf-8")
    main = metaeval.main if tool == "metaeval" else calibrate.main
    (tmp_path / "sub").mkdir()
    same = tmp_path / "sub" / ".." / "labels.jsonl"
    assert main(["--judge", "lexical", "--data", str(data), flag, str(same)]) == 2
    assert f"{flag} {same} is also {other} {data}: refusing to overwrite it" in capsys.readouterr().err
    assert data.read_text(encoding="utf-8") == text


def test_the_calibration_sprout_calibrate_writes_shares_no_path_with_a_report(pytester: pytest.Pytester) -> None:
    """Regression: repro 33 (33-outputs-overwrite-labels-and-shard-inputs), for the round's calibration file."""
    make_project(pytester, PASSING_SUITE)
    (pytester.path / "labels.jsonl").write_text(LABELS, encoding="utf-8")
    result = pytester.runpytest(*RUN, "--sprout-labels=labels.jsonl", "--sprout-calibrate",
                                "--sprout-report=sprout.calibration.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: the calibration --sprout-calibrate writes: sprout.calibration.json is also "
                                 "--sprout-report=sprout.calibration.json: two outputs on one path*"])
    assert not (pytester.path / "sprout.calibration.json").exists()
