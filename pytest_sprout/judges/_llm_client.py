"""One shared client for an OpenAI-compatible endpoint, used by every LLM-judged metric.

Ragas (through Instructor), DeepEval (through our adapter) and the embeddings all send their HTTP
requests through one `AsyncOpenAI` whose transport adds what a judge run needs:

- a response cache keyed by (URL, model, prompt, parameters): the whole JSON request body, never
  the headers, so a re-run costs no calls and the API key never reaches the disk;
- bounded concurrency: at most ``concurrency`` requests in flight, across all items and metrics;
- retries with exponential backoff (or the server's ``Retry-After``) on 429 and 5xx answers;
- a per-call timeout covering the whole request, however slowly the answer trickles in.

Underneath, requests go out through aiohttp (a dependency of DeepEval and Instructor already):
about 30% less CPU per call than httpx's own connection pool, which is what limits throughput
when many calls are in flight (docs/BENCHMARKS.md, "LLM tier").

Imported only when the llm tier runs (it imports aiohttp, httpx and openai).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Coroutine, TypeVar

import aiohttp
import httpx

from ..core.secret import SecretStr, redact

T = TypeVar("T")
MAX_RETRY_AFTER = 30.0  # seconds; a longer Retry-After is capped
MAX_BODY = 10 * 1024 * 1024  # bytes; a larger reply is not a judge's answer: unscored, never cached


class ResponseTooLarge(Exception):
    """The endpoint's reply was larger than MAX_BODY."""


def is_api_reply(url: str, content: bytes) -> bool:
    """Whether a 200 reply is what the endpoint was asked for: a chat completion (``choices``) or
    an embedding (``data``) as a JSON object. Anything else (an HTML portal page, a proxy's
    error) must not be cached: the next run would replay it without asking again."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict):
        return False
    if url.rstrip("/").endswith("/embeddings"):
        return isinstance(data.get("data"), list)
    return isinstance(data.get("choices"), list)


class JudgeRefused(Exception):
    """The model declined to answer: an OpenAI ``refusal`` (seen by the transport, for every
    metric) or an empty message (seen by the DeepEval adapter)."""


@dataclass
class ClientStats:
    sent: int = 0  # HTTP requests that reached the endpoint (retries included)
    cache_hits: int = 0  # requests answered from the cache


class ResponseCache:
    """Successful endpoint answers by request, in memory and (when given a folder) on disk."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._memory: dict[str, bytes] = {}

    @staticmethod
    def key(url: str, body: bytes) -> str:
        """SHA-256 of the URL and the canonical JSON body (model, messages, parameters)."""
        try:
            canonical: Any = json.loads(body)
        except ValueError:
            canonical = body.decode("utf-8", "replace")
        blob = json.dumps({"url": url, "body": canonical}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, key: str) -> bytes | None:
        if key in self._memory:
            return self._memory[key]
        if self.directory is not None:
            path = self.directory / f"{key}.json"
            try:
                data = path.read_bytes()
            except OSError:
                return None
            self._memory[key] = data
            return data
        return None

    def put(self, key: str, content: bytes) -> None:
        self._memory[key] = content
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            os.replace(tmp, self.directory / f"{key}.json")  # atomic: xdist workers share the folder
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Sends httpx requests over an aiohttp session with at most ``limit`` connections."""

    _DROP = frozenset({"host", "content-length", "transfer-encoding", "content-encoding"})

    def __init__(self, limit: int, proxy: str | None = None) -> None:
        self.limit = limit
        self.proxy = proxy
        self._session: aiohttp.ClientSession | None = None  # made inside the running loop

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.limit),
                timeout=aiohttp.ClientTimeout(total=None),  # GuardedTransport times each call
                trust_env=False,
            )
        headers = {k: v for k, v in request.headers.items() if k.lower() not in self._DROP}
        try:
            async with self._session.request(
                request.method, str(request.url), headers=headers, data=await request.aread(),
                proxy=self.proxy, allow_redirects=False,
            ) as reply:
                content = await read_capped(reply)  # decompressed, so content-encoding is dropped below
                status = reply.status
                reply_headers = [(k, v) for k, v in reply.headers.items() if k.lower() not in self._DROP]
        except aiohttp.ClientConnectorError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        except aiohttp.ClientError as exc:
            raise httpx.ReadError(str(exc), request=request) from exc
        return httpx.Response(status, headers=reply_headers, content=content, request=request)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


async def read_capped(reply: Any, limit: int = MAX_BODY) -> bytes:
    """The reply's body, refused (ResponseTooLarge) as soon as it passes ``limit`` bytes: a runaway
    endpoint never fills the memory or the cache."""
    length = reply.headers.get("content-length")
    if length and length.isdigit() and int(length) > limit:
        raise ResponseTooLarge(f"the reply is {int(length)} bytes, more than the {limit // (1024 * 1024)} MB limit")
    chunks, size = [], 0
    async for chunk in reply.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(f"the reply is larger than the {limit // (1024 * 1024)} MB limit")
        chunks.append(chunk)
    return b"".join(chunks)


class GuardedTransport(httpx.AsyncBaseTransport):
    """Cache, concurrency bound, retries and timeout around a real httpx transport."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        cache: ResponseCache,
        concurrency: int,
        timeout: float,
        retries: int,
        backoff: float,
        stats: ClientStats,
        api_key: SecretStr | None = None,
    ) -> None:
        self.inner = inner
        self.api_key = api_key  # set on each request here, so no client object holds it as text
        self.cache = cache
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.stats = stats
        self.semaphore = asyncio.Semaphore(max(1, concurrency))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        key = ResponseCache.key(str(request.url), body)
        cached = self.cache.get(key)
        if cached is not None:
            self.stats.cache_hits += 1
            return httpx.Response(200, headers={"content-type": "application/json"}, content=cached, request=request)
        attempt = 0
        while True:
            async with self.semaphore:
                self.stats.sent += 1
                try:
                    response = await asyncio.wait_for(self._send(request), self.timeout)
                except asyncio.TimeoutError:
                    raise httpx.ReadTimeout(f"no answer within {self.timeout:g}s", request=request) from None
            retryable = response.status_code == 429 or response.status_code >= 500
            if retryable and attempt < self.retries:
                await asyncio.sleep(self._delay(attempt, response))
                attempt += 1
                continue
            if response.status_code == 200:
                response = self._redacted(response, request)  # before anything shows, parses or caches it
                refusal = _refusal(response.content)
                if refusal is not None:  # not cached: a refusal is worth asking again next run
                    raise JudgeRefused(refusal)
                if is_api_reply(str(request.url), response.content):  # only what parsed is trusted
                    self.cache.put(key, response.content)
            return response

    async def _send(self, request: httpx.Request) -> httpx.Response:
        if self.api_key:
            request.headers["Authorization"] = "Bearer " + self.api_key.reveal()
        response = await self.inner.handle_async_request(request)
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    def _redacted(self, response: httpx.Response, request: httpx.Request) -> httpx.Response:
        """The reply with the API key (and any Bearer or sk- token) it echoes masked as ``***``."""
        clean = redact(response.content, self.api_key)
        if clean == response.content:
            return response
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
        return httpx.Response(response.status_code, headers=headers, content=clean, request=request)

    def _delay(self, attempt: int, response: httpx.Response) -> float:
        after = response.headers.get("retry-after")
        if after:
            try:
                return min(max(float(after), 0.0), MAX_RETRY_AFTER)
            except ValueError:
                pass
        return self.backoff * (2**attempt)

    async def aclose(self) -> None:
        await self.inner.aclose()


