"""The NLIJudge's model behind a text-embeddings-inference (TEI) server (``--nli-endpoint=URL``).

Hugging Face's text-embeddings-inference serves a sequence classifier at ``POST /predict`` and
describes it at ``GET /info``. What the judge sends and reads, as TEI's router defines it:

- ``/predict`` takes ``{"inputs": [[text], [text, text_pair], ...], "truncate": bool,
  "raw_scores": bool}``: a batch of single strings and pairs (a one-element array is a single
  string; a bare two-string array would be one pair, not a batch, so a batch is always nested).
  It answers one list per input of ``{"score": float, "label": str}``, sorted by score, the
  scores a softmax over the classes unless ``raw_scores``. A batch larger than the server's
  ``max_client_batch_size`` (32 by default) is refused with 413; an overloaded server answers 429;
  errors are ``{"error": str, "error_type": str}``.
- ``/info`` names the model (``model_id``, ``model_sha``, ``model_dtype``), its ``model_type``
  (``{"classifier": {"id2label": {...}, "label2id": {...}}}``), ``max_input_length`` and
  ``max_client_batch_size``.

Everything that decides what the model reads stays here, on the client: the premise's chunks (with
the local tokenizer of ``--nli-model``: only its tokenizer and config files are read, never its
weights), the MiniCheck input format (one string ``chunk<eos>claim``) and the entailment label
(by name, from the local config, checked against the server's ``id2label``). The model's identity
for the verdict cache is the server's ``/info`` (model id, revision, dtype) with the local
tokenizer's files.

The HTTP client: a timeout per request, retries of connection errors, 429 and 5xx replies with a
capped exponential backoff, and an API key from ``SPROUT_NLI_API_KEY`` sent as a Bearer token.
The key is a SecretStr (core/secret.py): it never appears in a message, a setting or a report,
and a reply's text is redacted before it is shown.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..core.secret import SecretStr, redact
from .minicheck import Family
from .nli_model import NLIModelError

KEY_ENV = "SPROUT_NLI_API_KEY"
TIMEOUT = 60.0  # seconds per request
RETRIES = 4  # of a request that failed for a reason that may pass (connection, 429, 5xx)
BACKOFF = 0.5  # seconds before the first retry; doubled each time, at most MAX_BACKOFF, jittered
MAX_BACKOFF = 8.0
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


def shown(url: str) -> str:
    """The URL as messages show it: without a user or password it may carry."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


class Endpoint:
    """A TEI server: ``info()`` and ``predict(inputs)`` with timeouts, retries and the key."""

    def __init__(self, url: str, key: SecretStr | None = None, timeout: float | None = None,
                 retries: int | None = None) -> None:
        self.url = url.rstrip("/")
        self.key = key if key is not None else (SecretStr(os.environ[KEY_ENV]) if os.environ.get(KEY_ENV) else None)
        self.timeout = TIMEOUT if timeout is None else timeout
        self.retries = RETRIES if retries is None else retries
        self._client: Any = None
        self._info: dict[str, Any] | None = None
        self.requests = 0

    def _http(self) -> Any:
        if self._client is None:
            import httpx

            self._client = httpx.Client(timeout=self.timeout, follow_redirects=False, trust_env=True)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        """One request, retried when the failure may pass; the parsed JSON reply."""
        import httpx

        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key.reveal()}"
        data = None if body is None else json.dumps(body).encode()
        where = f"{shown(self.url)}{path}"
        for attempt in range(self.retries + 1):
            self.requests += 1
            try:
                reply = self._http().request(method, f"{self.url}{path}", content=data, headers=headers)
            except httpx.HTTPError as exc:
                why = f"{type(exc).__name__}: {redact(str(exc).encode(), self.key).decode(errors='replace')}"
                if attempt < self.retries:
                    self._sleep(attempt, None)
                    continue
                raise NLIModelError(f"--nli-endpoint {where}: no reply after {attempt + 1} tries ({why})") from None
            if reply.status_code in RETRY_STATUS and attempt < self.retries:
                self._sleep(attempt, reply.headers.get("retry-after"))
                continue
            text = redact(reply.content[:2000], self.key).decode("utf-8", errors="replace")
            if reply.status_code != 200:
                try:
                    text = str(json.loads(text).get("error", text))
                except (ValueError, AttributeError):
                    pass
                raise NLIModelError(f"--nli-endpoint {where}: HTTP {reply.status_code}: {text.strip()[:300]}")
            try:
                return reply.json()
            except ValueError:
                raise NLIModelError(f"--nli-endpoint {where}: the reply is not JSON: {text[:200]!r}") from None
        raise AssertionError("unreachable")

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        wait = min(MAX_BACKOFF, BACKOFF * 2 ** attempt)
        try:
            wait = min(MAX_BACKOFF, max(wait, float(retry_after))) if retry_after else wait
        except ValueError:
            pass
        time.sleep(wait * random.uniform(0.5, 1.0))

    def info(self) -> dict[str, Any]:
        """The server's ``/info`` (read once); NLIModelError when it serves no classifier."""
        if self._info is None:
            info = self._call("GET", "/info")
            if not isinstance(info, dict) or not isinstance(info.get("model_type"), dict) \
                    or "classifier" not in info["model_type"]:
                kind = list(info.get("model_type", {})) if isinstance(info, dict) and isinstance(info.get("model_type"), dict) else "?"
                raise NLIModelError(f"--nli-endpoint {shown(self.url)} serves no sequence classifier "
                                    f"(its /info model_type is {kind}); the alce tier needs a classifier at /predict")
            self._info = info
        return self._info

    def identity(self) -> dict[str, Any]:
        """What names the served model: its id, revision and dtype (the cache's model identity)."""
        info = self.info()
        return {"model_id": info.get("model_id"), "model_sha": info.get("model_sha"), "model_dtype": info.get("model_dtype")}

    def batch_limit(self) -> int:
        value = self.info().get("max_client_batch_size")
        return int(value) if isinstance(value, int) and value > 0 else 32

    def predict(self, inputs: list[list[str]]) -> list[list[dict[str, Any]]]:
        """Softmax scores per label for each input (``[text]`` or ``[text, pair]``), in requests
        of at most the server's batch limit."""
        out: list[list[dict[str, Any]]] = []
        step = self.batch_limit()
        for i in range(0, len(inputs), step):
            part = inputs[i:i + step]
            reply = self._call("POST", "/predict", {"inputs": part, "truncate": True, "raw_scores": False})
            if len(part) == 1 and isinstance(reply, list) and reply and isinstance(reply[0], dict):
                reply = [reply]  # a server that answers a batch of one as a single input
            if not isinstance(reply, list) or len(reply) != len(part):
                raise NLIModelError(f"--nli-endpoint {shown(self.url)}/predict: expected {len(part)} predictions, "
                                    f"got {str(reply)[:200]}")
            out.extend(reply)
        return out


