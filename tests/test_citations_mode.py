"""--sprout-citations=required|retrieved (ini sprout_citations, a suite's defaults, a case's own
``citations:``): what a sentence without [k] markers is judged against, in every tier that reads
citations; and the one-line hint when no sentence of a required-mode run cites anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tiny_models
from helpers import make_project
from pytest_sprout.core.citations import NO_CITATIONS_HINT, hint_line, mode_line, settings_record, sources
from pytest_sprout.core.util import md_cell
from pytest_sprout.core.model import Answer, Case, Passage, Sentence, Verdict
from pytest_sprout.judges.alce import score_answers
from pytest_sprout.judges.groundedness import judge_sentences
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.judges.ragas_tier import reference_contexts

# A pipeline that answers without [k] markers (most LLM pipelines do).
UNCITED_CONFTEST = '''
ANSWERS = {
    "How much light does a snake plant need?": (
        "Snake plants tolerate low light. They grow faster in bright indirect light.",
        ["Pothos trail from shelves and hanging baskets.",
         "Snake plants tolerate low light. They grow faster in bright indirect light."],
    ),
    "How often should I water a pothos?": (
        "Water a pothos every 3 weeks.",
        ["Water a pothos when the top 5 cm of soil is dry, about every 1 to 2 weeks.",
         "Pothos tolerate low light."],
    ),
    "Is a peace lily toxic to cats?": (
        "Peace lilies are toxic to cats [2].",
        ["Peace lilies are toxic to cats and dogs.", "Peace lilies flower in spring."],
    ),
}

def pytest_sprout_make_system(config):
    def system(question):
        return ANSWERS[question]
    system.name = "uncited"
    system.version = "1"
    return system
'''

UNCITED_SUITE = """
suite: care
cases:
  - id: snake-light
    question: How much light does a snake plant need?
  - id: pothos-water
    question: How often should I water a pothos?
"""

# the lily case cites passage [2], which does not say it: it fails in either mode
CITED_CASE = """
  - id: lily-cats
    question: Is a peace lily toxic to cats?
