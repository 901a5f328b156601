"""The embedded reference RAG system, its corpus and the demo suites it is tested with."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.suites.loader import load_suites
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.core.model import Answer, looks_like_refusal, split_sentences
from pytest_sprout.reference import ReferenceSystem, make_system
from pytest_sprout.reference.system import REFUSAL_TEXT, load_documents, make_windows, stem, tokenize

SUITES = Path(__file__).resolve().parent.parent / "suites"


@pytest.fixture(scope="module")
def system() -> ReferenceSystem:
    return make_system()


@pytest.fixture(scope="module")
def suite_set():
    return load_suites(SUITES)


# --- corpus -----------------------------------------------------------------------------------


def test_corpus_has_forty_distinct_short_documents():
    lines = resources.files("pytest_sprout.reference").joinpath("docs.jsonl").read_text("utf-8").splitlines()
    docs = [json.loads(line) for line in lines if line.strip()]
    ids = [d["id"] for d in docs]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)
    for d in docs:
        assert set(d) == {"id", "title", "text"}, d["id"]
        assert d["title"].strip(), d["id"]
        assert 80 <= len(d["text"].split()) <= 200, d["id"]


def test_windows_overlap_and_reach_the_end_of_each_document():
    docs = load_documents()
    windows = make_windows(docs, size=3, stride=2)
    for doc in docs:
        mine = [w for w in windows if w.doc is doc]
        assert mine[0].start == 0 and mine[-1].end == len(doc.sentences)
        covered = {i for w in mine for i in range(w.start, w.end)}
        assert covered == set(range(len(doc.sentences)))


def test_load_documents_names_the_line_of_a_bad_record():
    with pytest.raises(ValueError, match="docs.jsonl line 2: missing field 'title'"):
        load_documents('{"id": "a", "title": "A", "text": "One."}\n{"id": "b", "text": "Two."}\n')


def test_stemmer_folds_plurals_and_verb_forms():
    assert {stem(w) for w in ["water", "watering", "waterings", "watered"]} == {"water"}
    assert stem("dropping") == stem("drops") == "drop"
    assert stem("leaves") == "leaf" and stem("flies") == "fly" and stem("glass") == "glass"
    assert tokenize("How often should I water the plants?") == ["water", "plant"]


# --- importing is cheap -----------------------------------------------------------------------


def test_importing_the_package_does_not_import_numpy_or_bm25s():
    code = (
        "import sys, pytest_sprout.reference; "
        "print(sorted(m for m in ('numpy', 'bm25s', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the system -------------------------------------------------------------------------------


def test_factory_gives_a_named_versioned_system(system):
    assert system.name == "sprout-reference"
    assert isinstance(system.version, str) and system.version.startswith("1.0+")
    assert make_system(min_coverage=0.5).version != system.version


def test_the_version_follows_the_code_that_shapes_the_answers_not_the_data_model(system, monkeypatch, tmp_path):
    from pytest_sprout.core import model, sentences
    from pytest_sprout.reference import system as system_module

    sources = system_module.shaping_sources()
    assert sorted(Path(s).name for s in sources) == ["sentences.py", "system.py"]
    assert Path(model.__file__).resolve() not in {Path(s).resolve() for s in sources}
    # The same sources, one of them edited (the splitter, copied with a comment added): another version.
    edited = tmp_path / "sentences.py"
    edited.write_text(Path(sentences.__file__).read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    monkeypatch.setattr(system_module, "shaping_sources", lambda: [sources[0], str(edited)])
    changed = make_system()
    assert changed.version != system.version and changed.fingerprint != system.fingerprint
    monkeypatch.setattr(system_module, "shaping_sources", lambda: sources)
    assert make_system().version == system.version


def test_answers_are_deterministic_across_instances(system, suite_set):
    other = make_system()
    for case in suite_set.cases[::7]:
        first = system(case.question).to_json()
        assert system(case.question).to_json() == first
        assert other(case.question).to_json() == first


def test_every_citation_names_a_retrieved_passage_and_markers_round_trip(system, suite_set):
    answered = 0
    for case in suite_set.cases:
        answer = system(case.question)
        assert isinstance(answer, Answer)
        assert 1 <= len(answer.passages) <= system.k or (answer.refused and not answer.passages)
        if answer.refused:
            assert answer.sentences == () and answer.text == REFUSAL_TEXT
            continue
        answered += 1
        assert 1 <= len(answer.sentences) <= system.max_sentences
        ids = {p.id for p in answer.passages}
        for sentence in answer.sentences:
            assert len(sentence.citations) == 1 and sentence.citations[0] in ids, case.id
        assert Answer.from_text(answer.render(), answer.passages).sentences == answer.sentences
    assert answered > len(suite_set.cases) // 2


def test_the_guard_keeps_only_claims_copied_from_the_window_they_cite(system, suite_set):
    """The guard checks provenance, not support: every sentence a claim copies (one, or two stitched
    with "; ") is a sentence of the passage it cites. It never consults the LexicalJudge, so the
    groundedness tier's verdicts on these answers are not decided in advance."""
    for case in suite_set.cases:
        answer = system(case.question)
        for sentence in answer.sentences:
            cited, missing = answer.cited(sentence)
            assert not missing and len(cited) == 1
            own = [s.rstrip(".!?") for s in split_sentences(cited[0].text)]
            copies = set(own) | {f"{a}; {b[0].lower()}{b[1:]}" for a, b in zip(own, own[1:])}
            assert sentence.text.rstrip(".!?") in copies, (case.id, sentence.text)


