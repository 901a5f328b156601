"""MiniCheck checkers in the alce tier: the reference's chunking (against an independent
re-implementation), recognising a checkpoint from its config, label choice, input format and the
max over chunks, with tiny RoBERTa, DeBERTa-v2 and T5 models built here (tests/tiny_models.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tiny_models
from helpers import make_project
from pytest_sprout import NLIJudge
from pytest_sprout.judges import minicheck
from pytest_sprout.judges.nli import NLIModelError, model_meta, premise_of
from pytest_sprout.core.model import Passage, split_sentences

# --- the reference's chunking rule, re-implemented independently -------------------------------
# Written from the description of minicheck/inference.py (Liyan06/MiniCheck): lines split on "\n",
# each line into sentences, "\n" units between lines; greedy packing that closes a chunk when the
# next unit would overflow it; units joined with " ", " \n " back to "\n", stripped, empties dropped.


def reference_chunks(doc: str, size: int, measure: Callable[[str], int],
                     split: Callable[[str], list[str]] = split_sentences) -> list[str]:
    sents: list[str] = []
    for block in doc.split("\n"):
        sents += split(block)
        sents.append("\n")
    sents = sents[:-1] or [""]
    out, current, count = [], [], 0
    for sent in sents:
        n = measure(sent)
        if count + n > size:
            out.append(" ".join(current))
            current, count = [sent], n
        else:
            current.append(sent)
            count += n
    if current:
        out.append(" ".join(current))
    out = [c.replace(" \n ", "\n").strip() for c in out]
    return [c for c in out if c != ""]


def word_count(text: str) -> int:
    return len(text.split())


WORDS = ["plants", "tolerate", "low", "light", "Water", "the", "pothos", "every", "2.5", "weeks",
         "e.g.", "Dr.", "cats", "toxic", "It", "opened", "in", "1889"]
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(lambda ws: " ".join(ws) + ".")

line = st.lists(sentence, min_size=0, max_size=8).map(" ".join)
document = st.lists(line, min_size=1, max_size=12).map("\n".join)


@given(document, st.integers(min_value=1, max_value=120))
@settings(max_examples=300, deadline=None)
def test_chunks_match_an_independent_reimplementation_of_the_reference(doc: str, size: int) -> None:
    chunks = minicheck.chunk_document(doc, size, split=split_sentences)
    assert [c.text for c in chunks] == reference_chunks(doc, size, word_count)
    for c in chunks:  # each chunk's span starts and ends where its first and last sentence do
        assert doc[c.start:c.end].split() == c.text.split()


def test_long_passages_chunk_like_the_reference() -> None:
    # A 2,000-word passage in paragraphs (blank lines included), at Flan-T5's 500 words and at
    # smaller sizes, with words and with a token-like measure (characters / 4).
    paragraph = " ".join(tiny_models.CORPUS[:5])
    doc = "\n".join(paragraph if i % 4 else "" for i in range(37))
    assert 1900 < len(doc.split()) < 2200

    def tokens(texts: Sequence[str]) -> list[int]:
        return [len(t) // 4 for t in texts]

    for size in (500, 400, 120, 7):
        by_words = minicheck.chunk_document(doc, size, split=split_sentences)
        assert [c.text for c in by_words] == reference_chunks(doc, size, word_count)
        by_tokens = minicheck.chunk_document(doc, size, tokens, split=split_sentences)
        assert [c.text for c in by_tokens] == reference_chunks(doc, size, lambda t: len(t) // 4)
    at_500 = minicheck.chunk_document(doc, 500, split=split_sentences)
    assert len(at_500) >= 4 and all(len(c.text.split()) <= 500 for c in at_500)


def test_a_sentence_longer_than_the_chunk_is_a_chunk_of_its_own() -> None:
    doc = "Short one. " + "word " * 30 + "end. Last."
    chunks = [c.text for c in minicheck.chunk_document(doc, 10, split=split_sentences)]
    assert chunks == ["Short one.", ("word " * 30 + "end.").strip(), "Last."]
    assert minicheck.chunk_document("", 10) == []
    assert minicheck.chunk_document("\n\n", 10) == []


# --- recognising a checkpoint -------------------------------------------------------------------

ROBERTA = {"_name_or_path": "lytang/MiniCheck-RoBERTa-Large", "architectures": ["RobertaForSequenceClassification"],
           "model_type": "roberta", "id2label": {"0": "0", "1": "1"}, "max_position_embeddings": 514}
DEBERTA = {"_name_or_path": "lytang/MiniCheck-DeBERTa-v3-Large", "model_type": "deberta-v2",
           "id2label": {"0": "0", "1": "1"}, "max_position_embeddings": 512}
FLAN_T5 = {"_name_or_path": "/data/users/someone/checkpoints/factChecker/flan-large/checkpoint-1830",
           "model_type": "t5", "is_encoder_decoder": True, "n_positions": 512}
BESPOKE = {"_name_or_path": "bespokelabs/Bespoke-MiniCheck-7B", "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}


@pytest.mark.parametrize("config, names, family", [
    (ROBERTA, [], "roberta-large"),
    (DEBERTA, ["some/folder"], "deberta-v3-large"),
    (FLAN_T5, [], None),  # its config names a training folder only
    (FLAN_T5, ["hub/models--lytang--MiniCheck-Flan-T5-Large/snapshots/abc"], "flan-t5-large"),
    ({**ROBERTA, "_name_or_path": "roberta-large"}, [], None),  # an unnamed 2-label RoBERTa
    ({**ROBERTA, "id2label": {"0": "a", "1": "b", "2": "c"}}, [], None),  # not a 2-class head
    (BESPOKE, [], None),  # the 7B is served through an endpoint: the llm tier's minicheck metric
])
def test_a_minicheck_checkpoint_is_recognised_from_its_config_and_name(config: dict, names: list, family: str | None) -> None:
    found = minicheck.family_of(config, names)
    assert (found.name if found else None) == family


def write_config(folder: Path, config: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_model_meta_reads_minicheck_defaults_and_refuses_unnamed_labels(tmp_path: Path) -> None:
    meta = model_meta(write_config(tmp_path / "r", ROBERTA))
    assert (meta.kind, meta.entail_index, meta.label, meta.limit) == ("classifier", 1, "1", 512)
    assert meta.minicheck is not None and (meta.minicheck.unit, meta.minicheck.chunk_size) == ("tokens", 400)
    deberta = model_meta(write_config(tmp_path / "d", DEBERTA))
    assert deberta.limit == 2048  # the reference's max_model_len, not the 512 position embeddings
    t5 = model_meta(write_config(tmp_path / "MiniCheck-Flan-T5-Large", FLAN_T5))
    assert t5.minicheck is not None and (t5.kind, t5.minicheck.unit, t5.minicheck.chunk_size, t5.limit) == ("seq2seq", "words", 500, 2048)
    hub = write_config(tmp_path / "models--lytang--MiniCheck-Flan-T5-Large" / "snapshots" / "0123abc", FLAN_T5)
    assert model_meta(hub).minicheck == t5.minicheck  # a hub download: its repository folder names it
    elsewhere = write_config(tmp_path / "minicheck-runs" / "t5", FLAN_T5)
    assert model_meta(elsewhere).minicheck is None  # a parent folder's name does not count
    unnamed = write_config(tmp_path / "u", {**ROBERTA, "_name_or_path": "my-checker"})
    with pytest.raises(NLIModelError, match=r"no label names entailment.*pass --nli-entail-label=N with the class N \(0 or 1\)"):
        model_meta(unnamed)
    assert model_meta(unnamed, entail_label=0).entail_index == 0
    with pytest.raises(NLIModelError, match=r"--nli-entail-label=2: the model has classes \[0, 1\]"):
        model_meta(unnamed, entail_label=2)


def test_a_model_with_its_own_code_is_refused_unless_trusted(tmp_path: Path) -> None:
    folder = write_config(tmp_path / "hhem", {"model_type": "HHEMv2Config", "id2label": {"0": "hallucinated", "1": "consistent"},
                                               "auto_map": {"AutoConfig": "configuration_hhem.HHEMv2Config"}})
    with pytest.raises(NLIModelError, match="ships its own Python code.*pass --nli-trust-remote-code"):
        model_meta(folder)
    assert model_meta(folder, trust_remote_code=True, entail_label=1).entail_index == 1


# --- the endpoint checker's prompt and answers ----------------------------------------------------

def test_prompt_answer_reading_and_aggregation() -> None:
    system, user = minicheck.messages("The doc.", "The claim.")
    assert system == {"role": "system", "content": minicheck.SYSTEM_PROMPT}
    assert user == {"role": "user", "content": "Document: The doc.\nClaim: The claim."}
    assert minicheck.SYSTEM_PROMPT.endswith('by responding with either "Yes" or "No".')
    p = minicheck.support_from_logprobs([("Yes", math.log(0.6)), ("No", math.log(0.3)), (" yes", math.log(0.05))])
    assert p == pytest.approx(0.65)
    assert minicheck.support_from_logprobs([("No", 0.0)]) == 0.0
    assert (minicheck.support_from_text("Yes"), minicheck.support_from_text(" no.")) == (1.0, 0.0)
    with pytest.raises(minicheck.UnreadableAnswer, match="not Yes or No"):
        minicheck.support_from_text("Maybe")
    # scores[chunk][sentence]: sentence 0 is best in chunk 1 (0.9), sentence 1 in chunk 0 (0.6);
    # the claim is as supported as its weakest sentence: 0.6, decided by chunk 0.
    assert minicheck.aggregate([[0.2, 0.6], [0.9, 0.1]]) == (0.6, 0)
    assert minicheck.aggregate([[0.3], [0.8], [0.5]]) == (0.8, 1)


# --- tiny checkpoints through the NLIJudge ---------------------------------------------------------

@pytest.fixture(scope="session")
def checkers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.getbasetemp() / "tiny-minicheck"
    specs = {
        "roberta-yes": lambda p: tiny_models.minicheck_classifier(p, "roberta", force="1"),
        "roberta-no": lambda p: tiny_models.minicheck_classifier(p, "roberta", force="0"),
        "roberta-random": lambda p: tiny_models.minicheck_classifier(p, "roberta", init_std=0.5),
        "deberta-yes": lambda p: tiny_models.minicheck_classifier(p, "deberta", force="1"),
        "deberta-no": lambda p: tiny_models.minicheck_classifier(p, "deberta", force="0"),
        "unnamed-class0": lambda p: tiny_models.minicheck_classifier(p, "roberta", force="0", name_or_path=None),
        "MiniCheck-t5-yes": lambda p: tiny_models.minicheck_t5(p, "1"),
        "MiniCheck-t5-no": lambda p: tiny_models.minicheck_t5(p, "0"),
        "MiniCheck-t5-random": lambda p: tiny_models.minicheck_t5(p, None),
        "remote-code": tiny_models.remote_code_classifier,
    }
    out = {}
    for name, build in specs.items():
        path = base / name
        if not (path / "config.json").exists():
            build(path)
        out[name] = path
    tiny_models.load_once(out["roberta-yes"], out["deberta-yes"], out["MiniCheck-t5-yes"])  # before any pytester run
    return out


LONG = " ".join(tiny_models.CORPUS[:5])
CLAIM = "Paris is in France."


@pytest.mark.parametrize("name, supported", [
    ("roberta-yes", True), ("roberta-no", False), ("deberta-yes", True), ("deberta-no", False),
    ("MiniCheck-t5-yes", True), ("MiniCheck-t5-no", False),
])
def test_class_one_or_token_209_means_supported(checkers: dict[str, Path], name: str, supported: bool) -> None:
    judge = NLIJudge(str(checkers[name]))
    assert judge.minicheck is not None
    [result] = judge.entail([(LONG, CLAIM)])
    assert result.prob == pytest.approx(1.0 if supported else 0.0, abs=1e-6)
    assert judge.settings()["entailment_label"] == "1"


def test_an_unnamed_two_label_model_needs_its_label(checkers: dict[str, Path]) -> None:
    with pytest.raises(NLIModelError, match="--nli-entail-label=N"):
        NLIJudge(str(checkers["unnamed-class0"]))
    judge = NLIJudge(str(checkers["unnamed-class0"]), entail_label=0)  # forced to class 0: read as supported
    assert judge.minicheck is None and judge.entailment_probs([("Ferns like humid air.", CLAIM)]) == [pytest.approx(1.0)]


def test_the_t5_answer_tokens_are_t5s_209_and_3(checkers: dict[str, Path]) -> None:
    judge = NLIJudge(str(checkers["MiniCheck-t5-yes"]))
    judge.load()
    assert judge.runtime.label_ids == (tiny_models.T5_UNSUPPORTED, tiny_models.T5_SUPPORTED) == (3, 209)


def direct_support(folder: Path, chunks: list[str], claim: str, seq2seq: bool) -> list[float]:
    """P(supported) per chunk, computed straight from transformers with the reference's input."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    auto = AutoModelForSeq2SeqLM if seq2seq else AutoModelForSequenceClassification
    model = auto.from_pretrained(folder).eval()
    out = []
    with torch.no_grad():
        for chunk in chunks:
            if seq2seq:
                enc = tok(["predict: " + chunk + tok.eos_token + claim], return_tensors="pt", truncation=True, max_length=2048)
                logits = model(**enc, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[:, 0, [3, 209]]
            else:
                enc = tok([chunk + tok.eos_token + claim], return_tensors="pt", truncation=True, max_length=512)
                logits = model(**enc).logits
            out.append(torch.softmax(logits.float(), dim=-1)[0, 1].item())
    return out


@pytest.mark.parametrize("name, seq2seq, size", [("roberta-random", False, 30), ("MiniCheck-t5-random", True, 20)])
def test_score_is_the_max_over_reference_chunks(checkers: dict[str, Path], name: str, seq2seq: bool, size: int) -> None:
    judge = NLIJudge(str(checkers[name]), chunk_size=size, batch_size=3)
    premise = premise_of([Passage("1", LONG, title="Care"), Passage("2", tiny_models.CORPUS[6])])
    [result] = judge.entail([(premise, CLAIM)])
    judge.load()
    if seq2seq:
        measure: Callable[[str], int] = word_count
    else:
        measure = lambda t: len(judge.tokenizer(t, add_special_tokens=False)["input_ids"])  # noqa: E731
    expected = reference_chunks(premise, size, measure, minicheck.split_line)
    plan = judge.plan(premise, CLAIM)
    assert plan.texts == expected and len(expected) >= 3
    each = direct_support(checkers[name], expected, CLAIM, seq2seq)
    assert len({round(p, 3) for p in each}) > 1  # the random model does depend on its input
    assert result.how == "chunked" and result.prob == pytest.approx(max(each), abs=1e-5)
    best = each.index(max(each))
    assert result.evidence == plan.chunks[best]
    assert judge.counts["model_inputs"] == len(expected)


def test_a_checkpoint_downloaded_from_the_hub_loads_with_its_family_format(
        checkers: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # A hub id that is not cached yet: the judge downloads it before it can read its config, so it
    # loads the model before it knows the family; the family's input format is set up after.
    from pytest_sprout.judges import nli
    from pytest_sprout.judges.nli_model import ModelSource

    folder = checkers["MiniCheck-t5-yes"]
    name = "lytang/MiniCheck-Flan-T5-Large"
    monkeypatch.setattr(nli, "resolve_model", lambda n: ModelSource(n, str(folder), None, False))
    monkeypatch.setattr(nli, "_hub_folder", lambda n: folder)
    judge = NLIJudge(name)
    local = NLIJudge(str(folder))
    assert judge.minicheck is not None and judge.minicheck == local.minicheck
    assert judge.runtime.label_ids == local.runtime.label_ids == (3, 209)
    assert judge.runtime.overhead == local.runtime.overhead
    assert judge.judge(CLAIM, ["Paris is the capital of France."]) == local.judge(CLAIM, ["Paris is the capital of France."])


def test_remote_code_loads_only_when_trusted(checkers: dict[str, Path]) -> None:
    with pytest.raises(NLIModelError, match="--nli-trust-remote-code"):
        NLIJudge(str(checkers["remote-code"]))
    judge = NLIJudge(str(checkers["remote-code"]), trust_remote_code=True)
    assert judge.judge(CLAIM, ["Paris is the capital of France."]).supported is True
    assert type(judge.runtime.model).__name__ == "SproutCustomModel"  # its own class, from its own file


# --- through pytest -----------------------------------------------------------------------------------

def test_alce_tier_with_minicheck_checkers(pytester: pytest.Pytester, checkers: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={checkers['roberta-no']}", "--nli-window=off")
    result.assert_outcomes(failed=3, skipped=1)
    result.stdout.fnmatch_lines(["*why: not entailed: p(entailment) 0.00 < 0.50*"])
    result = pytester.runpytest("-m", "alce", f"--nli-model={checkers['MiniCheck-t5-yes']}")
    result.assert_outcomes(passed=3, skipped=1)


def test_unnamed_labels_and_remote_code_are_usage_errors_naming_the_option(pytester: pytest.Pytester, checkers: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={checkers['unnamed-class0']}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no label names entailment*pass --nli-entail-label=N*"])
    result = pytester.runpytest("-m", "alce", f"--nli-model={checkers['unnamed-class0']}", "--nli-entail-label=0", "--nli-window=off")
    result.assert_outcomes(passed=3, skipped=1)
    result = pytester.runpytest("-m", "alce", f"--nli-model={checkers['remote-code']}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ships its own Python code*--nli-trust-remote-code*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_nltk_punkt_splits_sentences_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    # NLTK's Punkt model (the reference's splitter) is a data download that cannot happen here:
    # a stand-in splitter in its place shows that chunking uses it, and says so, when it is there.
    seen: list[str] = []

    def punkt(line: str) -> list[str]:
        seen.append(line)
        return [part.strip() + "." for part in line.split(".") if part.strip()]

    monkeypatch.setattr(minicheck, "_punkt", lambda: punkt)
    assert minicheck.splitter() == "nltk-punkt"
    doc = "Dr. Smith came. He left.\nNext line."
    chunks = minicheck.chunk_document(doc, 1)  # one sentence per chunk: the splitter shows
    assert seen == ["Dr. Smith came. He left.", "Next line."]
    assert [c.text for c in chunks] == ["Dr.", "Smith came.", "He left.", "Next line."]
    monkeypatch.setattr(minicheck, "_punkt", lambda: None)
    assert minicheck.splitter() == "sprout"
    assert [c.text for c in minicheck.chunk_document(doc, 1)] == ["Dr. Smith came.", "He left.", "Next line."]
    monkeypatch.undo()
    assert minicheck.splitter() in ("nltk-punkt", "sprout")
