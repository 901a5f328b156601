"""The NLIJudge with tiny real models: loading, label mapping, chunking, batching, caching."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tiny_models
from pytest_sprout import NLIJudge
from pytest_sprout.judges.nli import NLIModelError, format_source, is_verbatim, premise_of, sentence_spans
from pytest_sprout.judges.nli_model import entailment_index, resolve_model
from pytest_sprout.core.model import Passage

LONG_PREMISE = " ".join(tiny_models.CORPUS[:5])  # 5 lines' worth of sentences, ~110 tokens


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return tiny_models.zoo(tmp_path_factory.getbasetemp() / "tiny-nli")


# --- label mapping ----------------------------------------------------------------------------

@pytest.mark.parametrize("id2label, index", [
    ({0: "entailment", 1: "neutral", 2: "contradiction"}, 0),
    ({"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}, 2),
    ({0: "not_entailment", 1: "entailment"}, 1),
    ({0: "Supported", 1: "Not supported"}, 0),
    ({0: "contradiction", 1: "entail"}, 1),
])
def test_entailment_class_is_found_by_name(id2label: dict, index: int) -> None:
    assert entailment_index(id2label) == index


def test_no_entailment_class_is_an_error_that_prints_the_labels() -> None:
    with pytest.raises(NLIModelError, match=r"no label names entailment in the model's id2label \{0: 'LABEL_0', 1: 'LABEL_1'\}"):
        entailment_index({0: "LABEL_0", 1: "LABEL_1"})
    with pytest.raises(NLIModelError, match="several labels name entailment"):
        entailment_index({0: "entailment", 1: "ENTAILMENT"})


@pytest.mark.parametrize("name, label", [("entail", "ENTAILMENT"), ("entail-mnli-order", "entailment"), ("bert-entail", "entailment")])
def test_forced_entailment_models_entail_through_their_label_mapping(models: dict[str, Path], name: str, label: str) -> None:
    judge = NLIJudge(str(models[name]))
    assert (judge.kind, judge.label) == ("classifier", label)
    assert judge.entailment_probs([("Ferns like humid air.", "Paris is the capital of France.")]) == [pytest.approx(1.0)]


@pytest.mark.parametrize("name", ["contradict", "bert-not"])
def test_forced_non_entailment_models_do_not_entail(models: dict[str, Path], name: str) -> None:
    judge = NLIJudge(str(models[name]))
    [verdict] = judge.judge_many([("Paris is the capital of France.", ["Ferns like humid air."])])
    assert verdict.supported is False and verdict.score == pytest.approx(0.0, abs=1e-6)
    assert verdict.reason.startswith("not entailed: p(entailment) 0.00 < 0.50")


def test_true_style_t5_answers_one_or_zero(models: dict[str, Path]) -> None:
    yes, no = NLIJudge(str(models["t5-yes"])), NLIJudge(str(models["t5-no"]))
    assert (yes.kind, yes.label) == ("seq2seq", "1")
    pairs = [("Ferns like humid air.", "Paris is in France."), ("Water a pothos.", "Snake plants tolerate low light.")]
    assert yes.entailment_probs(pairs) == [pytest.approx(1.0)] * 2
    assert no.entailment_probs(pairs) == [pytest.approx(0.0, abs=1e-6)] * 2


def test_model_without_entailment_label_is_refused_before_loading(models: dict[str, Path]) -> None:
    with pytest.raises(NLIModelError, match="no label names entailment"):
        NLIJudge(str(models["no-label"]))


# --- finding the model fast -------------------------------------------------------------------

def test_missing_folder_and_offline_hub_id_fail_without_importing_torch(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pytest_sprout.judges.nli import NLIJudge, NLIModelError\n"
        "for name in ['./no/such/model', 'nobody/no-such-nli-model']:\n"
        "    try:\n"
        "        NLIJudge(name)\n"
        "    except NLIModelError as exc:\n"
        "        print(exc)\n"
        "print('torch' in sys.modules, 'transformers' in sys.modules)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("'./no/such/model': no such folder (relative to ")
    assert "not in the Hugging Face cache" in lines[1] and "HF_HUB_OFFLINE is set" in lines[1]
    assert lines[2] == "False False"


def test_unreachable_hub_is_decided_before_transformers_and_sets_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "unset-below")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(NLIModelError, match=r"127\.0\.0\.1 cannot be reached"):
        resolve_model("nobody/no-such-nli-model")
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_a_folder_without_config_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(NLIModelError, match="is not a model folder"):
        resolve_model(str(tmp_path))


@pytest.mark.parametrize("kwargs, message", [
    ({"window": "sideways"}, "window must be one of chunk, off"),
    ({"batch_size": 0}, "batch size must be at least 1"),
    ({"max_length": 8}, "max length must be at least 32"),
    ({"threshold": 1.5}, "threshold must be in"),
    ({"dtype": "half"}, "dtype must be one of auto, float32, bfloat16, float16"),
])
def test_bad_settings_are_errors(models: dict[str, Path], kwargs: dict, message: str) -> None:
    with pytest.raises(NLIModelError, match=message):
        NLIJudge(str(models["random"]), **kwargs)


def test_weights_load_on_first_need_only(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["random"]))
    assert not judge.loaded
    assert judge.judge("Ferns like humid air.", ["Ferns like humid air."]).supported is True  # verbatim
    assert not judge.loaded
    judge.judge("Ferns like dry air.", ["Ferns like humid air."])
    assert judge.loaded


# --- premises, verbatim short-circuit ---------------------------------------------------------

def test_premise_is_alce_formatted() -> None:
    sources = [Passage("a", "Text one.", title="One"), Passage("b", "Text two."), "Plain."]
    assert format_source(sources[0]) == "Title: One\nText one."
    assert premise_of(sources) == "Title: One\nText one.\nText two.\nPlain."


def test_verbatim_needs_whole_sentences() -> None:
    premise = "Title: Care\nIt is false that snake plants need full sun. Ferns like humid air. They grow fast."
    assert is_verbatim("Ferns like humid air.", premise)
    assert is_verbatim("ferns like HUMID air! They grow fast", premise)  # case, punctuation, two sentences
    assert not is_verbatim("Snake plants need full sun.", premise)  # a clause under a negation
    assert not is_verbatim("Ferns like humid", premise)
    assert not is_verbatim("", premise)


words = st.lists(st.sampled_from("alpha beta gamma delta ferns light water dry".split()), min_size=1, max_size=6)
sentence_lists = st.lists(words.map(lambda ws: " ".join(ws).capitalize() + "."), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(sentence_lists, st.data())
def test_any_run_of_whole_sentences_is_verbatim(sentences: list[str], data: st.DataObject) -> None:
    premise = " ".join(sentences)
    spans = sentence_spans(premise)
    assert [premise[a:b] for a, b in spans] == sentences
    i = data.draw(st.integers(0, len(sentences) - 1))
    j = data.draw(st.integers(i + 1, len(sentences)))
    assert is_verbatim(" ".join(sentences[i:j]), premise)


def test_verbatim_pairs_skip_the_model(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["contradict"]))
    verdicts = judge.judge_many([
        ("Snake plants tolerate low light.", [Passage("1", LONG_PREMISE, title="Guide")]),
        ("Snake plants tolerate bright light.", [Passage("1", LONG_PREMISE, title="Guide")]),
    ])
    assert [v.supported for v in verdicts] == [True, False]
    assert verdicts[0].reason.startswith("the sentence is verbatim")
    assert judge.counts["short_circuited"] == 1 and judge.counts["model_inputs"] > 0
    off = NLIJudge(str(models["contradict"]), window="off")  # ALCE's behaviour: no short-circuit
    assert off.judge("Snake plants tolerate low light.", [LONG_PREMISE]).supported is False


# --- chunking and truncation ------------------------------------------------------------------

def test_long_premise_is_scored_as_sentence_aligned_chunks_taking_the_max(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["random"]), max_length=40)
    claim = "Paris is in France."
    [result] = judge.entail([(LONG_PREMISE, claim)])
    assert result.how == "chunked" and judge.counts["chunked"] == 1
    plan = judge.plan(LONG_PREMISE, claim, sentence_spans(LONG_PREMISE))
    assert len(plan.chunks) > 1 and judge.counts["model_inputs"] == len(plan.chunks)
    starts = {a for a, _ in sentence_spans(LONG_PREMISE)}
    ends = {b for _, b in sentence_spans(LONG_PREMISE)}
    for (a, b), tokens in zip(plan.chunks, plan.tokens):
        assert a in starts and b in ends  # chunks begin and end on sentence boundaries
        encoded = judge.tokenizer(LONG_PREMISE[a:b], claim)["input_ids"]
        assert len(encoded) <= 40 and tokens == len(encoded)
    covered = set().union(*(range(a, b) for a, b in plan.chunks))
    assert all(set(range(a, b)) <= covered for a, b in sentence_spans(LONG_PREMISE))  # no text lost
    # The verdict is the best chunk's, each chunk scored on its own.
    alone = NLIJudge(str(models["random"]), max_length=40)
    each = alone.entailment_probs([(LONG_PREMISE[a:b], claim) for a, b in plan.chunks])
    assert result.prob == pytest.approx(max(each), abs=1e-5)
    assert result.evidence == plan.chunks[each.index(max(each))]


def test_window_off_truncates_like_alce(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["short"]), window="off")
    assert judge.limit == 64
    premise = LONG_PREMISE * 2
    [verdict] = judge.judge_many([("Paris is in France.", [premise])])
    assert judge.counts["truncated"] == 1
    assert "(premise truncated to 64 tokens)" in verdict.reason
    [short] = judge.entail([("Ferns like humid air.", "Paris is in France.")])
    assert short.how == "whole"


def test_a_sentence_longer_than_the_window_is_cut_not_dropped(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["random"]), max_length=32)
    premise = "Snake plants " + "really " * 40 + "tolerate low light."
    plan = judge.plan(premise, "Snake plants like shade.")
    assert plan.how == "chunked" and len(plan.chunks) > 1
    assert plan.chunks[0][0] == 0 and plan.chunks[-1][1] == len(premise)


# --- batching, dedup, cache -------------------------------------------------------------------

def test_batch_size_and_order_do_not_change_scores(models: dict[str, Path]) -> None:
    pairs = [(LONG_PREMISE, "Paris is in France."), ("Ferns like humid air.", "Ferns like dry air."),
             ("Water a pothos.", "Peace lilies are toxic to cats."), ("Paris.", "It opened in 1889.")]
    one = NLIJudge(str(models["random"]), batch_size=1, max_length=48).entailment_probs(pairs)
    many = NLIJudge(str(models["random"]), batch_size=16, max_length=48).entailment_probs(pairs[::-1])[::-1]
    assert many == pytest.approx(one, abs=1e-5)
    assert len(set(round(p, 4) for p in one)) > 1  # the random model does depend on its input


def test_identical_pairs_are_scored_once(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["random"]))
    pair = ("Ferns like humid air.", "Ferns like dry air.")
    assert len(set(judge.entailment_probs([pair, pair, pair]))) == 1
    judge.entailment_probs([pair])
    assert judge.counts["model_inputs"] == 1 and judge.counts["memory_hits"] == 1


def test_disk_cache_is_keyed_by_model_files_and_window(models: dict[str, Path], tmp_path: Path) -> None:
    pairs = [(LONG_PREMISE, "Paris is in France."), ("Ferns like humid air.", "Ferns like dry air.")]
    first = NLIJudge(str(models["random"]), cache_dir=tmp_path, max_length=48)
    probs = first.entailment_probs(pairs)
    second = NLIJudge(str(models["random"]), cache_dir=tmp_path, max_length=48)
    assert second.entailment_probs(pairs) == probs
    assert second.counts["disk_hits"] == 2 and second.counts["model_inputs"] == 0 and not second.loaded
    assert second.entail(pairs)[0].how == "chunked"  # how it was scored survives the cache
    off = NLIJudge(str(models["random"]), cache_dir=tmp_path, max_length=48, window="off")
    off.entailment_probs(pairs)
    assert off.counts["disk_hits"] == 0
    changed = tmp_path / "changed"
    shutil.copytree(models["random"], changed)
    tiny_models.classifier(changed, init_std=0.5, seed=1)  # same files, other weights
    retrained = NLIJudge(str(changed), cache_dir=tmp_path, max_length=48)
    assert retrained.fingerprint() != first.fingerprint()
    retrained.entailment_probs(pairs)
    assert retrained.counts["disk_hits"] == 0


def test_judge_interface(models: dict[str, Path]) -> None:
    judge = NLIJudge(str(models["entail"]))
    verdict = judge.judge("Snake plants like shade.", [Passage("1", "Snake plants tolerate low light.", title="Care")])
    assert verdict.supported is True and verdict.score == 1.0 and verdict.reason.startswith("entailed")
    nothing = judge.judge("Snake plants like shade.", [])
    assert (nothing.supported, nothing.rule, nothing.reason) == (False, "no-citation", "cites no passage")
    with pytest.raises(TypeError, match="not a single str"):
        judge.judge("Snake plants like shade.", "Snake plants tolerate low light.")  # type: ignore[arg-type]
    assert judge.settings()["window"] == "chunk" and judge.settings()["entailment_label"] == "ENTAILMENT"
    counts = judge.describe_pairs([("Snake plants like shade.", [Passage("1", "Snake plants tolerate low light.", title="Care")])])
    assert counts == {"nli_pairs": 1, "short_circuited": 0, "chunked": 0, "truncated": 0}


# --- precision (--nli-dtype) ------------------------------------------------------------------

# |p(entailment) at bfloat16 - at float32| on the tiny models (random and forced ones). bfloat16
# keeps 8 bits of mantissa (a relative error of about 0.4% per operation); the random tiny model's
# probabilities move by less than 0.01, and a forced model's verdict does not move at all.
HALF_TOLERANCE = 0.02
DTYPE_PAIRS = [(LONG_PREMISE, "Paris is in France."), ("Ferns like humid air.", "Ferns like dry air."),
               ("Water a pothos.", "Peace lilies are toxic to cats."), ("Paris.", "It opened in 1889.")]


@pytest.mark.parametrize("name", ["random", "entail", "contradict", "bert-entail", "bert-not", "t5-yes", "t5-no"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_verdicts_are_within_tolerance_of_float32(models: dict[str, Path], name: str, dtype: str) -> None:
    full = NLIJudge(str(models[name]), dtype="float32", max_length=48)
    half = NLIJudge(str(models[name]), dtype=dtype, max_length=48)
    p32, p16 = full.entailment_probs(DTYPE_PAIRS), half.entailment_probs(DTYPE_PAIRS)
    assert half.runtime.model.dtype == getattr(__import__("torch"), dtype)
    assert p16 == pytest.approx(p32, abs=HALF_TOLERANCE)
    if name != "random":  # forced: the same verdicts
        assert [p >= 0.5 for p in p16] == [p >= 0.5 for p in p32]


def test_dtype_is_in_the_settings_and_the_cache_key(models: dict[str, Path], tmp_path: Path) -> None:
    auto = NLIJudge(str(models["random"]), device="cpu", cache_dir=tmp_path)
    assert auto.settings()["dtype"] == "float32"  # auto on a CPU
    auto.entailment_probs(DTYPE_PAIRS)
    again = NLIJudge(str(models["random"]), dtype="float32", cache_dir=tmp_path)
    again.entailment_probs(DTYPE_PAIRS)
    assert again.counts["disk_hits"] == len(DTYPE_PAIRS) and not again.loaded
    bf16 = NLIJudge(str(models["random"]), dtype="bfloat16", cache_dir=tmp_path)
    assert bf16.settings()["dtype"] == "bfloat16"
    bf16.entailment_probs(DTYPE_PAIRS)
    assert bf16.counts["disk_hits"] == 0 and bf16.counts["model_inputs"] >= len(DTYPE_PAIRS)


def test_auto_dtype_needs_no_torch_where_no_gpu_can_be(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_sprout.judges import nli_runtime

    monkeypatch.setattr(nli_runtime, "cuda_possible", lambda: False)
    assert nli_runtime.auto_dtype("auto") == "float32" and nli_runtime.auto_dtype("cpu") == "float32"
