"""``python -m pytest_sprout.metaeval`` with the NLI judge's --nli-dtype and --nli-endpoint: the
plugin's option names, checks and messages, the dtype on a tiny model (tests/tiny_models.py), and
the endpoint against tests/tei_server.py (a stand-in for text-embeddings-inference), its key from
SPROUT_NLI_API_KEY and never printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tiny_models
from pytest_sprout.cli import metaeval
from pytest_sprout.judges import nli_endpoint
from tei_server import TEIStandIn

SMALL = Path(__file__).parent / "data" / "metaeval_small.jsonl"
KEY = "sk-metaeval-abcdefgh12345678"


@pytest.fixture(scope="module")
def random_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random classifier (its probabilities are not 0 or 1, so a change of dtype or of
    where it runs would show)."""
    return tiny_models.zoo(tmp_path_factory.getbasetemp() / "tiny-nli")["random"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = metaeval.main(["--judge", "nli", "--data", str(SMALL), "--nli-device", "cpu", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, message", [
    (("--nli-dtype", "half"), "--nli-dtype must be one of auto, float32, bfloat16, float16, got 'half'"),
    (("--nli-endpoint", "ftp://host"), "--nli-endpoint: 'ftp://host' must start with http:// or https://"),
    (("--nli-endpoint", "http://"), "--nli-endpoint: 'http://' names no host"),
    (("--nli-endpoint", "http://127.0.0.1:9", "--nli-dtype", "bfloat16"),
     "--nli-dtype=bfloat16 does not apply with --nli-endpoint: the server decides the dtype"),
])
def test_bad_values_are_the_plugins_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           args: tuple[str, ...], message: str) -> None:
    code, out, err = run(capsys, "--nli-model", str(tmp_path / "unused"), *args)
    assert code == 2 and out == ""
    assert f"metaeval: error: {message}" in err and "Traceback" not in err


def _results(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def test_dtype_is_used_and_reported(capsys: pytest.CaptureFixture[str], random_model: Path, tmp_path: Path) -> None:
    runs = {}
    for dtype in ("float32", "bfloat16"):
        out_json = tmp_path / f"{dtype}.json"
        code, out, err = run(capsys, "--nli-model", str(random_model), "--nli-dtype", dtype, "--json", str(out_json))
        assert code == 0, err
        assert f'"dtype": "{dtype}"' in out
        runs[dtype] = _results(out_json)
    assert [r["settings"]["dtype"] for r in runs.values()] == ["float32", "bfloat16"]
    full, half = (r["overall"] for r in runs.values())
    assert full["n"] == half["n"] == 8
    # bfloat16 moves the random tiny model's probabilities by < 0.02 (tests/test_nli.py): the AUC
    # of its scores stays close to float32's.
    assert half["auc"]["value"] == pytest.approx(full["auc"]["value"], abs=0.2)


def test_endpoint_scores_on_the_server_with_the_key_from_the_environment(
        capsys: pytest.CaptureFixture[str], random_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local_json, remote_json = tmp_path / "local.json", tmp_path / "remote.json"
    code, _, err = run(capsys, "--nli-model", str(random_model), "--json", str(local_json))
    assert code == 0, err
    monkeypatch.setenv(nli_endpoint.KEY_ENV, KEY)
    with TEIStandIn(random_model, lifetime=120, threads=1, api_key=KEY).start() as server:  # type: ignore[arg-type]
        code, out, err = run(capsys, "--nli-model", str(random_model), "--nli-endpoint", server.url,
                             "--json", str(remote_json))
        requests = list(server.requests)
    assert code == 0, err
    assert requests  # scored there, not here
    local, remote = _results(local_json), _results(remote_json)
    assert remote["overall"] == local["overall"]  # the same verdicts as the model run in this process
    assert KEY not in out + err + remote_json.read_text()
    # A wrong key: the server's 401, one clear error, the key still not shown.
    monkeypatch.setenv(nli_endpoint.KEY_ENV, "sk-wrong-key-00000000")
    monkeypatch.setattr(nli_endpoint, "RETRIES", 0)
    with TEIStandIn(random_model, lifetime=120, threads=1, api_key=KEY).start() as server:  # type: ignore[arg-type]
        code, out, err = run(capsys, "--nli-model", str(random_model), "--nli-endpoint", server.url)
    assert code == 2 and "HTTP 401" in err and "sk-wrong" not in out + err and "Traceback" not in err