def test_the_guard_does_not_use_the_lexical_judge():
    import pytest_sprout.reference.system as reference

    assert "LexicalJudge" not in Path(reference.__file__).read_text(encoding="utf-8").split('"""', 2)[2]


STITCH_DOC = json.dumps({
    "id": "fern",
    "title": "Fern notes",
    "text": (
        "Ferns are old plants. Water a maidenhair fern every 4 days in summer. "
        "It sulks in draughty hallways and drops fronds. Bathrooms with frosted windows suit it. "
        "Repot in spring."
    ),
})


def test_guard_drops_a_stitched_claim_whose_context_lies_outside_the_cited_window():
    docs = load_documents(STITCH_DOC)
    question = "Why does my fern sulk in a draughty hallway and drop fronds?"
    unguarded = ReferenceSystem(k=1, guard=False, documents=docs)(question)
    texts = [s.text for s in unguarded.sentences]
    # The pronoun sentence opens window 1, so its stitched context (with "4 days") is outside it.
    assert unguarded.passages[0].id == "fern#1"
    assert any(t.startswith("Water a maidenhair fern every 4 days in summer; it sulks") for t in texts)
    verdict = LexicalJudge().judge(texts[0], list(unguarded.passages))
    assert verdict.supported is False
    guarded = ReferenceSystem(k=1, guard=True, documents=docs)(question)
    assert all("4 days" not in s.text for s in guarded.sentences)


@pytest.mark.parametrize(
    "question",
    [
        "How do I file my taxes?",
        "What is the capital of France?",
        "Should I invest in bitcoin this year?",
        "How do I sort a list in Python?",
        "What are current mortgage interest rates?",
        "How long should I boil dried pasta?",
        "How often should I change the oil in my car?",
    ],
)
def test_out_of_scope_questions_are_refused(system, question):
    answer = system(question)
    assert answer.refused and answer.sentences == ()
    assert answer.text == REFUSAL_TEXT and looks_like_refusal(answer.text)


def test_a_question_with_no_known_word_retrieves_nothing(system):
    answer = system("Quelle heure est-il?")
    assert answer.refused and answer.passages == ()


def test_an_in_scope_question_is_answered_from_its_document(system):
    answer = system("How often should I water a phalaenopsis orchid?")
    assert not answer.refused
    assert answer.passages[0].id.startswith("phalaenopsis-orchid-care#")
    assert "every 7 to 10 days" in answer.render()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), max_size=120))
def test_any_text_gives_a_well_formed_answer(system, question):
    answer = system(question)
    assert answer == system(question)
    ids = {p.id for p in answer.passages}
    assert answer.refused == (not answer.sentences)
    assert all(c in ids for s in answer.sentences for c in s.citations)


# --- the demo suites --------------------------------------------------------------------------


def test_demo_suites_load_without_errors(suite_set):
    assert suite_set.errors == []
    by_suite: dict[str, int] = {}
    for case in suite_set.cases:
        by_suite[case.suite] = by_suite.get(case.suite, 0) + 1
    assert {"care", "troubleshooting", "pet-safety", "out-of-scope"} <= set(by_suite)
    assert len(suite_set.cases) >= 150
    assert len({c.id for c in suite_set.cases}) == len(suite_set.cases)
    assert all(c.expect == "refuse" for c in suite_set.cases if c.suite == "out-of-scope")
    assert all(c.expected_facts for c in suite_set.cases if c.expect == "answer")


def test_demo_suites_leave_tiers_to_the_default():
    for path in sorted(SUITES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text("utf-8"))
        assert "tiers" not in (data.get("defaults") or {}), path.name
        assert all("tiers" not in case for case in data["cases"]), path.name
