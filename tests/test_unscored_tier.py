"""Issue 11, point 13: a tier whose judge never answered fails the run with a one-line reason,
--sprout-max-unscored fails a mostly unscored tier, and a continuous score with nothing scored is a
mean of n=0, never a rate "0/0"."""

from __future__ import annotations

import json

import pytest

from fake_llm_server import FakeLLMServer, Reply
from helpers import make_project
from pytest_sprout.judges import _deps
from pytest_sprout.core.stats import Tally
from pytest_sprout.controller.unscored import check

pytestmark = pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: imported before any in-process run

_deps.quiet_env()


def row(tier: str, outcome: str, why: str | None = None) -> dict:
    out = {"tier": tier, "outcome": outcome, "metrics": {}}
    if why:
        out.update(unscored=True, extra={"unscored": {"m": why}})
    return out


def test_nothing_scored_fails_with_the_most_common_reason() -> None:
    rows = [row("llm", "unscored", "HTTP 401 from the endpoint: the API key was rejected")] * 3 + [row("llm", "skipped")]
    [result] = check(rows, 0.5)
    assert result.passed is False
    assert result.message == ("llm: FAILED: nothing was scored (3 of 3 judged items unscored): "
                              "HTTP 401 from the endpoint: the API key was rejected")


def test_max_unscored_fraction() -> None:
    rows = [row("llm", "unscored", "timeout")] * 2 + [row("llm", "passed")] * 2
    assert check(rows, 0.5) == []  # 50% is not more than 0.5
    [result] = check(rows, 0.4)
    assert "2 of 4 judged items unscored (50%, more than --sprout-max-unscored=0.4): timeout" in result.message
    assert check([row("groundedness", "passed"), row("llm", "error")], 0.0) == []  # errors are not judged


def test_continuous_metric_with_nothing_scored_is_a_mean_of_n_0() -> None:
    tally = Tally()
    tally.declare("llm", "ragas_faithfulness", "mean")
    tally.extend("llm", "ragas_faithfulness", [None, None])
    metric = tally.rows()[0]
    assert (metric.kind, metric.n, metric.k, metric.rate, metric.unscored) == ("mean", 0, None, None, 2)


def test_rejected_key_fails_the_run_with_one_line(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[llm]")
    with FakeLLMServer() as fake:
        fake.rule = lambda prompt: Reply(status=401)
        result = pytester.runpytest("-p", "no:deepeval", "-m", "llm", f"--llm-base-url={fake.url}", "--llm-model=m",
                                    "--llm-api-key=wrong", "--sprout-report=out.json")
    result.assert_outcomes(skipped=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "llm*ragas_faithfulness*n=0*- mean*3 unscored*",
        "llm: FAILED: nothing was scored (3 of 3 judged items unscored): HTTP 401 from the endpoint: the API key was rejected*",
    ])
    assert "0/0" not in result.stdout.str()
    data = json.loads((pytester.path / "out.json").read_text())
    assert data["gates"]["unscored"][0]["passed"] is False
    assert {m["kind"] for m in data["metrics"]} == {"mean"}
