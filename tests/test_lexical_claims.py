"""Issue 26, item 5: a sentence with no claim of its own is unscored ("no claim"), never a pass
or a fail; a fragment without a verb is judged together with the sentence before it."""

from __future__ import annotations

import json

import pytest

from helpers import make_project
from pytest_sprout.checks import metaeval
from pytest_sprout.core.model import Answer, Case, GoldenItem, Passage, Sentence
from pytest_sprout.judges import groundedness
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.judges.lexical.claims import is_fragment, join_fragments, no_claim

JUDGE = LexicalJudge()
PASSAGE = "Snake plants tolerate low light. They grow faster in bright indirect light."


@pytest.mark.parametrize("sentence, why", [
    ("Based on the given context [1],", "it only announces its source ('Based on the given context [1]')"),
    ("Based on the given context,.", "it only announces its source ('Based on the given context')"),  # marker removed
    ("According to the passages,", "it only announces its source ('According to the passages')"),
    ("Based on the information provided:", "it only announces its source ('Based on the information provided')"),
    ("In conclusion,", "it only frames the answer ('In conclusion')"),
    ("[1][2]", "a citation"),
    ("(Smith et al., 2020).", "a citation"),
    ("(Smith and Jones, 2019; Lee, 2020)", "a citation"),
    ("Sources: [3]", "a citation"),
    ("2.", "a list marker"),
    ("(3)", "a list marker"),
    ('".', "it has no words"),
    ("It is not mentioned whether snake plants flower.", "it says what the sources do not state"),
    ("The context does not say how old the plant is.", "it says what the sources do not state"),
    ("However, the provided documents don't mention the price.", "it says what the sources do not state"),
    ("There is no information about watering.", "it says what the sources do not state"),
    ("Yes.", "it only answers the question ('Yes')"),  # a bare reply: only the question states its claim
    ("Yes, there are.", "it only answers the question ('Yes, there are')"),
    ("No, it doesn't.", "it only answers the question ('No, it doesn't')"),
    ("Generally, yes.", "it only answers the question ('Generally, yes')"),
    ("The short answer is no.", "it only answers the question ('The short answer is no')"),
])
def test_sentences_with_no_claim_are_unscored(sentence: str, why: str) -> None:
    assert no_claim(sentence) == why
    verdict = JUDGE.judge(sentence, [PASSAGE])
    assert (verdict.supported, verdict.rule, verdict.reason) == (None, "no-claim", f"no claim: {why}")


@pytest.mark.parametrize("sentence", [
    "Based on the given context, snake plants tolerate low light.",  # the opening is set aside, the rest judged
    "According to Smith, snake plants tolerate low light.",  # a person is a source of a claim
    "It is not known whether snake plants flower.",  # a claim about the world, not about the passages
    "It is unclear whether snake plants flower.",
    "In 2011, snake plants were popular.",
    "2011.",  # a year, not a list marker
    "(In 2011).",  # a date in brackets, not an author-year citation
    "222 - 0.",
    "Snake plants tolerate low light (Smith et al., 2020).",
    "Yes, snake plants tolerate low light.",  # a reply that states its claim
    "No. Snake plants tolerate low light.",
    "No light is too low for snake plants.",
    "Generally, snake plants tolerate low light.",
    "The short answer is that snake plants tolerate low light.",
])
def test_claims_stay_claims(sentence: str) -> None:
    assert no_claim(sentence) is None
    assert JUDGE.judge(sentence, [PASSAGE]).supported in (True, False)


def test_a_claim_after_a_source_opening_is_judged_as_before() -> None:
    verdict = JUDGE.judge("Based on the given context, snake plants tolerate low light.", [PASSAGE])
    assert verdict.supported is True and "boilerplate 'Based on the given context' set aside" in verdict.reason
    assert JUDGE.judge("The context does not say that snake plants need low light.", [PASSAGE]).supported is None


@pytest.mark.parametrize("sentence, fragment", [
    ("222 - 0.", True), ("In 2011.", True), ("Furthermore, Keranen et al.", True), ("Kevin Sinfield.", True),
    ("it was 222 - 0.", False), ("It's 222 - 0.", False), ("They won 222 - 0.", False),
    ("Record sales.", False),  # "record" can be a verb: not a fragment (the test is narrow on purpose)
])
def test_a_fragment_is_a_sentence_without_a_possible_verb(sentence: str, fragment: bool) -> None:
    assert is_fragment(sentence) is fragment


