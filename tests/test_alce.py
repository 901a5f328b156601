"""ALCE's citation recall/precision arithmetic (with a scripted judge), and the alce tier end to
end through pytester with tiny real NLI models."""

from __future__ import annotations

import json
import os
import sqlite3
import textwrap
from pathlib import Path
from typing import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tiny_models
from helpers import SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.judges import nli_model  # imported here, so that pytester's in-process runs share it
from pytest_sprout.judges.alce import MAX_CITATIONS, score_answers, threads_for
from pytest_sprout.core.model import Answer, Passage, Sentence, Verdict


class ScriptedJudge:
    """Stands in for the NLI model in the arithmetic tests: a premise (the set of cited passage
    ids) entails a claim exactly when the script says so. Records every call it gets."""

    def __init__(self, entails: dict[str, set[frozenset[str]]] | None = None, default: bool = False) -> None:
        self.entails = entails or {}
        self.default = default
        self.calls: list[list[tuple[str, frozenset[str]]]] = []

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage]]]) -> list[Verdict]:
        asked = [(claim, frozenset(p.id for p in sources)) for claim, sources in pairs]
        self.calls.append(asked)
        out = []
        for claim, ids in asked:
            ok = ids in self.entails[claim] if claim in self.entails else self.default
            out.append(Verdict(ok, 1.0 if ok else 0.0, None, "scripted"))
        return out


PASSAGES = [Passage(str(i), f"passage {i}", title=f"T{i}") for i in range(1, 6)]


def answer(*sentences: tuple[str, tuple[str, ...]]) -> Answer:
    return Answer(tuple(Sentence(text, cites) for text, cites in sentences), tuple(PASSAGES))


# --- hand-worked examples -----------------------------------------------------------------------

def test_recall_counts_entailed_sentences_and_precision_counts_their_citations() -> None:
    judge = ScriptedJudge({"A.": {frozenset({"1"})}, "B.": set()})
    [score] = score_answers([answer(("A.", ("1",)), ("B.", ("2",)))], judge.judge_many)
    assert score is not None
    assert (score.recall, score.precision) == (0.5, 0.5)  # 1 of 2 sentences; 1 of 2 citations
    assert score.citations == [True, False]


def test_irrelevant_citation_of_a_jointly_entailed_sentence() -> None:
    # [1][2] jointly entail; [1] alone does too; [2] alone does not, and [1] without [2] still
    # entails: [2] is irrelevant. [1] entails alone: relevant. Precision 1/2, recall 1.
    judge = ScriptedJudge({"A.": {frozenset({"1", "2"}), frozenset({"1"})}})
    [score] = score_answers([answer(("A.", ("1", "2")))], judge.judge_many)
    assert score is not None
    assert (score.recall, score.precision) == (1.0, 0.5)
    assert score.sentences[0].relevant == [True, False]


def test_citations_needed_together_are_both_relevant() -> None:
    # Only [1][2] together entail: neither alone, and neither without the other. Both relevant.
    judge = ScriptedJudge({"A.": {frozenset({"1", "2"})}})
    [score] = score_answers([answer(("A.", ("1", "2")))], judge.judge_many)
    assert score is not None
    assert (score.recall, score.precision) == (1.0, 1.0)


def test_redundant_citations_are_all_relevant() -> None:
    # Each of [1], [2] entails alone: condition A holds for both, so both count (ALCE keeps
    # redundant support).
    judge = ScriptedJudge({"A.": {frozenset({"1", "2"}), frozenset({"1"}), frozenset({"2"})}})
    [score] = score_answers([answer(("A.", ("1", "2")))], judge.judge_many)
    assert score is not None and score.precision == 1.0


def test_uncited_and_out_of_range_sentences_score_zero_and_stay_in_the_denominator() -> None:
    a = Answer.from_text("Alpha is true [1]. Beta is true. Gamma is true [1][7].", PASSAGES[:3])
    judge = ScriptedJudge(default=True)
    [score] = score_answers([a], judge.judge_many)
    assert score is not None
    assert score.recall == pytest.approx(1 / 3)
    # Only sentence 1's citation is counted: an out-of-range sentence counts no citation (ALCE).
    assert score.citations == [True] and score.precision == 1.0
    reasons = [s.verdict.reason for s in score.sentences]
    assert reasons[1] == "cites no passage"
    assert "[7], which is not among the 3 retrieved passages" in reasons[2]
    # The judge never sees the sentences that failed on format.
    assert [claim for call in judge.calls for claim, _ in call] == ["Alpha is true."]


