"""Readings the lexical judge got wrong on real answers and summaries (issue 47): a number with
thousands separators before a comma, an LLM's preamble, an imperative that opens a sentence, and
an answer's own invisible format characters."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, analyse, words_of
from pytest_sprout.judges.lexical.claims import no_claim

PASSAGE = ("Attendance was 45,000, the highest in the club's history. Messi scored twice in the final. "
           "The CDC advises people to follow its advice on masks. Many tourists visit Paris in spring.")


def test_thousands_before_a_comma_are_one_number() -> None:
    assert words_of("Attendance was 45,000, the highest.")[2:4] == ["45,000", ","]
    assert [n.text for n in analyse("It cost 1,200,000, a record.").numbers] == ["1,200,000"]
    assert [n.text for n in analyse("ids 12,345,6 and more").numbers] == ["12", "345", "6"]  # no thousands
    judge = LexicalJudge()
    assert judge.judge("Attendance was 45,000, the highest in the club's history.", [PASSAGE]).supported is True
    wrong = judge.judge("Attendance was 45, the highest in the club's history.", [PASSAGE])
    assert (wrong.supported, wrong.rule) == (False, "number"), wrong.reason


@pytest.mark.parametrize("sentence", [
    "Here is a concise summary of the passage:", "Sure! Here are the key points:", "1.",
    "Below is a short summary of the article.",
])
def test_a_preamble_is_no_claim(sentence: str) -> None:
    assert no_claim(sentence) is not None
    assert LexicalJudge().judge(sentence, [PASSAGE]).supported is None


def test_what_the_source_goes_on_to_say_is_framing_and_the_rest_is_judged() -> None:
    """"The passage then focuses on X" says what the source does: the opening is set aside and X is
    judged (a summary's "The document begins with an introduction to Anger, ..." may be wrong)."""
    judge = LexicalJudge()
    said = judge.judge("The passage then focuses on the final, where Messi scored twice.", [PASSAGE])
    assert said.supported is True and "set aside" in said.reason
    wrong = judge.judge("The document begins with an introduction to the final, where Messi scored 5 goals.", [PASSAGE])
    assert wrong.supported is False, wrong.reason


@pytest.mark.parametrize("sentence", ["The club focuses on youth.", "Here is the town hall.",
                                      "The passage of the bill took two years."])
def test_sentences_like_a_preamble_stay_claims(sentence: str) -> None:
    assert no_claim(sentence) is None


def test_a_list_marker_opening_a_sentence_is_no_number() -> None:
    judge = LexicalJudge()
    for marked in ("1. Messi scored twice in the final.", "(2) Messi scored twice in the final."):
        assert judge.judge(marked, [PASSAGE]).supported is True


def test_an_imperative_opening_a_sentence_is_no_name() -> None:
    assert "follow" not in analyse("Follow CDC advice on masks.").names()
    assert "visit" not in analyse("Visit Paris in spring.").names()
    assert "Apple" in analyse("Apple Music is popular.").names().values()  # a noun stays a name
    judge = LexicalJudge()
    assert judge.judge("Follow CDC advice on masks.", [PASSAGE]).supported is True
    assert judge.judge("Visit Paris in spring.", [PASSAGE]).supported is True


@pytest.mark.parametrize("mark", ["\u200b", "\u200d", "\u00ad", "\u202e", "\u2066", "\ufeff", "\u200f"])
def test_invisible_characters_of_the_answer_change_no_verdict(mark: str) -> None:
    judge = LexicalJudge()
    for claim in ("Messi scored twice in the final.", "Messi scored three times in the final."):
        plain = judge.judge(claim, [PASSAGE])
        marked = judge.judge(claim.replace("ssi", f"s{mark}si").replace(" the", f" {mark}the"), [PASSAGE])
        assert (marked.supported, marked.rule, marked.score) == (plain.supported, plain.rule, plain.score)
