"""The `llm` tier end to end: real Ragas, Instructor, DeepEval and OpenAI client code against the
loopback stand-in judge (tests/fake_llm_server.py): scores, unscored accounting, retries, timeouts,
bounded concurrency, the response cache, the API key, configuration errors, deepeval's own plugin,
and a socket audit of whole ragas and llm runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from fake_llm_server import FakeLLMServer, Reply
from helpers import SYSTEM_CONFTEST, make_project
from pytest_sprout.judges import _deps
from pytest_sprout.judges._llm_client import JudgeRefused, ResponseCache, describe_error, proxy_for
from pytest_sprout.judges.llm import METRICS, reference_text

# Calls the stand-in answers per answered case of helpers.SUITE (one passage each): Ragas 2 + 1 + 1
# + 1 (AnswerRelevancy asks the same prompt three times; the cache answers two) and DeepEval
# 3 + 2 + 1 + 1; AnswerRelevancy also embeds twice.
CHAT_PER_ITEM = 12
EMBED_PER_ITEM = 2
ANSWERED = 3  # the fourth case is a refusal: nothing for this tier to judge


# This test process runs DeepEval metrics in-process; it must never send telemetry either (DeepEval
# flushes buffered metric counts at exit, so the opt-out has to outlive every test).
_deps.quiet_env()


pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def run(pytester: pytest.Pytester, fake: FakeLLMServer, *args: str, deepeval_plugin: bool = False) -> pytest.RunResult:
    plugin = [] if deepeval_plugin else ["-p", "no:deepeval"]
    return pytester.runpytest(
        "-m", "llm", "-p", "no:randomly", *plugin, f"--llm-base-url={fake.url}", "--llm-model=fake", "-rs", *args
    )


def report(pytester: pytest.Pytester, name: str = "out.json") -> dict[str, Any]:
    data = json.loads((pytester.path / name).read_text())
    return {"items": {row["case_id"]: row for row in data["items"]}, "metrics": {m["metric"]: m for m in data["metrics"]}}


@pytest.mark.parametrize("deepeval_plugin", [True, False], ids=["with-deepeval-plugin", "no-deepeval-plugin"])
def test_scores_pass_and_fail(pytester: pytest.Pytester, fake: FakeLLMServer, deepeval_plugin: bool) -> None:
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, "--sprout-report=out.json", deepeval_plugin=deepeval_plugin)
    # pothos-water says "every 3 weeks" where its passage says "every 1 to 2 weeks": both judges'
    # faithfulness drop to 0 (the stand-in wants every number of a claim in the context).
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        # the default thresholds (faithfulness 0.9, Ragas answer relevancy 0.7) as docs/llm.md gives them
        "*pothos-water (suites/care.yaml:*): ragas_faithfulness 0.00 < 0.90; ragas_answer_relevancy 0.68 < 0.70; "
        "deepeval_faithfulness 0.00 < 0.90",
        "*deepeval_faithfulness: stand-in: not in the context: Water a pothos every 3 weeks.",
        "*= sprout =*",
        "llm*deepeval_faithfulness*n=3*0.667 mean*",
        "llm*ragas_faithfulness*n=3*0.667 mean*",
    ])
    assert "Traceback" not in result.stdout.str()
    data = report(pytester)
    snake = data["items"]["snake-light"]
    assert set(snake["metrics"]) == set(METRICS)
    assert snake["metrics"]["ragas_faithfulness"] == [1.0]
    assert snake["metrics"]["deepeval_contextual_recall"] == [1.0]
    assert data["items"]["pothos-water"]["metrics"]["ragas_faithfulness"] == [0.0]
    assert (fake.chat_calls, fake.embedding_calls) == (CHAT_PER_ITEM * ANSWERED, EMBED_PER_ITEM * ANSWERED)
    assert set(fake.models) == {"fake"}


def test_judge_errors_are_unscored_never_pass_or_fail(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    def rule(prompt: str) -> Reply | None:
        if "StatementGeneratorOutput" in prompt:  # Ragas faithfulness, first step
            return Reply(content="Sure! The statements are: snake plants like light.")
        if 'with the "truths" key' in prompt:  # DeepEval faithfulness, first step
            return Reply(refusal="I can't help with that.")
        if "ContextRecallOutput" in prompt:  # valid JSON, but Ragas makes NaN of it
            return Reply(content='{"classifications": []}')
        if "AnswerRelevanceOutput" in prompt:  # a refusal, through Instructor
            return Reply(refusal="I won't rate that.")
        return None

    fake.rule = rule
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, "--sprout-report=out.json")
    # The only failing metrics (faithfulness) are now unscored: pothos-water passes on the rest.
    result.assert_outcomes(passed=3, skipped=1)
    data = report(pytester)
    pothos = data["items"]["pothos-water"]
    assert pothos["metrics"]["ragas_faithfulness"] == [None]
    assert pothos["metrics"]["deepeval_faithfulness"] == [None]
    assert pothos["metrics"]["ragas_context_recall"] == [None]
    assert pothos["extra"]["unscored"] == {
        "ragas_faithfulness": "invalid JSON from the judge",
        "ragas_context_recall": "the metric came out NaN",
        "ragas_answer_relevancy": "the judge refused: I won't rate that.",
        "deepeval_faithfulness": "the judge refused: I can't help with that.",
    }
    assert pothos["note"].startswith("unscored: ragas_faithfulness (invalid JSON from the judge)")
    for metric in ("ragas_faithfulness", "ragas_answer_relevancy", "ragas_context_recall", "deepeval_faithfulness"):
        assert (data["metrics"][metric]["n"], data["metrics"][metric]["unscored"]) == (0, ANSWERED)
    for metric in ("ragas_context_precision", "deepeval_answer_relevancy"):
        assert (data["metrics"][metric]["n"], data["metrics"][metric]["unscored"]) == (ANSWERED, 0)
    result.stdout.fnmatch_lines(["llm*ragas_faithfulness*n=0*- mean*-*3 unscored*"])  # a mean, never "0/0"


def test_timeouts_leave_items_unscored(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    fake.rule = lambda prompt: Reply(delay=5.0)
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, "--llm-timeout=0.2", "--llm-concurrency=8", "--sprout-report=out.json")
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines([
        "SKIPPED*unscored: ragas_faithfulness (timeout after 0.2s), ragas_answer_relevancy (timeout after 0.2s)*",
    ])
    data = report(pytester)
    assert data["items"]["snake-light"]["outcome"] == "unscored"
    assert all(row["n"] == 0 and row["unscored"] == ANSWERED for row in data["metrics"].values())
    # The first call of each metric, given up after 0.2 s and not retried: at most 9 per item
    # (DeepEval faithfulness asks two at once). No lower bound on what the stand-in saw: on a
    # loaded machine the client can give up on a call before it reaches the server; the unscored
    # counts above already show that every metric of every item was attempted.
    assert 0 < fake.chat_calls <= 9 * ANSWERED


def test_retries_429_and_500_then_succeeds(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    make_project(pytester, tiers="[llm]")
    fake.queue(Reply(status=429, headers={"retry-after": "0"}), Reply(status=500), Reply(status=503))
    result = run(pytester, fake, "-k", "snake", "--sprout-report=out.json")
    result.assert_outcomes(passed=1, deselected=3)
    assert fake.chat_calls == CHAT_PER_ITEM + 3
    assert None not in [v for values in report(pytester)["items"]["snake-light"]["metrics"].values() for v in values]


def test_concurrency_is_bounded_and_spans_items(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    # Slow answers, so that calls pile up at the stand-in even on a busy machine.
    fake.delay = 1.0
    make_project(pytester, tiers="[llm]")
    run(pytester, fake, "--llm-concurrency=16").assert_outcomes(passed=2, failed=1, skipped=1)
    # One item has at most 9 calls in flight (its eight metrics' first calls; DeepEval faithfulness
    # makes two): more than that means the items were judged together.
    assert 9 < fake.max_in_flight <= 16
    fake.reset_counts()
    fake.delay = 0.3
    run(pytester, fake, "--llm-concurrency=3", "--llm-model=other", "-k", "snake").assert_outcomes(passed=1, deselected=3)
    assert fake.max_in_flight == 3 and fake.chat_calls == CHAT_PER_ITEM


def test_cache_rerun_costs_nothing_and_changes_miss(pytester: pytest.Pytester, fake: FakeLLMServer) -> None:
    make_project(pytester, tiers="[llm]")
    run(pytester, fake).assert_outcomes(passed=2, failed=1, skipped=1)
    assert fake.chat_calls == CHAT_PER_ITEM * ANSWERED
    # A new threshold re-judges every item (their results are not reusable) from cached responses.
    fake.reset_counts()
    run(pytester, fake, "--sprout-threshold=llm.ragas_faithfulness=0.4").assert_outcomes(passed=2, failed=1, skipped=1)
    assert (fake.chat_calls, fake.embedding_calls) == (0, 0)
    # Another answer for one case (a new system version, so the answers are asked again): new
    # prompts for that item only. (A new model: see test_api_key_is_used_but_never_shown.)
    changed = SYSTEM_CONFTEST.replace("Peace lilies are toxic to cats [1].", "Peace lilies are toxic to cats and dogs [1].")
    pytester.makeconftest(changed.replace('system.version = "1"', 'system.version = "2"'))
    fake.reset_counts()
    run(pytester, fake).assert_outcomes(passed=2, failed=1, skipped=1)
    # Prompts that do not show the answer (context-only ones) are still cached and not sent.
    assert 0 < fake.chat_calls < CHAT_PER_ITEM
    assert all("cats and dogs" in prompt for prompt in fake.prompts)


def test_cache_key_is_url_model_prompt_and_parameters() -> None:
    url = "http://127.0.0.1:9/v1/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "p"}], "temperature": 0}
    key = ResponseCache.key(url, json.dumps(body).encode())
    assert key == ResponseCache.key(url, json.dumps(dict(reversed(list(body.items())))).encode())
    for changed in ({"model": "m2"}, {"messages": [{"role": "user", "content": "p2"}]}, {"temperature": 0.5}):
        assert ResponseCache.key(url, json.dumps({**body, **changed}).encode()) != key
    assert ResponseCache.key("http://127.0.0.1:10/v1/chat/completions", json.dumps(body).encode()) != key


def test_api_key_is_used_but_never_shown(pytester: pytest.Pytester, fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-sprout-SECRET-4242"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    make_project(pytester, tiers="[llm]")
    result = run(pytester, fake, f"--llm-api-key={secret}", "-v", "-l", "-rA", "--sprout-report=out.json", "--junitxml=junit.xml")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    assert fake.auth == {f"Bearer {secret}"}
    written = [p for p in pytester.path.rglob("*") if p.is_file()]
    assert any(p.parent.name == "sprout-llm" for p in written)  # the response cache is among them
    for text in [result.stdout.str(), result.stderr.str(), *(p.read_text(errors="replace") for p in written)]:
        assert secret not in text
    # From the environment, and no key at all: a local endpoint needs none, and none is demanded.
    # (A new model never hits the cached answers of the old one: every call is made again.)
    fake.auth.clear()
    fake.reset_counts()
    monkeypatch.setenv("SPROUT_LLM_API_KEY", "env-key")
    run(pytester, fake, "--llm-model=m2", "-k", "snake").assert_outcomes(passed=1, deselected=3)
    assert fake.auth == {"Bearer env-key"}
    assert fake.chat_calls == CHAT_PER_ITEM and set(fake.models) == {"m2"}
    fake.auth.clear()
    monkeypatch.delenv("SPROUT_LLM_API_KEY")
    run(pytester, fake, "--llm-model=m3", "-k", "snake").assert_outcomes(passed=1, deselected=3)
    assert fake.auth == {""}


def test_without_endpoint_items_skip_and_explicit_m_llm_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, llm]")
    result = pytester.runpytest("-p", "no:deepeval", "-rs")
    result.assert_outcomes(passed=3, failed=1, skipped=4)
    result.stdout.fnmatch_lines(["SKIPPED [[]4[]]*the llm tier needs a judge endpoint: set --llm-base-url*"])
    explicit = pytester.runpytest("-p", "no:deepeval", "-m", "llm")
    assert explicit.ret == pytest.ExitCode.USAGE_ERROR
    explicit.stderr.fnmatch_lines(["*-m llm: the llm tier needs a judge endpoint: set --llm-base-url*"])
    no_model = pytester.runpytest("-p", "no:deepeval", "-m", "llm", "--llm-base-url=http://127.0.0.1:9/v1")
    no_model.stderr.fnmatch_lines(["*-m llm: the llm tier needs a model name at the endpoint: set --llm-model*"])
    bad = pytester.runpytest("-p", "no:deepeval", "-m", "llm", "--llm-base-url=http://127.0.0.1:9/v1", "--llm-model=x", "--llm-concurrency=0")
    bad.stderr.fnmatch_lines(["*--llm-concurrency must be at least 1, got 0"])
    assert "Traceback" not in explicit.stderr.str() + bad.stderr.str()


def test_unreachable_endpoint_is_unscored_with_a_plain_reason(pytester: pytest.Pytester) -> None:
    with FakeLLMServer() as gone:
        url = gone.url  # a loopback port nobody listens on once the server stops
    make_project(pytester, tiers="[llm]")
    result = pytester.runpytest("-p", "no:deepeval", "-m", "llm", f"--llm-base-url={url}", "--llm-model=x", "-rs")
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines(["*unscored: ragas_faithfulness (cannot connect to the endpoint)*"])


AUDIT_PLUGIN = '''
"""Loaded with -p before every other plugin: records each socket connection and name lookup."""
import json, os, sys

LOG = os.environ["SPROUT_AUDIT_LOG"]

def hook(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple):
        entry = ["connect", str(args[1][0]), args[1][1]]
    elif event == "socket.getaddrinfo":
        entry = ["getaddrinfo", str(args[0]), args[1]]
    else:
        return
    with open(LOG, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\\n")

sys.addaudithook(hook)
'''


def test_socket_audit_under_xdist_only_loopback_and_same_numbers(
    pytester: pytest.Pytester, fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh process tree (controller and two xdist workers, deepeval's own plugin loaded, the
    telemetry variables unset) runs the ragas and llm tiers; an audit hook installed before any
    other plugin records every connection and name lookup."""
    make_project(pytester, tiers="[ragas, llm]")
    pytester.makepyfile(sprout_audit=AUDIT_PLUGIN)
    log = pytester.path / "sockets.log"
    monkeypatch.setenv("SPROUT_AUDIT_LOG", str(log))
    for key in _deps.QUIET_ENV:  # the children start without them: the tiers must set them
        monkeypatch.delenv(key, raising=False)
    result = pytester.runpytest_subprocess(
        "-p", "sprout_audit", "-p", "no:randomly", "-m", "ragas or llm", "-n", "2",
        f"--llm-base-url={fake.url}", "--llm-model=fake",
    )
    result.assert_outcomes(passed=5, failed=1, skipped=2)
    # Workers judge item by item; the numbers are the serial run's (test_scores_pass_and_fail).
    result.stdout.fnmatch_lines([
        "ragas*context_precision*n=3*1.000 mean*",
        "llm*deepeval_faithfulness*n=3*0.667 mean*",
        "llm*ragas_faithfulness*n=3*0.667 mean*",
    ])
    assert fake.chat_calls == CHAT_PER_ITEM * ANSWERED
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    port = int(fake.url.rsplit(":", 1)[1].split("/")[0])
    assert ["connect", "127.0.0.1", port] in entries  # the hook saw the judge calls
    assert {host for _, host, _ in entries} == {"127.0.0.1"}, entries