def test_an_answer_that_cites_nothing_has_precision_zero() -> None:
    [score] = score_answers([answer(("A.", ()), ("B.", ()))], ScriptedJudge(default=True).judge_many)
    assert score is not None and (score.recall, score.precision) == (0.0, 0.0)


def test_at_most_three_citations_per_sentence_like_alce() -> None:
    judge = ScriptedJudge({"A.": {frozenset({"1", "2", "3"})}})
    [score] = score_answers([answer(("A.", ("1", "2", "3", "4")))], judge.judge_many)
    assert score is not None
    assert MAX_CITATIONS == 3 and score.sentences[0].used == ["1", "2", "3"]
    assert score.sentences[0].ignored == ["4"] and score.recall == 1.0
    [unlimited] = score_answers([answer(("A.", ("1", "2", "3", "4")))], judge.judge_many, max_citations=0)
    assert unlimited is not None and unlimited.recall == 0.0  # {1,2,3,4} is not in the script


def test_an_answer_with_no_sentences_is_skipped() -> None:
    assert score_answers([Answer((), tuple(PASSAGES))], ScriptedJudge().judge_many) == [None]


def test_many_answers_take_at_most_three_judge_calls() -> None:
    judge = ScriptedJudge({"A.": {frozenset({"1", "2"})}, "B.": {frozenset({"3"})}})
    answers = [answer(("A.", ("1", "2")), ("B.", ("3",)))] * 20
    scores = score_answers(answers, judge.judge_many)
    assert len(judge.calls) == 3  # joint premises; single citations; leave-one-out
    assert all(s is not None and (s.recall, s.precision) == (1.0, 1.0) for s in scores)


# --- the batched arithmetic equals a sentence-by-sentence transcription of ALCE ----------------

def alce_reference(a: Answer, entails: set[tuple[str, frozenset[str]]], at_most: int) -> tuple[float, float] | None:
    """ALCE's compute_autoais loop for one answer, one judge call at a time."""
    def nli(claim: str, ids: Sequence[str]) -> int:
        return int((claim, frozenset(ids)) in entails)

    if not a.sentences:
        return None
    known = {p.id for p in a.passages}
    entail = entail_prec = total = 0
    for s in a.sentences:
        ref = list(s.citations)
        if not ref or any(c not in known for c in ref):
            joint = 0
        else:
            ref = ref[:at_most] if at_most > 0 else ref
            total += len(ref)
            joint = nli(s.text, ref)
        entail += joint
        if joint and len(ref) > 1:
            for pid in ref:
                if nli(s.text, [pid]) or not nli(s.text, [r for r in ref if r != pid]):
                    entail_prec += 1
        else:
            entail_prec += joint
    return entail / len(a.sentences), (entail_prec / total if total else 0.0)


citations = st.lists(st.sampled_from(["1", "2", "3", "4", "9"]), max_size=4, unique=True).map(tuple)
sentences = st.tuples(st.sampled_from(["A.", "B.", "C."]), citations)
answers = st.lists(st.lists(sentences, max_size=5).map(lambda ss: answer(*ss)), min_size=1, max_size=4)
subsets = st.frozensets(st.sampled_from(["1", "2", "3", "4"]), min_size=1)
scripts = st.sets(st.tuples(st.sampled_from(["A.", "B.", "C."]), subsets), max_size=25)


@settings(max_examples=300, deadline=None)
@given(answers, scripts, st.sampled_from([0, 1, 2, 3]))
def test_batched_scores_equal_alce_reference(answer_list: list[Answer], script: set, at_most: int) -> None:
    table: dict[str, set[frozenset[str]]] = {}
    for claim, ids in script:
        table.setdefault(claim, set()).add(ids)
    scores = score_answers(answer_list, ScriptedJudge(table).judge_many, max_citations=at_most)
    for a, got in zip(answer_list, scores):
        want = alce_reference(a, script, at_most)
        if want is None:
            assert got is None
            continue
        assert got is not None
        assert (got.recall, got.precision) == pytest.approx(want)
        assert 0.0 <= got.recall <= 1.0 and 0.0 <= got.precision <= 1.0
        assert got.recall == sum(s.entailed for s in got.sentences) / len(a.sentences)


# --- the tier through pytest --------------------------------------------------------------------

@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return tiny_models.zoo(tmp_path_factory.getbasetemp() / "tiny-nli")


