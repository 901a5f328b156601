"""A small HTTP server that stands in for Hugging Face text-embeddings-inference (TEI) in tests
and benchmarks: it serves one sequence classifier through transformers and answers ``GET /info``,
``GET /health`` and ``POST /predict`` with TEI's shapes (see pytest_sprout/judges/nli_endpoint.py):

- ``/predict``: ``{"inputs": str | [str, str] | [[str] | [str, str], ...], "truncate", "raw_scores"}``
  -> one list of ``{"score", "label"}`` per input, sorted by score (a softmax unless raw_scores);
  a batch over ``max_client_batch_size`` is refused with 413, an input over ``max_input_length``
  tokens without ``truncate`` with 413, as TEI does.
- ``/info``: ``model_id``, ``model_sha`` (None), ``model_dtype``, ``model_type.classifier``
  (id2label, label2id), ``max_input_length``, ``max_client_batch_size``.
- with ``api_key``, a request without ``Authorization: Bearer <key>`` gets 401.
- ``fail_first``: that many /predict requests answer 503 first (to exercise the client's retries).

A batch is scored as one padded forward pass, as the in-process judge scores its batches, so the
same batches give the same probabilities. It listens on 127.0.0.1 only, on a free port, and stops
by itself after ``lifetime`` seconds (or when ``stop()`` is called). Run as a script for the
benchmark: ``python tests/tei_server.py MODEL_FOLDER [--lifetime S]`` prints the URL, then serves.
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class TEIStandIn:
    def __init__(self, folder: Path | str, *, max_client_batch_size: int = 32, api_key: str | None = None,
                 lifetime: float = 300.0, fail_first: int = 0, threads: int | None = None) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if threads:
            torch.set_num_threads(threads)
        self.folder = Path(folder)
        self.tokenizer = AutoTokenizer.from_pretrained(self.folder)
        self.model = AutoModelForSequenceClassification.from_pretrained(self.folder).eval()
        config = self.model.config
        self.id2label = {str(k): str(v) for k, v in config.id2label.items()}
        self.max_input_length = int(min(config.max_position_embeddings, self.tokenizer.model_max_length))
        self.max_client_batch_size = max_client_batch_size
        self.api_key, self.fail_first = api_key, fail_first
        self.requests: list[dict[str, Any]] = []  # the bodies /predict got (tests look at them)
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def start(self) -> TEIStandIn:
        if not self._thread.is_alive():
            self._thread.start()
            self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> TEIStandIn:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def info(self) -> dict[str, Any]:
        return {
            "model_id": self.folder.name, "model_sha": None, "model_dtype": "float32",
            "model_type": {"classifier": {"id2label": self.id2label,
                                          "label2id": {v: int(k) for k, v in self.id2label.items()}}},
            "max_concurrent_requests": 512, "max_input_length": self.max_input_length, "max_batch_tokens": 16384,
            "max_batch_requests": None, "max_client_batch_size": self.max_client_batch_size, "auto_truncate": False,
            "tokenization_workers": 1, "version": "stand-in",
        }

    def predict(self, body: dict[str, Any]) -> tuple[int, Any]:
        import torch

        inputs = body.get("inputs")
        if isinstance(inputs, str):
            batch, single = [[inputs]], True
        elif isinstance(inputs, list) and inputs and all(isinstance(x, str) for x in inputs) and len(inputs) <= 2:
            batch, single = [inputs], True
        elif isinstance(inputs, list) and inputs and all(isinstance(x, list) and 1 <= len(x) <= 2 for x in inputs):
            batch, single = inputs, False
        else:
            return 422, {"error": "inputs must be a string, a pair or a batch", "error_type": "validation"}
        if len(batch) > self.max_client_batch_size:
            return 413, {"error": f"batch size {len(batch)} > maximum allowed batch size {self.max_client_batch_size}",
                         "error_type": "validation"}
        truncate = bool(body.get("truncate", False))
        pairs = all(len(x) == 2 for x in batch)
        if not pairs and not all(len(x) == 1 for x in batch):  # a mixed batch: score each on its own
            out = [self.predict({**body, "inputs": [x]})[1][0] for x in batch]
            return 200, out[0] if single else out
        first = [x[0] for x in batch]
        second = [x[1] for x in batch] if pairs else None
        if not truncate:
            lengths = self.tokenizer(first, second)["input_ids"]
            if any(len(ids) > self.max_input_length for ids in lengths):
                return 413, {"error": f"an input is longer than {self.max_input_length} tokens", "error_type": "validation"}
        with self.lock, torch.inference_mode():
            enc = self.tokenizer(first, second, padding=True, truncation=True, max_length=self.max_input_length,
                                 return_tensors="pt")
            logits = self.model(**enc).logits.float()
            scores = logits if body.get("raw_scores") else torch.softmax(logits, dim=-1)
        out = []
        for row in scores.tolist():
            preds = [{"score": s, "label": self.id2label[str(i)]} for i, s in enumerate(row)]
            out.append(sorted(preds, key=lambda p: -p["score"]))
        return 200, out[0] if single else out

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _allowed(self) -> bool:
                if outer.api_key and self.headers.get("Authorization") != f"Bearer {outer.api_key}":
                    self._reply(401, {"error": "unauthorized", "error_type": "unauthorized"})
                    return False
                return True

            def do_GET(self) -> None:
                if not self._allowed():
                    return
                if self.path == "/info":
                    self._reply(200, outer.info())
                elif self.path == "/health":
                    self._reply(200, None)
                else:
                    self._reply(404, {"error": "not found", "error_type": "validation"})

            def do_POST(self) -> None:
                if not self._allowed():
                    return
                if self.path != "/predict":
                    self._reply(404, {"error": "not found", "error_type": "validation"})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                except ValueError:
                    self._reply(422, {"error": "invalid JSON", "error_type": "validation"})
                    return
                with outer.lock:
                    outer.requests.append(body)
                    failing = outer.fail_first > 0
                    outer.fail_first -= failing
                if failing:
                    self._reply(503, {"error": "unhealthy", "error_type": "unhealthy"})
                    return
                self._reply(*outer.predict(body))

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--lifetime", type=float, default=600.0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-client-batch-size", type=int, default=32)
    args = parser.parse_args()
    server = TEIStandIn(args.model, lifetime=args.lifetime, threads=args.threads,
                        max_client_batch_size=args.max_client_batch_size).start()
    print(server.url, flush=True)
    server._thread.join()


if __name__ == "__main__":
    main()
