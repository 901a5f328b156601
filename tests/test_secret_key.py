"""Issue 11, point 1: the llm tier's API key is never printed or written anywhere, and a malformed
--llm-base-url is a usage error before any client is built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer
from helpers import make_project
from pytest_sprout.judges import _deps
from pytest_sprout.core.secret import SecretStr

pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run

KEY = "sk-sprout-LEAK-CANARY-7391"

_deps.quiet_env()


def everything_written(root: Path) -> list[tuple[Path, str]]:
    """Every file under the project (reports, JUnit, caches, golden set, snapshot) as text."""
    return [(p, p.read_bytes().decode("utf-8", "replace")) for p in root.rglob("*") if p.is_file()]


def assert_nowhere(result: pytest.RunResult, root: Path) -> None:
    assert KEY not in result.stdout.str() and KEY not in result.stderr.str()
    for path, text in everything_written(root):
        assert KEY not in text, path


def test_secret_str_never_shows_its_value() -> None:
    secret = SecretStr(KEY)
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r}", "%s" % secret, repr([secret]), repr({"k": secret})):
        assert KEY not in shown
    assert secret.reveal() == KEY and SecretStr(secret) == secret and bool(secret)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(secret)


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://127.0.0.1:99999/v1", "ftp://host/v1", "http:///v1", "127.0.0.1:8080/v1"])
@pytest.mark.parametrize("source", ["option", "env"])
def test_malformed_base_url_is_a_usage_error_and_the_key_appears_nowhere(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, url: str, source: str,
) -> None:
    make_project(pytester, tiers="[groundedness, llm]")
    args = ["-p", "no:deepeval", f"--llm-base-url={url}", "--llm-model=m", "--junitxml=junit.xml",
            "--sprout-report=out.json", "-l", "--tb=long"]
    if source == "option":
        args.append(f"--llm-api-key={KEY}")
    else:
        monkeypatch.setenv("SPROUT_LLM_API_KEY", KEY)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-base-url*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "out.json").exists()  # nothing ran
    assert_nowhere(result, pytester.path)


def test_full_run_with_a_key_leaves_it_in_no_output_report_cache_golden_set_or_snapshot(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester, tiers="[groundedness, llm]")
    with FakeLLMServer() as fake:
        common = ["-p", "no:deepeval", f"--llm-base-url={fake.url}", "--llm-model=m", f"--llm-api-key={KEY}", "-l",
                  "--tb=long", "-rA", "-v"]
        result = pytester.runpytest(
            *common, "--junitxml=junit.xml", "--sprout-report=out.json", "--sprout-md=out.md", "--sprout-html=out.html",
            "--sprout-record=golden.json", "--sprout-update-snapshot",
        )
        replay = pytester.runpytest(*common, "--sprout-golden=golden.json", "--sprout-report=again.json")
        assert fake.auth == {f"Bearer {KEY}"}  # the key was sent, in the header only
    result.assert_outcomes(passed=5, failed=2, skipped=1)
    names = {p.name for p, _ in everything_written(pytester.path)}
    assert {"junit.xml", "out.json", "out.md", "out.html", "golden.json", "sprout.snapshot.json"} <= names
    assert any(p.parent.name == "sprout-llm" for p in pytester.path.rglob("*.json"))  # the response cache
    assert_nowhere(result, pytester.path)
    assert_nowhere(replay, pytester.path)
    assert json.loads((pytester.path / "out.json").read_text())["complete"] is True


def test_client_failure_after_validation_shows_no_key(pytester: pytest.Pytester) -> None:
    """A client that fails inside its own set-up (here: no such model server at all, and a
    system whose error message is long) still never has the key in a frame it could print."""
    from pytest_sprout.judges._llm_client import LLMClient

    client = LLMClient("http://127.0.0.1:9/v1", "m", api_key=SecretStr(KEY))
    try:
        for value in vars(client).values():
            assert KEY not in repr(value)
        assert KEY not in repr(vars(client.openai)) and KEY not in repr(vars(client.transport))
        assert client.openai.api_key == ""  # the client holds no key: the transport sets the header
    finally:
        client.close()


@pytest.mark.parametrize("model, reply", [
    ("judge-m", "refusal"), ("bespoke-minicheck", "refusal"), ("bespoke-minicheck", "content"),
])
def test_a_key_echoed_in_a_200_reply_is_masked_everywhere(pytester: pytest.Pytester, model: str, reply: str) -> None:
    """A proxy that wraps the upstream's error (or echoes the request) in a 200 completion: the
    refusal or answer text is shown in the terminal, the reports and JUnit, and the reply is
    cached; the key in it is masked before any of them sees it (issue 23, defect 13).
    Regression: repro 13 (13-key-echoed-in-200-reply-leaks)."""
    from fake_llm_server import Reply

    make_project(pytester, tiers="[llm]")
    with FakeLLMServer() as fake:
        echo = f"I cannot help; your token Bearer {KEY} is not allowed"
        fake.rule = (lambda prompt: Reply(refusal=echo)) if reply == "refusal" else \
            (lambda prompt: Reply(content=f"not json; you sent Bearer {KEY}"))
        result = pytester.runpytest("-p", "no:deepeval", f"--llm-base-url={fake.url}", f"--llm-model={model}",
                                    f"--llm-api-key={KEY}", "--llm-timeout=20", "-rs", "--junitxml=junit.xml",
                                    "--sprout-report=out.json")
    output = result.stdout.str()
    assert ("the judge refused: I cannot help; your token *** is not allowed" in output if reply == "refusal"
            else "not json; you sent ***" in output)
    assert_nowhere(result, pytester.path)