# A system whose answers exercise the arithmetic: titles, two citations, an out-of-range
# citation, an uncited sentence.
ALCE_CONFTEST = '''
P1 = {"id": "care-1", "title": "Snake plant", "text": "Snake plants tolerate low light."}
P2 = {"id": "care-2", "title": "Pothos", "text": "Water a pothos when the top of the soil is dry."}
ANSWERS = {
    "q1": ("Snake plants like shade [1][2].", [P1, P2]),
    "q2": ("Pothos needs water when dry [2]. It is very hardy [5]. It has leaves.", [P1, P2]),
    "q3": ("I don't know.", []),
}

def pytest_sprout_make_system(config):
    def system(question):
        return ANSWERS[question]
    system.name = "alce-demo"
    return system
'''

ALCE_SUITE = """
suite: demo
defaults: {tiers: [alce]}
cases:
  - id: two-citations
    question: q1
  - id: mixed
    question: q2
  - id: refuses
    question: q3
"""


def alce_project(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=ALCE_SUITE, conftest=ALCE_CONFTEST, name="demo", tiers="")


def test_forced_entailment_gives_recall_one(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "--sprout-report=r.json")
    result.assert_outcomes(passed=3, skipped=1)  # the refusal has nothing to judge
    result.stdout.fnmatch_lines([
        "alce*citation_precision *n=3*1.000 mean*",
        "alce*citation_recall *n=3*1.000 mean*",
        "alce*citation_recall_sentence*4/4*1.000*",
    ])
    report = json.loads((pytester.path / "r.json").read_text())
    rows = {row["case_id"]: row for row in report["items"] if row["tier"] == "alce" and row["metrics"]}
    # snake-light's two sentences are verbatim in the passage: no model call for them.
    assert rows["snake-light"]["extra"] == {"nli_pairs": 2, "short_circuited": 2, "chunked": 0, "truncated": 0}
    assert rows["pothos-water"]["extra"]["short_circuited"] == 0
    assert rows["pothos-water"]["sentences"][0]["reason"].startswith("entailed: p(entailment) 1.00")


def test_forced_contradiction_gives_recall_zero_and_says_why(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['contradict']}", "--nli-window=off")
    result.assert_outcomes(failed=3, skipped=1)
    result.stdout.fnmatch_lines([
        "*snake-light (suites/care.yaml:*): citation recall 0.00 (0 of 2 sentences entailed by their citations)",
        "*question: How much light does a snake plant need?",
        "*x sentence 1: 'Snake plants tolerate low light.'",
        "*cites: [[]1[]] 1",
        "*why: not entailed: p(entailment) 0.00 < 0.50*",
        "alce*citation_recall *n=3*0.000 mean*saturated*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_alce_arithmetic_end_to_end(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    alce_project(pytester)
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "--sprout-report=r.json", "-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*mixed (suites/demo.yaml:*): citation recall 0.33 (1 of 3 sentences entailed by their citations)",
        "*x sentence 2: 'It is very hardy.'",
        "*cites: [[]5[]] (no such passage)",
        "*why: cites [[]5[]], which is not among the 2 retrieved passages*",
        "*x sentence 3: 'It has leaves.'",
        "*why: cites no passage*",
    ])
    report = json.loads((pytester.path / "r.json").read_text())
    rows = {row["case_id"]: row for row in report["items"]}
    assert rows["two-citations"]["metrics"] == {
        "citation_recall": [1.0], "citation_precision": [1.0],
        "citation_recall_sentence": [True], "citation_precision_citation": [True, True],
    }
    assert rows["mixed"]["metrics"]["citation_recall"] == [pytest.approx(1 / 3)]
    assert rows["mixed"]["metrics"]["citation_precision"] == [1.0]  # one counted citation, relevant
    metrics = {(m["tier"], m["metric"]): m for m in report["metrics"]}
    assert metrics[("alce", "citation_recall")]["rate"] == pytest.approx((1 + 1 / 3) / 2)  # mean over answers
    assert metrics[("alce", "citation_recall_sentence")]["k"] == 2 and metrics[("alce", "citation_recall_sentence")]["n"] == 4


def test_recall_threshold_is_an_option(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    alce_project(pytester)
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "--sprout-threshold", "alce.recall=0.3")
    result.assert_outcomes(passed=2, skipped=1)


def test_true_style_seq2seq_model(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    alce_project(pytester)
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['t5-yes']}", "-k", "two")
    result.assert_outcomes(passed=1, deselected=2)


