"""The meta-evaluation (checks/metaeval.py and its command line): the three readers on small
fixtures in tests/data, the command line on a labelled fixture whose answers are known, and the NLI path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_sprout.cli import metaeval
from pytest_sprout.checks.metaeval import (
    DataError, detect_format, evaluate, load, majority, parse_label, read_jsonl, read_lfqa, read_wice, run_judge,
)
from pytest_sprout.judges.lexical import LexicalJudge

DATA = Path(__file__).parent / "data"
SMALL = DATA / "metaeval_small.jsonl"


@pytest.mark.parametrize("value, expected", [
    ("supported", True), ("SUPPORTED", True), (1, True), (True, True),
    ("not_supported", False), ("partially_supported", False), ("partially", False), (0, False),
])
def test_labels(value: object, expected: bool) -> None:
    assert parse_label(value, "x") is expected


def test_majority_label() -> None:
    assert majority(["supported", "supported", "partially"]) == "supported"
    assert majority(["supported", "partially", "not_supported"]) is None


# --- the generic JSONL, with known answers ---------------------------------------------------------


def test_lexical_judge_on_the_small_labelled_fixture() -> None:
    """Three verbatim claims and a paraphrase are supported by the human labels; a negation, a
    changed number, an unrelated premise and a claim with added content are not. The lexical judge
    passes the verbatim ones, rejects the added content (its clause "according to a recent study"
    has no word in the evidence) and the paraphrase: 3 of 4 right on the supported side, 4 of 4 on
    the other."""
    examples = load(SMALL)
    verdicts = run_judge(LexicalJudge(), examples)
    result = evaluate(examples, verdicts)
    o = result["overall"]
    assert (result["n"], result["unscored"], o["supported"], o["unsupported"]) == (8, 0, 4, 4)
    assert o["confusion"] == {"unsupported_caught": 4, "unsupported_passed": 0, "supported_passed": 3, "supported_flagged": 1}
    assert o["balanced_accuracy"]["value"] == pytest.approx(0.875)
    assert (o["precision_unsupported"]["k"], o["precision_unsupported"]["n"]) == (4, 5)
    assert (o["recall_unsupported"]["k"], o["recall_unsupported"]["n"]) == (4, 4)
    assert (o["accuracy"]["k"], o["accuracy"]["n"]) == (7, 8)
    # AUC, counted pair by pair here rather than by ranks
    sup = [v.score for e, v in zip(examples, verdicts) if e.supported]
    uns = [v.score for e, v in zip(examples, verdicts) if not e.supported]
    pairs = sum(1.0 if s > u else 0.5 if s == u else 0.0 for s in sup for u in uns)
    assert o["auc"]["value"] == pytest.approx(pairs / 16)
    cats = {c["category"]: c for c in result["categories"]}
    assert cats["verbatim"]["recall_supported"]["k"] == 3 and cats["added content"]["recall_unsupported"]["k"] == 1
    assert cats["verbatim"]["balanced_accuracy"] is None  # one class only
    sweep = {s["threshold"]: s for s in result["sweep"]}
    assert sweep[0.0]["recall_unsupported"]["k"] == 0 and sweep[0.0]["recall_supported"]["k"] == 4


def test_command_line_prints_every_number_with_n_and_interval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert metaeval.main(["--judge", "lexical", "--data", str(SMALL), "--tune", "coverage=0.5,0.9", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "8 examples (4 supported, 4 unsupported by the human labels), 0 unscored" in text
    assert "balanced accuracy             n=8  0.875 [0.543, 0.977]" in text
    assert "recall, unsupported class     4/4  1.000 [0.510, 1.000]" in text
    assert "threshold sweep on the score alone" in text
    assert "coverage=0.5" in text and "best balanced accuracy: coverage=" in text
    assert "vs the judge as run above (paired bootstrap)" in text
    data = json.loads(out.read_text())
    assert data["overall"]["balanced_accuracy"]["value"] == pytest.approx(0.875)
    assert [row["value"] for row in data["tune"]] == [0.5, 0.9] and data["format"] == "jsonl"
    assert data["tune"][0]["ba_difference"]["seed"] == 0


@pytest.mark.parametrize("line, message", [
    ('{"premise": "p", "label": "supported"}', "bad.jsonl:2: field 'claim' is missing"),
    ('{"premise": "p", "claim": "c"}', "bad.jsonl:2: field 'label' is missing"),
    ('{"premise": "p", "claim": "c", "label": "maybe"}', "bad.jsonl:2: field 'label' must be supported/unsupported"),
    ('{"claim": "c", "label": 1}', "bad.jsonl:2: field 'premise' is missing"),
    ('{"premise": 3, "claim": "c", "label": 1}', "bad.jsonl:2: field 'premise' must be a string or a list of strings"),
    ("{not json", "bad.jsonl:2: not valid JSON"),
    ("[1, 2]", "bad.jsonl:2: expected a JSON object, got list"),
])
def test_bad_input_names_file_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"premise": "p", "claim": "c", "label": 1}\n' + line + "\n")
    assert metaeval.main(["--judge", "lexical", "--data", str(bad), "--format", "jsonl"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_other_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert metaeval.main(["--judge", "lexical", "--data", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: no such file or folder" in capsys.readouterr().err
    assert metaeval.main(["--judge", "lexical", "--data", str(SMALL), "--tune", "coverage"]) == 2
    assert "--tune expects NAME=V1,V2" in capsys.readouterr().err
    assert metaeval.main(["--judge", "lexical", "--data", str(SMALL), "--coverage", "2"]) == 2
    assert "coverage must be a number in (0, 1]" in capsys.readouterr().err
    assert metaeval.main(["--judge", "nli", "--data", str(SMALL)]) == 2
    assert "--judge nli needs --nli-model" in capsys.readouterr().err


# --- the WiCE and LFQA-Verification readers ------------------------------------------------------


def test_wice_reader_uses_gold_sentences_and_oracle_chunks_when_there_are_none() -> None:
    a, b, c = read_wice(DATA / "wice" / "claim_mini.jsonl")
    assert a.premise == ("Ada Lovelace wrote the first published algorithm.",) and a.supported and a.category == "supported"
    assert b.premise == ("She was born in 1815.",) and not b.supported  # partially supported counts as unsupported
    assert c.premise == ("Charles Babbage designed the Analytical Engine. It was never finished.", "Babbage met Lovelace in 1833.")
    assert c.category == "not_supported (no gold sentences; oracle chunks)" and c.id == "mini-c"
    whole = read_wice(DATA / "wice" / "claim_mini.jsonl", premise="article")
    assert whole[0].premise == (" ".join(json.loads((DATA / "wice" / "claim_mini.jsonl").read_text().splitlines()[0])["evidence"]),)
    assert detect_format(DATA / "wice" / "claim_mini.jsonl") == "wice"


def test_wice_without_an_oracle_file_falls_back_to_the_whole_article(tmp_path: Path) -> None:
    claims = tmp_path / "claim_x.jsonl"
    claims.write_text((DATA / "wice" / "claim_mini.jsonl").read_text())
    c = read_wice(claims)[2]
    assert c.category == "not_supported (no gold sentences; whole article)" and "Lord Byron" in c.premise[0]
    claims.write_text('{"label": "supported", "supporting_sentences": [[9]], "claim": "x", "evidence": ["a"]}\n')
    with pytest.raises(DataError, match=r"claim_x.jsonl:1: field 'supporting_sentences' has an index outside 'evidence'"):
        read_wice(claims)


def test_empty_evidence_is_read_as_no_evidence_and_premises_may_be_a_list(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(
        '{"premise": "", "claim": "Cats purr.", "label": 0}\n'
        '{"premise": [], "claim": "Cats purr.", "label": 0}\n'
        '{"premise": ["Cats purr.", "Dogs bark."], "claim": "Cats purr and dogs bark.", "label": 1}\n')
    rows = read_jsonl(data)
    assert [r.premise for r in rows] == [(), (), ("Cats purr.", "Dogs bark.")]
    verdicts = LexicalJudge().judge_many([(r.claim, list(r.premise)) for r in rows])
    assert [(v.supported, v.rule) for v in verdicts] == [(False, "uncited"), (False, "uncited"), (True, None)]
    assert metaeval.main(["--judge", "lexical", "--data", str(data), "--format", "jsonl"]) == 0


def test_lfqa_reader_takes_the_majority_label_and_every_document_of_the_question() -> None:
    dropped: list[str] = []
    examples = read_lfqa(DATA / "lfqa", dropped)
    assert dropped == ["webgpt:7:1"]  # three different labels
    assert [(e.claim, e.supported) for e in examples] == [
        ("Cats purr when content.", True), ("Cats purr at 25 Hz.", False), ("Blue light scatters more.", False),
    ]
    assert examples[0].premise == ("Cats purr when they are content.", "Some think purring helps bones heal.")
    assert {e.category for e in examples} == {"webgpt"}
    assert load(DATA / "lfqa" / "annotations-webgpt.json") == examples


def test_lfqa_reader_errors(tmp_path: Path) -> None:
    (tmp_path / "annotations-mystery.json").write_text("[]")
    with pytest.raises(DataError, match="unknown LFQA-Verification system 'mystery'"):
        read_lfqa(tmp_path / "annotations-mystery.json")
    folder = tmp_path / "l"
    folder.mkdir()
    (folder / "docs-webgpt.json").write_text("[]")
    (folder / "annotations-webgpt.json").write_text('[{"question_id": 3, "annotations": []}]')
    with pytest.raises(DataError, match="question 0: question_id 3 is not in docs-webgpt.json"):
        read_lfqa(folder)


# --- the NLI path, with a tiny model that says yes to everything ----------------------------------


@pytest.mark.slow
def test_nli_judge_path_from_the_command_line(yes_model: Path, tmp_path: Path) -> None:
    """As a user runs it, in its own process (which also keeps torch out of this one)."""
    out = tmp_path / "nli.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}

    def metaeval_cli(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "pytest_sprout.cli.metaeval", "--judge", "nli", "--nli-device", "cpu", "--data", str(SMALL), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=Path(__file__).parent.parent)

    done = metaeval_cli("--nli-model", str(yes_model), "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert '"judge": "nli"' in done.stdout
    o = json.loads(out.read_text())["overall"]
    # Saying yes to everything: every supported claim passes, no unsupported one is caught.
    assert o["balanced_accuracy"]["value"] == 0.5
    assert (o["recall_supported"]["k"], o["recall_unsupported"]["k"]) == (4, 0)
    missing = metaeval_cli("--nli-model", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "metaeval: error:" in missing.stderr and "nope" in missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.parametrize("data, message", [
    (('{"premise": "a", "claim": "a", "label": 1' + "0" * 5000 + "}\n").encode(), "m.jsonl:1: cannot be read: a number"),
    ('{"premise": "caf\xe9", "claim": "a", "label": 1}\n'.encode("latin-1"), "m.jsonl:1: not UTF-8"),
    (('{"premise": "a", "claim": "a", "label": ' + "[" * 100000 + "]" * 100000 + "}\n").encode(),
     "m.jsonl:1: cannot be read: the JSON is nested too deeply"),
])
def test_unreadable_data_is_an_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     data: bytes, message: str) -> None:
    """Issue 23, defect 11: a 5001-digit label, a latin-1 file or deep nesting is `metaeval: error`, exit 2.
    Regression: repro 11 (11-convert-tracebacks-and-overwrite)."""
    path = tmp_path / "m.jsonl"
    path.write_bytes(data)
    assert metaeval.main(["--judge", "lexical", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
