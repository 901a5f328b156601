"""A name in another name's slot (issue 26, rules_version 18): a run of capitalised words of the
claim between the same tokens, as written, as another run of an evidence sentence
(``names.check_name_slot``), found in the real-answer entity-swap mutants the judge accepted."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence
from pytest_sprout.judges.lexical.names import check_name_slot

judge = LexicalJudge().judge

ANNOUNCED = ("In December 2017, Facebook announced that posts that goad people into liking and sharing were taking "
             "advantage of the News Feed algorithm.")


@pytest.mark.parametrize(("claim", "passage", "ours", "theirs"), [
    # the claim's name is elsewhere in the same sentence: the name rules that need a sentence without it miss it
    ("In December 2017, News Feed announced that such posts would be demoted.", ANNOUNCED, "News Feed", "Facebook"),
    # a name the tokens read as a stop word ("US" lowers to "us")
    ("The OS government insists that the key would be used only by the police.",
     "The US government insists that the key would be used only by the police.", "OS", "US"),
    # two names that trade places, each in the other's slot
    ("The World Trade Organization has already notified the European Union of plans to levy duties.",
     "The European Union has already notified the World Trade Organization of plans to levy duties.",
     "European Union", "World Trade Organization"),
])
def test_a_name_in_the_slot_of_another_is_an_entity_failure(claim: str, passage: str, ours: str, theirs: str) -> None:
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert f"claim has '{ours}' where an evidence sentence has '{theirs}' between the same words" in verdict.reason


@pytest.mark.parametrize(("claim", "evidence"), [
    # the claim's own name after the same tokens somewhere in the evidence: stated in its place
    ("In December 2017, Facebook announced that such posts would be demoted.", ANNOUNCED),
    # a name and a part of it ("Obama", "Barack Obama"), or its initials ("US", "United States")
    ("President Obama said on Monday that the talks would go on.", "President Barack Obama said on Monday that the talks would go on."),
    ("The United States government insists that the key is safe.", "The US government insists that the key is safe."),
    # a month or a weekday is a date's (the date rule's)
    ("The council met in March 2019 to approve the budget.", "The council met in May 2019 to approve the budget."),
    # too little around it: a stop word and a mark are what many names share
    ("It was Smith, and the others left.", "It was Jones, and the others left."),
])
def test_a_name_stated_in_place_or_no_rival_passes_the_rule(claim: str, evidence: str) -> None:
    assert check_name_slot(Sentence(claim), [Sentence(evidence)]) is None


def test_the_tokens_as_written_keep_capitals_and_one_apostrophe() -> None:
    toks, low = Sentence("Tupac\u2019s estate paid $4.5 million to the U.S. Treasury.").written()
    assert toks[:2] == ["Tupac\u2019s", "estate"] and low[0] == "tupac's" and "u.s" in low
    assert len(toks) == len(low)
    where = Sentence("the cat and the dog").where()
    assert where["the"] == [0, 3] and where["dog"] == [4]
    # the same name with either apostrophe is the same name: no rival
    assert check_name_slot(Sentence("The trust outlined heirs to Tupac's fortune, naming charities."),
                           [Sentence("The trust outlines heirs to Tupac\u2019s fortune, naming charities.")]) is None