# --- failure modes ------------------------------------------------------------------------------

def test_explicit_alce_without_a_model_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest("-m", "alce")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: -m alce: *pass --nli-model=ID_OR_PATH or set sprout_nli_model in the ini file"])


def test_without_a_model_alce_items_are_skipped_with_the_reason(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=3, failed=1, skipped=4)
    result.stdout.fnmatch_lines(["SKIPPED*alce tier needs an NLI model: pass --nli-model*"])


def test_missing_extra_names_the_pip_command(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nli_model, "nli_extra_missing", lambda: ["torch"])
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", "--nli-model=some/model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(['ERROR: -m alce: the alce tier needs torch: pip install "pytest-sprout[nli]"'])


@pytest.mark.parametrize("marker", [("-m", "alce"), ()])
def test_missing_model_folder_is_a_usage_error(pytester: pytest.Pytester, marker: tuple[str, ...]) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest(*marker, "--nli-model=models/none-here")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *--nli-model: 'models/none-here'*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_hub_id_while_offline_is_a_usage_error(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", "--nli-model=nobody/no-such-nli-model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: -m alce: --nli-model: 'nobody/no-such-nli-model' is not a local folder, "
                                 "and not in the Hugging Face cache*HF_HUB_OFFLINE is set*"])


def test_model_without_entailment_label_prints_its_labels(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['no-label']}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no label names entailment in the model's id2label {0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2'}*"])


