"""--nli-endpoint: the NLIJudge scoring its inputs on a text-embeddings-inference server.

The server is tests/tei_server.py, a stand-in for TEI that serves the tiny models through
transformers (127.0.0.1 only, stops by itself); the verdicts must equal the in-process judge's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

import tiny_models
from helpers import make_project
from pytest_sprout import NLIJudge
from pytest_sprout.judges import nli_endpoint
from pytest_sprout.judges.nli import NLIModelError
from tei_server import TEIStandIn

LONG_PREMISE = " ".join(tiny_models.CORPUS[:5])
PAIRS = [(LONG_PREMISE, "Paris is in France."), ("Ferns like humid air.", "Ferns like dry air."),
         ("Water a pothos.", "Peace lilies are toxic to cats."), ("Paris.", "It opened in 1889."),
         ("Snake plants tolerate low light.", "Snake plants tolerate low light.")]  # verbatim: no request
KEY = "sk-test-abcdefgh12345678"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    paths = tiny_models.zoo(tmp_path_factory.getbasetemp() / "tiny-nli")
    mc = tmp_path_factory.getbasetemp() / "tiny-endpoint" / "MiniCheck-roberta-tiny"
    if not (mc / "config.json").exists():
        tiny_models.minicheck_classifier(mc, init_std=0.5)
    return {**paths, "minicheck": mc}


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nli_endpoint, "BACKOFF", 0.01)


def serve(folder: Path, **kwargs: object) -> TEIStandIn:
    return TEIStandIn(folder, lifetime=120, threads=1, **kwargs).start()  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["random", "entail", "bert-not", "minicheck"])
def test_endpoint_verdicts_equal_the_local_tiers(models: dict[str, Path], name: str) -> None:
    local = NLIJudge(str(models[name]), max_length=48, batch_size=4)
    with serve(models[name]) as server:
        remote = NLIJudge(str(models[name]), max_length=48, batch_size=4, endpoint=server.url)
        got = remote.entail(PAIRS)
        requests = list(server.requests)
    want = local.entail(PAIRS)
    assert [r.prob for r in got] == pytest.approx([r.prob for r in want], abs=1e-5)
    assert [(r.how, r.evidence) for r in got] == [(r.how, r.evidence) for r in want]  # chunked on the client
    assert [v.supported for v in remote.judge_many([(c, [p]) for p, c in PAIRS])] == \
        [v.supported for v in local.judge_many([(c, [p]) for p, c in PAIRS])]
    shapes = {len(x) for body in requests for x in body["inputs"]}
    assert shapes == ({1} if name == "minicheck" else {2})  # MiniCheck: one string chunk<eos>claim
    if name == "minicheck":
        eos = remote.tokenizer.eos_token
        assert all(eos in x[0] for body in requests for x in body["inputs"])
    assert all(body["truncate"] is True and body["raw_scores"] is False for body in requests)
    assert not remote.loaded or remote.runtime.__class__.__name__ == "EndpointRuntime"


def test_the_servers_info_names_the_model_for_the_cache(models: dict[str, Path], tmp_path: Path) -> None:
    with serve(models["random"]) as server:
        remote = NLIJudge(str(models["random"]), cache_dir=tmp_path, endpoint=server.url)
        settings = remote.settings()
        assert settings["endpoint"] == {"model_id": "random", "model_sha": None, "model_dtype": "float32"}
        assert settings["dtype"] == "float32" and server.url not in json.dumps(settings)
        local = NLIJudge(str(models["random"]), cache_dir=tmp_path)
        assert remote.fingerprint() != local.fingerprint()
        probs = remote.entailment_probs(PAIRS)
        again = NLIJudge(str(models["random"]), cache_dir=tmp_path, endpoint=server.url)
        assert again.entailment_probs(PAIRS) == probs and again.counts["model_inputs"] == 0
    with pytest.raises(NLIModelError, match="does not apply with --nli-endpoint"):
        NLIJudge(str(models["random"]), dtype="bfloat16", endpoint="http://127.0.0.1:9")


def test_requests_keep_to_the_servers_batch_limit(models: dict[str, Path]) -> None:
    with serve(models["random"], max_client_batch_size=2) as server:
        remote = NLIJudge(str(models["random"]), max_length=48, batch_size=16, endpoint=server.url)
        probs = remote.entailment_probs(PAIRS)
        assert max(len(body["inputs"]) for body in server.requests) == 2
    assert probs == pytest.approx(NLIJudge(str(models["random"]), max_length=48, batch_size=2).entailment_probs(PAIRS), abs=1e-5)


def test_a_failing_server_is_retried_with_backoff(models: dict[str, Path], fast_retries: None) -> None:
    with serve(models["entail"], fail_first=2) as server:
        remote = NLIJudge(str(models["entail"]), endpoint=server.url)
        assert remote.judge("Ferns like dry air.", ["Ferns like humid air."]).supported is True
        assert len(server.requests) == 3  # two 503s, then the answer


def test_a_server_that_keeps_failing_is_one_clear_error(models: dict[str, Path], fast_retries: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nli_endpoint, "RETRIES", 1)
    with serve(models["entail"], fail_first=10) as server:
        remote = NLIJudge(str(models["entail"]), endpoint=server.url)
        with pytest.raises(NLIModelError, match=r"/predict: HTTP 503: unhealthy"):
            remote.judge("Ferns like dry air.", ["Ferns like humid air."])
        assert len(server.requests) == 2
    gone = NLIJudge(str(models["entail"]), endpoint=server.url)  # stopped: nothing listens there now
    with pytest.raises(NLIModelError, match=r"no reply after 2 tries"):
        gone.judge("Ferns like dry air.", ["Ferns like humid air."])


def test_the_key_comes_from_the_environment_and_is_never_shown(models: dict[str, Path], fast_retries: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(models["entail"], api_key=KEY) as server:
        monkeypatch.setenv(nli_endpoint.KEY_ENV, "sk-wrong-key-00000000")
        wrong = NLIJudge(str(models["entail"]), endpoint=server.url)
        with pytest.raises(NLIModelError) as info:
            wrong.judge("Ferns like dry air.", ["Ferns like humid air."])
        assert "HTTP 401" in str(info.value) and "sk-wrong" not in str(info.value)
        monkeypatch.setenv(nli_endpoint.KEY_ENV, KEY)
        right = NLIJudge(str(models["entail"]), endpoint=server.url)
        assert right.judge("Ferns like dry air.", ["Ferns like humid air."]).supported is True
        assert KEY not in repr(right._endpoint.key) and KEY not in json.dumps(right.settings())  # type: ignore[union-attr]


def test_a_server_with_other_labels_or_a_seq2seq_model_is_refused(models: dict[str, Path]) -> None:
    with serve(models["bert-entail"]) as server:
        other = NLIJudge(str(models["entail"]), endpoint=server.url)
        with pytest.raises(NLIModelError, match="serves a model with the labels"):
            other.judge("Ferns like dry air.", ["Ferns like humid air."])
        t5 = NLIJudge(str(models["t5-yes"]), endpoint=server.url)
        with pytest.raises(NLIModelError, match="serves sequence classifiers only"):
            t5.judge("Ferns like dry air.", ["Ferns like humid air."])


def test_alce_run_through_an_endpoint_reports_what_the_local_run_does(
        pytester: pytest.Pytester, models: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, tiers="[alce]")
    args = ("-m", "alce", f"--nli-model={models['random']}", "-p", "no:cacheprovider", "-p", "no:randomly")
    pytester.runpytest(*args, "--sprout-report=local.json")
    monkeypatch.setenv(nli_endpoint.KEY_ENV, KEY)
    with serve(models["random"], api_key=KEY) as server:
        result = pytester.runpytest(*args, f"--nli-endpoint={server.url}", "--sprout-report=remote.json")
    assert KEY not in result.stdout.str() + result.stderr.str()
    text = (pytester.path / "remote.json").read_text()
    assert KEY not in text

    def rows(name: str) -> list[tuple[str, list[bool | None], list[float]]]:
        report = json.loads((pytester.path / name).read_text())
        return [(r["case_id"], [s["supported"] for s in r.get("sentences", [])],
                 [round(s["score"], 3) for s in r.get("sentences", [])]) for r in report["items"]]

    assert rows("remote.json") == rows("local.json") and rows("local.json")


def test_a_bad_endpoint_url_is_a_usage_error(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest(f"--nli-model={models['random']}", "--nli-endpoint=localhost:8080")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--nli-endpoint / sprout_nli_endpoint: 'localhost:8080' must start with http:// or https://*"])


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(nli_endpoint.KEY_ENV, raising=False)
    yield
