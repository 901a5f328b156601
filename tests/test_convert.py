"""python -m pytest_sprout.convert: Ragas and DeepEval datasets in, suites and golden sets out, and
the golden set replays under pytest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_sprout.suites.loader import load_suite
from pytest_sprout.cli.convert import main
from pytest_sprout.core.identity import dataset_hash

ROWS = [
    {"user_input": "How much light does a snake plant need?",
     "retrieved_contexts": ["Snake plants tolerate low light. They grow faster in bright, indirect light."],
     "response": "Snake plants tolerate low light and grow faster in bright, indirect light.",
     "reference": "Low light is fine; bright, indirect light is best."},
    {"user_input": "How often should I water a pothos?",
     "retrieved_contexts": ["Water a pothos when the top 5 cm of soil is dry, about every 1 to 2 weeks."],
     "response": "Water a pothos every 3 weeks.",
     "reference": "Every 1 to 2 weeks, when the top 5 cm of soil is dry."},
    {"user_input": "How do I file my taxes?", "retrieved_contexts": [],
     "response": "I don't know based on the available documents.",
     "reference": "I don't know; the documents do not cover taxes."},
]


def ragas_export(tmp_path: Path, kind: str) -> Path:
    """A real Ragas EvaluationDataset written by Ragas itself."""
    pytest.importorskip("ragas", reason="the ragas extra writes the export this test reads")
    from ragas import EvaluationDataset

    dataset = EvaluationDataset.from_list(ROWS)
    path = tmp_path / f"export.{kind}"
    (dataset.to_jsonl if kind == "jsonl" else dataset.to_csv)(str(path))
    return path


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_ragas_export_becomes_a_suite_and_a_golden_set(tmp_path: Path, kind: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    source = ragas_export(tmp_path, kind)
    out, golden = tmp_path / "suites" / "imported.yaml", tmp_path / "golden.json"
    assert main(["ragas", str(source), "--suite", "imported", "--out", str(out), "--golden", str(golden)]) == 0
    suite = load_suite(out)
    assert suite.errors == []
    assert [(c.id, c.expect) for c in suite.cases] == [
        ("imported-001", "answer"), ("imported-002", "answer"), ("imported-003", "refuse")]
    data = json.loads(golden.read_text())
    assert data["dataset_hash"] == dataset_hash(suite.cases)
    first = data["answers"]["imported-001"]["answer"]
    assert first["passages"] == [{"id": "1", "text": ROWS[0]["retrieved_contexts"][0]}]
    assert first["sentences"][0]["citations"] == ["1"]  # no markers: the sentence cites every passage
    assert data["answers"]["imported-003"]["answer"]["refused"] is True
    assert "replay: pytest --sprout-suites=" in capsys.readouterr().out


def deepeval_export(tmp_path: Path, kind: str, sourced: bool = False) -> Path:
    """Goldens saved by DeepEval itself (save_as), as json, jsonl or csv; with ``sourced``, the
    first golden's passage is a RetrievedContextData (a passage with its source)."""
    pytest.importorskip("deepeval", reason="the llm extra writes the goldens this test reads")
    from deepeval.dataset import EvaluationDataset, Golden

    contexts = [list(r["retrieved_contexts"]) for r in ROWS]
    if sourced:
        from deepeval.test_case import RetrievedContextData

        contexts[0] = [RetrievedContextData(source="plants.md", context=contexts[0][0])]
    goldens = [Golden(input=r["user_input"], actual_output=r["response"], expected_output=r["reference"],
                      retrieval_context=c, name=name)
               for r, c, name in zip(ROWS, contexts, ["snake-light", "pothos water", "taxes"])]
    saved = EvaluationDataset(goldens=goldens).save_as(file_type=kind, directory=str(tmp_path), file_name="goldens")
    return Path(saved)


@pytest.mark.parametrize("kind", ["json", "jsonl", "csv"])
def test_deepeval_goldens_become_a_suite_and_a_golden_set(tmp_path: Path, kind: str) -> None:
    """Issue 24: DeepEval's CSV and JSON Lines exports were read as "malformed JSON"."""
    saved = deepeval_export(tmp_path, kind, sourced=True)
    assert saved.suffix == f".{kind}"
    out, golden = tmp_path / "suites" / "de.jsonl", tmp_path / "golden.json"
    assert main(["deepeval", str(saved), "--suite", "de", "--out", str(out), "--facts", "reference",
                 "--golden", str(golden)]) == 0
    cases = load_suite(out).cases
    # a usable golden name is the id; "pothos water" has a space, so it gets a numbered id
    assert [c.id for c in cases] == ["snake-light", "de-002", "taxes"]
    assert cases[0].expected_facts == (ROWS[0]["reference"],) and cases[2].expected_facts == ()
    assert [c.expect for c in cases] == ["answer", "answer", "refuse"]
    answers = json.loads(golden.read_text())["answers"]
    # the sourced passage is its text (not "deepeval_source=...,deepeval_context=..."), in every format
    assert answers["snake-light"]["answer"]["passages"] == [{"id": "1", "text": ROWS[0]["retrieved_contexts"][0]}]
    assert answers["de-002"]["answer"]["passages"] == [{"id": "1", "text": ROWS[1]["retrieved_contexts"][0]}]
    assert answers["de-002"]["answer"]["sentences"] == [{"text": ROWS[1]["response"], "citations": ["1"]}]
    assert answers["taxes"]["answer"]["passages"] == [] and answers["taxes"]["answer"]["refused"] is True


