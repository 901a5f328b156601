"""The judges are pure: they import nothing of pytest or of the layers above the base layer, are
built from a plain TierSettings, and judge ahead only what the run layer hands them (prepare)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest

from pytest_sprout.core.errors import JudgeFailure, SettingsError, TierUnusable
from pytest_sprout.judges import TierResult, TierSettings, alce, groundedness, llm, ragas_tier
from pytest_sprout.judges.nli import NLIModelError
from pytest_sprout.core.model import Answer, Case, GoldenItem, Passage, Sentence, Verdict
from pytest_sprout import judges
from pytest_sprout.core import option_values as pure_settings

JUDGES = Path(judges.__file__).parent
BASE = {"model", "sentences", "tier", "citations", "errors", "secret", "stats", "version", "util", "calibration"}  # the base modules of core/


def imports(path: Path) -> list[tuple[int, str]]:
    """(relative level, module) of every import in a file, lazy ones inside functions too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            # `from ..core import secret` names the module through its alias
            names = [f"{node.module}.{alias.name}" if node.module else alias.name for alias in node.names]
            out += [(node.level, name) for name in names]
    return out


@pytest.mark.parametrize("path", sorted(JUDGES.rglob("*.py")), ids=lambda p: str(p.relative_to(JUDGES)))
def test_a_judge_module_imports_neither_pytest_nor_a_layer_above_the_base(path: Path) -> None:
    depth = len(path.relative_to(JUDGES).parts)  # judges/x.py: 1; judges/lexical/x.py: 2
    for level, module in imports(path):
        top = module.split(".")[0]
        assert top not in ("pytest", "_pytest", "xdist"), f"{path.name} imports {module}"
        if level == 0 and top == "pytest_sprout":
            parts = module.split(".")
            assert parts[1] == "judges" or (parts[1] == "core" and parts[2] in BASE), f"{path.name} imports {module}"
        if level > depth:  # out of judges/: the base modules of core/ only
            parts = module.split(".")
            assert top == "core" and parts[1] in BASE, f"{path.name} imports {'.' * level}{module}"


def test_tiers_are_built_from_plain_settings() -> None:
    thresholds = {("groundedness", "coverage"): 0.7, ("groundedness", "facts"): 0.9}
    tier = groundedness.make_tier(TierSettings(thresholds=thresholds))
    assert (tier.judge.coverage, tier.fact_threshold) == (0.7, 90.0)
    assert groundedness.unavailable(TierSettings()) is None


def test_llm_unavailable_reads_its_options_from_the_settings() -> None:
    if llm.missing("llm"):
        pytest.skip("the llm extra is not installed, so unavailable() names it before any option")
    ok = {"llm_base_url": "http://127.0.0.1:9", "llm_model": "m", "llm_concurrency": 4, "llm_timeout": 60.0,
          "llm_metrics": "auto"}
    assert llm.unavailable(TierSettings(options=ok)) is None
    assert "--llm-base-url" in llm.unavailable(TierSettings(options={**ok, "llm_base_url": None}))
    assert llm.unavailable(TierSettings(options={**ok, "llm_concurrency": 0})) == "--llm-concurrency must be at least 1, got 0"
    assert "unknown metric nope" in llm.unavailable(TierSettings(options={**ok, "llm_metrics": "nope"}))


def test_alce_without_a_model_is_unavailable_and_a_missing_model_is_unusable(tmp_path: Path) -> None:
    assert "--nli-model" in alce.unavailable(TierSettings())
    with pytest.raises(TierUnusable, match="^--nli-model: "):
        alce.make_tier(TierSettings(options={"nli_model": str(tmp_path / "no-such-model")}))


def test_ragas_tier_reads_thresholds_from_the_settings() -> None:
    if ragas_tier.unavailable(TierSettings()):
        pytest.skip("the ragas extra is not installed")
    tier = ragas_tier.make_tier(TierSettings(thresholds={("ragas", "context_recall"): 0.5}))
    assert tier.thresholds["context_recall"] == 0.5


def test_settings_checks_raise_the_model_layers_error() -> None:
    with pytest.raises(SettingsError, match="expected TIER.NAME=VALUE"):
        pure_settings.parse_assignments(["coverage"], "--sprout-threshold")
    with pytest.raises(SettingsError, match="must start with http"):
        pure_settings.check_url("ftp://host")
    assert pure_settings.explicit_tiers("alce and not llm") == {"alce"}


# --- look-ahead: the run layer hands a batching tier the cases coming up --------------------------

class CountingJudge:
    """A judge that entails every claim citing a passage, memoises its verdicts and records each
    batch it is asked (stands for the NLI judge, whose model cannot run here without weights)."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.batches: list[int] = []
        self.memo: dict[tuple[str, tuple[str, ...]], Verdict] = {}
        self.fail = fail

    def settings(self) -> dict[str, Any]:
        return {"judge": "counting"}

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage]]]) -> list[Verdict]:
        if self.fail is not None:
            raise self.fail
        pairs = list(pairs)
        fresh = {(c, tuple(p.id for p in ps)) for c, ps in pairs} - set(self.memo)
        if fresh:
            self.batches.append(len(fresh))
        for key in fresh:
            self.memo[key] = Verdict(bool(key[1]), 1.0 if key[1] else 0.0, None, "scripted")
        return [self.memo[(c, tuple(p.id for p in ps))] for c, ps in pairs]


def item(n: int) -> GoldenItem:
    passage = Passage("1", f"Fact {n}.")
    answer = Answer(sentences=(Sentence(f"Claim {n}.", ("1",)), Sentence(f"Other {n}.", ("1",))), passages=(passage,))
    return GoldenItem(Case(id=f"c{n}", suite="s", question="?"), answer)


def test_alce_prepare_judges_the_cases_coming_up_in_one_batch() -> None:
    judge = CountingJudge()
    tier = alce.ALCETier(judge)
    items = [item(n) for n in range(4)]
    assert not tier.prepared(items[0])
    tier.prepare(items)
    assert judge.batches == [8]  # every sentence of the four answers, in one batch
    assert all(tier.prepared(i) for i in items)
    results = [tier.evaluate(i) for i in items]
    assert judge.batches == [8]  # evaluate reads back what prepare judged
    assert all(isinstance(r, TierResult) and r.passed for r in results)


def test_alce_model_that_fails_to_load_is_a_judge_failure() -> None:
    tier = alce.ALCETier(CountingJudge(fail=NLIModelError("cannot load the weights")))
    with pytest.raises(JudgeFailure, match="^--nli-model: cannot load the weights$"):
        tier.prepare([item(1)])
    with pytest.raises(JudgeFailure):
        tier.evaluate(item(1))


def test_threads_are_shared_out_among_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert alce.threads_for(None) is None  # not an xdist worker: torch's default
    assert alce.threads_for(10_000) == 1