def test_describe_error_names_the_cause() -> None:
    import openai

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    assert describe_error(openai.APITimeoutError(request=request), 2.5) == "timeout after 2.5s"
    response = httpx.Response(503, request=request)
    assert describe_error(openai.InternalServerError("busy", response=response, body=None)) == "HTTP 503 from the endpoint"
    assert describe_error(openai.APIConnectionError(request=request)) == "cannot connect to the endpoint"
    assert describe_error(JudgeRefused("no")) == "the judge refused: no"
    assert describe_error(RuntimeError("x")) == "RuntimeError: x"
    wrapped = RuntimeError("retry failed")
    wrapped.__cause__ = json.JSONDecodeError("Expecting value", "not json", 0)
    assert describe_error(wrapped) == "invalid JSON from the judge"


def test_reference_and_proxy_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert reference_text(("low light", "Bright, indirect light.")) == "low light. Bright, indirect light."
    assert reference_text(()) == ""
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert proxy_for("http://127.0.0.1:11434/v1") is None
    assert proxy_for("http://localhost:11434/v1") is None
    assert proxy_for("http://judge.example/v1") == "http://proxy.example:3128"


def test_docs_name_every_metric() -> None:
    text = (Path(__file__).parent.parent / "docs" / "llm.md").read_text(encoding="utf-8")
    for metric in METRICS:
        assert f"`{metric}`" in text
    assert "-p no:deepeval" in text