class LLMClient:
    """The endpoint, its shared `AsyncOpenAI` client and the event loop every judge call runs on."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: SecretStr | None = None,
        timeout: float = 60.0,
        concurrency: int = 4,
        cache_dir: Path | None = None,
        retries: int = 4,
        backoff: float = 0.5,
    ) -> None:
        from openai import AsyncOpenAI

        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.stats = ClientStats()
        self.loop = asyncio.new_event_loop()
        self.transport = GuardedTransport(
            AiohttpTransport(self.concurrency, proxy_for(self.base_url)),
            cache=ResponseCache(cache_dir),
            concurrency=self.concurrency,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            stats=self.stats,
            api_key=SecretStr(api_key) if api_key else None,
        )
        # The client gets an empty key (it then sends no Authorization header, and never picks up
        # OPENAI_API_KEY): the transport sets the header from the SecretStr on each request, so
        # no object or argument outside it holds the key as text.
        self.openai = AsyncOpenAI(
            base_url=self.base_url,
            api_key="",
            max_retries=0,  # the transport retries
            timeout=timeout,
            # trust_env=False: environment proxies would be mounted around our transport (no cache,
            # no bound); proxy_for() above applies them inside it instead.
            http_client=httpx.AsyncClient(transport=self.transport, timeout=timeout, trust_env=False),
        )

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine to completion on this client's loop (called from synchronous code).

        Tasks it leaves behind are cancelled: a metric that gathers two calls stops waiting when
        one fails, and the other must not linger into the next run.
        """
        try:
            return self.loop.run_until_complete(coro)
        finally:
            leftovers = asyncio.all_tasks(self.loop)
            for task in leftovers:
                task.cancel()
            if leftovers:
                self.loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.run(self.openai.close())
        self.loop.close()


def _refusal(content: bytes) -> str | None:
    """The text of an OpenAI-style refusal in a chat completion body, if it is one."""
    if b'"refusal"' not in content:
        return None
    try:
        choices = json.loads(content).get("choices") or []
        refusal = choices[0].get("message", {}).get("refusal") if choices else None
    except (ValueError, AttributeError, IndexError):
        return None
    return str(refusal) if refusal else None


def proxy_for(url: str) -> str | None:
    """The proxy the environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) sets for ``url``; never one
    for a loopback endpoint."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    if host in ("localhost", "::1") or host.startswith("127.") or urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def describe_error(exc: BaseException, timeout: float | None = None) -> str:
    """A short, key-free reason for a failed judge call: timeout, HTTP status, invalid JSON..."""
    import openai
    from pydantic import ValidationError

    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for err in chain:  # the transport's refusal reaches here wrapped in the client's errors
        if isinstance(err, JudgeRefused):
            return f"the judge refused: {_short(str(err))}"
        if isinstance(err, ResponseTooLarge):
            return f"reply too large: {_short(str(err))}"
    for err in chain:
        if isinstance(err, (openai.APITimeoutError, httpx.TimeoutException, asyncio.TimeoutError)):
            return f"timeout after {timeout:g}s" if timeout else "timeout"
        if isinstance(err, openai.APIStatusError):
            if err.status_code in (401, 403):
                return f"HTTP {err.status_code} from the endpoint: the API key was rejected (check --llm-api-key or SPROUT_LLM_API_KEY)"
            return f"HTTP {err.status_code} from the endpoint"
        if isinstance(err, openai.APIConnectionError):
            return "cannot connect to the endpoint"
    for err in chain:
        if isinstance(err, (ValidationError, json.JSONDecodeError)) or "invalid JSON" in str(err):
            return "invalid JSON from the judge"
    return f"{type(exc).__name__}: {_short(str(exc))}"


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
