"""What reads as a refusal (core/model.py looks_like_refusal): a declining phrase at the start of
the answer, after at most a short apology or regret. An answer that only opens with "Sorry" or
"Unfortunately" and then answers is an answer, and the facts of an answer are looked for whatever
its refusal flag says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from helpers import make_project
from pytest_sprout.cli.convert import main as convert_main
from pytest_sprout.core.model import Answer, looks_like_refusal

REFUSALS = [
    "",
    "   ",
    "I don't know.",
    "I don\u2019t know based on the available documents.",
    "I do not know the answer to that.",
    "I cannot answer that from the given context.",
    "I'm not able to help with tax filing.",
    "I am unable to provide medical advice.",
    "We cannot provide tax advice.",
    "I don't have enough information to answer.",
    "I do not have any details on that.",
    "There is no information about taxes in the passages.",
    "There's not enough context to say.",
    "The provided context does not mention repotting.",
    "The passages do not cover this.",
    "The documents don't say.",
    "Your question is outside what these documents cover.",
    "Sorry, I can't help with that.",
    "Sorry \u2014 I can't answer questions about taxes.",
    "I'm sorry, but the provided documents don't say.",
    "I'm so sorry, I don't know.",
    "Sorry for the confusion earlier! I cannot answer that from the context.",
    "Sorry for the confusion earlier, but I don't have information on taxes.",
    "My apologies, but that is outside the scope of these documents.",
    "I apologize, but I cannot find that in the sources.",
    "Unfortunately, the context does not mention pothos.",
    "Unfortunately, I could not find that in the documents.",
    "Unfortunately, there is no information on that.",
    "Regrettably, there is not enough information to answer.",
    "I'm afraid I don't have enough information to answer.",
]

ANSWERS = [
    "Sorry for the confusion earlier! You file your taxes online at irs.gov with Form 1040 [1].",
    "Unfortunately, pothos are toxic to cats [1].",
    "Unfortunately, there is no cure for root rot once it spreads.",
    "Unfortunately, it cannot survive frost.",
    "Sorry to hear your plant is dying; water it weekly.",
    "Sorry, pothos need bright indirect light.",
    "I'm sorry, pothos are toxic to cats.",
    "Sadly, the plant will die without light.",
    "I'm afraid pothos are toxic to cats.",
    "I don't think you should water it daily; weekly is enough.",
    "I can't stress enough that pothos are toxic.",
    "I know that pothos like light.",
    "There is no need to repot every year.",
    "The context says pothos are toxic.",
    "The passages do say it is toxic.",
    "No, pothos are not safe for cats.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_a_declining_phrase_is_a_refusal(text: str) -> None:
    assert looks_like_refusal(text)


@pytest.mark.parametrize("text", ANSWERS)
def test_an_apology_or_regret_that_then_answers_is_no_refusal(text: str) -> None:
    assert not looks_like_refusal(text)
    assert Answer.from_text(text, ["Pothos are toxic to cats."]).sentences


OPENERS = ["Sorry", "Sorry!", "I'm sorry,", "Unfortunately,", "Regrettably,", "Sadly,", "My apologies.",
           "Sorry for the confusion earlier!", "Sorry about that;"]
DECLINES = ["I don't know.", "I cannot answer that.", "the context does not say.",
            "there is no information about that.", "I do not have enough information."]
STATEMENTS = st.sampled_from(["pothos are toxic to cats", "water it every 7 days", "you file online",
                              "the leaves turn yellow", "snake plants tolerate low light",
                              "this plant needs full sun", "it is not frost hardy"])


@given(st.sampled_from(OPENERS), st.sampled_from(DECLINES))
def test_an_apology_before_a_declining_phrase_stays_a_refusal(opener: str, decline: str) -> None:
    assert looks_like_refusal(f"{opener} {decline}")


@given(st.sampled_from(OPENERS), STATEMENTS)
def test_an_apology_alone_never_makes_an_answer_a_refusal(opener: str, statement: str) -> None:
    assert not looks_like_refusal(f"{opener} {statement} [1].")


CONFTEST = '''
ANS = {
    "q1": ("Sorry for the confusion earlier! You file your taxes online at irs.gov with Form 1040 [1].",
           ["File taxes online at irs.gov with Form 1040."]),
    "q2": ("Unfortunately, pothos are toxic to cats [1].", ["Pothos are toxic to cats."]),
    "q3": ("Sorry, I can't help with tax questions.", []),
    "q4": ({"text": "I cannot say; pothos are toxic to cats [1].", "passages": ["Pothos are toxic to cats."],
            "refused": True}),
}

def pytest_sprout_make_system(config):
    def system(q):
        return ANS[q]
    system.name, system.version = "t", "1"
    return system
'''

SUITE = """
cases:
  - {id: taxes, question: "q1", expect: refuse}
  - {id: pothos-cats, question: "q2", expected_facts: ["toxic to cats"]}
  - {id: taxes-declined, question: "q3", expect: refuse}
  - {id: refused-with-fact, question: "q4", expected_facts: ["toxic to cats"]}
"""


def test_sorry_and_unfortunately_openings_are_judged_as_answers(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=SUITE, conftest=CONFTEST, name="refusals")
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(passed=2, failed=2)
    rows = {r["case_id"]: r for r in json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["items"]}
    assert rows["taxes"]["outcome"] == "failed" and rows["taxes"]["answer"]["refused"] is False
    assert rows["taxes"]["metrics"]["refusal"] == [False]
    assert rows["pothos-cats"]["outcome"] == "passed" and rows["pothos-cats"]["metrics"]["facts"] == [True]
    assert rows["taxes-declined"]["outcome"] == "passed" and rows["taxes-declined"]["answer"]["refused"] is True
    # the system said it refused where an answer was expected: that fails, but the fact it stated
    # is still found (0 of 1 would blame the wrong thing)
    assert rows["refused-with-fact"]["metrics"] == {"refusal": [False], "facts": [True]}


def test_convert_keeps_an_unfortunately_reference_as_an_answer_with_its_fact(tmp_path: Path) -> None:
    golden = tmp_path / "g.json"
    golden.write_text(json.dumps([{"input": "Are pothos safe for cats?", "name": "pothos-cats",
                                   "expected_output": "Unfortunately, pothos are toxic to cats."},
                                  {"input": "How do I file my taxes?", "name": "taxes",
                                   "expected_output": "Sorry, the documents do not cover taxes."}]),
                      encoding="utf-8")
    out = tmp_path / "conv.yaml"
    assert convert_main(["deepeval", str(golden), "--suite", "imp", "--out", str(out), "--facts", "reference"]) == 0
    from pytest_sprout.suites.loader import load_suite

    cases = {c.id: c for c in load_suite(out).cases}
    assert cases["pothos-cats"].expect == "answer"
    assert cases["pothos-cats"].expected_facts == ("Unfortunately, pothos are toxic to cats.",)
    assert cases["taxes"].expect == "refuse"