def test_broken_weights_fail_the_items_briefly(pytester: pytest.Pytester, models: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(models["entail"], broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    make_project(pytester, tiers="[alce]")
    result = pytester.runpytest("-m", "alce", f"--nli-model={broken}", "--nli-window=off", "-k", "pothos or lily")
    result.assert_outcomes(failed=2, deselected=2)
    result.stdout.fnmatch_lines(["*--nli-model: cannot load *broken*"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()


def test_xdist_worker_that_cannot_load_fails_items_not_the_run(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[groundedness, alce]")
    result = pytester.runpytest_subprocess("-n", "1", "-p", "no:randomly", f"--nli-model={models['no-label']}")
    result.assert_outcomes(passed=3, failed=4, skipped=1)
    result.stdout.fnmatch_lines(["*_ lily-cats[[]alce[]] _*", "*", "--nli-model: no label names entailment in the model's id2label*"])
    assert "INTERNALERROR" not in result.stdout.str()


# --- loading once, fixtures, caches, xdist ------------------------------------------------------

def test_nli_judge_fixture_is_the_instance_the_items_use(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    pytester.makepyfile(test_own=textwrap.dedent('''
        from pytest_sprout import NLIJudge, Passage
        from pytest_sprout.session import get_session

        def test_judge(nli_judge, request):
            assert isinstance(nli_judge, NLIJudge)
            assert nli_judge is get_session(request.config).tier("alce").judge
            verdict = nli_judge.judge("Snake plants like shade.", [Passage("p", "Snake plants tolerate low light.")])
            assert verdict.supported is True and verdict.score == 1.0
    '''))
    result = pytester.runpytest(f"--nli-model={models['entail']}", "suites", "test_own.py")
    result.assert_outcomes(passed=4, skipped=1)


def test_nli_judge_fixture_skips_without_a_model(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_judge(nli_judge):\n    assert False\n")
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*alce tier needs an NLI model*"])


def test_xdist_workers_share_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert threads_for(2) == 2
    assert threads_for(3) == 1
    assert threads_for(None) is None  # not a worker: torch's default
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert threads_for(2) is None


def test_verdicts_are_cached_on_disk_unless_disabled(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, tiers="[alce]")
    db = pytester.path / ".pytest_cache" / "d" / "sprout-nli" / "nli-verdicts.sqlite3"
    pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "--nli-no-cache").assert_outcomes(passed=3, skipped=1)
    assert not db.exists()
    pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}").assert_outcomes(passed=3, skipped=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 2  # pothos and lily; snake is verbatim
    result = pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, skipped=1)


def test_xdist_prints_the_same_table(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    alce_project(pytester)
    pytester.makefile(".yaml", **{"suites/care": textwrap.dedent(SUITE).replace("cases:", "defaults: {tiers: [alce]}\ncases:", 1)})
    pytester.makeconftest(ALCE_CONFTEST.replace("ANSWERS = {", "ANSWERS = {\n" + _care_answers()))
    args = ("-m", "alce", f"--nli-model={models['random']}", "-p", "no:cacheprovider", "-p", "no:randomly")
    plain = pytester.runpytest(*args)
    spread = pytester.runpytest_subprocess("-n", "2", *args)

    def table(result: pytest.RunResult) -> list[str]:
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "= sprout =" in line)
        return [line for line in lines[start + 1:] if line.startswith("alce")]

    assert table(plain) and table(plain) == table(spread)


def _care_answers() -> str:
    """The lookup system's answers from helpers, as dict entries for ALCE_CONFTEST."""
    start = SYSTEM_CONFTEST.index("ANSWERS = {") + len("ANSWERS = {")
    return SYSTEM_CONFTEST[start:SYSTEM_CONFTEST.index("\n}\n", start)]


# --- retrieved mode: a bounded retrieved set (repro 43) --------------------------------------

def test_retrieved_mode_cost_and_counts_do_not_grow_with_the_retrieved_set() -> None:
    """An uncited sentence is judged against at most alce.max_retrieved passages, the ones that
    share the most words with it, whatever the retrieval size: the pairs asked and the citations
    counted stay the same from 10 to 2,000 passages, and the passage that states it is among them."""
    from pytest_sprout.judges.alce import MAX_RETRIEVED

    claim = "Snake plants tolerate low light."
    asked_per_n = []
    for n in (10, 2000):
        passages = tuple(Passage(f"p{i}", f"Passage {i} is about ferns and water {i}.") for i in range(n - 1))
        passages += (Passage(f"p{n - 1}", "Snake plants tolerate low light."),)
        judge = HoldsJudge(f"p{n - 1}")
        [score] = score_answers([Answer((Sentence(claim),), passages)], judge.judge_many, modes=["retrieved"],
                                max_retrieved=MAX_RETRIEVED)
        assert score is not None and score.recall == 1.0
        assert len(score.sentences[0].used) == MAX_RETRIEVED and f"p{n - 1}" in score.sentences[0].used
        assert score.citations.count(True) == 1 and len(score.citations) == MAX_RETRIEVED  # 5 counted, not n
        assert max(judge.sizes) == MAX_RETRIEVED
        asked_per_n.append(len(judge.sizes))
        assert f"judged against the {MAX_RETRIEVED} of the {n} retrieved passages" in score.sentences[0].verdict.reason
    assert asked_per_n[0] == asked_per_n[1]


class HoldsJudge:
    """Stands in for the NLI model: a premise entails any claim exactly when it holds one passage."""

    def __init__(self, pid: str) -> None:
        self.pid = pid
        self.sizes: list[int] = []  # premise sizes, one per pair asked

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage]]]) -> list[Verdict]:
        out = []
        for _, sources in pairs:
            self.sizes.append(len(sources))
            ok = any(p.id == self.pid for p in sources)
            out.append(Verdict(ok, float(ok), None, "scripted"))
        return out


def test_prerank_picks_the_passages_that_share_the_rarest_words_in_retrieval_order() -> None:
    from pytest_sprout.judges.alce import prerank

    passages = [Passage("a", "Water the fern weekly."), Passage("b", "The plant likes water."),
                Passage("c", "Snake plants tolerate low light.", title="Snake plant"),
                Passage("d", "Low light suits many plants."), Passage("e", "Unrelated text entirely.")]
    top = prerank("Snake plants tolerate low light.", passages, 2)
    assert [p.id for p in top] == ["c", "d"]
    assert [p.id for p in prerank("Snake plants tolerate low light.", passages, 3)] == ["b", "c", "d"]
    assert prerank("anything", passages, 0) == passages and prerank("anything", passages[:2], 5) == passages[:2]


def test_max_retrieved_is_a_run_setting_and_a_usage_error_out_of_range(pytester: pytest.Pytester) -> None:
    from pytest_sprout.core.option_values import threshold_problem

    assert threshold_problem("alce", "max_retrieved", 20) is None
    assert "must be a whole number" in str(threshold_problem("alce", "max_retrieved", 2.5))
    assert "out of range" in str(threshold_problem("alce", "max_retrieved", 0))
    assert "whole run" in str(threshold_problem("alce", "max_retrieved", 3, per_case=True))