def test_deepeval_csv_and_jsonl_split_the_context_as_deepeval_reads_it_back(tmp_path: Path) -> None:
    """CSV and JSON Lines join the passages with '|'; the converter splits them where DeepEval's
    own loader does, so both see the same passages."""
    pytest.importorskip("deepeval", reason="the llm extra writes the goldens this test reads")
    from deepeval.dataset import EvaluationDataset, Golden

    two = ["Snake plants tolerate low light.", "They grow faster in bright, indirect light."]
    golden = Golden(input="How much light?", actual_output="Low light is fine.", retrieval_context=two)
    for kind in ("csv", "jsonl"):
        saved = EvaluationDataset(goldens=[golden]).save_as(file_type=kind, directory=str(tmp_path), file_name=kind)
        out, recorded = tmp_path / f"{kind}.yaml", tmp_path / f"{kind}-golden.json"
        assert main(["deepeval", saved, "--suite", kind, "--out", str(out), "--golden", str(recorded)]) == 0
        reread = EvaluationDataset()
        (reread.add_goldens_from_csv_file if kind == "csv" else reread.add_goldens_from_jsonl_file)(saved)
        passages = json.loads(recorded.read_text())["answers"][f"{kind}-001"]["answer"]["passages"]
        assert [p["text"] for p in passages] == reread.goldens[0].retrieval_context == two


def test_a_json_lines_file_named_json_is_read_as_json_lines(tmp_path: Path) -> None:
    source = tmp_path / "goldens.json"
    source.write_text("".join(json.dumps({"input": r["user_input"], "expected_output": r["reference"]}) + "\n"
                              for r in ROWS), encoding="utf-8")
    out = tmp_path / "s.yaml"
    assert main(["deepeval", str(source), "--suite", "s", "--out", str(out)]) == 0
    assert [c.question for c in load_suite(out).cases] == [r["user_input"] for r in ROWS]


