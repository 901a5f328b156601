"""Paraphrases that keep the polarity and names the evidence states in another form or place
(issue 26, rules_version 17): "not X" for the evidence's antonym of X ("not possible" for
"impossible"), a negation shared by words joined with "or", a people or a language for its place
("Libyan" for "Libya"), a name between the same two words where the evidence has another, and
an answer telling its reader to note something ("It is important to note that"), which is framing."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence
from pytest_sprout.judges.lexical.judge import strip_boilerplate
from pytest_sprout.judges.lexical.polarity import _negated_in_claim

judge = LexicalJudge().judge


@pytest.mark.parametrize(("claim", "passage"), [
    # a negative word that is the antonym itself is no "no" besides it
    ("It is not possible to see the core of the planet.", "It is impossible to see the core of the planet."),
    ("Most penguins are not able to fly long distances.", "Most penguins are unable to fly long distances."),
    # an adjective that is also a verb, after "is not": an adjective there
    ("The drug is not safe for young children.", "The drug is unsafe for young children."),
    ("The museum door was not open on Sunday.", "The museum door was closed on Sunday."),
    ("The results were not clear to the researchers.", "The results were unclear to the researchers."),
])
def test_a_negated_word_against_its_antonym_is_a_paraphrase(claim: str, passage: str) -> None:
    verdict = judge(claim, [passage])
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage", "rule"), [
    # the same words without the antonym: the claim's negation is its own
    ("The drug is not safe for young children.", "The drug is safe for young children.", "negation"),
    ("The museum door was not open on Sunday.", "The museum door was open on Sunday.", "negation"),
    ("It is not possible to see the core of the planet.", "It is possible to see the core of the planet.", "negation"),
    # the antonym itself, unnegated, against the word
    ("It is impossible to see the core of the planet.", "It is possible to see the core of the planet.", "antonym"),
    ("The drug is unsafe for young children.", "The drug is safe for young children.", "antonym"),
    # a comparative is left out: "not lower" is not "higher" (the two may be equal)
    ("The price is not lower than last year.", "The price is higher than last year.", "negation"),
    # a "no" of the evidence besides the antonym still counts: "not able" is not "never unable"
    ("Most penguins are not able to fly long distances.", "Most penguins are never unable to fly long distances.", None),
])
def test_polarity_that_differs_is_still_caught(claim: str, passage: str, rule: str | None) -> None:
    verdict = judge(claim, [passage])
    assert verdict.supported is False, verdict.reason
    if rule is not None:
        assert verdict.rule == rule, verdict.reason


def test_words_joined_by_or_share_a_negation() -> None:
    claim = Sentence("Planets are not square or rectangular, nor flat.")
    assert _negated_in_claim(claim, claim.content[1][0]) and _negated_in_claim(claim, claim.content[2][0])
    other = Sentence("Planets are not square, rectangular and flat.")
    assert _negated_in_claim(other, other.content[1][0]) and not _negated_in_claim(other, other.content[2][0])


@pytest.mark.parametrize(("claim", "passage"), [
    ("The Libyan army moved its tanks into the city of Misrata.", "The army of Libya moved its tanks into the city of Misrata."),
    ("Canadians reported good health in the national survey.", "In the national survey, most people in Canada reported good health."),
])
def test_a_people_for_its_place_is_a_name_of_the_passage(claim: str, passage: str) -> None:
    verdict = judge(claim, [passage])
    assert verdict.supported is True, verdict.reason


def test_a_people_for_another_place_is_still_a_name_swap() -> None:
    verdict = judge("The Libyan army moved its tanks into the city of Misrata.",
                    ["The army of Egypt moved its tanks into the city of Misrata."])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason


EVIDENCE = "Linguist William Labov notes that Mid-Atlantic speech fell out of favor after World War II, as fewer teachers taught it."


@pytest.mark.parametrize("opening", [
    "It is important to note that ", "However, it is important to note that ", "It\u2019s worth noting that ",
    "Additionally, it is also important to remember that ", "It should be noted that ", "Keep in mind that ",
])
def test_an_answer_telling_the_reader_to_note_something_is_framing(opening: str) -> None:
    text, aside = strip_boilerplate(opening + "snake plants tolerate low light.")
    assert (text, aside) == ("Snake plants tolerate low light.", opening.strip().rstrip(","))
    verdict = judge(opening + "snake plants tolerate low light.", ["Snake plants tolerate low light."])
    assert verdict.supported is True and "boilerplate" in verdict.reason, verdict.reason
    # what follows the framing is still judged: it may be unsupported
    assert judge(opening + "snake plants are toxic to cats and dogs.", ["Snake plants tolerate low light."]).supported is False
    # not inside a sentence, nor where it is all there is
    assert strip_boilerplate("Water it, and note that the soil dries.")[1] == ""
    assert strip_boilerplate("It is important to note that")[1] == ""
