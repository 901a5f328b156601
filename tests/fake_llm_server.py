"""A scripted stand-in for an LLM judge model: a loopback OpenAI-compatible HTTP server.

It is NOT a model. It stands in for the judge endpoint a user would give with ``--llm-base-url``
(Ollama, vLLM, llama.cpp, OpenAI), which cannot run here. It serves ``POST /v1/chat/completions``
and ``POST /v1/embeddings`` on 127.0.0.1 so that the real Ragas, Instructor, DeepEval and OpenAI
client code runs end to end, and it lets a test script what the "model" does:

- by default it answers each Ragas and DeepEval prompt with valid JSON of the shape that prompt
  asks for, deciding support with a crude, deterministic word-overlap rule (`supports`), so scores
  follow from the inputs and a test can predict them;
- ``queue(Reply(...))`` makes the next chat calls fail (429, 500), stall (``delay``), refuse, or
  return given text (invalid JSON);
- ``rule`` decides replies from the prompt (e.g. invalid JSON for one kind of prompt only);
- ``delay`` slows every call (the benchmark uses 50 ms);
- it also stands in for a MiniCheck checker (Ollama's ``bespoke-minicheck``): a prompt with
  MiniCheck's system prompt gets "Yes" or "No", P(yes) from ``yes_prob(document, claim)`` (default
  0.9 when `supports`, else 0.1), with the first token's top logprobs when asked for them;
  ``logprobs`` = "ignore" plays a server that sends none, "reject" one that answers HTTP 400 to
  the parameter;
- counters (``chat_calls``, ``embedding_calls``, ``models``, ``auth``, ``max_in_flight``) let
  tests count real calls and see how many were answered at once.

Embeddings are hashed bags of word stems plus a constant component, so related texts have a
cosine well above unrelated ones. Used by tests/ and bench/ only.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import math
import re
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

STOPWORDS = frozenset(
    """the and for are but not you your with that this from they them their there what when where which
    who how does did can could should would will about into than then also its has have had was were
    been being more most much many some any each very just only our out over such""".split()
)
EMBED_DIM = 64
EMBED_BIAS = 2.0  # squared weight of the constant component shared by every text


@dataclass
class Reply:
    """One scripted answer: an HTTP status, the message text (or a refusal), an extra delay."""

    status: int = 200
    content: str | None = None  # None: let the stand-in judge write the answer
    refusal: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def stems(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    out = []
    for w in words:
        if (len(w) < 3 and not w.isdigit()) or w in STOPWORDS:
            continue
        out.append(w[:-1] if w.endswith("s") and len(w) > 3 else w)
    return out


def supports(context: str, claim: str) -> bool:
    """The stand-in's notion of support: every number of the claim and at least 60% of its content
    words appear in the context."""
    words, known = stems(claim), set(stems(context))
    if not words:
        return True
    if any(w.isdigit() and w not in known for w in words):
        return False
    return sum(w in known for w in words) / len(words) >= 0.6


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def embed(text: str) -> list[float]:
    vec = [0.0] * EMBED_DIM
    vec[0] = EMBED_BIAS**0.5
    for w in stems(text):
        vec[1 + int(hashlib.sha256(w.encode()).hexdigest(), 16) % (EMBED_DIM - 1)] += 1.0
    norm = sum(v * v for v in vec) ** 0.5
    return [v / norm for v in vec]


# --- the stand-in judge -----------------------------------------------------------------------

def _ragas_input(prompt: str) -> dict[str, Any]:
    at = prompt.rfind("input: {")
    return json.JSONDecoder().raw_decode(prompt[at + len("input: "):])[0]


def _section(prompt: str, header: str) -> str:
    """The lines after the last line that starts with ``header``, up to the next header."""
    at = prompt.rfind(header)
    if at < 0:
        return ""
    rest = prompt[at + len(header):].split("\n", 1)[-1]
    return re.split(r"\n\s*\n(?=[A-Z][\w ]*(?:\([^)]*\))?:)|\nJSON:", rest)[0].strip()


def _items(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("["):
        try:
            return [str(x) for x in ast.literal_eval(text)]
        except (ValueError, SyntaxError):
            pass
    return [text] if text else []


def stand_in_answer(prompt: str) -> str:
    """Valid JSON for the Ragas/DeepEval prompt in ``prompt``, decided by `supports`."""
    if "NLIStatementOutput" in prompt:
        data = _ragas_input(prompt)
        return json.dumps({"statements": [
            {"statement": s, "reason": "stand-in", "verdict": int(supports(data["context"], s))}
            for s in data["statements"]
        ]})
    if "StatementGeneratorOutput" in prompt:
        return json.dumps({"statements": sentences(_ragas_input(prompt)["answer"])})
    if "AnswerRelevanceOutput" in prompt:
        response = _ragas_input(prompt)["response"]
        vague = bool(re.match(r"\s*(i don't know|i'm not sure|it depends)", response, re.I))
        first = sentences(response)[0] if sentences(response) else response
        return json.dumps({"question": first.rstrip(".!?") + "?", "noncommittal": int(vague)})
    if "ContextPrecisionOutput" in prompt:
        data = _ragas_input(prompt)
        useful = any(supports(data["context"], s) for s in sentences(data["answer"]))
        return json.dumps({"reason": "stand-in", "verdict": int(useful)})
    if "ContextRecallOutput" in prompt:
        data = _ragas_input(prompt)
        return json.dumps({"classifications": [
            {"statement": s, "reason": "stand-in", "attributed": int(supports(data["context"], s))}
            for s in sentences(data["answer"])
        ]})
    # DeepEval prompts
    if 'with the "truths" key' in prompt:
        return json.dumps({"truths": sentences(_section(prompt, "\nText:"))})
    if 'with the "claims" key' in prompt:
        return json.dumps({"claims": sentences(_section(prompt, "\nAI Output:"))})
    if "whether EACH claim contradicts" in prompt:
        context = _section(prompt, "\nRetrieval Contexts:")
        claims = _items(_section(prompt, "\nClaims:"))
        return json.dumps({"verdicts": [
            {"verdict": "yes"} if supports(context, c) else {"verdict": "no", "reason": f"stand-in: not in the context: {c}"}
            for c in claims
        ]})
    if '"statements" key mapping to a list of strings' in prompt:
        return json.dumps({"statements": sentences(_section(prompt, "\nText:"))})
    if "whether each statement is relevant to address the input" in prompt:
        question = set(stems(_section(prompt, "\nInput:")))
        statements = _items(_section(prompt, "\nStatements:"))
        return json.dumps({"verdicts": [
            {"verdict": "yes"} if question & set(stems(s)) else {"verdict": "no", "reason": "stand-in: off topic"}
            for s in statements
        ]})
    if "was remotely useful in arriving at the expected output" in prompt:
        expected = sentences(_section(prompt, "\nExpected output:"))
        nodes = _items(_section(prompt, "\nRetrieval Context"))
        return json.dumps({"verdicts": [
            {"verdict": "yes" if any(supports(n, e) for e in expected) else "no", "reason": "stand-in"}
            for n in nodes
        ]})
    if "can be attributed to the nodes of retrieval contexts" in prompt:
        expected = sentences(_section(prompt, "\nExpected Output:"))
        context = " ".join(_items(_section(prompt, "\nRetrieval Context:")))
        return json.dumps({"verdicts": [
            {"verdict": "yes" if supports(context, e) else "no", "reason": "stand-in"} for e in expected
        ]})
    return json.dumps({"reason": "stand-in"})


MINICHECK_SYSTEM = "Determine whether the provided claim is consistent with the corresponding document."


def minicheck_question(request: dict[str, Any]) -> tuple[str, str] | None:
    """(document, claim) of a MiniCheck-style request, or None for any other prompt."""
    msgs = request.get("messages") or []
    if len(msgs) != 2 or not str(msgs[0].get("content") or "").startswith(MINICHECK_SYSTEM):
        return None
    user = str(msgs[1].get("content") or "")
    found = re.fullmatch(r"Document: (.*)\nClaim: (.*)", user, re.S)
    return (found.group(1), found.group(2)) if found else None


def prompt_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages", []))


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout test) closes its socket mid-answer: not an error here."""