def test_a_fragment_is_judged_with_the_sentence_before_it() -> None:
    passage = "Cambridge beat Oxford 222 - 0 in the final."
    alone = JUDGE.judge("222 - 0.", [passage])
    together = JUDGE.judge_answer([("Cambridge beat Oxford in the final.", [passage]), ("222 - 0.", [passage])])
    assert [v.supported for v in together] == [True, True]
    assert together[1].reason.endswith("; a fragment, judged with the sentence before it")
    assert alone.reason != together[1].reason
    wrong = JUDGE.judge_answer([("Cambridge beat Oxford in the final.", [passage]), ("3 - 0.", [passage])])
    assert [v.supported for v in wrong] == [True, False] and wrong[1].rule == "number"


def test_a_fragment_takes_the_previous_sentences_passages_and_skips_sentences_with_no_claim() -> None:
    a, b = Passage("1", "Cambridge beat Oxford 222 - 0 in 2011."), Passage("2", "Another passage.")
    pairs, joined = join_fragments([("Cambridge beat Oxford.", [a]), ("[1]", [a]), ("In 2011.", [b])])
    assert pairs[2] == ("Cambridge beat Oxford. In 2011.", [a, b]) and joined == [False, False, True]
    first, _ = join_fragments([("In 2011.", [a])])
    assert first == [("In 2011.", [a])]  # nothing before it: judged alone


def test_metaeval_judges_an_lfqa_fragment_with_its_previous_sentence_and_counts_no_claim_apart() -> None:
    passage = ("Cambridge beat Oxford 222 - 0 in 2011.",)
    examples = [metaeval.Example("a:1:0", "Cambridge beat Oxford.", passage, True),
                metaeval.Example("a:1:1", "In 2011.", passage, True, previous="Cambridge beat Oxford."),
                metaeval.Example("a:1:2", "3.", passage, False, previous="In 2011.")]
    assert metaeval.pairs_of(examples)[1] == ("Cambridge beat Oxford. In 2011.", list(passage))
    verdicts = metaeval.run_judge(JUDGE, examples)
    assert [v.supported for v in verdicts] == [True, True, None]
    result = metaeval.evaluate(examples, verdicts)
    assert result["n"] == 3 and result["unscored"] == 1 and result["overall"]["n"] == 2


def _item(*sentences: str) -> GoldenItem:
    passage = Passage("p1", PASSAGE)
    answer = Answer(sentences=tuple(Sentence(s, ("p1",)) for s in sentences), passages=(passage,))
    return GoldenItem(Case(id="c", suite="s", question="How much light?"), answer)


def test_the_groundedness_tier_leaves_no_claim_sentences_out_of_its_metrics() -> None:
    tier = groundedness.GroundednessTier()
    result = tier.evaluate(_item("Based on the given context,.", "Snake plants tolerate low light."))
    assert result.passed is True and result.metrics["grounded_sentence"] == [True]
    assert [r["supported"] for r in result.sentences] == [None, True] and result.sentences[0]["rule"] == "no-claim"
    failing = tier.evaluate(_item("(Smith et al., 2020).", "Snake plants need full sun."))
    assert failing.passed is False and failing.metrics["grounded_sentence"] == [False]
    assert "1 of 1 sentences unsupported" in failing.message


def test_an_answer_with_no_claim_at_all_is_unscored() -> None:
    result = groundedness.GroundednessTier().evaluate(_item("According to the passages,.", "[1]"))
    assert result.passed is None and result.metrics["grounded"] == [None]
    assert result.note == "no claim: none of the answer's 2 sentences states anything to check"


NO_CLAIM_CONFTEST = '''
ANSWERS = {
    "How much light does a snake plant need?": (
        "Based on the given context [1], [1]. Snake plants tolerate low light [1].",
        ["Snake plants tolerate low light."],
    ),
    "What does the context say?": ("According to the passages [1]: (Smith et al., 2020).",
                                   ["Snake plants tolerate low light."]),
}

def pytest_sprout_make_system(config):
    def system(question):
        return ANSWERS[question]
    system.name = "lookup"
    system.version = "1"
    return system
'''

NO_CLAIM_SUITE = """
suite: care
cases:
  - id: light
    question: How much light does a snake plant need?
  - id: meta
    question: What does the context say?
"""


def test_the_plugin_reports_an_answer_with_no_claim_as_unscored(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=NO_CLAIM_SUITE, conftest=NO_CLAIM_CONFTEST)
    result = pytester.runpytest("-p", "no:deepeval", "-m", "groundedness", "-rs", "--sprout-report=out.json",
                                "--sprout-max-unscored=1")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*unscored: no claim: the answer's one sentence states nothing to check*"])
    rows = {r["case_id"]: r for r in json.loads((pytester.path / "out.json").read_text())["items"]}
    assert rows["light"]["outcome"] == "passed" and rows["meta"]["outcome"] == "unscored"
    assert [s["supported"] for s in rows["light"]["sentences"]] == [None, True]