RETRIEVED_CONFTEST = '''
import os
def pytest_sprout_make_system(config):
    def system(q):  # no [k] markers; N retrieved passages, the last one states the answer
        n = int(os.environ.get("SPROUT_N", "10"))
        return {"text": "Snake plants tolerate low light.",
                "passages": [f"Passage {i} is about ferns and water {i}." for i in range(n - 1)] + ["Snake plants tolerate low light, says the guide."]}
    system.name, system.version = "t", "1"
    return system
'''


def test_retrieved_mode_end_to_end_counts_at_most_max_retrieved_citations(
        pytester: pytest.Pytester, models: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(pytester, suite="defaults: {tiers: [alce], citations: retrieved}\ncases:\n  - {id: c1, question: q1}\n",
                 conftest=RETRIEVED_CONFTEST, name="a", tiers="")
    for n, want in ((3, 3), (300, 5), (300, 2)):
        monkeypatch.setenv("SPROUT_N", str(n))
        extra = ["--sprout-threshold=alce.max_retrieved=2"] if want == 2 else []
        result = pytester.runpytest("-m", "alce", f"--nli-model={models['entail']}", "--nli-no-cache",
                                    "--sprout-report=r.json", *extra)
        result.assert_outcomes(passed=1)
        report = json.loads((pytester.path / "r.json").read_text())
        [metric] = [m for m in report["metrics"] if m["metric"] == "citation_precision_citation"]
        assert metric["n"] == want
        [row] = [r for r in report["items"] if r["tier"] == "alce"]
        reason = row["sentences"][0]["reason"]
        assert (f"the {want} of the {n} retrieved passages" in reason) == (n > want)
        assert f"[{n}]" in reason  # the passage that states it was among those judged


# --- the pipeline: judging starts with the first answers --------------------------------------

PIPELINE_CONFTEST = '''
import os
import threading
FIRST_DONE = threading.Event()
ANSWERS = {
    "q1": "Snake plants tolerate low light [1].",
    "q2": "Water a pothos every week [1].",
    "q3": "Ferns like dry air [1].",
    "q4": "Paris is in France [1].",
    "q5": "It opened in 1889 [1].",
}

def pytest_runtest_logreport(report):
    if report.when == "call":
        FIRST_DONE.set()

def pytest_sprout_make_system(config):
    def system(question):
        if question != "q1" and not os.environ.get("SPROUT_TEST_NO_WAIT"):  # the later answers come
            FIRST_DONE.wait(10)  # only once the first item has been judged
        with open("seen.txt", "a") as f:
            f.write(f"{question} {FIRST_DONE.is_set()}\\n")
        return {"text": ANSWERS[question], "passages": [" ".join(ANSWERS.values())]}
    system.name, system.version = "slow-later", "1"
    return system
'''


def test_judging_starts_with_the_first_answers_and_reports_do_not_change(
        pytester: pytest.Pytester, models: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The alce tier judges the answers that are there while the system works on the rest: the
    system here answers q2..q5 only after the first item has finished (or after 10 s, which would
    mean the tier waited for every answer first). The report is the same as a one-at-a-time run's,
    and a progress line says how far the judging is."""
    from pytest_sprout.run import worker

    suite = "defaults: {tiers: [alce]}\ncases:\n" + "".join(f"  - {{id: c{i}, question: q{i}}}\n" for i in range(1, 6))
    make_project(pytester, suite=suite, conftest=PIPELINE_CONFTEST, name="p", tiers="")
    monkeypatch.setattr(worker, "PROGRESS_SECONDS", 0.0)
    args = ("-m", "alce", f"--nli-model={models['random']}", "--nli-no-cache", "-p", "no:randomly")
    result = pytester.runpytest(*args, "--sprout-concurrency=4", "--sprout-report=piped.json")
    seen = (pytester.path / "seen.txt").read_text().split("\n")
    assert sorted(line for line in seen if line) == ["q1 False", *(f"q{i} True" for i in range(2, 6))]
    result.stdout.fnmatch_lines(["*sprout: alce: judged * answer* (* model inputs), * items to go, * s"])
    monkeypatch.setenv("SPROUT_TEST_NO_WAIT", "1")
    pytester.runpytest(*args, "--sprout-concurrency=1", "--sprout-report=serial.json")

    def rows(name: str) -> list[tuple[str, dict, list]]:
        report = json.loads((pytester.path / name).read_text())
        return [(r["case_id"], r["metrics"], [s["score"] for s in r["sentences"]]) for r in report["items"]]

    assert rows("piped.json") == rows("serial.json") and len(rows("serial.json")) == 5