"""


def report(pytester: pytest.Pytester, name: str = "r.json") -> dict:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


def sentence_rows(data: dict, case_id: str, tier: str = "groundedness") -> list[dict]:
    [row] = [r for r in data["items"] if r["case_id"] == case_id and r["tier"] == tier]
    return row["sentences"]


# --- through pytest: the groundedness tier ---------------------------------------------------


def test_required_mode_fails_every_uncited_sentence_and_prints_the_hint(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json", "--sprout-md=s.md")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*why: the sentence cites no passage*",
        "citations: required (a sentence without [[]k[]] markers is unsupported)",
        NO_CITATIONS_HINT.replace("[k]", "[[]k[]]"),
    ])
    assert result.stdout.str().count("no sentence of this run cites a passage") == 1  # one line
    data = report(pytester)
    assert data["settings"]["citations"] == "required"
    assert data["settings"]["sentence_citations"] == {"cited": 0, "uncited": 3, "retrieved": 0}
    assert all(s["rule"] == "uncited" for s in sentence_rows(data, "snake-light"))
    markdown = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert "citations `required`" in markdown
    assert f"> {md_cell(NO_CITATIONS_HINT)}" in markdown


def test_no_hint_when_a_sentence_cites(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE + CITED_CASE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness")
    result.assert_outcomes(failed=3)
    assert "no sentence of this run cites a passage" not in result.stdout.str()


def test_retrieved_mode_grounds_uncited_sentences_and_names_the_evidence(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE + CITED_CASE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved", "--sprout-report=r.json",
                                "--sprout-md=s.md")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*pothos-water*1 of 1 sentences unsupported*",
        "*why: *no [[]k[]] markers: judged against the 2 retrieved passages; evidence from [[]1[]]*",
        "citations: retrieved (a sentence without [[]k[]] markers is judged against every retrieved passage)",
    ])
    assert "no sentence of this run cites a passage" not in result.stdout.str()
    data = report(pytester)
    assert data["settings"]["citations"] == "retrieved"
    assert data["settings"]["sentence_citations"] == {"cited": 1, "uncited": 0, "retrieved": 3}
    snake = sentence_rows(data, "snake-light")
    assert [s["supported"] for s in snake] == [True, True]
    assert all(s["judged_against"] == "retrieved" and s["evidence_passages"] == ["2"] for s in snake)
    assert "evidence from [2]" in snake[0]["reason"]
    # a sentence with markers is still judged against what it cites, not against every passage
    [lily] = sentence_rows(data, "lily-cats")
    assert lily["supported"] is False and "judged_against" not in lily
    assert "citations `retrieved`" in (pytester.path / "s.md").read_text(encoding="utf-8")


def test_ini_sets_the_mode(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    pytester.makeini("[pytest]\nsprout_citations = retrieved\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest("-m", "groundedness")
    result.assert_outcomes(passed=1, failed=1)
    # the command line wins over the ini file
    pytester.runpytest("-m", "groundedness", "--sprout-citations=required").assert_outcomes(failed=2)


def test_suite_defaults_and_a_case_of_its_own(pytester: pytest.Pytester) -> None:
    suite = UNCITED_SUITE.replace("cases:", "defaults: {tiers: [groundedness], citations: retrieved}\ncases:")
    make_project(pytester, suite=suite, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(passed=1, failed=1)  # the suite's default beats the run's required
    result.stdout.fnmatch_lines(["citations: required*; set per case or suite: 2 cases retrieved"])
    assert report(pytester)["settings"]["citations_by_case"] == {"retrieved": 2}
    # a case's own mode beats its suite's defaults (and the command line)
    suite = suite.replace("    question: How much light does a snake plant need?",
                          "    question: How much light does a snake plant need?\n    citations: required")
    (pytester.path / "suites" / "care.yaml").write_text(suite, encoding="utf-8")
    result = pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved", "--sprout-update-snapshot")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*snake-light*2 of 2 sentences unsupported*", "*the sentence cites no passage*"])


def test_the_mode_is_part_of_the_case_and_of_the_verdict_cache(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    pytester.runpytest("-m", "groundedness").assert_outcomes(failed=2)
    # the verdicts cached by the required run are not reused by a retrieved one
    pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved").assert_outcomes(passed=1, failed=1)
    pytester.runpytest("-m", "groundedness").assert_outcomes(failed=2)
    plain = Case(id="a", suite="s", question="q")
    assert "citations" not in plain.canonical()  # a case without it keeps the hash it had
    assert Case(id="a", suite="s", question="q", citations="retrieved").canonical()["citations"] == "retrieved"


def test_a_bad_option_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-citations=optional")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--sprout-citations / sprout_citations must be one of required, retrieved, got 'optional'"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("where, field", [("case", "citations"), ("defaults", "defaults.citations")])
def test_a_bad_suite_value_names_file_case_and_field(pytester: pytest.Pytester, where: str, field: str) -> None:
    if where == "case":
        suite = UNCITED_SUITE + "    citations: always\n"
    else:
        suite = UNCITED_SUITE.replace("cases:", "defaults: {tiers: [groundedness], citations: always}\ncases:")
    make_project(pytester, suite=suite, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness")
    assert result.ret != 0
    case = "case 'pothos-water': " if where == "case" else ""
    result.stdout.fnmatch_lines([f"*suites/care.yaml*{case}field '{field}': must be one of required, retrieved, got 'always'*"])
    assert "INTERNALERROR" not in result.stdout.str()


# --- the parts, without pytest ----------------------------------------------------------------

PASSAGES = (Passage("p1", "Pothos trail from shelves."), Passage("p2", "Snake plants tolerate low light."))


def test_sources_in_each_mode() -> None:
    answer = Answer((Sentence("Snake plants tolerate low light."), Sentence("Pothos trail.", ("p1",))), PASSAGES)
    uncited, cited = answer.sentences
    assert sources(answer, uncited, "required").passages == []
    wide = sources(answer, uncited, "retrieved")
    assert wide.retrieved and wide.passages == list(PASSAGES)
    assert sources(answer, cited, "retrieved").passages == [PASSAGES[0]]  # markers win in either mode


def test_lexical_rows_name_the_passage_the_evidence_came_from() -> None:
    answer = Answer((Sentence("Snake plants tolerate low light."),), PASSAGES)
    [row] = judge_sentences(LexicalJudge(), answer, "retrieved")
    assert row["supported"] is True and row["evidence_passages"] == ["p2"]
    assert row["reason"].endswith("no [k] markers: judged against the 2 retrieved passages; evidence from [2] p2")
    [row] = judge_sentences(LexicalJudge(), Answer((Sentence("Snake plants tolerate low light."),), ()), "retrieved")
    assert row["supported"] is False and row["reason"] == "the sentence cites no passage, and the system retrieved none"


class ScriptedJudge:
    """Entails a claim exactly from the sets of passage ids the script lists."""

    def __init__(self, entails: dict[str, set[frozenset[str]]]) -> None:
        self.entails = entails
        self.asked: list[tuple[str, frozenset[str]]] = []

    def judge_many(self, pairs):  # type: ignore[no-untyped-def]
        out = []
        for claim, passages in pairs:
            ids = frozenset(p.id for p in passages)
            self.asked.append((claim, ids))
            ok = ids in self.entails.get(claim, set())
            out.append(Verdict(ok, float(ok), None, "scripted"))
        return out


def test_alce_retrieved_mode_uses_the_retrieved_set_for_recall_and_precision() -> None:
    both, first = frozenset({"p1", "p2"}), frozenset({"p1"})
    judge = ScriptedJudge({"A.": {both, first}, "B.": set()})
    answer = Answer((Sentence("A."), Sentence("B.")), PASSAGES)
    [required] = score_answers([answer], judge.judge_many)
    assert required is not None and (required.recall, required.precision) == (0.0, 0.0)
    assert judge.asked == []  # nothing cited: nothing to ask
    [score] = score_answers([answer], judge.judge_many, modes=["retrieved"])
    assert score is not None
    # recall: A. is entailed by the retrieved set, B. is not; precision: of A.'s two "citations",
    # p1 entails alone, p2 neither alone nor is needed with p1 -> 1 of 2; B. counts its 2 as 0
    assert score.recall == 0.5
    assert score.citations == [True, False, False, False]
    assert score.precision == 0.25
    assert ("A.", both) in judge.asked and ("B.", both) in judge.asked
    assert score.sentences[0].retrieved and "evidence from [1] p1" in score.sentences[0].verdict.reason


def test_ragas_reference_contexts_in_retrieved_mode() -> None:
    answer = Answer((Sentence("A."), Sentence("B.", ("p2",))), PASSAGES)
    assert reference_contexts(answer) == ["Snake plants tolerate low light."]
    assert reference_contexts(answer, "retrieved") == ["Pothos trail from shelves.", "Snake plants tolerate low light."]


def test_report_lines() -> None:
    cases = [Case("a", "s", "q"), Case("b", "s", "q", citations="retrieved")]
    record = settings_record("required", cases, {"uncited": 4})
    assert record == {"citations": "required", "sentence_citations": {"cited": 0, "uncited": 4, "retrieved": 0},
                      "citations_by_case": {"retrieved": 1}}
    assert mode_line(record) == ("citations: required (a sentence without [k] markers is unsupported); "
                                 "set per case or suite: 1 case retrieved")
    assert hint_line(record) == NO_CITATIONS_HINT
    assert hint_line(settings_record("required", cases, {"uncited": 4, "cited": 1})) is None
    assert hint_line(settings_record("retrieved", cases, {"retrieved": 4})) is None
    assert mode_line({}) is None and hint_line(None) is None


# --- ALCE through pytest, with a tiny real NLI model -------------------------------------------


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return tiny_models.zoo(tmp_path_factory.getbasetemp() / "tiny-nli")


def test_alce_tier_in_both_modes(pytester: pytest.Pytester, models: dict[str, Path]) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST, tiers="[alce]")
    model = f"--nli-model={models['entail']}"
    result = pytester.runpytest("-m", "alce", model, "--sprout-report=r.json")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*why: cites no passage*", NO_CITATIONS_HINT.replace("[k]", "[[]k[]]")])
    result = pytester.runpytest("-m", "alce", model, "--sprout-citations=retrieved", "--sprout-report=r.json")
    result.assert_outcomes(passed=2)  # the model entails everything: every sentence, from its retrieved set
    [row] = [r for r in report(pytester)["items"] if r["case_id"] == "snake-light"]
    assert row["metrics"]["citation_recall"] == [1.0]
    assert all(s["judged_against"] == "retrieved" for s in row["sentences"])
    assert "judged against the 2 retrieved passages" in row["sentences"][0]["reason"]


# --- "saturated" says which side --------------------------------------------------------------


def test_saturated_says_all_failed_for_an_uncited_run_and_all_passed_otherwise(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json", "--sprout-md=s.md", "--sprout-html=r.html")
    result.stdout.fnmatch_lines([
        "groundedness*grounded_sentence*0/3*0.000*underpowered, saturated (all failed)",
        "groundedness*refusal*2/2*1.000*underpowered, saturated (all passed)",
        "saturated (all passed): every observation passed*",
        "saturated (all failed): every observation failed; the check never held on this set*",
    ])
    metrics = {m["metric"]: m for m in report(pytester)["metrics"]}
    assert metrics["grounded_sentence"]["saturated"] is True
    assert metrics["grounded_sentence"]["saturated_at"] == "all failed"
    assert metrics["refusal"]["saturated_at"] == "all passed"
    markdown = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert "saturated (all failed) |" in markdown and "saturated (all passed) |" in markdown
    assert "> saturated (all failed): every observation failed" in markdown
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "saturated (all failed)" in page and "saturated (all passed)" in page
    assert 'id="citations-hint"' in page and "citations: required" in page


def test_saturated_side_of_a_metric_row() -> None:
    from pytest_sprout.core.stats import Tally
    from pytest_sprout.core.table import SATURATED_FAILED_NOTE, SATURATED_NOTE, flags, format_table

    tally = Tally()
    for metric, values in {"all": [True] * 4, "none": [False] * 4, "some": [True, False], "ones": [1.0, 1.0],
                           "zeros": [0.0, 0.0]}.items():
        tally.extend("groundedness", metric, values)
    rows = {r.metric: r for r in tally.rows()}
    assert [rows[m].saturated_at for m in ("all", "none", "some", "ones", "zeros")] == [
        "all passed", "all failed", None, "all passed", "all failed"]
    assert "saturated_at" not in rows["some"].to_json() and rows["none"].to_json()["saturated_at"] == "all failed"
    assert flags(rows["none"]) == "underpowered, saturated (all failed)"
    table = format_table([rows["all"], rows["some"]])
    assert SATURATED_NOTE in table and SATURATED_FAILED_NOTE not in table


def test_assert_grounded_takes_the_mode() -> None:
    from pytest_sprout import assert_grounded

    passages = ["Pothos trail from shelves.", "Snake plants tolerate low light."]
    with pytest.raises(AssertionError, match="cites: nothing"):
        assert_grounded("Snake plants tolerate low light.", passages)
    assert_grounded("Snake plants tolerate low light.", passages, citations="retrieved")
    with pytest.raises(AssertionError, match=r"judged against the 2 retrieved passages"):
        assert_grounded("Snake plants need full sun.", passages, citations="retrieved")
    with pytest.raises(ValueError, match="must be one of required, retrieved"):
        assert_grounded("Snake plants tolerate low light.", passages, citations="all")


def test_the_ragas_context_metrics_say_what_they_measure() -> None:
    from pytest_sprout.judges import ragas_tier

    assert "not retrieval precision" in ragas_tier.DESCRIPTIONS["context_precision"]
    assert "not retrieval recall" in ragas_tier.DESCRIPTIONS["context_recall"]
    assert "not the retriever" in ragas_tier.SUMMARY_NOTE


@pytest.mark.usefixtures("llm_libraries")  # tests/conftest.py: Ragas imported before the in-process run
def test_ragas_tier_in_both_modes_with_its_descriptions(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST, tiers="[ragas]")
    result = pytester.runpytest("-m", "ragas", "-p", "no:deepeval", "--sprout-report=r.json", "-rs")
    result.stdout.fnmatch_lines(["ragas: context_precision and context_recall check the answer's citations*",
                                 "*context_precision (the answer cites no passage)*"])
    metrics = {m["metric"]: m for m in report(pytester)["metrics"]}
    assert "citation rank" in metrics["context_precision"]["description"]
    result = pytester.runpytest("-m", "ragas", "-p", "no:deepeval", "--sprout-citations=retrieved", "--sprout-report=r.json")
    result.assert_outcomes(passed=2)  # every retrieved passage is the reference: 1.0 by construction
    rows = [r for r in report(pytester)["items"] if r["tier"] == "ragas"]
    assert all(r["metrics"]["context_recall"] == [1.0] for r in rows)


def test_mutants_in_retrieved_mode_are_false_against_the_retrieved_passages() -> None:
    from pytest_sprout.checks.mutation import mutant_rows
    from pytest_sprout.checks.operators import mutate_sentence
    from pytest_sprout.judges.groundedness import GroundednessTier

    passages = (Passage("a", "Water a pothos every 2 weeks."), Passage("b", "Feed it every 3 weeks in spring."))
    answer = Answer((Sentence("Water a pothos every 2 weeks."),), passages)
    mutants = mutate_sentence(answer, 0, mode="retrieved")
    assert "citation_drop" not in {m.operator for m in mutants}  # nothing to drop, and no false mutant
    numbers = [m.sentence.text for m in mutants if m.operator == "number"]
    assert numbers and not any("every 3 weeks" in text for text in numbers)  # 3 is in a retrieved passage
    tier = GroundednessTier()
    rows = judge_sentences(tier.judge, answer, "retrieved")
    judged = mutant_rows(tier, answer, rows, "retrieved")
    assert judged and all(r["killed"] for r in judged if r["operator"] == "number")
    cited = Answer((Sentence("Water a pothos every 2 weeks.", ("a",)),), passages)
    assert "citation_drop" in {m.operator for m in mutate_sentence(cited, 0)}
    assert "citation_drop" not in {m.operator for m in mutate_sentence(cited, 0, mode="retrieved")}


def test_mutation_testing_follows_the_mode(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=UNCITED_SUITE, conftest=UNCITED_CONFTEST)
    result = pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved", "--sprout-mutate",
                                "--sprout-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    mutants = [m for r in report(pytester)["items"] for m in r.get("mutants") or []]
    assert mutants and "citation_drop" not in {m["operator"] for m in mutants}
    assert all(m["killed"] is not None for m in mutants)


def test_xdist_workers_run_the_same_mode(pytester: pytest.Pytester) -> None:
    suite = UNCITED_SUITE + CITED_CASE + "    citations: required\n"
    make_project(pytester, suite=suite, conftest=UNCITED_CONFTEST)
    pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved", "-p", "no:xdist", "--sprout-report=a.json")
    result = pytester.runpytest("-m", "groundedness", "--sprout-citations=retrieved", "-n", "2", "--sprout-report=b.json")
    result.assert_outcomes(passed=1, failed=2)
    assert report(pytester, "a.json") == report(pytester, "b.json")


def test_a_merge_of_retrieved_mode_shards_says_retrieved(pytester: pytest.Pytester) -> None:
    import sys

    make_project(pytester, suite=UNCITED_SUITE + CITED_CASE, conftest=UNCITED_CONFTEST)
    run = ("-m", "groundedness", "-p", "no:deepeval", "--sprout-citations=retrieved")
    pytester.runpytest(*run, "--sprout-report=single.json")
    for k in (1, 2):
        pytester.runpytest(*run, f"--sprout-shard={k}/2", f"--sprout-report=s{k}.json")
    merged = pytester.run(sys.executable, "-m", "pytest_sprout.merge", "s1.json", "s2.json", "-p", "no:deepeval",
                          "--sprout-report=merged.json")
    assert merged.ret == pytest.ExitCode.TESTS_FAILED
    assert report(pytester, "merged.json") == report(pytester, "single.json")
    assert report(pytester, "merged.json")["settings"]["citations"] == "retrieved"
    merged.stdout.fnmatch_lines(["citations: retrieved*"])