class FakeLLMServer:
    """The stand-in endpoint, served from a thread. Use as a context manager."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.rule: Callable[[str], Reply | None] | None = None
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.chat_calls = 0
        self.embedding_calls = 0
        self.models: list[str] = []
        self.auth: set[str] = set()
        self.prompts: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.logprobs = "send"  # "send", "ignore" or "reject" (see the module docstring)
        self.yes_prob: Callable[[str, str], float] | None = None
        self.checks: list[tuple[str, str]] = []  # the (document, claim) of every MiniCheck prompt
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def queue(self, *replies: Reply) -> None:
        """The next chat calls get these replies, in order."""
        with self._lock:
            self._queue.extend(replies)

    def reset_counts(self) -> None:
        with self._lock:
            self.chat_calls = self.embedding_calls = self.max_in_flight = 0
            self.models.clear()
            self.prompts.clear()

    # --- serving ------------------------------------------------------------------------------
    def _chat(self, request: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        prompt = prompt_text(request)
        with self._lock:
            self.chat_calls += 1
            self.models.append(str(request.get("model")))
            self.prompts.append(prompt)
            reply = self._queue.popleft() if self._queue else None
        if reply is None and self.rule is not None:
            reply = self.rule(prompt)
        reply = reply or Reply()
        time.sleep(self.delay + reply.delay)
        if reply.status != 200:
            return reply.status, {"error": {"message": "scripted failure", "code": reply.status}}, reply.headers
        check = minicheck_question(request)
        if check is not None and request.get("logprobs") and self.logprobs == "reject":
            return 400, {"error": {"message": "logprobs is not supported", "code": 400}}, {}
        logprobs = None
        if check is not None and reply.content is None and not reply.refusal:
            with self._lock:
                self.checks.append(check)
            p = self.yes_prob(*check) if self.yes_prob is not None else (0.9 if supports(*check) else 0.1)
            content = "Yes" if p >= 0.5 else "No"
            if request.get("logprobs") and self.logprobs == "send":
                top = [{"token": t, "logprob": math.log(max(q, 1e-12)), "bytes": None}
                       for t, q in (("Yes", p), ("No", 1.0 - p))]
                top.sort(key=lambda t: -t["logprob"])
                logprobs = {"content": [{**top[0], "top_logprobs": top}]}
        else:
            content = reply.content if reply.content is not None or reply.refusal else stand_in_answer(prompt)
        message = {"role": "assistant", "content": content, "refusal": reply.refusal}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        if logprobs is not None:
            choice["logprobs"] = logprobs
        body = {
            "id": "chatcmpl-stand-in", "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model"), "choices": [choice],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 10, "total_tokens": len(prompt) // 4 + 10},
        }
        return 200, body, reply.headers

    def _embeddings(self, request: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.embedding_calls += 1
            self.models.append(str(request.get("model")))
        time.sleep(self.delay)
        texts = request.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = []
        for i, text in enumerate(texts):
            vec = embed(str(text))
            if request.get("encoding_format") == "base64":
                vec_out: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode()
            else:
                vec_out = vec
            data.append({"object": "embedding", "index": i, "embedding": vec_out})
        return 200, {"object": "list", "data": data, "model": request.get("model"), "usage": {"prompt_tokens": 1, "total_tokens": 1}}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.auth.add(self.headers.get("authorization") or "")
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if self.path.endswith("/chat/completions"):
                        status, body, headers = server._chat(request)
                    elif self.path.endswith("/embeddings"):
                        status, body, headers = server._embeddings(request)
                    else:
                        status, body, headers = 404, {"error": {"message": f"no route {self.path}"}}, {}
                finally:
                    with server._lock:
                        server.in_flight -= 1
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def main() -> None:
    """Serve the stand-in on a free loopback port until interrupted (for trying the tier by hand)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per call")
    args = parser.parse_args()
    with FakeLLMServer(delay=args.delay) as server:
        print(f"stand-in judge at {server.url} (not a model); Ctrl-C stops it", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
