"""Issue 11, point 6: the caches trust only what parsed. A 200 reply that is not a chat
completion or an embedding is never cached, a reply over 10 MB is refused (unscored, with that
reason), and an Answer built from lists judges the same on the first run and from the cache."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from helpers import make_project
from pytest_sprout.judges._llm_client import MAX_BODY, LLMClient, describe_error, is_api_reply
from pytest_sprout.core.model import Answer, Passage, Sentence

pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run

COMPLETION = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}
PORTAL = b"<html><body>Please log in to the corporate portal</body></html>"


class Endpoint:
    """A loopback stand-in for a misbehaving OpenAI-compatible endpoint: it answers each POST
    with the next scripted (body, with_length) pair, then with a valid completion."""

    def __init__(self) -> None:
        self.script: list[tuple[bytes, bool]] = []
        self.calls = 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                endpoint.calls += 1
                body, with_length = endpoint.script.pop(0) if endpoint.script else (json.dumps(COMPLETION).encode(), True)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                if with_length:
                    self.send_header("content-length", str(len(body)))
                else:
                    self.send_header("connection", "close")
                self.end_headers()
                try:
                    for start in range(0, len(body), 1 << 20):
                        self.wfile.write(body[start : start + (1 << 20)])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client refused an oversized body and hung up: what is being tested

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def ask(client: LLMClient) -> Any:
    return client.run(client.openai.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}]))


def test_a_200_portal_page_is_not_cached(endpoint: Endpoint, tmp_path: Path) -> None:
    endpoint.script = [(PORTAL, True)]
    client = LLMClient(endpoint.url, "m", cache_dir=tmp_path / "cache", retries=0)
    try:
        with pytest.raises(ValueError):  # a portal page is no completion: the JSON reader refuses it
            ask(client)
        assert not list((tmp_path / "cache").glob("*.json")) if (tmp_path / "cache").exists() else True
        assert ask(client).choices[0].message.content == "hi"  # asked again, not replayed from a cache
        assert endpoint.calls == 2
        assert ask(client).choices[0].message.content == "hi"  # a real completion is cached
        assert endpoint.calls == 2 and len(list((tmp_path / "cache").glob("*.json"))) == 1
    finally:
        client.close()


@pytest.mark.parametrize("with_length", [True, False], ids=["content-length", "streamed"])
def test_a_reply_over_10_mb_is_refused_and_never_cached(endpoint: Endpoint, tmp_path: Path, with_length: bool) -> None:
    endpoint.script = [(b" " * (MAX_BODY + 1) + json.dumps(COMPLETION).encode(), with_length)]
    client = LLMClient(endpoint.url, "m", cache_dir=tmp_path / "cache", retries=0)
    try:
        with pytest.raises(Exception) as info:
            ask(client)
        assert describe_error(info.value).startswith("reply too large:")
        assert "10 MB" in describe_error(info.value)
        assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())
    finally:
        client.close()


def test_is_api_reply_accepts_only_completions_and_embeddings() -> None:
    chat, emb = "http://h/v1/chat/completions", "http://h/v1/embeddings"
    assert is_api_reply(chat, json.dumps(COMPLETION).encode())
    assert is_api_reply(emb, b'{"object": "list", "data": []}')
    for body in (PORTAL, b"[]", b'{"error": "x"}', b"", b"[" * 100_000):
        assert not is_api_reply(chat, body) and not is_api_reply(emb, body)
    assert not is_api_reply(emb, json.dumps(COMPLETION).encode())


def test_answer_built_from_lists_is_the_same_as_from_tuples() -> None:
    listed = Answer(sentences=[Sentence("Snake plants tolerate low light.", ["1"])],  # type: ignore[arg-type]
                    passages=[Passage("1", "Snake plants tolerate low light.")])  # type: ignore[arg-type]
    tupled = Answer(sentences=(Sentence("Snake plants tolerate low light.", ("1",)),),
                    passages=(Passage("1", "Snake plants tolerate low light."),))
    assert listed == tupled and hash(listed) == hash(tupled)
    assert Answer.from_json(listed.to_json()).sentences == listed.sentences


LIST_SYSTEM = '''
from pytest_sprout import Answer, Passage, Sentence

def pytest_sprout_make_system(config):
    def system(question):
        if "taxes" in question:
            return Answer(sentences=[], passages=[], refused=True)
        return Answer(
            sentences=[Sentence("Snake plants tolerate low light.", ["p1"]), Sentence("They need full sun.", ["p1"])],
            passages=[Passage("p1", "Snake plants tolerate low light.")],
        )
    system.name = "lists"
    system.version = "1"
    return system
'''


def test_list_built_answers_judge_the_same_first_run_and_from_the_cache(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest=LIST_SYSTEM)
    first = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=first.json")
    again = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "--sprout-report=again.json")
    first.assert_outcomes(passed=1, failed=3)
    again.assert_outcomes(passed=1, failed=3)
    assert "TypeError" not in first.stdout.str()
    assert json.loads((pytester.path / "first.json").read_text()) == json.loads((pytester.path / "again.json").read_text())