@pytest.mark.parametrize("name, text, message", [
    ("g.csv", "input,scenario\n,Plan a trip\n", "g.csv:2: a conversational golden"),
    ("g.csv", "actual_output\nsomething\n", "g.csv:2: field 'input' is missing or empty"),
    ("g.jsonl", '{"input": "Q?"}\n{"input": \n', "g.jsonl:2: malformed JSON"),
    ("g.jsonl", '{"input": "Q?", "retrieval_context": 3}\n', "g.jsonl:1: field 'retrieval_context': expected a list of strings"),
    ("g.json", '[{"input": "Q?"}, 7]', "g.json: golden #2: expected an object with 'input'"),
])
def test_a_bad_deepeval_file_names_file_row_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      name: str, text: str, message: str) -> None:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    assert main(["deepeval", str(source), "--suite", "s", "--out", str(tmp_path / "s.yaml")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_facts_reference_sentences_makes_one_fact_per_sentence(tmp_path: Path) -> None:
    """Issue 24: --facts reference made a whole reference one fact, which only a near verbatim
    answer contains; reference-sentences makes each sentence a fact."""
    source = tmp_path / "export.jsonl"
    rows = [{"user_input": "How do I care for a pothos?",
             "reference": "Water it every 1 to 2 weeks. Keep it out of direct sun! Wipe the leaves, e.g. monthly."},
            {"user_input": "Taxes?", "reference": "I don't know; the documents do not cover taxes."}]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "s.yaml"
    assert main(["ragas", str(source), "--suite", "s", "--out", str(out), "--facts", "reference-sentences"]) == 0
    cases = load_suite(out).cases
    assert cases[0].expected_facts == ("Water it every 1 to 2 weeks", "Keep it out of direct sun!",
                                       "Wipe the leaves, e.g. monthly")
    assert cases[1].expect == "refuse" and cases[1].expected_facts == ()


def test_help_states_every_sentence_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: --help ended mid-sentence (the first line of a wrapped docstring paragraph)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("Turn datasets a team already has into pytest-sprout suites, and their recorded answers into a "
            "golden set that pytest-sprout replays.") in text
    assert "reference-sentences: each sentence of the reference, one fact each" in text
    assert "(.json, .jsonl or .csv)" in text


def test_replaying_the_converted_answers(pytester: pytest.Pytester) -> None:
    source = pytester.path / "export.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    assert main(["ragas", str(source), "--suite", "imported", "--out", str(pytester.path / "suites" / "imported.yaml"),
                 "--golden", str(pytester.path / "golden.json")]) == 0
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-suites=suites/imported.yaml",
                                "--sprout-golden=golden.json", "--sprout-report=r.json")
    result.assert_outcomes(passed=2, failed=1)  # "every 3 weeks" is not in the passage: unsupported
    result.stdout.fnmatch_lines(["*imported-002*1 of 1 sentences unsupported*",
                                 "answers replayed from golden.json (the system was not called)"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["golden"]["path"] == "golden.json"
    assert "replayed_from" not in report  # the JSON of a replay is the JSON of the recording run


@pytest.mark.parametrize("text, message", [
    ('{"user_input": "Q?"}\n{"user_input": \n', "export.jsonl:2: malformed JSON"),
    ('{"reference": "A"}\n', "export.jsonl:1: field 'user_input' is missing or empty"),
    ('{"user_input": "Q?", "retrieved_contexts": "not a list"}\n',
     "export.jsonl:1: field 'retrieved_contexts': expected a list of strings"),
    ('{"user_input": [{"content": "hi", "type": "human"}]}\n', "export.jsonl:1: field 'user_input': a multi-turn sample"),
])
def test_bad_input_names_file_row_and_field_and_writes_nothing(tmp_path: Path, text: str, message: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "export.jsonl"
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "s.yaml"
    assert main(["ragas", str(source), "--suite", "s", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()


BIG = "1" + "0" * 5000
MALFORMED = [  # (file name, bytes, what the error says): issue 23, defect 11
    ("bigint.jsonl", ('{"user_input": "q", "response": "b", "x": ' + BIG + "}\n").encode(),
     "bigint.jsonl:1: a number in it is too long to read"),
    ("deep.jsonl", ('{"user_input": "q", "x": ' + "[" * 100000 + "]" * 100000 + "}\n").encode(),
     "deep.jsonl:1: the JSON is nested too deeply to read"),
    ("latin1.jsonl", '{"user_input": "caf\xe9"}\n'.encode("latin-1"), "latin1.jsonl:1: not UTF-8 (byte 0xe9"),
    ("bigfield.csv", ("user_input,retrieved_contexts,response\nq,\"['a']\"," + "x" * 200000 + "\n").encode(),
     "bigfield.csv:2: malformed CSV: field larger than field limit"),
    ("nested.csv", ('user_input,retrieved_contexts,response\nq,"' + "[" * 5000 + "]" * 5000 + '",b\n').encode(),
     "nested.csv:2: field 'retrieved_contexts': the list is nested too deeply to read"),
    ("sur.jsonl", b'{"user_input": "q \\ud800 x", "retrieved_contexts": ["a"], "response": "b"}\n',
     "sur.jsonl:1: field 'user_input': a lone surrogate \\ud800 is not text"),
    ("esc.jsonl", b'{"user_input": "q", "retrieved_contexts": ["a \\u001b[8m"], "response": "b"}\n',
     "esc.jsonl:1: field 'retrieved_contexts': control character \\x1b"),
]


@pytest.mark.parametrize("name, data, message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_export_is_an_error_naming_file_and_line_never_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, message: str) -> None:
    """Regression: repro 11 (11-convert-tracebacks-and-overwrite)."""
    source = tmp_path / name
    source.write_bytes(data)
    out, golden = tmp_path / "s.yaml", tmp_path / "g.json"
    assert main(["ragas", str(source), "--suite", "s", "--out", str(out), "--golden", str(golden)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists() and not golden.exists() and list(tmp_path.iterdir()) == [source]


def test_a_deeply_nested_deepeval_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: repro 11 (11-convert-tracebacks-and-overwrite)."""
    source = tmp_path / "deep.json"
    source.write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    assert main(["deepeval", str(source), "--suite", "s", "--out", str(tmp_path / "s.yaml")]) == 2
    assert "deep.json: the JSON is nested too deeply to read" in capsys.readouterr().err


def test_an_existing_suite_is_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: repro 11 (11-convert-tracebacks-and-overwrite)."""
    source = tmp_path / "export.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "care.yaml"
    hand = "suite: care\ncases:\n  - {id: hand-1, question: How much light?, expected_facts: [low light]}\n"
    out.write_text(hand, encoding="utf-8")
    assert main(["ragas", str(source), "--suite", "imp", "--out", str(out)]) == 2
    assert "care.yaml: already exists; nothing was written (give --force to replace it)" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == hand
    (tmp_path / "sur.jsonl").write_text('{"user_input": "q \\ud800 x"}\n', encoding="utf-8")
    assert main(["ragas", str(tmp_path / "sur.jsonl"), "--suite", "imp", "--out", str(out), "--force"]) == 2
    assert out.read_text(encoding="utf-8") == hand  # a failed conversion replaces nothing, even with --force
    assert main(["ragas", str(source), "--suite", "imp", "--out", str(out), "--force"]) == 0
    assert [c.id for c in load_suite(out).cases] == ["imp-001", "imp-002", "imp-003"]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no check file left behind