class EndpointRuntime:
    """Runtime's interface (nli_runtime.py) over an Endpoint: the local tokenizer plans the
    chunks, the server scores them. ``encode`` only formats the texts (no tensors)."""

    def __init__(self, name: str, endpoint: Endpoint, tokenizer: Any, *, kind: str, label: str, id2label: dict[str, str],
                 minicheck: Family | None, limit: int) -> None:
        if kind != "classifier":
            raise NLIModelError(f"--nli-endpoint: {name!r} is a seq2seq model; a TEI server serves sequence "
                                "classifiers only: drop --nli-endpoint to run it here")
        self.name, self.kind, self.minicheck, self.label = name, kind, minicheck, label
        self.endpoint, self.tokenizer = endpoint, tokenizer
        served = {str(k): str(v) for k, v in endpoint.info()["model_type"]["classifier"].get("id2label", {}).items()}
        if served and served != {str(k): str(v) for k, v in id2label.items()}:
            raise NLIModelError(f"--nli-endpoint {shown(endpoint.url)} serves a model with the labels {served}, "
                                f"but {name!r} has {id2label}: pass the --nli-model the server serves")
        served_limit = endpoint.info().get("max_input_length")
        self.limit = min(limit, served_limit) if isinstance(served_limit, int) and served_limit > 0 else limit
        self.dtype = str(endpoint.info().get("model_dtype") or "?")
        if minicheck is not None:
            if not tokenizer.eos_token:
                raise NLIModelError(f"{name!r}: MiniCheck joins chunk and claim with the tokenizer's eos token, and it has none")
            self.overhead = tokenizer.num_special_tokens_to_add(pair=False) + 1
        else:
            self.overhead = tokenizer.num_special_tokens_to_add(pair=True)

    def inputs(self, texts: list[tuple[str, str]]) -> list[list[str]]:
        if self.minicheck is not None:
            eos = self.tokenizer.eos_token
            return [[f"{p}{eos}{c}"] for p, c in texts]
        return [[p, c] for p, c in texts]

    def encode(self, texts: list[tuple[str, str]], limit: int) -> list[list[str]]:
        return self.inputs(texts)

    def run(self, inputs: list[list[str]]) -> list[float]:
        probs = []
        for scores in self.endpoint.predict(inputs):
            by_label = {str(s.get("label")): float(s.get("score", 0.0)) for s in scores if isinstance(s, dict)}
            if self.label not in by_label:
                raise NLIModelError(f"--nli-endpoint {shown(self.endpoint.url)}/predict: no score for the label "
                                    f"{self.label!r} in {sorted(by_label)}")
            probs.append(by_label[self.label])
        return probs

    def forward(self, texts: list[tuple[str, str]], limit: int) -> list[float]:
        return self.run(self.encode(texts, limit))


def load_tokenizer(path: str, name: str, local_only: bool, trust_remote_code: bool) -> Any:
    """The model's fast tokenizer only (its weights are the server's)."""
    from transformers import AutoTokenizer
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        kwargs: dict[str, Any] = {"local_files_only": True} if local_only else {}
        if trust_remote_code:
            kwargs["trust_remote_code"] = True
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    except Exception as exc:  # whatever transformers raises: the tokenizer cannot be used
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NLIModelError(f"cannot load the tokenizer of {name!r}: {first}") from None
    finally:
        logging.set_verbosity(verbosity)
    if not getattr(tokenizer, "is_fast", False):
        raise NLIModelError(f"{name!r}: the tokenizer has no fast (Rust) version; chunking needs its offsets")
    return tokenizer


def fetch_light(model: str) -> Path | None:
    """A hub model's config and tokenizer files, downloaded without its weights (--nli-endpoint)."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model, allow_patterns=["*.json", "*.txt", "*.model", "*.py"]))
    except Exception as exc:  # whatever the hub client raises: the model cannot be read
        raise NLIModelError(f"cannot download the tokenizer and config of {model!r}: {exc}") from None
